import ICalendar
import Recurrence
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store on a SQL database: the embedded SQLite file (the default) or a
/// PostgreSQL cluster that several server processes share. Both hold the same
/// tables and answer through the same code; safe to share between threads and
/// between processes.
///
/// Durability: a write returns only once its transaction is durable (SQLite's
/// WAL with `synchronous=FULL`; a PostgreSQL commit). Open one backend per
/// database per process and hand out `eventStore(for:)` values to act for users.
public final class DatabaseBackend: StoreBackend {
    let database: any StoreDatabase
    let cache: ObjectCache
    private let quotaState = Mutex(StoreQuota())
    private let budgetState = Mutex(ExpansionBudget.perRequest)

    /// The recurrence expansion one read may do in all (``ExpansionBudget/perRequest``
    /// unless set); a read that would do more is refused with `expansionLimit`.
    public var expansionBudget: ExpansionBudget {
        get { budgetState.withLock { $0 } }
        set { budgetState.withLock { $0 = newValue } }
    }

    /// What each user's calendars may hold; no limit unless set (`almanac serve` sets
    /// its defaults). Writes past it are refused with `insufficientStorage` (HTTP 507).
    public var quota: StoreQuota {
        get { quotaState.withLock { $0 } }
        set { quotaState.withLock { $0 = newValue } }
    }

    /// The default bound of the cache of prepared objects: 256 MiB (see ``ObjectCache``).
    public static let defaultCacheBytes = 256 << 20

    /// Opens (creating when missing) the SQLite file at `path`, migrates it and runs the
    /// repairs of stored data still due (``runStoreRepairs(batchSize:)``).
    /// `cacheBytes` bounds the memory held by prepared objects (0: no cache).
    public init(sqlitePath path: String, cacheBytes: Int = DatabaseBackend.defaultCacheBytes) throws(StoreError) {
        database = try SQLiteDatabase(path: path)
        cache = ObjectCache(capacityBytes: cacheBytes)
        try runStoreRepairs()
    }

    /// Connects to PostgreSQL (a libpq URL such as `postgres://user@host:5432/db`) and
    /// migrates its schema, under an advisory lock so processes starting together
    /// migrate once, then runs the repairs of stored data still due.
    public init(postgresURL url: String, cacheBytes: Int = DatabaseBackend.defaultCacheBytes) throws(StoreError) {
        database = try PostgresDatabase(url: url)
        cache = ObjectCache(capacityBytes: cacheBytes)
        try runStoreRepairs()
    }

    /// Opens the database a location names: `postgres://…` or `postgresql://…` for
    /// PostgreSQL, `sqlite:PATH` (or a plain path) for an SQLite file.
    public convenience init(location: String) throws(StoreError) {
        if Self.isPostgresURL(location) {
            try self.init(postgresURL: location)
        } else {
            if !location.hasPrefix("sqlite:"), location.hasPrefix("postgres") || location.contains("://") {
                throw StoreError(
                    .invalidArgument, "\(location) is not a database: use postgres://user@host/db or sqlite:PATH")
            }
            let path = location.hasPrefix("sqlite:") ? String(location.dropFirst(7)) : location
            guard !path.isEmpty else {
                throw StoreError(.invalidArgument, "name a database: sqlite:PATH or postgres://user@host/db")
            }
            try self.init(sqlitePath: path)
        }
    }

