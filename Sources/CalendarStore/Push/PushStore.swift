import Accounts

/// A client's WebDAV-Push subscription: one user's push resource (a Web Push endpoint)
/// told when one calendar changes.
public struct PushSubscription: Sendable, Hashable {
    /// The registration's id: the last segment of its registration URL.
    public var identifier: String
    /// Who registered it.
    public var user: String
    /// The calendar it watches (its identifier).
    public var calendar: String
    /// Where messages are POSTed (RFC 8030's push resource).
    public var pushResource: String
    /// The user agent's P-256 public key (uncompressed, base64url) and authentication
    /// secret (base64url) for RFC 8291 message encryption; nil: messages go unencrypted.
    public var publicKey: String?
    public var authSecret: String?
    /// Whether changes to the calendar's members and to its own properties are pushed.
    public var contentUpdates: Bool
    public var propertyUpdates: Bool
    /// When it ends (Unix seconds).
    public var expires: Int

    public init(
        identifier: String = "", user: String = "", calendar: String = "", pushResource: String,
        publicKey: String? = nil, authSecret: String? = nil, contentUpdates: Bool = true,
        propertyUpdates: Bool = true, expires: Int
    ) {
        self.identifier = identifier
        self.user = user
        self.calendar = calendar
        self.pushResource = pushResource
        self.publicKey = publicKey
        self.authSecret = authSecret
        self.contentUpdates = contentUpdates
        self.propertyUpdates = propertyUpdates
        self.expires = expires
    }
}

/// A push message owed to one subscription, leased to one process: the calendar's
/// latest change sequence (its sync token) and what kind of change it was.
public struct PushJob: Sendable, Hashable {
    let rowID: Int64
    public var subscription: PushSubscription
    /// The sync sequence after the latest change.
    public var sequence: Int
    /// Members of the calendar changed; its properties changed.
    public var content: Bool
    public var property: Bool
    /// Failed attempts before this one.
    public var attempts: Int
}

/// How a push attempt ended.
public enum PushOutcome: Sendable, Hashable {
    /// The push service took it.
    case sent
    /// The push service says the subscription is gone (404, 410): it is removed.
    case gone
    /// It failed; try again at this time (Unix milliseconds).
    case retry(at: Int, error: String)
    /// It failed too often: the message is dropped, and the subscription with it.
    case dropped(error: String)
}

/// WebDAV-Push as the store keeps it (draft-bitfire-webdav-push): the server's keys,
/// the subscriptions clients register on calendars, and the messages owed to them. A
/// change to a calendar (from any source: CalDAV, the API, bookings, scheduling, a
/// feed's refresh) queues a message for each subscription that wants it in the same
/// transaction as the change; messages to one subscription coalesce into one row.
public protocol PushStore: Sendable {
    /// The value kept under `name` in the server's keys; made by `create` and stored
    /// the first time (by whichever process comes first: every process gets the same).
    func serverKey(_ name: String, create: () -> String) throws(StoreError) -> String

    /// Registers `subscription` for `user` on the calendar with identifier `calendar`
    /// (which the caller has checked the user may read), or updates the user's
    /// registration of the same push resource there; returns it with its identifier.
    /// At most ``PushLimits/perUser`` subscriptions a user (`insufficientStorage`).
    func register(_ subscription: PushSubscription, user: String, calendar: String) throws(StoreError)
        -> PushSubscription

    /// Removes the user's registration `identifier`; false when they have none by it.
    func unregister(_ identifier: String, user: String) throws(StoreError) -> Bool

    /// The user's subscriptions, soonest expiring first.
    func subscriptions(of user: String) throws(StoreError) -> [PushSubscription]

    /// Leases up to `limit` messages due at `now` (Unix milliseconds) for `lease`
    /// milliseconds, never more than `perUser` leased at once for one user's subscriptions.
    func claim(now: Int, lease: Int, limit: Int, perUser: Int) throws(StoreError) -> [PushJob]

    /// Records how a leased message went. A change that came while it was sent leaves
    /// a message due again.
    func finish(_ job: PushJob, outcome: PushOutcome, now: Int) throws(StoreError)

    /// Removes subscriptions expired at `now` (Unix seconds); returns how many.
    func removeExpired(now: Int) throws(StoreError) -> Int

    /// Poked when a write queued messages (shared with the webhook outbox).
    var signal: OutboxSignal { get }
}

