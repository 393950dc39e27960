import Dispatch
import Synchronization

/// A connection handed from the pool to one caller at a time; the pool, not the
/// type system, guarantees that a connection has one owner.
private struct PooledConnection: @unchecked Sendable {
    let connection: SQLiteConnection
}

/// The SQLite file behind a store: one writer connection, whose transactions
/// commit concurrent writes in groups (``GroupCommit``), and a pool of reader
/// connections that see committed snapshots in parallel (WAL).
///
/// Settings every connection gets: WAL journal, `synchronous=FULL` (a commit
/// returns only once durable), foreign keys, a 10 s busy timeout (so a CLI and a
/// server can share the file). The schema is migrated on open.
final class SQLiteDatabase: StoreDatabase {
    let path: String
    var dialect: SQLDialect { .sqlite }
    let outbox = OutboxSignal()
    var location: String { path }
    private let writer: Mutex<PooledConnection>
    let commits = GroupCommit()
    private let readers = Mutex<[PooledConnection]>([])
    private let maxIdleReaders: Int

    /// - Parameter maxIdleReaders: reader connections kept open between reads.
    init(path: String, maxIdleReaders: Int = 8) throws(StoreError) {
        self.path = path
        self.maxIdleReaders = maxIdleReaders
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute(
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = FULL;
            PRAGMA foreign_keys = ON;
            PRAGMA cache_size = -32768;
            """)
        try SQLiteSchema.migrate(connection)
        writer = Mutex(PooledConnection(connection: connection))
    }

    /// Runs `body` in a write transaction on the writer connection, grouped with the
    /// writes that arrive meanwhile (``GroupCommit``); rolls back on throw. The calling
    /// request's ``IdempotencyClaim`` is recorded in the same transaction.
    func write<T: Sendable>(_ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        let claim = IdempotencyClaim.pending
        var queued = false
        let value = try commits.write(
            { (connection) throws(StoreError) -> T in
                let before = connection.outboxDeliveries
                let value = try body(connection)
                try claim?.record(connection)
                queued = connection.outboxDeliveries != before
                return value
            },
            onWriter: { work in writer.withLock { work($0.connection) } })
        claim?.committed()
        if queued { outbox.poke() }
        return value
    }

    /// Read transactions at once. With a thread per connection (`serve --threads 0`)
    /// and 64 connections reading while writes commit, unbounded readers took 485 ms
    /// a query (SQLite's WAL has five read marks, and a reader that finds none free
    /// backs off in sleeps), and each reader connection's page cache is memory of its
    /// own. Four at a time keep two cores busy; a pool of one thread per core never
    /// waits here.
    static let concurrentReads = 4
    private let readSlots = DispatchSemaphore(value: SQLiteDatabase.concurrentReads)

    /// Runs `body` in a read transaction on a pooled reader connection.
    func read<T: Sendable>(_ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        readSlots.wait()
        defer { readSlots.signal() }
        let pooled = try takeReader()
        defer { returnReader(pooled) }
        return try pooled.connection.readTransaction { () throws(StoreError) -> T in try body(pooled.connection) }
    }

    private func takeReader() throws(StoreError) -> PooledConnection {
        if let pooled = readers.withLock({ $0.popLast() }) { return pooled }
        let connection = try SQLiteConnection(path: path, readOnly: true)
        try connection.execute("PRAGMA cache_size = -65536; PRAGMA mmap_size = 268435456;")
        return PooledConnection(connection: connection)
    }

    private func returnReader(_ pooled: PooledConnection) {
        readers.withLock { idle in
            if idle.count < maxIdleReaders { idle.append(pooled) }
        }
    }

    /// `PRAGMA integrity_check`: "ok", or SQLite's list of problems.
    func engineCheck() throws(StoreError) -> [String] {
        try writer.withLock { (pooled) throws(StoreError) -> [String] in
            try pooled.connection.rows("PRAGMA integrity_check", []) { $0.string(0) }
        }
    }

    /// Copies the database to `destination` with SQLite's online backup API, a few
    /// pages at a time, so readers and writers go on meanwhile.
    func backup(to destination: String) throws(StoreError) {
        let target = try SQLiteConnection(path: destination, readOnly: false)
        try writer.withLock { (pooled) throws(StoreError) in
            try SQLiteBackup.copy(from: pooled.connection, to: target)
        }
    }
}