    /// Whether a database location is a PostgreSQL URL.
    public static func isPostgresURL(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    /// Opens `almanac.sqlite` in `directory`, creating the directory when missing.
    public convenience init(directory: String) throws(StoreError) {
        try Self.makeDirectory(directory)
        try self.init(sqlitePath: directory + "/almanac.sqlite")
    }

    /// The data directory: `$ALMANAC_DATA`, else `$XDG_DATA_HOME/almanac`, else
    /// `~/.local/share/almanac`.
    public static func defaultDirectory(environment: [String: String]) -> String {
        if let data = environment["ALMANAC_DATA"], !data.isEmpty { return data }
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty { return xdg + "/almanac" }
        return (environment["HOME"] ?? ".") + "/.local/share/almanac"
    }

    static func makeDirectory(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            prefix += "/" + part
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw StoreError(
                    .database, "cannot create the data directory \(prefix): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The quota of the user with this key: their own limits, else the server's.
    func quota(of user: Int64, _ connection: Connection) throws(StoreError) -> StoreQuota {
        quota(
            own: try connection.firstRow("SELECT max_objects, max_bytes FROM users WHERE id = ?", [.integer(user)]) {
                StoreQuota(maxObjects: $0.optionalInt(0), maxBytes: $0.optionalInt(1))
            })
    }

    /// A user's own limits where they have them, else the server's.
    func quota(own: StoreQuota?) -> StoreQuota {
        StoreQuota(maxObjects: own?.maxObjects ?? quota.maxObjects, maxBytes: own?.maxBytes ?? quota.maxBytes)
    }

    /// Where the database is: the SQLite file's path, or the PostgreSQL URL without its password.
    public var location: String { database.location }

    // MARK: Users

    /// Creates a user; names are unique.
    @discardableResult
    public func createUser(named name: String, displayName: String?, passwordHash: String?) throws(StoreError) -> User {
        guard Self.isValidUserName(name) else {
            throw StoreError(
                .invalidArgument, "a user name is 1–64 letters, digits, '.', '_', '-' or '@'", resource: name)
        }
        return try database.write { (connection) throws(StoreError) -> User in
            if try connection.firstRow("SELECT 1 FROM users WHERE name = ?", [.text(name)], { _ in true }) != nil {
                throw StoreError(.alreadyExists, "user \(name) already exists", resource: name)
            }
            try connection.run(
                "INSERT INTO users (name, display_name, password_hash, created) VALUES (?, ?, ?, ?)",
                [.text(name), .optional(displayName), .optional(passwordHash), .int(WallClock.now())])
            return User(name: name, displayName: displayName, passwordHash: passwordHash)
        }
    }

    /// Whether `name` may name a user: 1–64 letters, digits, '.', '_', '-' or '@'.
    public static func isValidUserName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "@")
            }
    }

    /// Every user, by name.
    public func users() throws(StoreError) -> [User] {
        try database.read { (connection) throws(StoreError) -> [User] in
            try connection.rows(Self.userColumns + " ORDER BY name", [], Self.user)
        }
    }

    /// At most `limit` users whose names sort after `after` (all when nil), by name: a
    /// page of a listing that stays right while users come and go.
    public func users(after: String?, limit: Int) throws(StoreError) -> [User] {
        try database.read { (connection) throws(StoreError) -> [User] in
            try connection.rows(
                Self.userColumns + " WHERE name > ? ORDER BY name LIMIT ?", [.text(after ?? ""), .int(limit)], Self.user
            )
        }
    }

    static let userColumns =
        "SELECT name, display_name, password_hash, id, role, disabled, max_objects, max_bytes, identity FROM users"

    static func user(_ row: Row) -> User {
        User(
            name: row.string(0), displayName: row.optionalString(1), passwordHash: row.optionalString(2),
            role: User.Role(rawValue: row.string(4)) ?? .user, isDisabled: row.int(5) != 0,
            quota: StoreQuota(maxObjects: row.optionalInt(6), maxBytes: row.optionalInt(7)),
            identity: row.optionalString(8), storeID: row.int64(3))
    }

    /// Binds a user's account to an OpenID Connect identity when it is bound to none, and
    /// answers the user as stored. `forbidden` when it is bound to another identity, or
    /// another account has this one; `notFound` when there is no such user.
    @discardableResult
    public func bindIdentity(_ identity: String, toUser name: String) throws(StoreError) -> User {
        try database.write { (connection) throws(StoreError) -> User in
            guard var user = try connection.firstRow(Self.userColumns + " WHERE name = ?", [.text(name)], Self.user),
                let id = user.storeID
            else { throw StoreError(.notFound, "no user \(name)", resource: name) }
            if user.identity == identity { return user }
            guard user.identity == nil else {
                throw StoreError(.forbidden, "user \(name) signs in as another identity", resource: name)
            }
            if try connection.firstRow("SELECT 1 FROM users WHERE identity = ?", [.text(identity)], { _ in true })
                != nil
            {
                throw StoreError(.forbidden, "another account is bound to this identity", resource: name)
            }
            try connection.run("UPDATE users SET identity = ? WHERE id = ?", [.text(identity), .integer(id)])
            user.identity = identity
            return user
        }
    }