/// Bounds on what one user may ask of the push sender.
public enum PushLimits {
    /// Subscriptions one user may hold (a phone with every calendar, several devices).
    public static let perUser = 200
    /// The longest a subscription lives without being registered again (the draft
    /// asks for at least three days).
    public static let maxLifetime = 7 * 86_400
    /// Without a requested expiry, a subscription lives this long.
    public static let defaultLifetime = 3 * 86_400
    /// How long the changes of a burst are gathered into one message (milliseconds).
    public static let coalescing = 500
}

/// The topic of a calendar (draft-bitfire-webdav-push §"Collection Properties"): 16
/// bytes of an HMAC of its identifier under the server's secret, base64url (22
/// characters, within RFC 8030's 32 for a `Topic` header). Globally unique in practice,
/// the same for every URL of the calendar, and it tells a push service nothing.
public enum PushTopic {
    /// The server key the topics are derived with.
    public static let keyName = "push-topic-key"

    public static func topic(ofCalendar identifier: String, key: String) -> String {
        Base64URL.encode(Array(Crypto.hmacSHA256(key: Array(key.utf8), Array(identifier.utf8)).prefix(16)))
    }

    /// A new random key for ``keyName``.
    public static func newKey() -> String { Identifiers.randomHex(bytes: 32) }
}

/// The store's WebDAV-Push tables.
public struct DatabasePushStore: PushStore {
    let backend: DatabaseBackend
    var database: any StoreDatabase { backend.database }

    public var signal: OutboxSignal { database.outbox }

