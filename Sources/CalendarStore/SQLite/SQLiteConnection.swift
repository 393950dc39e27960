import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One open SQLite database handle with its prepared statements, cached by SQL text.
///
/// A connection is used by one thread at a time: the store hands it out from a
/// pool (readers) or under a lock (the writer), never to two owners at once.
final class SQLiteConnection: SQLConnection {
    var dialect: SQLDialect { .sqlite }
    var outboxDeliveries = 0
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (and for the writer, creates) the database file at `path`.
    init(path: String, readOnly: Bool) throws(StoreError) {
        var pointer: OpaquePointer?
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &pointer, flags, nil)
        guard status == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(pointer)
            throw StoreError(.database, "cannot open the database \(path): \(message)", sqliteCode: status)
        }
        handle = pointer
        sqlite3_busy_timeout(handle, 10_000)
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ status: Int32, sql: String?) -> StoreError {
        // A full disk shows as SQLITE_FULL, or as an I/O error whose errno is ENOSPC.
        let full =
            status & 0xFF == SQLITE_FULL || (status & 0xFF == SQLITE_IOERR && sqlite3_system_errno(handle) == ENOSPC)
        if full {
            return StoreError(
                .insufficientStorage,
                "the disk holding the store is full; nothing was written (\(String(cString: sqlite3_errmsg(handle))))",
                sqliteCode: status, sql: sql)
        }
        return StoreError(.database, String(cString: sqlite3_errmsg(handle)), sqliteCode: status, sql: sql)
    }

    /// Runs one or more statements without parameters (schema, pragmas).
    func execute(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            sqlite3_free(message)
            throw error(status, sql: sql)
        }
    }

    /// The cached statement for `sql`, prepared on first use.
    func statement(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        var pointer: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard status == SQLITE_OK, let pointer else { throw error(status, sql: sql) }
        let statement = SQLiteStatement(handle: pointer, connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows; returns the number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {}
        return Int(sqlite3_changes64(handle))
    }

    /// Calls `body` with each row of a query.
    func forEachRow(_ sql: String, _ values: [SQLValue], _ body: (Row) throws(StoreError) -> Void) throws(StoreError) {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() { try body(Row(source: .sqlite(statement.handle))) }
    }

    /// The first row of a query turned into a value, or nil when there is none.
    func firstRow<T>(_ sql: String, _ values: [SQLValue], _ transform: (Row) throws(StoreError) -> T) throws(StoreError)
        -> T?
    {
        let statement = try statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return try transform(Row(source: .sqlite(statement.handle)))
    }

    /// Whether a transaction is open (SQLite ends one itself on some errors).
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws
    /// and rethrows its error. `BEGIN IMMEDIATE` takes the write lock up front, so two
    /// writers never deadlock upgrading a read lock.
    func transaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { _ = try? run("ROLLBACK") }
            throw error
        }
    }

    /// Runs `body` in a read transaction, so every query in it sees one snapshot.
    func readTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try run("BEGIN")
        defer { _ = try? run("COMMIT") }
        return try body()
    }
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}

/// A prepared statement, owned by its connection's cache.
final class SQLiteStatement {
    let handle: OpaquePointer
    unowned let connection: SQLiteConnection
    let sql: String

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ values: [SQLValue]) throws(StoreError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(handle, index)
            case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
            case .text(let text):
                var text = text
                status = text.withUTF8 { bytes in
                    bytes.withMemoryRebound(to: CChar.self) {
                        csqlite_bind_text(handle, index, $0.baseAddress, Int32($0.count))
                    }
                }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes {
                    csqlite_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count))
                }
            }
            if status != SQLITE_OK { throw connection.error(status, sql: sql) }
        }
    }

    /// Advances to the next row; false when the statement is done.
    func step() throws(StoreError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(status, sql: sql)
        }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}