    /// Changes what `change` changes of a user's display name, role, disabled flag and
    /// quota, and unbinds their identity when it sets it to nil, in one transaction, and
    /// answers the user as stored. Disabling ends their web
    /// sessions. `notFound` when there is no such user.
    @discardableResult
    public func updateUser(named name: String, _ change: (inout User) -> Void) throws(StoreError) -> User {
        try database.write { (connection) throws(StoreError) -> User in
            guard let old = try connection.firstRow(Self.userColumns + " WHERE name = ?", [.text(name)], Self.user),
                let id = old.storeID
            else { throw StoreError(.notFound, "no user \(name)", resource: name) }
            var user = old
            change(&user)
            try connection.run(
                "UPDATE users SET display_name = ?, role = ?, disabled = ?, max_objects = ?, max_bytes = ? WHERE id = ?",
                [
                    .optional(user.displayName), .text(user.role.rawValue), .int(user.isDisabled ? 1 : 0),
                    .optional(user.quota.maxObjects), .optional(user.quota.maxBytes),
                    .integer(id),
                ])
            // An identity may be unbound here, never bound (``bindIdentity(_:toUser:)`` does that).
            if user.identity == nil, old.identity != nil {
                try connection.run("UPDATE users SET identity = NULL WHERE id = ?", [.integer(id)])
            } else {
                user.identity = old.identity
            }
            if user.isDisabled, !old.isDisabled {
                try connection.run("DELETE FROM sessions WHERE user_id = ?", [.integer(id)])
            }
            return user
        }
    }

    /// The user with this name; `notFound` when there is none.
    public func user(named name: String) throws(StoreError) -> User {
        let found = try database.read { (connection) throws(StoreError) -> User? in
            try connection.firstRow(Self.userColumns + " WHERE name = ?", [.text(name)], Self.user)
        }
        guard let found else { throw StoreError(.notFound, "no user \(name)", resource: name) }
        return found
    }

    /// Sets (or clears) a user's password hash.
    @discardableResult
    public func setPasswordHash(_ hash: String?, forUser name: String, revokingTokens: Bool) throws(StoreError) -> (
        sessions: Int, tokens: Int
    ) {
        try database.write { (connection) throws(StoreError) -> (sessions: Int, tokens: Int) in
            guard
                let id = try connection.firstRow("SELECT id FROM users WHERE name = ?", [.text(name)], { $0.int64(0) })
            else {
                throw StoreError(.notFound, "no user \(name)", resource: name)
            }
            try connection.run("UPDATE users SET password_hash = ? WHERE id = ?", [.optional(hash), .integer(id)])
            let sessions = try connection.run("DELETE FROM sessions WHERE user_id = ?", [.integer(id)])
            let tokens =
                revokingTokens ? try connection.run("DELETE FROM api_tokens WHERE user_id = ?", [.integer(id)]) : 0
            return (sessions, tokens)
        }
    }