    /// Kept among the server's secrets (``AppStateStore/serverSecret(named:)``'s table),
    /// as UTF-8 text.
    public func serverKey(_ name: String, create: () -> String) throws(StoreError) -> String {
        let read = { (connection: Connection) throws(StoreError) -> String? in
            try connection.firstRow("SELECT secret FROM server_secrets WHERE name = ?", [.text(name)]) {
                String(decoding: $0.bytes(0), as: UTF8.self)
            }
        }
        if let stored = try database.read(read) { return stored }
        let fresh = create()
        return try database.write { (connection) throws(StoreError) -> String in
            try connection.run(
                "INSERT INTO server_secrets (name, secret) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                [.text(name), .blob(Array(fresh.utf8))])
            // Another process may have made it first: everyone keeps the one stored.
            guard let stored = try read(connection) else {
                throw StoreError(.database, "the server key \(name) was not stored")
            }
            return stored
        }
    }

    static let columns = """
        SELECT s.identifier, u.name, c.identifier, s.push_resource, s.public_key, s.auth_secret, s.content_update,
            s.property_update, s.expires
        FROM push_subscriptions s JOIN users u ON u.id = s.user_id JOIN calendars c ON c.id = s.calendar_id
        """

    static func subscription(_ row: Row, from first: Int32 = 0) -> PushSubscription {
        PushSubscription(
            identifier: row.string(first), user: row.string(first + 1), calendar: row.string(first + 2),
            pushResource: row.string(first + 3), publicKey: row.optionalString(first + 4),
            authSecret: row.optionalString(first + 5), contentUpdates: row.int(first + 6) != 0,
            propertyUpdates: row.int(first + 7) != 0, expires: row.int(first + 8))
    }

    public func register(_ subscription: PushSubscription, user: String, calendar: String) throws(StoreError)
        -> PushSubscription
    {
        try database.write { (connection) throws(StoreError) -> PushSubscription in
            guard
                let (userID, calendarID) = try connection.firstRow(
                    "SELECT u.id, c.id FROM users u, calendars c WHERE u.name = ? AND c.identifier = ?",
                    [.text(user), .text(calendar)], { ($0.int64(0), $0.int64(1)) })
            else { throw StoreError(.notFound, "no calendar \(calendar) for \(user)", resource: calendar) }
            let existing =
                try connection.firstRow(
                    "SELECT 1 FROM push_subscriptions WHERE calendar_id = ? AND user_id = ? AND push_resource = ?",
                    [.integer(calendarID), .integer(userID), .text(subscription.pushResource)], { _ in true }) ?? false
            if !existing {
                let held =
                    try connection.firstRow(
                        "SELECT count(*) FROM push_subscriptions WHERE user_id = ?", [.integer(userID)], { $0.int(0) })
                    ?? 0
                guard held < PushLimits.perUser else {
                    throw StoreError(
                        .insufficientStorage,
                        "a user holds at most \(PushLimits.perUser) push subscriptions; unregister unused ones first")
                }
            }
            try connection.run(
                """
                INSERT INTO push_subscriptions (identifier, user_id, calendar_id, push_resource, public_key, auth_secret,
                    content_update, property_update, expires, created)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (calendar_id, user_id, push_resource) DO UPDATE SET public_key = excluded.public_key,
                    auth_secret = excluded.auth_secret, content_update = excluded.content_update,
                    property_update = excluded.property_update, expires = excluded.expires, failures = 0,
                    last_error = NULL
                """,
                [
                    .text("ps_" + Identifiers.randomHex(bytes: 12)), .integer(userID), .integer(calendarID),
                    .text(subscription.pushResource), .optional(subscription.publicKey),
                    .optional(subscription.authSecret), .int(subscription.contentUpdates ? 1 : 0),
                    .int(subscription.propertyUpdates ? 1 : 0), .int(subscription.expires), .int(WallClock.now()),
                ])
            guard
                let stored = try connection.firstRow(
                    Self.columns + " WHERE s.calendar_id = ? AND s.user_id = ? AND s.push_resource = ?",
                    [.integer(calendarID), .integer(userID), .text(subscription.pushResource)],
                    { Self.subscription($0) })
            else { throw StoreError(.database, "the push subscription was not stored") }
            return stored
        }
    }

    public func unregister(_ identifier: String, user: String) throws(StoreError) -> Bool {
        try database.write { (connection) throws(StoreError) -> Bool in
            try connection.run(
                "DELETE FROM push_subscriptions WHERE identifier = ? AND user_id = (SELECT id FROM users WHERE name = ?)",
                [.text(identifier), .text(user)]) > 0
        }
    }

    public func subscriptions(of user: String) throws(StoreError) -> [PushSubscription] {
        try database.read { (connection) throws(StoreError) -> [PushSubscription] in
            try connection.rows(
                Self.columns + " WHERE u.name = ? ORDER BY s.expires, s.id", [.text(user)], { Self.subscription($0) })
        }
    }

    public func claim(now: Int, lease: Int, limit: Int, perUser: Int) throws(StoreError) -> [PushJob] {
        let any = try database.read { (connection) throws(StoreError) -> Bool in
            try connection.firstRow(
                "SELECT 1 FROM push_pending WHERE due <= ?1 AND lease <= ?1 LIMIT 1", [.int(now)], { _ in true })
                ?? false
        }
        guard any else { return [] }
        return try database.write { (connection) throws(StoreError) -> [PushJob] in
            let due = try connection.rows(
                """
                SELECT p.subscription_id, p.sequence, p.content, p.property, p.attempts, s.user_id, s.identifier, u.name,
                    c.identifier, s.push_resource, s.public_key, s.auth_secret, s.content_update, s.property_update,
                    s.expires
                FROM push_pending p JOIN push_subscriptions s ON s.id = p.subscription_id
                JOIN users u ON u.id = s.user_id JOIN calendars c ON c.id = s.calendar_id
                WHERE p.due <= ?1 AND p.lease <= ?1 ORDER BY p.due, p.subscription_id LIMIT ?2
                """ + (connection.dialect == .postgres ? " FOR UPDATE OF p SKIP LOCKED" : ""),
                [.int(now), .int(limit * 4)]
            ) { row in
                (
                    job: PushJob(
                        rowID: row.int64(0), subscription: Self.subscription(row, from: 6), sequence: row.int(1),
                        content: row.int(2) != 0, property: row.int(3) != 0, attempts: row.int(4)),
                    user: row.int64(5)
                )
            }
            var jobs: [PushJob] = []
            var taken: [Int64: Int] = [:]
            for (job, user) in due where jobs.count < limit {
                if taken[user] == nil {
                    taken[user] =
                        try connection.firstRow(
                            """
                            SELECT count(*) FROM push_pending p JOIN push_subscriptions s ON s.id = p.subscription_id
                            WHERE s.user_id = ? AND p.lease > ?
                            """, [.integer(user), .int(now)], { $0.int(0) }) ?? 0
                }
                guard taken[user, default: 0] < perUser else { continue }
                taken[user, default: 0] += 1
                try connection.run(
                    "UPDATE push_pending SET lease = ? WHERE subscription_id = ?",
                    [.int(now + lease), .integer(job.rowID)])
                jobs.append(job)
            }
            return jobs
        }
    }

    public func finish(_ job: PushJob, outcome: PushOutcome, now: Int) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            let id = SQLValue.integer(job.rowID)
            switch outcome {
            case .sent:
                try connection.run("UPDATE push_subscriptions SET failures = 0, last_error = NULL WHERE id = ?", [id])
                // Unchanged since it was claimed: done. Changed meanwhile: due again.
                let removed = try connection.run(
                    "DELETE FROM push_pending WHERE subscription_id = ? AND sequence = ? AND content = ? AND property = ?",
                    [id, .int(job.sequence), .int(job.content ? 1 : 0), .int(job.property ? 1 : 0)])
                if removed == 0 {
                    try connection.run(
                        "UPDATE push_pending SET lease = 0, attempts = 0, due = ? WHERE subscription_id = ?",
                        [.int(now + PushLimits.coalescing), id])
                    connection.outboxDeliveries += 1
                }
            case .gone:
                try connection.run("DELETE FROM push_subscriptions WHERE id = ?", [id])
            case .retry(let at, let error):
                try connection.run(
                    "UPDATE push_pending SET lease = 0, attempts = attempts + 1, due = ? WHERE subscription_id = ?",
                    [.int(at), id])
                try connection.run(
                    "UPDATE push_subscriptions SET failures = failures + 1, last_error = ? WHERE id = ?",
                    [.text(error), id])
            case .dropped:
                try connection.run("DELETE FROM push_subscriptions WHERE id = ?", [id])
            }
        }
    }

    public func removeExpired(now: Int) throws(StoreError) -> Int {
        try database.write { (connection) throws(StoreError) -> Int in
            try connection.run("DELETE FROM push_subscriptions WHERE expires <= ?", [.int(now)])
        }
    }
}

