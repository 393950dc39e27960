import CLibPQ
import CSQLite

/// A value bound to a statement parameter.
enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

extension SQLValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    init(stringLiteral value: String) { self = .text(value) }
    init(integerLiteral value: Int) { self = .integer(Int64(value)) }
    init(nilLiteral: ()) { self = .null }

    static func int(_ value: Int) -> SQLValue { .integer(Int64(value)) }
    static func optional(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    static func optional(_ value: Int?) -> SQLValue { value.map { .integer(Int64($0)) } ?? .null }
}

/// Where the two SQL databases differ in the few statements the store cannot write
/// one way for both.
enum SQLDialect: Sendable {
    case sqlite
    case postgres

    /// Appended to a query of `calendars c` in a write: locks the calendar's row until
    /// the transaction ends, so writers of one calendar (in any process) take turns and
    /// each sees the one before. SQLite needs none: it has one writer at a time.
    var lockCalendar: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE OF c"
        }
    }

    /// A fresh delivery id, evaluated per row: `dl_` and 24 random hex digits.
    var newDeliveryID: String {
        switch self {
        case .sqlite: "'dl_' || lower(hex(randomblob(12)))"
        case .postgres: "'dl_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24)"
        }
    }

    /// `column` in a condition no index may serve: SQLite, without statistics, takes
    /// any index whose leading columns a query names, even one that matches half the
    /// table (a state) when another matches a handful of rows (an object's).
    func unindexed(_ column: String) -> String {
        switch self {
        case .sqlite: "+" + column
        case .postgres: column
        }
    }

    /// `FOR UPDATE SKIP LOCKED` where rows have locks (PostgreSQL); SQLite has one writer.
    var skipLocked: String {
        switch self {
        case .sqlite: ""
        case .postgres: " FOR UPDATE OF q SKIP LOCKED"
        }
    }

    /// A statement that locks a user's row (binds the row id), for writes that must not
    /// race on what the user owns; nil on SQLite.
    var lockUser: String? {
        switch self {
        case .sqlite: nil
        case .postgres: "SELECT id FROM users WHERE id = ? FOR UPDATE"
        }
    }
}

/// One open database connection with its prepared statements, used by one thread at
/// a time (the database hands it out from a pool or under a lock).
///
/// Statements are written once for both databases: `?` and `?N` placeholders (the
/// PostgreSQL connection turns them into `$N`), `INSERT … ON CONFLICT`, and
/// `RETURNING`. Where they cannot agree, the store asks `dialect`.
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Webhook deliveries this connection's transactions have put in the outbox, counted
    /// up; the database's write compares it around a write to wake the dispatchers
    /// once the write commits.
    var outboxDeliveries: Int { get set }
    /// Runs one or more statements without parameters (schema changes).
    func execute(_ sql: String) throws(StoreError)
    /// Runs a statement; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int
    /// Calls `body` with each row of a query.
    func forEachRow(_ sql: String, _ values: [SQLValue], _ body: (Row) throws(StoreError) -> Void) throws(StoreError)
    /// The first row of a query turned into a value, or nil when there is none.
    func firstRow<T>(_ sql: String, _ values: [SQLValue], _ transform: (Row) throws(StoreError) -> T) throws(StoreError)
        -> T?
}

/// PostgreSQL array literals, for passing many values as one parameter (`= ANY(CAST(? AS TEXT[]))`).
enum SQLArray {
    /// `{"a","b"}`: every element quoted, with `"` and `\` escaped, so any text is safe.
    static func literal(_ elements: some Sequence<String>) -> String {
        var text = "{"
        var first = true
        for element in elements {
            if !first { text += "," }
            first = false
            text += "\""
            for character in element.unicodeScalars {
                if character == "\"" || character == "\\" { text += "\\" }
                text.unicodeScalars.append(character)
            }
            text += "\""
        }
        return text + "}"
    }
}

/// The connection type the store's statements run on.
typealias Connection = any SQLConnection

extension SQLConnection {
    @discardableResult
    func run(_ sql: String) throws(StoreError) -> Int { try run(sql, []) }

    /// The rows of a query, each turned into a value by `transform`.
    func rows<T>(_ sql: String, _ values: [SQLValue] = [], _ transform: (Row) throws(StoreError) -> T)
        throws(StoreError) -> [T]
    {
        var result: [T] = []
        try forEachRow(sql, values) { (row) throws(StoreError) in result.append(try transform(row)) }
        return result
    }

