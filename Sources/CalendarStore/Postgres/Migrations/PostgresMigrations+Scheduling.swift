// Scheduling: the schedule inbox's change log (the inbox itself came with sharing's users' addresses).
extension PostgresSchema {
    static let schedulingMigrations: [Migration] = [
        // 14: the schedule inbox's change log, for sync-collection (RFC 6578 on the inbox): a
        // sequence per user, each message's and each removal's place in it, and the oldest
        // place a token may still start from.
        Migration(
            14,
            """
            ALTER TABLE schedule_inbox ADD COLUMN sequence BIGINT NOT NULL DEFAULT 0;
            CREATE TABLE schedule_inbox_state (
                user_id BIGINT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
                sequence BIGINT NOT NULL,
                horizon BIGINT NOT NULL
            );
            CREATE TABLE schedule_inbox_tombstones (
                user_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                name TEXT COLLATE "C" NOT NULL,
                sequence BIGINT NOT NULL,
                PRIMARY KEY (user_id, name)
            );
            """)
    ]
}