/// Queues push messages in the transaction of a change (called by the webhook outbox's
/// ``Outbox/record(_:_:)``, which every change to a calendar goes through).
enum PushQueue {
    /// What kind of update a change is for WebDAV-Push: members (content) or the
    /// calendar's own properties; nil for what is no change to a collection.
    static func kind(of type: WebhookEventType) -> (content: Bool, property: Bool)? {
        switch type {
        case .eventCreated, .eventUpdated, .eventDeleted, .bookingCreated, .bookingCancelled, .bookingRescheduled,
            .holdExpired:
            (true, false)
        case .calendarUpdated: (false, true)
        case .calendarCreated, .calendarDeleted, .alarmDue: nil
        }
    }

    /// One pending message for each live subscription to `calendar` that wants this kind
    /// of change and whose user may still read it (its owner, or a sharee who accepted):
    /// a message already waiting takes the later sequence and this kind too, and keeps
    /// its time, so a burst of changes is one message.
    static func record(type: WebhookEventType, calendar: String, sequence: Int, now: Int, _ connection: Connection)
        throws(StoreError)
    {
        guard let kind = kind(of: type) else { return }
        let queued = try connection.run(
            """
            INSERT INTO push_pending (subscription_id, sequence, content, property, due)
            SELECT s.id, CAST(?2 AS BIGINT), CAST(?3 AS BIGINT), CAST(?4 AS BIGINT), CAST(?5 AS BIGINT)
            FROM push_subscriptions s JOIN calendars c ON c.id = s.calendar_id
            WHERE c.identifier = ?1 AND s.expires > ?6
              AND ((CAST(?3 AS BIGINT) = 1 AND s.content_update = 1) OR (CAST(?4 AS BIGINT) = 1 AND s.property_update = 1))
              AND (s.user_id = c.owner_id OR EXISTS (SELECT 1 FROM grants g WHERE g.calendar_id = c.id
                AND g.user_id = s.user_id AND g.status = 'accepted'))
            ON CONFLICT (subscription_id) DO UPDATE SET
              sequence = CASE WHEN excluded.sequence > push_pending.sequence THEN excluded.sequence ELSE push_pending.sequence END,
              content = CASE WHEN excluded.content = 1 THEN 1 ELSE push_pending.content END,
              property = CASE WHEN excluded.property = 1 THEN 1 ELSE push_pending.property END
            """,
            [
                .text(calendar), .int(sequence), .int(kind.content ? 1 : 0), .int(kind.property ? 1 : 0),
                .int(now + PushLimits.coalescing), .int(now / 1_000),
            ])
        connection.outboxDeliveries += queued
    }
}
