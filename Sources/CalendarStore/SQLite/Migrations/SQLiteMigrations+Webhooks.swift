// Webhooks: subscriptions, the outbox, the per-calendar queues and the attempts kept.
extension SQLiteSchema {
    static let webhooksMigrations: [Migration] = [
        // 12: webhooks (issue 20). A subscription per row; the outbox holds one delivery per
        // change and subscription, written in the change's own transaction; a queue row per
        // subscription and calendar is what dispatchers lease, so each calendar's deliveries go
        // out one at a time and in order; the last attempts are kept for the owner to read.
        Migration(
            12,
            """
            CREATE TABLE webhooks (
                id INTEGER PRIMARY KEY,
                identifier TEXT NOT NULL UNIQUE,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                url TEXT NOT NULL,
                secret TEXT NOT NULL,
                events INTEGER NOT NULL,
                all_calendars INTEGER NOT NULL,
                description TEXT,
                state TEXT NOT NULL DEFAULT 'active',
                state_reason TEXT,
                failures INTEGER NOT NULL DEFAULT 0,
                created INTEGER NOT NULL
            );
            CREATE INDEX webhooks_user ON webhooks(user_id);
            CREATE TABLE webhook_calendars (
                webhook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                calendar TEXT NOT NULL,
                PRIMARY KEY (webhook_id, calendar)
            ) WITHOUT ROWID;
            CREATE TABLE webhook_deliveries (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                identifier TEXT NOT NULL UNIQUE,
                webhook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                calendar TEXT NOT NULL,
                type TEXT NOT NULL,
                sequence INTEGER NOT NULL,
                event_identifier TEXT,
                uid TEXT,
                etag TEXT,
                resource TEXT,
                recurrence_id TEXT,
                span TEXT,
                occurred INTEGER NOT NULL,
                state TEXT NOT NULL DEFAULT 'pending',
                attempts INTEGER NOT NULL DEFAULT 0,
                last_status INTEGER,
                last_error TEXT,
                finished INTEGER
            );
            CREATE INDEX webhook_deliveries_queue ON webhook_deliveries(webhook_id, calendar, state, id);
            CREATE INDEX webhook_deliveries_finished ON webhook_deliveries(finished);
            CREATE TABLE webhook_queues (
                webhook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                calendar TEXT NOT NULL,
                next_attempt INTEGER,
                lease_until INTEGER NOT NULL DEFAULT 0,
                lease_owner TEXT,
                PRIMARY KEY (webhook_id, calendar)
            );
            CREATE INDEX webhook_queues_due ON webhook_queues(next_attempt);
            CREATE TABLE webhook_attempts (
                id INTEGER PRIMARY KEY,
                webhook_id INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
                delivery TEXT NOT NULL,
                type TEXT NOT NULL,
                at INTEGER NOT NULL,
                status INTEGER,
                error TEXT,
                duration INTEGER NOT NULL
            );
            CREATE INDEX webhook_attempts_webhook ON webhook_attempts(webhook_id, id);
            -- The JSON API lists a calendar's events in identifier order.
            CREATE INDEX objects_calendar_identifier ON objects(calendar_id, identifier);
            """)
    ]
}
