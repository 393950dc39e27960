// Bookings: booking types, holds and bookings, with the hashes of their tokens.
extension SQLiteSchema {
    static let bookingsMigrations: [Migration] = [
        // 14: bookings (issue 21): booking types, the holds that keep a slot for a booker for a
        // few minutes, and the bookings with the hashes of their cancel and reschedule tokens;
        // webhook deliveries name the booking they tell of.
        Migration(
            14,
            """
            CREATE TABLE booking_types (
                id INTEGER PRIMARY KEY,
                identifier TEXT NOT NULL UNIQUE,
                user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
                slug TEXT UNIQUE,
                title TEXT NOT NULL,
                description TEXT,
                location TEXT,
                durations TEXT NOT NULL,
                calendar TEXT NOT NULL,
                busy_calendars TEXT,
                schedule TEXT,
                buffer_before INTEGER NOT NULL DEFAULT 0,
                buffer_after INTEGER NOT NULL DEFAULT 0,
                notice INTEGER NOT NULL DEFAULT 0,
                window_days INTEGER,
                step INTEGER,
                daily_limit INTEGER,
                weekly_limit INTEGER,
                capacity INTEGER,
                class_event TEXT,
                waitlist INTEGER NOT NULL DEFAULT 0,
                hold_seconds INTEGER NOT NULL,
                hosts TEXT,
                group_mode TEXT NOT NULL DEFAULT 'single',
                group_minimum INTEGER,
                all_day_busy INTEGER NOT NULL DEFAULT 1,
                created INTEGER NOT NULL,
                modified INTEGER NOT NULL
            );
            CREATE INDEX booking_types_user ON booking_types(user_id);
            CREATE TABLE booking_holds (
                id INTEGER PRIMARY KEY,
                identifier TEXT NOT NULL UNIQUE,
                type_id INTEGER NOT NULL REFERENCES booking_types(id) ON DELETE CASCADE,
                starts INTEGER NOT NULL,
                ends INTEGER NOT NULL,
                recurrence_id TEXT,
                hosts TEXT,
                expires INTEGER NOT NULL
            );
            CREATE INDEX booking_holds_type ON booking_holds(type_id, starts);
            CREATE INDEX booking_holds_expires ON booking_holds(expires);
            CREATE TABLE bookings (
                id INTEGER PRIMARY KEY,
                identifier TEXT NOT NULL UNIQUE,
                type_id INTEGER NOT NULL REFERENCES booking_types(id) ON DELETE CASCADE,
                calendar TEXT NOT NULL,
                event_identifier TEXT,
                recurrence_id TEXT,
                starts INTEGER NOT NULL,
                ends INTEGER NOT NULL,
                name TEXT NOT NULL,
                email TEXT NOT NULL,
                note TEXT,
                status TEXT NOT NULL,
                cancel_token TEXT NOT NULL UNIQUE,
                hosts TEXT,
                events TEXT,
                reschedule_token TEXT NOT NULL UNIQUE,
                created INTEGER NOT NULL,
                modified INTEGER NOT NULL
            );
            CREATE INDEX bookings_type_start ON bookings(type_id, starts);
            ALTER TABLE webhook_deliveries ADD COLUMN booking TEXT;
            """),
        // 21: the zone the booker booked in, so every page and message about their booking
        // shows it in their zone.
        Migration(21, "ALTER TABLE bookings ADD COLUMN time_zone TEXT;"),
        // 22: booking mail (issue 37): each booking's iTIP SEQUENCE, and whether a type's
        // owner is told of bookings by mail.
        Migration(
            22,
            """
            ALTER TABLE bookings ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE booking_types ADD COLUMN host_notice INTEGER NOT NULL DEFAULT 1;
            """),
    ]
}
