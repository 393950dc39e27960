import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connection handed from the pool to one caller at a time.
private struct PooledPostgres: @unchecked Sendable {
    let connection: PostgresConnection
}

/// A PostgreSQL database behind a store, shared by any number of processes: a pool
/// of connections per process, each transaction on one of them.
///
/// Writes run `READ COMMITTED`, and a write to a calendar first locks the calendar's
/// row (`FOR UPDATE`), so the writers of one calendar — in this process or another —
/// take turns, and each statement after the lock sees what the writer before it
/// committed: preconditions (`If-Match`, `If-None-Match`) and UID checks hold, and
/// every change sequence is taken by one write, in commit order, so an incremental
/// sync never skips one. Where a write still loses a race — a deadlock between two
/// calendars' locks, a unique key another write took first — it runs again from
/// the start and its checks see the winner's result.
///
/// Reads run `REPEATABLE READ READ ONLY`: one snapshot for the whole operation.
///
/// When the server goes away (a restart, a failover) the transactions on the lost
/// connections fail with `StoreError.database` (HTTP 503); idle connections are
/// found broken when next used and replaced before anything ran on them, so later
/// operations succeed as soon as the server is back.
final class PostgresDatabase: StoreDatabase {
    let url: String
    let location: String
    var dialect: SQLDialect { .postgres }
    let outbox = OutboxSignal()
    private let idle = Mutex<[PooledPostgres]>([])
    private let maxIdle: Int
    /// How many times a write that lost a conflict runs again before giving up.
    static let maxAttempts = 50

    init(url: String, maxIdle: Int = 16) throws(StoreError) {
        self.url = Self.withDefaults(url)
        self.location = Self.redacted(url)
        self.maxIdle = maxIdle
        let connection = try PostgresConnection(url: self.url)
        try PostgresSchema.migrate(connection)
        idle.withLock { $0.append(PooledPostgres(connection: connection)) }
    }

    /// The URL with what the URL leaves unsaid: a 10-second connect timeout (libpq waits
    /// forever by default, so a request would hang on an unreachable host) and the
    /// application name operators see in `pg_stat_activity`.
    static func withDefaults(_ url: String) -> String {
        var url = url
        for (key, value) in [("connect_timeout", "10"), ("application_name", "almanac")] where !url.contains(key + "=")
        {
            url += (url.contains("?") ? "&" : "?") + key + "=" + value
        }
        return url
    }

    /// The URL without its password.
    static func redacted(_ url: String) -> String {
        let parts = url.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let slashes = parts[0].firstIndex(of: "/"),
            let colon = parts[0][slashes...].firstIndex(of: ":")
        else { return url }
        return String(parts[0][..<colon]) + "@" + String(parts[1])
    }

    /// Runs `body` in a write transaction, again after a conflict with a concurrent one;
    /// the calling request's ``IdempotencyClaim`` is recorded in the same transaction.
    func write<T: Sendable>(_ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        let claim = IdempotencyClaim.pending
        var attempt = 1
        while true {
            do {
                var queued = false
                let value = try transaction("BEGIN") { (connection) throws(StoreError) -> T in
                    let before = connection.outboxDeliveries
                    let value = try body(connection)
                    try claim?.record(connection)
                    queued = connection.outboxDeliveries != before
                    return value
                }
                claim?.committed()
                if queued { outbox.poke() }
                return value
            } catch {
                guard attempt < Self.maxAttempts, Self.isConflict(error) else { throw error }
                attempt += 1
                // Back off a little, more after each loss, so the writers spread out.
                usleep(UInt32.random(in: 200...1_000) * UInt32(min(attempt, 20)))
            }
        }
    }

    func read<T: Sendable>(_ body: (Connection) throws(StoreError) -> T) throws(StoreError) -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    /// Whether a write failed only because a concurrent one won: a serialization
    /// failure, a deadlock, or a unique key taken by a write this one did not see.
    static func isConflict(_ error: StoreError) -> Bool {
        guard error.code == .database, let state = error.sqlState else { return false }
        return state == "40001" || state == "40P01" || state == "23505"
    }

    /// Runs `body` between `begin` and COMMIT on a pooled connection. A pooled
    /// connection found broken before anything ran on it is dropped for another.
    private func transaction<T: Sendable>(_ begin: String, _ body: (Connection) throws(StoreError) -> T)
        throws(StoreError) -> T
    {
        while true {
            let (connection, fresh) = try take()
            do {
                try connection.run(begin)
            } catch {
                if connection.isBroken && !fresh { continue }
                if !connection.isBroken { give(connection) }
                throw error
            }
            do {
                let result = try body(connection)
                try connection.run("COMMIT")
                give(connection)
                return result
            } catch {
                if !connection.isBroken {
                    _ = try? connection.run("ROLLBACK")
                    give(connection)
                }
                throw error
            }
        }
    }

    private func take() throws(StoreError) -> (PostgresConnection, fresh: Bool) {
        if let pooled = idle.withLock({ $0.popLast() }) { return (pooled.connection, false) }
        return (try PostgresConnection(url: url), true)
    }

    private func give(_ connection: PostgresConnection) {
        let pooled = PooledPostgres(connection: connection)
        idle.withLock { connections in
            if connections.count < maxIdle { connections.append(pooled) }
        }
    }

    /// The schema version, and indexes PostgreSQL marked invalid (a failed concurrent build).
    func engineCheck() throws(StoreError) -> [String] {
        try read { (connection) throws(StoreError) -> [String] in
            var problems: [String] = []
            let version = try connection.firstRow("SELECT version FROM almanac_schema") { $0.int(0) } ?? 0
            if version != PostgresSchema.migrations.count {
                problems.append(
                    "schema version \(version), this Almanac expects \(PostgresSchema.migrations.count) (run almanac db migrate)"
                )
            }
            let invalid = try connection.rows(
                """
                SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE NOT i.indisvalid AND n.nspname = current_schema()
                """
            ) { $0.string(0) }
            problems += invalid.map { "index \($0) is invalid (rebuild it with REINDEX)" }
            return problems.isEmpty ? ["ok"] : problems
        }
    }
}
