// Sharing: feed tokens, shares and their answers, notifications, users' addresses, subscribed feeds, per-user properties and data.
extension SQLiteSchema {
    static let sharingMigrations: [Migration] = [
        // 2: a secret token per calendar for its read-only subscription feed.
        Migration(
            2,
            """
            ALTER TABLE calendars ADD COLUMN feed_token TEXT;
            CREATE UNIQUE INDEX calendars_feed_token ON calendars(feed_token) WHERE feed_token IS NOT NULL;
            """),
        // 15: sharing (issue 22): a share is an invitation until the sharee answers it, and
        // appears in their home under its own collection name (existing shares, which took
        // effect at once, are accepted and named by the calendar's identifier); the notes
        // about invitations and answers that each user's CalDAV notification collection
        // lists; users' e-mail addresses; each calendar's free-busy feed token; the feeds
        // subscribed calendars are fetched from, once per URL for every subscriber, with the last good copy;
        // each user's scheduling inbox (RFC 6638), the iTIP messages delivered to them.
        Migration(
            15,
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
            """),
        // 18: what a sharee sets for themselves on a calendar shared with them (its name, colour,
        // order and schedule-calendar-transp in their home), gone with the share.
        Migration(
            18,
            """
            CREATE TABLE grant_properties (
                calendar_id INTEGER NOT NULL,
                user_id INTEGER NOT NULL,
                name TEXT NOT NULL,
                value TEXT NOT NULL,
                PRIMARY KEY (calendar_id, user_id, name),
                FOREIGN KEY (calendar_id, user_id) REFERENCES grants(calendar_id, user_id) ON DELETE CASCADE
            ) WITHOUT ROWID;
            """),
        // 19: a sharee's own VALARMs and TRANSP on the objects of a calendar shared with them
        // (PersonalData), gone with the object or the share; `tag` makes their ETag their own.
        Migration(
            19,
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
            """),
    ]
}
