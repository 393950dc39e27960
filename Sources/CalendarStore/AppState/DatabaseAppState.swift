import CivilTime

/// The app state of a ``DatabaseBackend``, in the same database as the calendars (its
/// tables: `api_tokens`, `api_token_events`, `sessions`, `added_marks`, and the view
/// columns of `users`).
public struct DatabaseAppState: AppStateStore {
    let backend: DatabaseBackend
    var database: any StoreDatabase { backend.database }

    // MARK: Access tokens

    /// See ``AppStateStore/createAccessToken(_:secretHash:)``; a name outside 1 to 200 bytes, a rate limit
    /// outside ``AccessToken/rateLimits``, an app password of a scope but read or
    /// read-write, or a calendar the user does not see is `invalidArgument`, an unknown
    /// user `notFound`, a user already holding ``AccessToken/maxPerUser`` tokens
    /// `insufficientStorage`.
    public func createAccessToken(_ token: AccessToken, secretHash: String) throws(StoreError) {
        guard !token.name.isEmpty, token.name.utf8.count <= 200 else {
            throw StoreError(.invalidArgument, "a token name is 1–200 bytes", resource: token.name)
        }
        if let limit = token.rateLimit, !AccessToken.rateLimits.contains(limit) {
            throw StoreError(
                .invalidArgument,
                "a token's rate limit is \(AccessToken.rateLimits.lowerBound) to \(AccessToken.rateLimits.upperBound) requests a minute"
            )
        }
        if token.kind == .appPassword, token.scope != .read, token.scope != .readWrite {
            throw StoreError(.invalidArgument, "an app password is read or read-write", resource: token.scope.rawValue)
        }
        if let calendars = token.calendars {
            guard (1...AccessToken.maxCalendars).contains(calendars.count), Set(calendars).count == calendars.count
            else {
                throw StoreError(
                    .invalidArgument, "a token is limited to 1–\(AccessToken.maxCalendars) different calendars")
            }
        }
        try database.write { (connection) throws(StoreError) in
            guard
                let userID = try connection.firstRow(
                    "SELECT id FROM users WHERE name = ?", [.text(token.user)], { $0.int64(0) })
            else {
                throw StoreError(.notFound, "no user \(token.user)", resource: token.user)
            }
            let held =
                try connection.firstRow(
                    "SELECT count(*) FROM api_tokens WHERE user_id = ?", [.integer(userID)], { $0.int(0) }) ?? 0
            guard held < AccessToken.maxPerUser else {
                throw StoreError(
                    .insufficientStorage,
                    "\(token.user) holds \(held) tokens and app passwords, the most one may; revoke some first")
            }
            for calendar in token.calendars ?? [] {
                // One the user owns or has accepted a share of, as their store sees it.
                let visible = try connection.firstRow(
                    """
                    SELECT 1 FROM calendars c LEFT JOIN grants g ON g.calendar_id = c.id AND g.user_id = ?1
                    WHERE c.identifier = ?2 AND (c.owner_id = ?1 OR g.status = 'accepted')
                    """, [.integer(userID), .text(calendar)], { _ in true })
                guard visible != nil else {
                    throw StoreError(.invalidArgument, "\(token.user) has no calendar \(calendar)", resource: calendar)
                }
            }
            try connection.run(
                """
                INSERT INTO api_tokens (id, user_id, secret_hash, name, scope, created, rate_limit, expires, kind,
                    calendars)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .text(token.id), .integer(userID), .text(secretHash), .text(token.name),
                    .text(token.scope.rawValue), .int(token.created), .optional(token.rateLimit),
                    .optional(token.expires), .text(token.kind.rawValue),
                    .optional(token.calendars?.joined(separator: "\n")),
                ])
        }
    }

    static let tokenColumns =
        """
        SELECT t.id, u.name, t.name, t.scope, t.created, t.rate_limit, t.expires, t.kind, t.calendars, t.last_used
        FROM api_tokens t JOIN users u ON u.id = t.user_id
        """

    func token(_ row: Row) -> AccessToken {
        AccessToken(
            id: row.string(0), user: row.string(1), name: row.string(2),
            scope: AccessToken.Scope(rawValue: row.string(3)) ?? .read, created: row.int(4),
            rateLimit: row.optionalInt(5), expires: row.optionalInt(6),
            // Only this code writes the column ('token' or 'app-password'); anything else
            // reads as an app password, the narrower kind (Basic, with its owner's name).
            kind: AccessToken.Kind(rawValue: row.string(7)) ?? .appPassword,
            calendars: row.optionalString(8).map { $0.split(separator: "\n").map(String.init) },
            lastUsed: row.optionalInt(9))
    }

    /// See ``AppStateStore/noteUse(ofToken:at:)``: written at most once a minute.
    public func noteUse(ofToken token: AccessToken, at now: Int) throws(StoreError) {
        guard token.lastUsed.map({ now - $0 >= 60 }) ?? true else { return }
        try database.write { (connection) throws(StoreError) in
            _ = try connection.run("UPDATE api_tokens SET last_used = ? WHERE id = ?", [.int(now), .text(token.id)])
        }
    }

    /// See ``AppStateStore/accessToken(secretHash:)``.
    public func accessToken(secretHash: String) throws(StoreError) -> AccessToken? {
        try database.read { (connection) throws(StoreError) -> AccessToken? in
            try connection.firstRow(Self.tokenColumns + " WHERE t.secret_hash = ?", [.text(secretHash)], token)
        }
    }

    /// See ``AppStateStore/accessTokens(user:)``.
    public func accessTokens(user: String) throws(StoreError) -> [AccessToken] {
        try database.read { (connection) throws(StoreError) -> [AccessToken] in
            try connection.rows(Self.tokenColumns + " WHERE u.name = ? ORDER BY t.created, t.id", [.text(user)], token)
        }
    }

    /// See ``AppStateStore/revokeAccessToken(id:user:)``.
    public func revokeAccessToken(id: String, user: String) throws(StoreError) {
        let removed = try database.write { (connection) throws(StoreError) -> Int in
            try connection.run(
                "DELETE FROM api_tokens WHERE id = ? AND user_id = (SELECT id FROM users WHERE name = ?)",
                [.text(id), .text(user)])
        }
        if removed == 0 { throw StoreError(.notFound, "\(user) has no token \(id)", resource: id) }
    }

    /// See ``AppStateStore/noteCreation(ofEvent:byToken:)``; noting an event twice changes nothing.
    public func noteCreation(ofEvent identifier: String, byToken tokenID: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            _ = try connection.run(
                "INSERT INTO api_token_events (token_id, event_identifier) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [.text(tokenID), .text(identifier)])
        }
    }

    /// See ``AppStateStore/eventsCreated(byToken:)``.
    public func eventsCreated(byToken tokenID: String) throws(StoreError) -> Set<String> {
        try database.read { (connection) throws(StoreError) -> Set<String> in
            Set(
                try connection.rows(
                    "SELECT event_identifier FROM api_token_events WHERE token_id = ?", [.text(tokenID)]
                ) { $0.string(0) })
        }
    }

    // MARK: The server's own secrets

    /// See ``AppStateStore/serverSecret(named:)``.
    public func serverSecret(named name: String) throws(StoreError) -> [UInt8] {
        let read = { (connection: Connection) throws(StoreError) -> [UInt8]? in
            try connection.firstRow("SELECT secret FROM server_secrets WHERE name = ?", [.text(name)]) { $0.bytes(0) }
        }
        if let found = try database.read(read), found.count == 32 { return found }
        return try database.write { (connection) throws(StoreError) -> [UInt8] in
            var random = SystemRandomNumberGenerator()
            let secret = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
            try connection.run(
                "INSERT INTO server_secrets (name, secret) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                [.text(name), .blob(secret)])
            // Another process may have made it first: everyone keeps the one stored.
            guard let stored = try read(connection), stored.count == 32 else {
                throw StoreError(.database, "the server secret \(name) could not be kept")
            }
            return stored
        }
    }

    // MARK: Idempotency keys

    /// See ``AppStateStore/idempotencyRecord(user:key:now:)``.
    public func idempotencyRecord(user: String, key: String, now: Int) throws(StoreError) -> IdempotencyRecord? {
        try database.read { (connection) throws(StoreError) -> IdempotencyRecord? in
            try connection.firstRow(
                """
                SELECT k.request_hash, k.status, k.content_type, k.location, k.etag, k.body
                FROM idempotency_keys k JOIN users u ON u.id = k.user_id
                WHERE u.name = ? AND k.key = ? AND k.created >= ?
                """, [.text(user), .text(key), .int(now - IdempotencyRecord.lifetime)]
            ) { row in
                IdempotencyRecord(
                    requestHash: row.string(0),
                    answer: row.isNull(1)
                        ? nil
                        : IdempotencyRecord.Answer(
                            status: row.int(1), contentType: row.optionalString(2), location: row.optionalString(3),
                            etag: row.optionalString(4), body: row.bytes(5)))
            }
        }
    }

    /// See ``AppStateStore/keepIdempotentAnswer(_:user:key:)``; nothing when the key is not recorded.
    public func keepIdempotentAnswer(_ answer: IdempotencyRecord.Answer, user: String, key: String)
        throws(StoreError)
    {
        try database.write { (connection) throws(StoreError) in
            _ = try connection.run(
                """
                UPDATE idempotency_keys SET status = ?, content_type = ?, location = ?, etag = ?, body = ?
                WHERE user_id = (SELECT id FROM users WHERE name = ?) AND key = ?
                """,
                [
                    .int(answer.status), .optional(answer.contentType), .optional(answer.location),
                    .optional(answer.etag), .blob(answer.body), .text(user), .text(key),
                ])
        }
    }

    // MARK: Sign-in sessions

    /// See ``AppStateStore/createSession(_:secretHash:)``; `notFound` for an unknown user.
    public func createSession(_ session: SignInSession, secretHash: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            guard
                let userID = try connection.firstRow(
                    "SELECT id FROM users WHERE name = ?", [.text(session.user)], { $0.int64(0) })
            else {
                throw StoreError(.notFound, "no user \(session.user)", resource: session.user)
            }
            let now = WallClock.now()
            // Expired sessions go as new ones come.
            _ = try connection.run("DELETE FROM sessions WHERE expires <= ?", [.int(now)])
            _ = try connection.run(
                "INSERT INTO sessions (secret_hash, user_id, csrf, created, expires) VALUES (?, ?, ?, ?, ?)",
                [.text(secretHash), .integer(userID), .text(session.csrfToken), .int(now), .int(session.expires)])
        }
    }

    /// See ``AppStateStore/session(secretHash:)``.
    public func session(secretHash: String) throws(StoreError) -> SignInSession? {
        try database.read { (connection) throws(StoreError) -> SignInSession? in
            try connection.firstRow(
                "SELECT u.name, s.csrf, s.expires FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.secret_hash = ? AND s.expires > ?",
                [.text(secretHash), .int(WallClock.now())]
            ) { row in SignInSession(user: row.string(0), csrfToken: row.string(1), expires: row.int(2)) }
        }
    }

    /// See ``AppStateStore/deleteSession(secretHash:)``.
    public func deleteSession(secretHash: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            _ = try connection.run("DELETE FROM sessions WHERE secret_hash = ?", [.text(secretHash)])
        }
    }

    // MARK: View settings

    /// See ``AppStateStore/viewSettings(user:)``.
    public func viewSettings(user: String) throws(StoreError) -> ViewSettings {
        let found = try database.read { (connection) throws(StoreError) -> ViewSettings? in
            try connection.firstRow("SELECT first_weekday, time_zone FROM users WHERE name = ?", [.text(user)]) { row in
                ViewSettings(firstWeekday: row.optionalInt(0), timeZone: row.optionalString(1))
            }
        }
        guard let found else { throw StoreError(.notFound, "no user \(user)", resource: user) }
        return found
    }

    /// See ``AppStateStore/setViewSettings(_:user:)``; `notFound` for an unknown user.
    public func setViewSettings(_ settings: ViewSettings, user: String) throws(StoreError) {
        if let day = settings.firstWeekday, !(1...7).contains(day) {
            throw StoreError(.invalidArgument, "the first weekday is 1 (Monday) to 7 (Sunday)")
        }
        if let zone = settings.timeZone, TimeZoneDatabase.zone(named: zone) == nil {
            throw StoreError(.invalidArgument, "unknown time zone \(zone) (use an IANA name such as Europe/Berlin)")
        }
        let changed = try database.write { (connection) throws(StoreError) -> Int in
            try connection.run(
                "UPDATE users SET first_weekday = ?, time_zone = ? WHERE name = ?",
                [settings.firstWeekday.map { .int($0) } ?? nil, .optional(settings.timeZone), .text(user)])
        }
        if changed == 0 { throw StoreError(.notFound, "no user \(user)", resource: user) }
    }

    // MARK: Availability schedules

    static let scheduleColumns = """
        SELECT s.identifier, u.name, s.title, s.data, s.is_default, s.created, s.modified
        FROM availability_schedules s JOIN users u ON u.id = s.user_id
        """

    static func schedule(_ row: Row) -> StoredSchedule {
        StoredSchedule(
            id: row.string(0), user: row.string(1), title: row.string(2), data: row.bytes(3),
            isDefault: row.int(4) == 1,
            created: row.int(5), modified: row.int(6))
    }

    /// See ``AppStateStore/schedules(user:)``.
    public func schedules(user: String) throws(StoreError) -> [StoredSchedule] {
        try database.read { (connection) throws(StoreError) -> [StoredSchedule] in
            try connection.rows(
                Self.scheduleColumns + " WHERE u.name = ? ORDER BY s.is_default DESC, s.title, s.identifier",
                [.text(user)], Self.schedule)
        }
    }

    func schedule(id: String, user: String, _ connection: Connection) throws(StoreError) -> StoredSchedule? {
        try connection.firstRow(
            Self.scheduleColumns + " WHERE s.identifier = ? AND u.name = ?", [.text(id), .text(user)], Self.schedule)
    }

    /// See ``AppStateStore/schedule(id:user:)``.
    public func schedule(id: String, user: String) throws(StoreError) -> StoredSchedule {
        let found = try database.read { (connection) throws(StoreError) -> StoredSchedule? in
            try schedule(id: id, user: user, connection)
        }
        guard let found else { throw StoreError(.notFound, "\(user) has no schedule \(id)", resource: id) }
        return found
    }

    /// See ``AppStateStore/defaultSchedule(user:)``.
    public func defaultSchedule(user: String) throws(StoreError) -> StoredSchedule? {
        try database.read { (connection) throws(StoreError) -> StoredSchedule? in
            try defaultSchedule(user: user, connection)
        }
    }

    func defaultSchedule(user: String, _ connection: Connection) throws(StoreError) -> StoredSchedule? {
        try connection.firstRow(
            Self.scheduleColumns + " WHERE u.name = ? AND s.is_default = 1", [.text(user)], Self.schedule)
    }

    /// See ``AppStateStore/saveSchedule(_:ifMatch:)``; a title outside 1 to 200 bytes, data over
    /// ``StoredSchedule/maxBytes`` or a user's schedule past ``StoredSchedule/maxPerUser`` is `invalidArgument`.
    public func saveSchedule(_ schedule: StoredSchedule, ifMatch: String?) throws(StoreError) -> StoredSchedule {
        guard !schedule.title.isEmpty, schedule.title.utf8.count <= 200 else {
            throw StoreError(.invalidArgument, "a schedule's title is 1–200 bytes")
        }
        guard schedule.data.count <= StoredSchedule.maxBytes else {
            throw StoreError(.invalidArgument, "a schedule is at most \(StoredSchedule.maxBytes) bytes")
        }
        return try database.write { (connection) throws(StoreError) -> StoredSchedule in
            guard
                let userID = try connection.firstRow(
                    "SELECT id FROM users WHERE name = ?", [.text(schedule.user)], { $0.int64(0) })
            else { throw StoreError(.notFound, "no user \(schedule.user)", resource: schedule.user) }
            if let lock = connection.dialect.lockUser { try connection.run(lock, [.integer(userID)]) }
            let now = WallClock.now()
            let existing = try self.schedule(id: schedule.id, user: schedule.user, connection)
            if let ifMatch {
                guard let existing else {
                    throw StoreError(.preconditionFailed, "a new schedule has no ETag to match (If-Match)")
                }
                try StoreError.checkIfMatch(ifMatch, current: existing.etag, resource: schedule.id)
            }
            let count =
                try connection.firstRow(
                    "SELECT count(*) FROM availability_schedules WHERE user_id = ?", [.integer(userID)]
                ) { $0.int(0) } ?? 0
            let makeDefault = schedule.isDefault || count == 0 || (existing?.isDefault ?? false)
            if makeDefault {
                try connection.run(
                    "UPDATE availability_schedules SET is_default = 0 WHERE user_id = ? AND identifier <> ?",
                    [.integer(userID), .text(schedule.id)])
            }
            if existing == nil {
                guard count < StoredSchedule.maxPerUser else {
                    throw StoreError(.invalidArgument, "a user has at most \(StoredSchedule.maxPerUser) schedules")
                }
                try connection.run(
                    """
                    INSERT INTO availability_schedules (identifier, user_id, title, data, is_default, created, modified)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(schedule.id), .integer(userID), .text(schedule.title), .blob(schedule.data),
                        .int(makeDefault ? 1 : 0), .int(now), .int(now),
                    ])
            } else {
                // A new modified time even within the second, so the ETag always changes.
                let modified = max(now, (existing?.modified ?? 0) + 1)
                try connection.run(
                    "UPDATE availability_schedules SET title = ?, data = ?, is_default = ?, modified = ? WHERE identifier = ? AND user_id = ?",
                    [
                        .text(schedule.title), .blob(schedule.data), .int(makeDefault ? 1 : 0), .int(modified),
                        .text(schedule.id), .integer(userID),
                    ])
            }
            guard let saved = try self.schedule(id: schedule.id, user: schedule.user, connection) else {
                throw StoreError(.database, "the saved schedule was not found")
            }
            return saved
        }
    }

    /// See ``AppStateStore/deleteSchedule(id:user:ifMatch:)``.
    public func deleteSchedule(id: String, user: String, ifMatch: String?) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            guard let existing = try schedule(id: id, user: user, connection) else {
                throw StoreError(.notFound, "\(user) has no schedule \(id)", resource: id)
            }
            try StoreError.checkIfMatch(ifMatch, current: existing.etag, resource: id)
            try connection.run(
                "DELETE FROM availability_schedules WHERE identifier = ? AND user_id = (SELECT id FROM users WHERE name = ?)",
                [.text(id), .text(user)])
            // The oldest other schedule becomes the default, so a user with schedules has one.
            if existing.isDefault {
                try connection.run(
                    """
                    UPDATE availability_schedules SET is_default = 1 WHERE id = (SELECT s.id FROM availability_schedules s
                        JOIN users u ON u.id = s.user_id WHERE u.name = ? ORDER BY s.created, s.id LIMIT 1)
                    """, [.text(user)])
            }
        }
    }

    // MARK: Added marks

    /// See ``AppStateStore/markAdded(_:user:)``; a mark made again keeps its first `added` time.
    public func markAdded(_ mark: AddedMark, user: String) throws(StoreError) -> AddedMark {
        try database.write { (connection) throws(StoreError) -> AddedMark in
            // The user and their event in the transaction that stores the mark.
            guard
                let userID = try connection.firstRow(
                    "SELECT id FROM users WHERE name = ?", [.text(user)], { $0.int64(0) })
            else {
                throw StoreError(.notFound, "no user \(user)", resource: user)
            }
            let store = DatabaseEventStore(backend: backend, userID: userID, user: user)
            _ = try store.locate(mark.eventIdentifier, write: false, connection)
            var stored = mark
            stored.added = WallClock.now()
            try connection.run(
                """
                INSERT INTO added_marks (user_id, event_identifier, platform, native_identifier, added) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (user_id, event_identifier) DO UPDATE SET platform = excluded.platform, native_identifier = excluded.native_identifier
                """,
                [
                    .integer(userID), .text(mark.eventIdentifier), .optional(mark.platform),
                    .optional(mark.nativeIdentifier), .int(stored.added),
                ])
            return try addedMark(event: mark.eventIdentifier, user: user, connection) ?? stored
        }
    }

    func addedMark(event identifier: String, user: String, _ connection: Connection) throws(StoreError) -> AddedMark? {
        try connection.firstRow(
            """
            SELECT m.event_identifier, m.platform, m.native_identifier, m.added FROM added_marks m
            JOIN users u ON u.id = m.user_id WHERE u.name = ? AND m.event_identifier = ?
            """,
            [.text(user), .text(identifier)]
        ) { row in
            AddedMark(
                eventIdentifier: row.string(0), platform: row.optionalString(1),
                nativeIdentifier: row.optionalString(2), added: row.int(3))
        }
    }

    /// See ``AppStateStore/addedMark(event:user:)``.
    public func addedMark(event identifier: String, user: String) throws(StoreError) -> AddedMark? {
        try database.read { (connection) throws(StoreError) -> AddedMark? in
            try addedMark(event: identifier, user: user, connection)
        }
    }

    /// See ``AppStateStore/removeAddedMark(event:user:)``.
    public func removeAddedMark(event identifier: String, user: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            _ = try connection.run(
                "DELETE FROM added_marks WHERE user_id = (SELECT id FROM users WHERE name = ?) AND event_identifier = ?",
                [.text(user), .text(identifier)])
        }
    }
}
