// Scheduling: the schedule inbox's change log (the inbox itself came with sharing's users' addresses).
extension SQLiteSchema {
    static let schedulingMigrations: [Migration] = [
        // 20: the schedule inbox's change log, for sync-collection (RFC 6578 on the inbox): a
        // sequence per user, each message's and each removal's place in it, and the oldest
        // place a token may still start from.
        Migration(
            20,
            """
            ALTER TABLE schedule_inbox ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
            CREATE TABLE schedule_inbox_state (
                user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                sequence INTEGER NOT NULL,
                horizon INTEGER NOT NULL
            );
            CREATE TABLE schedule_inbox_tombstones (
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                PRIMARY KEY (user_id, name)
            ) WITHOUT ROWID;
            """)
    ]
}
