// What apps and the web keep beside the events: API tokens and their limits, sessions, view settings, idempotency keys, availability schedules, the server's own secrets.
extension SQLiteSchema {
    static let appStateMigrations: [Migration] = [
        // 4: personal API tokens (hashed), the events each created, and per-user "added" marks.
        Migration(
            4,
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
            """),
        // 6: web sessions (the cookie's hash, its CSRF token) and each user's view settings.
        Migration(
            6,
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
            """),
        // 10: a JSON API rate limit per token (requests a minute; NULL for the server's default).
        Migration(
            10,
            """
            ALTER TABLE api_tokens ADD COLUMN rate_limit INTEGER;
            """),
        // 11: the JSON API's Idempotency-Keys: per user and key, the first request's hash and
        // answer, kept a day. The row commits with the request's first write.
        Migration(
            11,
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
            """),
        // 13: availability schedules (issue 21): each a VAVAILABILITY (RFC 7953) of a user's, one
        // of them the default that bookings and free time follow.
        Migration(
            13,
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
            """),
        // 16: trust between users (issue 33): the secrets the server keys its own tokens with
        // (the MAC that binds the API's cursors to their listing and user), made once for
        // every process on the database; and the key a booker's retry is recognized by
        // (a hash of the booking form's own token, so no one else can ask about a booking).
        Migration(
            16,
            """
            CREATE TABLE server_secrets (
                name TEXT PRIMARY KEY,
                secret BLOB NOT NULL
            );
            ALTER TABLE bookings ADD COLUMN retry_key TEXT;
            CREATE INDEX bookings_retry_key ON bookings(type_id, retry_key) WHERE retry_key IS NOT NULL;
            """),
        // 23: accounts (issue 38): a user's role, whether they are disabled and their own
        // quota (nil: the server's), and when an API token stops working (nil: never).
        Migration(
            23,
            """
            ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT 'user';
            ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE users ADD COLUMN max_objects INTEGER;
            ALTER TABLE users ADD COLUMN max_bytes INTEGER;
            ALTER TABLE api_tokens ADD COLUMN expires INTEGER;
            """),
        // 24: app passwords and tokens limited to some calendars (issue 38): how a token
        // is presented, the calendars it may see (newline-separated identifiers; NULL:
        // all), and when it was last used.
        Migration(
            24,
            """
            ALTER TABLE api_tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'token';
            ALTER TABLE api_tokens ADD COLUMN calendars TEXT;
            ALTER TABLE api_tokens ADD COLUMN last_used INTEGER;
            """),
        // 25: OpenID Connect (issue 38): the identity (issuer and subject) an account is
        // bound to at its first sign-in through the provider; one account per identity.
        Migration(
            25,
            """
            ALTER TABLE users ADD COLUMN identity TEXT;
            CREATE UNIQUE INDEX users_identity ON users(identity) WHERE identity IS NOT NULL;
            """),
    ]
}
