// WebDAV-Push: clients' push subscriptions to collections and the messages waiting to
// be pushed (one per subscription, so a burst coalesces).
extension SQLiteSchema {
    static let pushMigrations: [Migration] = [
        // 27: WebDAV-Push (issue 39). (Its keys are server secrets, schema 19's table.)
        // A subscription is one user's push resource on one calendar (registering
        // the same resource again updates it); `push_pending` is the message it is owed:
        // the latest sync sequence, whether content and/or properties changed, when it is
        // due (the first change of a burst plus the coalescing delay), and its lease.
        Migration(
            27,
            """
            CREATE TABLE push_subscriptions (
                id INTEGER PRIMARY KEY,
                identifier TEXT NOT NULL UNIQUE,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                calendar_id INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
                push_resource TEXT NOT NULL,
                public_key TEXT,
                auth_secret TEXT,
                content_update INTEGER NOT NULL,
                property_update INTEGER NOT NULL,
                expires INTEGER NOT NULL,
                created INTEGER NOT NULL,
                failures INTEGER NOT NULL DEFAULT 0,
                last_error TEXT,
                UNIQUE (calendar_id, user_id, push_resource)
            );
            CREATE INDEX push_subscriptions_expiry ON push_subscriptions(expires);
            CREATE TABLE push_pending (
                subscription_id INTEGER PRIMARY KEY REFERENCES push_subscriptions(id) ON DELETE CASCADE,
                sequence INTEGER NOT NULL,
                content INTEGER NOT NULL,
                property INTEGER NOT NULL,
                due INTEGER NOT NULL,
                lease INTEGER NOT NULL DEFAULT 0,
                attempts INTEGER NOT NULL DEFAULT 0
            );
            CREATE INDEX push_pending_due ON push_pending(due);
            """)
    ]
}
