// The event store: users, calendars, calendar object resources, tombstones, the range index and the store repairs.
extension SQLiteSchema {
    static let eventsMigrations: [Migration] = [
        // 1: users, calendars, calendar object resources, tombstones and the interval index.
        Migration(
            1,
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
            """),
        // 3: each object's byte length beside it, so listings need not touch the bytes.
        Migration(
            3,
            """
            ALTER TABLE objects ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
            UPDATE objects SET size = (SELECT length(data) FROM object_data d WHERE d.id = objects.id);
            """),
        // 5: whether a one-off object leaves time free (TRANSP), for busy time without parsing;
        // skeletons now keep TRANSP, so series that use it are read from their bytes until rewritten.
        Migration(
            5,
            """
            ALTER TABLE objects ADD COLUMN transparent INTEGER NOT NULL DEFAULT 0;
            UPDATE objects SET transparent = 1
                WHERE time_kind IS NOT NULL AND id IN (SELECT id FROM object_data WHERE instr(upper(CAST(data AS TEXT)), 'TRANSPARENT') > 0);
            UPDATE object_data SET skeleton = NULL WHERE skeleton IS NOT NULL AND instr(upper(CAST(data AS TEXT)), 'TRANSPARENT') > 0;
            """),
        // 7: each calendar's object count and bytes, kept with every write, for per-user quotas.
        Migration(
            7,
            """
            ALTER TABLE calendars ADD COLUMN object_count INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE calendars ADD COLUMN object_bytes INTEGER NOT NULL DEFAULT 0;
            UPDATE calendars SET object_count = (SELECT count(*) FROM objects o WHERE o.calendar_id = calendars.id),
                object_bytes = (SELECT coalesce(sum(size), 0) FROM objects o WHERE o.calendar_id = calendars.id);
            """),
        // 8: the range index becomes a B-tree (see IntervalIndex): boxes of more than a week
        // (series, long events) apart from the short ones, each kind in start order per calendar.
        Migration(
            8,
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
            """),
        // 9: for delta sync, the change that created each object (0: before this schema) and
        // the event a tombstone's resource held.
        Migration(
            9,
            """
            ALTER TABLE objects ADD COLUMN created_sequence INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE tombstones ADD COLUMN identifier TEXT;
            ALTER TABLE tombstones ADD COLUMN uid TEXT;
            """),
        // 17: repairs of stored data that run once when a database is opened after an upgrade
        // (DatabaseBackend.runStoreRepairs): a row per repair still due. The first rewrites
        // the VTIMEZONEs earlier versions wrote, which Thunderbird reads an hour off.
        Migration(
            17,
            """
            CREATE TABLE store_repairs (
                name TEXT PRIMARY KEY
            );
            INSERT INTO store_repairs (name) VALUES ('vtimezone-rdate-form');
            """),
    ]
}
