/// The store's tables, created and upgraded by numbered migrations.
///
/// `PRAGMA user_version` holds the number of migrations applied. Each migration
/// runs in the transaction that bumps the version, so a crash leaves either the
/// old or the new schema. A file from a newer Almanac (a higher version than we
/// know) is refused rather than guessed at.
enum SQLiteSchema {
    /// Every migration in order: each feature's are in `Migrations/`, numbered in the order
    /// they were first applied (existing databases keep their numbers).
    static let migrations: [String] = Migration.inOrder(
        eventsMigrations, appStateMigrations, sharingMigrations, schedulingMigrations, webhooksMigrations,
        bookingsMigrations, remindersMigrations, pushMigrations)

    static func migrate(_ connection: SQLiteConnection) throws(StoreError) {
        while true {
            // Read the version under the write lock (BEGIN IMMEDIATE), so two processes
            // opening a new file at once apply each migration once.
            let done = try connection.transaction { () throws(StoreError) -> Bool in
                let version = try connection.firstRow("PRAGMA user_version") { $0.int(0) } ?? 0
                guard version <= migrations.count else {
                    throw StoreError(
                        .database,
                        "the database has schema version \(version), newer than this Almanac knows (\(migrations.count)); upgrade Almanac"
                    )
                }
                if version == migrations.count { return true }
                try connection.execute(migrations[version])
                try connection.execute("PRAGMA user_version = \(version + 1)")
                return false
            }
            if done { return }
        }
    }
}
