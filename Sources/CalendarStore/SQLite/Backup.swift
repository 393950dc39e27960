import CSQLite

/// SQLite's online backup API (`sqlite3_backup_*`).
enum SQLiteBackup {
    static func copy(from source: SQLiteConnection, to target: SQLiteConnection) throws(StoreError) {
        guard let backup = sqlite3_backup_init(target.handle, "main", source.handle, "main") else {
            throw target.error(sqlite3_errcode(target.handle), sql: nil)
        }
        var status: Int32
        repeat {
            status = sqlite3_backup_step(backup, 256)
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
        sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE else { throw target.error(status, sql: nil) }
    }
}