    /// Removes a user and everything that is theirs, in one transaction: their calendars
    /// and objects, shares of them (sharees lose access) and their access to others',
    /// bookings, webhooks, tokens, sessions, addresses, inbox, and the feeds only they
    /// subscribed to. What scheduling owes others (RFC 6638 cancellations and declines)
    /// is the caller's to send first.
    public func removeUser(named name: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            guard
                let id = try connection.firstRow("SELECT id FROM users WHERE name = ?", [.text(name)], { $0.int64(0) })
            else {
                throw StoreError(.notFound, "no user \(name)", resource: name)
            }
            try connection.run(
                "DELETE FROM object_ranges WHERE id IN (SELECT o.id FROM objects o JOIN calendars c ON c.id = o.calendar_id WHERE c.owner_id = ?)",
                [.integer(id)])
            try connection.run("DELETE FROM users WHERE id = ?", [.integer(id)])
            // Their invitations and answers in others' inboxes name a calendar that is gone.
            try connection.run(
                "DELETE FROM share_notifications WHERE host_owner = ? OR from_user = ?", [.text(name), .text(name)])
            // A subscription's URL may carry its subscriber's secret.
            try connection.run(
                """
                DELETE FROM feed_sources WHERE NOT EXISTS
                    (SELECT 1 FROM calendars c WHERE c.kind = 'subscription' AND c.feed_url = feed_sources.url)
                """)
        }
    }

    /// A store acting for `user` (who must exist).
    public func eventStore(for user: String) throws(StoreError) -> any EventStore { try databaseStore(for: user) }

    /// See ``StoreBackend/eventStore(for:limitedTo:)``.
    public func eventStore(for user: String, limitedTo calendars: [String]?) throws(StoreError) -> any EventStore {
        var store = try databaseStore(for: user)
        store.calendarLimit = calendars.map(Set.init)
        return store
    }

    /// See ``StoreBackend/eventStore(for:)-(User)``; a user not read from this backend is looked up by name.
    public func eventStore(for user: User) throws(StoreError) -> any EventStore {
        guard let id = user.storeID else { return try databaseStore(for: user.name) }
        return DatabaseEventStore(backend: self, userID: id, user: user.name)
    }

    /// The concrete SQLite store acting for `user`.
    public func databaseStore(for user: String) throws(StoreError) -> DatabaseEventStore {
        let id = try database.read { (connection) throws(StoreError) -> Int64? in
            try connection.firstRow("SELECT id FROM users WHERE name = ?", [.text(user)]) { $0.int64(0) }
        }
        guard let id else { throw StoreError(.notFound, "no user \(user)", resource: user) }
        return DatabaseEventStore(backend: self, userID: id, user: user)
    }

    /// The access tokens, sign-in sessions, view settings and added marks kept in this
    /// database.
    public var appState: any AppStateStore { DatabaseAppState(backend: self) }
    /// The webhook subscriptions and outbox kept in this database.
    public var webhooks: any WebhookStore { DatabaseWebhookStore(backend: self) }
    /// The subscribed calendars and feed sources kept in this database.
    public var subscriptions: any SubscriptionStore { DatabaseSubscriptionStore(backend: self) }
    /// The alarm queue kept in this database.
    public var reminders: any ReminderStore { DatabaseReminderStore(backend: self) }
    /// The WebDAV-Push subscriptions and messages kept in this database.
    public var push: any PushStore { DatabasePushStore(backend: self) }

    /// See ``StoreBackend/feed(token:kind:)``; nil for an empty token.
    public func feed(token: String, kind: FeedKind) throws(StoreError) -> (owner: String, calendar: String)? {
        guard !token.isEmpty else { return nil }
        let column = kind == .events ? "feed_token" : "busy_feed_token"
        return try database.read { (connection) throws(StoreError) -> (owner: String, calendar: String)? in
            try connection.firstRow(
                "SELECT u.name, c.identifier FROM calendars c JOIN users u ON u.id = c.owner_id WHERE c.\(column) = ? AND u.disabled = 0",
                [.text(token)]
            ) { ($0.string(0), $0.string(1)) }
        }
    }

    // MARK: Maintenance

    /// The database's own check (SQLite's `PRAGMA integrity_check`, PostgreSQL's
    /// schema version) and the store's: every object has its bytes and its range, and
    /// no change sequence runs ahead of its calendar's. `["ok"]` when sound.
    public func integrityCheck() throws(StoreError) -> [String] {
        var problems = try database.engineCheck().filter { $0 != "ok" }
        problems += try database.read { (connection) throws(StoreError) -> [String] in
            let checks = [
                (
                    "objects without their bytes",
                    "SELECT count(*) FROM objects o WHERE NOT EXISTS (SELECT 1 FROM object_data d WHERE d.id = o.id)"
                ),
                (
                    "objects missing from the range index",
                    "SELECT count(*) FROM objects o WHERE NOT EXISTS (SELECT 1 FROM object_ranges r WHERE r.id = o.id)"
                ),
                (
                    "range index entries without an object",
                    "SELECT count(*) FROM object_ranges r WHERE NOT EXISTS (SELECT 1 FROM objects o WHERE o.id = r.id)"
                ),
                (
                    "objects or tombstones with a change sequence ahead of their calendar's",
                    """
                    SELECT (SELECT count(*) FROM objects o JOIN calendars c ON c.id = o.calendar_id WHERE o.sequence > c.sequence)
                         + (SELECT count(*) FROM tombstones t JOIN calendars c ON c.id = t.calendar_id WHERE t.sequence > c.sequence)
                    """
                ),
            ]
            var found: [String] = []
            for (what, sql) in checks {
                let count = try connection.firstRow(sql) { $0.int(0) } ?? 0
                if count > 0 { found.append("\(count) \(what)") }
            }
            return found
        }
        return problems.isEmpty ? ["ok"] : problems
    }

    /// Writes a consistent copy of an SQLite database to `destination` with SQLite's
    /// online backup API while the store stays in use.
    public func backup(to destination: String) throws(StoreError) {
        guard let sqlite = database as? SQLiteDatabase else {
            throw StoreError(
                .invalidArgument, "backup copies an SQLite file; back PostgreSQL up with pg_dump or pg_basebackup")
        }
        try sqlite.backup(to: destination)
    }

    /// Counts for `db check` and benchmarks.
    public func statistics() throws(StoreError) -> (users: Int, calendars: Int, objects: Int, tombstones: Int) {
        try database.read {
            (connection) throws(StoreError) -> (users: Int, calendars: Int, objects: Int, tombstones: Int) in
            func count(_ table: String) throws(StoreError) -> Int {
                try connection.firstRow("SELECT count(*) FROM \(table)") { $0.int(0) } ?? 0
            }
            return (try count("users"), try count("calendars"), try count("objects"), try count("tombstones"))
        }
    }
}

