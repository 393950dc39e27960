// Reminders: the queue of alarm instances the scheduler fires, what it must plan again,
// and how far ahead it has planned.
extension SQLiteSchema {
    static let remindersMigrations: [Migration] = [
        // 26: alarm delivery (issue 39). One row per firing of an alarm of an occurrence,
        // planned ahead of time and kept after it fires (fired, missed or acknowledged), so
        // each fires once and its state can be read; objects whose alarms must be planned
        // again after a write; how far ahead every alarm has been planned; an EMAIL alarm's
        // mail (waiting, sent, failed or refused) and its lease. The outbox keeps
        // what an `alarm.due` delivery tells beyond its event (a JSON object).
        Migration(
            26,
            """
            CREATE TABLE alarm_instances (
                id INTEGER PRIMARY KEY,
                object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
                recurrence_id TEXT NOT NULL,
                alarm_uid TEXT NOT NULL,
                repetition INTEGER NOT NULL,
                fire_at INTEGER NOT NULL,
                action TEXT NOT NULL,
                description TEXT,
                snooze_of TEXT,
                occurrence_start INTEGER NOT NULL,
                occurrence_end INTEGER NOT NULL,
                state TEXT NOT NULL,
                fired_at INTEGER,
                mail_state TEXT,
                mail_lease INTEGER NOT NULL DEFAULT 0,
                mail_attempts INTEGER NOT NULL DEFAULT 0,
                UNIQUE (object_id, recurrence_id, alarm_uid, repetition, fire_at)
            );
            CREATE INDEX alarm_instances_state ON alarm_instances(state, fire_at);
            CREATE INDEX alarm_instances_mail ON alarm_instances(mail_state, fired_at) WHERE mail_state IS NOT NULL;
            CREATE TABLE alarm_dirty (
                object_id INTEGER PRIMARY KEY REFERENCES objects(id) ON DELETE CASCADE
            );
            CREATE TABLE alarm_plan (
                id INTEGER PRIMARY KEY,
                planned_until INTEGER NOT NULL
            );
            CREATE INDEX objects_alarms ON objects(calendar_id, alarm_reach) WHERE alarm_reach IS NOT NULL;
            ALTER TABLE webhook_deliveries ADD COLUMN detail TEXT;
            """)
    ]
}
