import CLibPQ

/// One libpq connection with its prepared statements, cached by SQL text.
///
/// Statements use the store's `?`/`?N` placeholders, turned into `$N` once when
/// prepared. Parameters go as text (integers in decimal) or, for bytes, binary;
/// results come back in binary. A connection whose link to the server broke says
/// so in `isBroken`, and the pool drops it.
final class PostgresConnection: SQLConnection {
    var dialect: SQLDialect { .postgres }
    var outboxDeliveries = 0
    private let handle: OpaquePointer
    /// Prepared statement names by the store's SQL text.
    private var prepared: [String: String] = [:]

    /// Connects with a libpq connection URL or keyword string.
    init(url: String) throws(StoreError) {
        guard let handle = PQconnectdb(url) else {
            throw StoreError(.database, "cannot connect to PostgreSQL: out of memory")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.trimmed(String(cString: PQerrorMessage(handle)))
            PQfinish(handle)
            throw StoreError(
                .database, "cannot connect to PostgreSQL at \(PostgresDatabase.redacted(url)): \(message)",
                sqlState: "08001")
        }
        self.handle = handle
        // Notices (such as "relation already exists, skipping") are not the caller's business.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// Whether the link to the server is gone; such a connection is never reused.
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }

    func execute(_ sql: String) throws(StoreError) {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result, sql: sql)
    }

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int {
        let result = try query(sql, values)
        defer { PQclear(result) }
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    func forEachRow(_ sql: String, _ values: [SQLValue], _ body: (Row) throws(StoreError) -> Void) throws(StoreError) {
        let result = try query(sql, values)
        defer { PQclear(result) }
        for index in 0..<PQntuples(result) { try body(Row(source: .postgres(result, index))) }
    }

    func firstRow<T>(_ sql: String, _ values: [SQLValue], _ transform: (Row) throws(StoreError) -> T) throws(StoreError)
        -> T?
    {
        let result = try query(sql, values)
        defer { PQclear(result) }
        guard PQntuples(result) > 0 else { return nil }
        return try transform(Row(source: .postgres(result, 0)))
    }

    /// Runs a prepared statement; the caller clears the result.
    private func query(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> OpaquePointer {
        let name = try statementName(sql)
        var pointers: [UnsafePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var owned: [UnsafeMutableRawBufferPointer] = []
        pointers.reserveCapacity(values.count)
        defer { for buffer in owned { buffer.deallocate() } }
        /// A copy of the value's bytes, NUL-terminated (text format needs it; binary ignores it).
        func append(_ bytes: some Collection<UInt8>, format: Int32) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 1)
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
            owned.append(buffer)
            pointers.append(UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: CChar.self)))
            lengths.append(Int32(bytes.count))
            formats.append(format)
        }
        for value in values {
            switch value {
            case .null:
                pointers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let number): append(String(number).utf8, format: 0)
            case .text(let text):
                // Text parameters end at their first NUL, and PostgreSQL text holds none: refuse, never cut.
                guard !text.utf8.contains(0) else {
                    throw StoreError(.invalidArgument, "text with a NUL character cannot be stored", sql: sql)
                }
                append(text.utf8, format: 0)
            case .blob(let bytes): append(bytes, format: 1)
            }
        }
        let result = PQexecPrepared(handle, name, Int32(values.count), pointers, lengths, formats, 1)
        do {
            try check(result, sql: sql)
        } catch {
            PQclear(result)
            throw error
        }
        return result!
    }

    /// The name of the prepared statement for `sql`, preparing it on first use.
    private func statementName(_ sql: String) throws(StoreError) -> String {
        if let name = prepared[sql] { return name }
        let name = "almanac_\(prepared.count)"
        let result = PQprepare(handle, name, Self.numberedPlaceholders(sql), 0, nil)
        defer { PQclear(result) }
        try check(result, sql: sql)
        prepared[sql] = name
        return name
    }

    /// Throws unless `result` is a success; the error names the SQLSTATE.
    private func check(_ result: OpaquePointer?, sql: String) throws(StoreError) {
        if let result {
            let status = PQresultStatus(result)
            if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return }
        }
        if isBroken {
            let detail = Self.trimmed(String(cString: PQerrorMessage(handle)))
            throw StoreError(.database, "lost the connection to PostgreSQL: \(detail)", sqlState: "08006", sql: sql)
        }
        let state = result.flatMap { clibpq_sqlstate($0) }.map { String(cString: $0) }
        let message =
            result.flatMap { clibpq_message($0) }.map { String(cString: $0) }
            ?? Self.trimmed(String(cString: PQerrorMessage(handle)))
        // Class 53: insufficient resources (53100 disk_full, 53200 out of memory, 53300 too many connections).
        if state == "53100" {
            throw StoreError(
                .insufficientStorage, "the database server's disk is full; nothing was written", sqlState: state,
                sql: sql)
        }
        throw StoreError(.database, message, sqlState: state, sql: sql)
    }

    /// The SQL with SQLite-style placeholders (`?`, `?N`) written as PostgreSQL's `$N`;
    /// a bare `?` takes the number after the largest so far, as in SQLite. Quoted text
    /// is left alone.
    static func numberedPlaceholders(_ sql: String) -> String {
        var output: [UInt8] = []
        let bytes = Array(sql.utf8)
        output.reserveCapacity(bytes.count + 8)
        var largest = 0
        var index = 0
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                output.append(byte)
                if byte == open { quote = nil }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
                output.append(byte)
                index += 1
                continue
            }
            guard byte == UInt8(ascii: "?") else {
                output.append(byte)
                index += 1
                continue
            }
            index += 1
            var number = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                number = number * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            if digits == 0 { number = largest + 1 }
            largest = max(largest, number)
            output.append(UInt8(ascii: "$"))
            output.append(contentsOf: String(number).utf8)
        }
        return String(decoding: output, as: UTF8.self)
    }
}

@available(*, unavailable)
extension PostgresConnection: Sendable {}