/// Prepared calendar objects by row and ETag, so repeated queries do not parse the
/// same bytes again. An entry is valid while its object's ETag (its change sequence
/// and a hash of its bytes) is unchanged, which holds across processes — the ETag
/// comes from the row read — and when a row id is used again after a deletion.
///
/// Bounded in bytes, not entries: a few huge objects cannot hold more memory than
/// many small ones. An entry counts four times its object's stored bytes plus a
/// little (the bytes, the prepared series and the components parsed on demand are of
/// that order together), and the instances its series lists up front; one larger than
/// an eighth of the bound is not kept at all.
final class ObjectCache: Sendable {
    private struct Entry {
        var etag: String
        var object: CachedSeries
        var cost: Int
    }

    private struct State {
        var entries: [Int64: Entry] = [:]
        var bytes = 0
    }

    private let state = Mutex(State())
    let capacityBytes: Int

    init(capacityBytes: Int) { self.capacityBytes = max(0, capacityBytes) }

    /// What the cache holds, in counted bytes.
    var bytes: Int { state.withLock { $0.bytes } }

    func object(id: Int64, etag: String) -> CachedSeries? {
        state.withLock { state in
            guard let entry = state.entries[id], entry.etag == etag else { return nil }
            return entry.object
        }
    }

    func store(_ object: CachedSeries, id: Int64, etag: String) {
        let cost = 4 * object.stored.byteCount + object.prepared.listedInstanceBytes + 512
        guard cost <= capacityBytes / 8 else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: id) { state.bytes -= old.cost }
            if state.bytes + cost > capacityBytes {
                // Evict arbitrary entries down to seven eighths: cheap, and fair enough for a working set.
                let target = capacityBytes - capacityBytes / 8 - cost
                while state.bytes > target, let key = state.entries.keys.first {
                    state.bytes -= state.entries.removeValue(forKey: key)?.cost ?? 0
                }
            }
            state.entries[id] = Entry(etag: etag, object: object, cost: cost)
            state.bytes += cost
        }
    }
}

/// A series ready to expand: prepared from its skeleton (or, without one, from its
/// bytes), with its stored bytes for callers who read whole components.
struct CachedSeries: Sendable {
    var prepared: PreparedObject
    var stored: StoredObject
    /// Whether `prepared` was read from the skeleton (so its components are partial).
    var fromSkeleton: Bool
}
