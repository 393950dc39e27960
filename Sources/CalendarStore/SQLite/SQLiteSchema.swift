/// The store's tables, created and upgraded by numbered migrations.
///
/// `PRAGMA user_version` holds the number of migrations applied. Each migration
/// runs in the transaction that bumps the version, so a crash leaves either the
/// old or the new schema. A file from a newer Almanac (a higher version than we
/// know) is refused rather than guessed at.
enum SQLiteSchema {
    static let migrations: [String] = [
        // 1: users, calendars, calendar object resources, tombstones and the interval index.
        """
        CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            display_name TEXT,
            password_hash TEXT,
            created INTEGER NOT NULL
        );
        CREATE TABLE calendars (
            id INTEGER PRIMARY KEY,
            identifier TEXT NOT NULL UNIQUE,
            owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            title TEXT NOT NULL,
            color TEXT,
            description TEXT,
            time_zone TEXT,
            sort_order INTEGER NOT NULL DEFAULT 0,
            components TEXT NOT NULL,
            kind TEXT NOT NULL DEFAULT 'local',
            feed_url TEXT,
            refresh_interval INTEGER,
            sequence INTEGER NOT NULL DEFAULT 0,
            tombstone_horizon INTEGER NOT NULL DEFAULT 0,
            created INTEGER NOT NULL,
            UNIQUE (owner_id, name)
        );
        CREATE INDEX calendars_title ON calendars(owner_id, title);
        CREATE TABLE calendar_properties (
            calendar_id INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (calendar_id, name)
        ) WITHOUT ROWID;
        CREATE TABLE grants (
            calendar_id INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            access TEXT NOT NULL,
            PRIMARY KEY (calendar_id, user_id)
        ) WITHOUT ROWID;
        CREATE TABLE objects (
            id INTEGER PRIMARY KEY,
            identifier TEXT NOT NULL UNIQUE,
            calendar_id INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            uid TEXT NOT NULL,
            component TEXT NOT NULL,
            etag TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            summary TEXT,
            first_start INTEGER NOT NULL,
            last_end INTEGER,
            recurring INTEGER NOT NULL,
            alarm_reach INTEGER,
            -- A one-off object's own times, so queries need not parse it: the kind of its
            -- start (0 an instant, 1 a floating wall clock, 2 a date; NULL for a series),
            -- its start and end keys (Unix seconds, or wall-clock seconds for kinds 1 and 2).
            time_kind INTEGER,
            start_key INTEGER,
            end_key INTEGER,
            tzid TEXT,
            status TEXT,
            categories TEXT,
            created INTEGER NOT NULL,
            modified INTEGER NOT NULL,
            UNIQUE (calendar_id, name),
            UNIQUE (calendar_id, uid)
        );
        CREATE INDEX objects_changes ON objects(calendar_id, sequence);
        -- The bytes apart from the listing columns, so range queries read small rows;
        -- for a series also its timing skeleton, which a cold query parses instead.
        CREATE TABLE object_data (
            id INTEGER PRIMARY KEY REFERENCES objects(id) ON DELETE CASCADE,
            data BLOB NOT NULL,
            skeleton BLOB
        );
        CREATE INDEX objects_uid ON objects(uid);
        CREATE TABLE tombstones (
            calendar_id INTEGER NOT NULL REFERENCES calendars(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            sequence INTEGER NOT NULL,
            PRIMARY KEY (calendar_id, name)
        ) WITHOUT ROWID;
        CREATE INDEX tombstones_changes ON tombstones(calendar_id, sequence);
        -- One box per object: its calendar on one axis, [first start, last end] in
        -- minutes on the other (32-bit integers; an open end is the largest one).
        CREATE VIRTUAL TABLE object_ranges USING rtree_i32(id, calendar_min, calendar_max, start_min, end_max);
        """,
        // 2: a secret token per calendar for its read-only subscription feed.
        """
        ALTER TABLE calendars ADD COLUMN feed_token TEXT;
        CREATE UNIQUE INDEX calendars_feed_token ON calendars(feed_token) WHERE feed_token IS NOT NULL;
        """,
        // 3: each object's byte length beside it, so listings need not touch the bytes.
        """
        ALTER TABLE objects ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
        UPDATE objects SET size = (SELECT length(data) FROM object_data d WHERE d.id = objects.id);
        """,
        // 4: personal API tokens (hashed), the events each created, and per-user "added" marks.
        """
        CREATE TABLE api_tokens (
            id TEXT PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            secret_hash TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            scope TEXT NOT NULL,
            created INTEGER NOT NULL
        );
        CREATE TABLE api_token_events (
            token_id TEXT NOT NULL REFERENCES api_tokens(id) ON DELETE CASCADE,
            event_identifier TEXT NOT NULL,
            PRIMARY KEY (token_id, event_identifier)
        ) WITHOUT ROWID;
        CREATE TABLE added_marks (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            event_identifier TEXT NOT NULL,
            platform TEXT,
            native_identifier TEXT,
            added INTEGER NOT NULL,
            PRIMARY KEY (user_id, event_identifier)
        ) WITHOUT ROWID;
        """,
        // 5: whether a one-off object leaves time free (TRANSP), for busy time without parsing;
        // skeletons now keep TRANSP, so series that use it are read from their bytes until rewritten.
        """
        ALTER TABLE objects ADD COLUMN transparent INTEGER NOT NULL DEFAULT 0;
        UPDATE objects SET transparent = 1
            WHERE time_kind IS NOT NULL AND id IN (SELECT id FROM object_data WHERE instr(upper(CAST(data AS TEXT)), 'TRANSPARENT') > 0);
        UPDATE object_data SET skeleton = NULL WHERE skeleton IS NOT NULL AND instr(upper(CAST(data AS TEXT)), 'TRANSPARENT') > 0;
        """,
        // 6: web sessions (the cookie's hash, its CSRF token) and each user's view settings.
        """
        CREATE TABLE sessions (
            secret_hash TEXT PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            csrf TEXT NOT NULL,
            created INTEGER NOT NULL,
            expires INTEGER NOT NULL
        );
        CREATE INDEX sessions_expires ON sessions(expires);
        ALTER TABLE users ADD COLUMN first_weekday INTEGER;
        ALTER TABLE users ADD COLUMN time_zone TEXT;
        """,
        // 7: each calendar's object count and bytes, kept with every write, for per-user quotas.
        """
        ALTER TABLE calendars ADD COLUMN object_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE calendars ADD COLUMN object_bytes INTEGER NOT NULL DEFAULT 0;
        UPDATE calendars SET object_count = (SELECT count(*) FROM objects o WHERE o.calendar_id = calendars.id),
            object_bytes = (SELECT coalesce(sum(size), 0) FROM objects o WHERE o.calendar_id = calendars.id);
        """,
        // 8: the range index becomes a B-tree (see IntervalIndex): boxes of more than a week
        // (series, long events) apart from the short ones, each kind in start order per calendar.
        """
        CREATE TABLE object_spans (
            id INTEGER PRIMARY KEY,
            calendar_id INTEGER NOT NULL,
            long INTEGER NOT NULL,
            start_min INTEGER NOT NULL,
            end_max INTEGER NOT NULL
        );
        INSERT INTO object_spans SELECT id, calendar_min, end_max - start_min > \(IntervalIndex.shortSpan), start_min, end_max FROM object_ranges;
        DROP TABLE object_ranges;
        ALTER TABLE object_spans RENAME TO object_ranges;
        CREATE INDEX object_ranges_overlap ON object_ranges(calendar_id, long, start_min, end_max);
        """,
        // 9: for delta sync, the change that created each object (0: before this schema) and
        // the event a tombstone's resource held.
        """
        ALTER TABLE objects ADD COLUMN created_sequence INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE tombstones ADD COLUMN identifier TEXT;
        ALTER TABLE tombstones ADD COLUMN uid TEXT;
        """,
        // 10: a JSON API rate limit per token (requests a minute; NULL for the server's default).
        """
        ALTER TABLE api_tokens ADD COLUMN rate_limit INTEGER;
        """,
        // 11: the JSON API's Idempotency-Keys: per user and key, the first request's hash and
        // answer, kept a day. The row commits with the request's first write.
        """
        CREATE TABLE idempotency_keys (
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            request_hash TEXT NOT NULL,
            created INTEGER NOT NULL,
            status INTEGER,
            content_type TEXT,
            location TEXT,
            etag TEXT,
            body BLOB,
            PRIMARY KEY (user_id, key)
        ) WITHOUT ROWID;
        CREATE INDEX idempotency_keys_created ON idempotency_keys(created);
        """,
        // 12: webhooks (issue 20). A subscription per row; the outbox holds one delivery per
        // change and subscription, written in the change's own transaction; a queue row per
        // subscription and calendar is what dispatchers lease, so each calendar's deliveries go
        // out one at a time and in order; the last attempts are kept for the owner to read.
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
        """,
        // 13: availability schedules (issue 21): each a VAVAILABILITY (RFC 7953) of a user's, one
        // of them the default that bookings and free time follow.
        """
        CREATE TABLE availability_schedules (
            id INTEGER PRIMARY KEY,
            identifier TEXT NOT NULL UNIQUE,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            title TEXT NOT NULL,
            data BLOB NOT NULL,
            is_default INTEGER NOT NULL DEFAULT 0,
            created INTEGER NOT NULL,
            modified INTEGER NOT NULL
        );
        CREATE INDEX availability_schedules_user ON availability_schedules(user_id);
        """,
        // 14: bookings (issue 21): booking types, the holds that keep a slot for a booker for a
        // few minutes, and the bookings with the hashes of their cancel and reschedule tokens;
        // webhook deliveries name the booking they tell of.
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
        """,
        // 15: sharing (issue 22): a share is an invitation until the sharee answers it, and
        // appears in their home under its own collection name (existing shares, which took
        // effect at once, are accepted and named by the calendar's identifier); the notes
        // about invitations and answers that each user's CalDAV notification collection
        // lists; users' e-mail addresses; each calendar's free-busy feed token; the feeds
        // subscribed calendars are fetched from, once per URL for every subscriber, with the last good copy;
        // each user's scheduling inbox (RFC 6638), the iTIP messages delivered to them.
        """
        ALTER TABLE objects ADD COLUMN schedule_tag TEXT;
        ALTER TABLE grants ADD COLUMN status TEXT NOT NULL DEFAULT 'accepted';
        ALTER TABLE grants ADD COLUMN alias TEXT;
        ALTER TABLE grants ADD COLUMN summary TEXT;
        UPDATE grants SET alias = lower((SELECT identifier FROM calendars WHERE id = grants.calendar_id));
        CREATE UNIQUE INDEX grants_alias ON grants(user_id, alias);
        CREATE TABLE share_notifications (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            uid TEXT NOT NULL,
            kind TEXT NOT NULL,
            from_user TEXT NOT NULL,
            calendar TEXT NOT NULL,
            host_owner TEXT NOT NULL,
            host_name TEXT NOT NULL,
            title TEXT NOT NULL,
            access TEXT,
            status TEXT NOT NULL,
            summary TEXT,
            in_reply_to TEXT,
            created INTEGER NOT NULL,
            UNIQUE (user_id, uid)
        );
        CREATE TABLE user_addresses (
            address TEXT NOT NULL PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            position INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX user_addresses_user ON user_addresses(user_id);
        CREATE TABLE schedule_inbox (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            uid TEXT NOT NULL,
            method TEXT NOT NULL,
            sender TEXT,
            data BLOB NOT NULL,
            created INTEGER NOT NULL,
            UNIQUE (user_id, name)
        );
        CREATE TABLE feed_sources (
            id INTEGER PRIMARY KEY,
            url TEXT NOT NULL UNIQUE,
            etag TEXT,
            last_modified TEXT,
            data BLOB,
            fetched INTEGER,
            next_fetch INTEGER NOT NULL,
            failures INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            last_status INTEGER,
            feed_interval INTEGER,
            objects INTEGER NOT NULL DEFAULT 0,
            lease_until INTEGER,
            lease_owner TEXT
        );
        CREATE INDEX feed_sources_due ON feed_sources(next_fetch);
        CREATE INDEX calendars_feed_url ON calendars(feed_url) WHERE kind = 'subscription';
        ALTER TABLE calendars ADD COLUMN busy_feed_token TEXT;
        CREATE UNIQUE INDEX calendars_busy_feed_token ON calendars(busy_feed_token) WHERE busy_feed_token IS NOT NULL;
        """,
        // 16: trust between users (issue 33): the secrets the server keys its own tokens with
        // (the MAC that binds the API's cursors to their listing and user), made once for
        // every process on the database; and the key a booker's retry is recognized by
        // (a hash of the booking form's own token, so no one else can ask about a booking).
        """
        CREATE TABLE server_secrets (
            name TEXT PRIMARY KEY,
            secret BLOB NOT NULL
        );
        ALTER TABLE bookings ADD COLUMN retry_key TEXT;
        CREATE INDEX bookings_retry_key ON bookings(type_id, retry_key) WHERE retry_key IS NOT NULL;
        """,
        // 17: repairs of stored data that run once when a database is opened after an upgrade
        // (DatabaseBackend.runStoreRepairs): a row per repair still due. The first rewrites
        // the VTIMEZONEs earlier versions wrote, which Thunderbird reads an hour off.
        """
        CREATE TABLE store_repairs (
            name TEXT PRIMARY KEY
        );
        INSERT INTO store_repairs (name) VALUES ('vtimezone-rdate-form');
        """,
        // 18: what a sharee sets for themselves on a calendar shared with them (its name, colour,
        // order and schedule-calendar-transp in their home), gone with the share.
        """
        CREATE TABLE grant_properties (
            calendar_id INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (calendar_id, user_id, name),
            FOREIGN KEY (calendar_id, user_id) REFERENCES grants(calendar_id, user_id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        """,
        // 19: a sharee's own VALARMs and TRANSP on the objects of a calendar shared with them
        // (PersonalData), gone with the object or the share; `tag` makes their ETag their own.
        """
        CREATE TABLE personal_data (
            object_id INTEGER NOT NULL REFERENCES objects(id) ON DELETE CASCADE,
            calendar_id INTEGER NOT NULL,
            user_id INTEGER NOT NULL,
            data BLOB NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (object_id, user_id),
            FOREIGN KEY (calendar_id, user_id) REFERENCES grants(calendar_id, user_id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE INDEX personal_data_calendar ON personal_data(calendar_id, user_id);
        """,
        // 20: the schedule inbox's change log, for sync-collection (RFC 6578 on the inbox): a
        // sequence per user, each message's and each removal's place in it, and the oldest
        // place a token may still start from.
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
        """,
    ]

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
