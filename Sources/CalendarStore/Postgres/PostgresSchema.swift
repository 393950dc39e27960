/// The store's tables on PostgreSQL: the same tables and columns as on SQLite
/// (`SQLiteSchema`), so one set of statements serves both, with PostgreSQL's types
/// (64-bit integers, `bytea`) and its own range index.
///
/// `almanac_schema.version` holds the number of migrations applied. They run at
/// start, inside one transaction that holds an advisory lock for the schema, so
/// processes starting together migrate once and the others wait, then find the
/// work done. A database from a newer Almanac is refused.
enum PostgresSchema {
    /// Text compares and sorts by bytes, as SQLite's does, whatever the cluster's locale.
    static let text = "TEXT COLLATE \"C\""

    /// Every migration in order: each feature's are in `Migrations/`, numbered in the order
    /// they were first applied (existing databases keep their numbers).
    static let migrations: [String] = Migration.inOrder(
        eventsMigrations, appStateMigrations, sharingMigrations, schedulingMigrations, webhooksMigrations,
        bookingsMigrations, remindersMigrations, pushMigrations)

    /// Applies the migrations not yet applied; returns how many it applied.
    @discardableResult
    static func migrate(_ connection: PostgresConnection) throws(StoreError) -> Int {
        try connection.run("BEGIN")
        do throws(StoreError) {
            // One lock per schema: processes on other schemas of the cluster need not wait.
            try connection.run("SELECT pg_advisory_xact_lock(hashtext('almanac-schema:' || current_schema()))")
            try connection.execute("CREATE TABLE IF NOT EXISTS almanac_schema (version INTEGER NOT NULL)")
            var version = try connection.firstRow("SELECT version FROM almanac_schema") { $0.int(0) }
            if version == nil {
                try connection.run("INSERT INTO almanac_schema (version) VALUES (0)")
                version = 0
            }
            let current = version!
            guard current <= migrations.count else {
                throw StoreError(
                    .database,
                    "the database has schema version \(current), newer than this Almanac knows (\(migrations.count)); upgrade Almanac"
                )
            }
            for migration in migrations[current...] { try connection.execute(migration) }
            try connection.run("UPDATE almanac_schema SET version = ?", [.int(migrations.count)])
            try connection.run("COMMIT")
            return migrations.count - current
        } catch {
            if !connection.isBroken { _ = try? connection.run("ROLLBACK") }
            throw error
        }
    }
}