    func firstRow<T>(_ sql: String, _ transform: (Row) throws(StoreError) -> T) throws(StoreError) -> T? {
        try firstRow(sql, [], transform)
    }
}

/// The database behind a store: connections for write transactions and for read
/// transactions that each see one committed snapshot.
protocol StoreDatabase: Sendable {
    var dialect: SQLDialect { get }
    /// Poked after each committed write that put webhook deliveries in the outbox.
    var outbox: OutboxSignal { get }
    /// Where the database is, for messages (a file path, or a URL without its password).
    var location: String { get }
    /// Runs `body` in a write transaction; commits when it returns, rolls back when it
    /// throws. A database that detects a conflicting concurrent write may run `body`
    /// again from the start, so `body` must do nothing but database work.
    func write<T: Sendable>(_ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T
    /// Runs `body` in a read transaction: every query in it sees one snapshot.
    func read<T: Sendable>(_ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T
    /// The database's own consistency check: `["ok"]`, or the problems it found.
    func engineCheck() throws(StoreError) -> [String]
}

/// The current row of a query; valid only inside the closure that receives it.
struct Row {
    enum Source {
        /// An SQLite statement positioned on a row.
        case sqlite(OpaquePointer)
        /// A PostgreSQL result (binary format) and the row's index.
        case postgres(OpaquePointer, Int32)
    }

    let source: Source

    func isNull(_ column: Int32) -> Bool {
        switch source {
        case .sqlite(let statement): sqlite3_column_type(statement, column) == SQLITE_NULL
        case .postgres(let result, let row): PQgetisnull(result, row, column) != 0
        }
    }

    func int64(_ column: Int32) -> Int64 {
        switch source {
        case .sqlite(let statement):
            return sqlite3_column_int64(statement, column)
        case .postgres(let result, let row):
            guard PQgetisnull(result, row, column) == 0, let value = PQgetvalue(result, row, column) else { return 0 }
            let raw = UnsafeRawPointer(value)
            // Binary format: big-endian integers of the column's width.
            switch PQftype(result, column) {
            case PostgresType.int8: return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
            case PostgresType.int4: return Int64(Int32(bigEndian: raw.loadUnaligned(as: Int32.self)))
            case PostgresType.int2: return Int64(Int16(bigEndian: raw.loadUnaligned(as: Int16.self)))
            case PostgresType.bool: return Int64(raw.load(as: UInt8.self))
            default: return Int64(string(column)) ?? 0
            }
        }
    }

    func int(_ column: Int32) -> Int { Int(int64(column)) }
    func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }

    func string(_ column: Int32) -> String {
        switch source {
        case .sqlite(let statement):
            guard let text = sqlite3_column_text(statement, column) else { return "" }
            let count = Int(sqlite3_column_bytes(statement, column))
            return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
        case .postgres(let result, let row):
            guard let value = PQgetvalue(result, row, column) else { return "" }
            let count = Int(PQgetlength(result, row, column))
            return value.withMemoryRebound(to: UInt8.self, capacity: count) {
                String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
            }
        }
    }

    func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }

    func bytes(_ column: Int32) -> [UInt8] {
        switch source {
        case .sqlite(let statement):
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: pointer, count: count))
        case .postgres(let result, let row):
            let count = Int(PQgetlength(result, row, column))
            guard count > 0, let pointer = PQgetvalue(result, row, column) else { return [] }
            return Array(UnsafeRawBufferPointer(start: pointer, count: count))
        }
    }

    /// The column's value as it is stored, for copying rows between databases.
    func value(_ column: Int32) -> SQLValue {
        if isNull(column) { return .null }
        switch source {
        case .sqlite(let statement):
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER: return .integer(int64(column))
            case SQLITE_BLOB: return .blob(bytes(column))
            default: return .text(string(column))
            }
        case .postgres(let result, _):
            switch PQftype(result, column) {
            case PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.bool:
                return .integer(int64(column))
            case PostgresType.bytea: return .blob(bytes(column))
            default: return .text(string(column))
            }
        }
    }
}

/// The type OIDs of PostgreSQL's built-in types that rows are read as.
enum PostgresType {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
}
