/// Webhook subscriptions, their outbox and the dispatchers' side of it. Reached through
/// ``StoreBackend/webhooks``. The subscription methods act for the user they name
/// (`notFound` for another user's subscription); the dispatch methods are for the
/// dispatchers of every server process on the database.
///
/// Delivery is at least once and in order per calendar: each change's deliveries are
/// written in the change's transaction (``Outbox``), and a queue per subscription and
/// calendar is leased by one dispatcher at a time, which sends its deliveries one by one.
public protocol WebhookStore: Sendable {
    // MARK: Subscriptions

    /// Stores a new subscription with its signing secret. The calendars it names must be
    /// the user's own; at most ``Webhook/maxPerUser`` a user.
    func createWebhook(_ webhook: Webhook, secret: String) throws(StoreError) -> Webhook
    /// A user's subscriptions in id order, at most `limit`, those after `cursor` (an id).
    func webhooks(user: String, after cursor: String?, limit: Int) throws(StoreError) -> [Webhook]
    /// One of the user's subscriptions, with its count of waiting deliveries; `notFound` otherwise.
    func webhook(id: String, user: String) throws(StoreError) -> Webhook
    /// Changes the URL, types, calendars, description and state (`active` or `paused`).
    /// Making a paused or disabled subscription active clears its failures and retries
    /// what waits at once.
    func updateWebhook(_ webhook: Webhook) throws(StoreError) -> Webhook
    /// Deletes one of the user's subscriptions with its outbox and attempts; `notFound` otherwise.
    func deleteWebhook(id: String, user: String) throws(StoreError)
    /// The key a subscription's deliveries are signed with.
    func webhookSecret(id: String, user: String) throws(StoreError) -> String
    /// The last attempts, newest first (at most ``recentAttemptsKept`` are kept).
    func recentAttempts(webhook id: String, user: String, limit: Int) throws(StoreError) -> [WebhookAttempt]
    /// Deliveries newest first, at most `limit`, those before the outbox position `before`.
    func deliveries(webhook id: String, user: String, before: Int64?, limit: Int) throws(StoreError)
        -> [WebhookDelivery]
    /// Sends again, in order, every delivery of the subscription whose change happened at
    /// or after `from` (Unix milliseconds) and that was delivered or given up and is still
    /// kept (``WebhookPolicy``). Returns how many. They keep their delivery ids.
    func replayDeliveries(webhook id: String, user: String, from: Int) throws(StoreError) -> Int

    // MARK: Dispatch

    /// Poked when a write of this process has put deliveries in the outbox.
    var outboxSignal: OutboxSignal { get }
    /// Leases up to `limit` queues that are due at `now` (Unix milliseconds) and whose
    /// subscription is active, for `lease` milliseconds, to `owner`, skipping the queues
    /// of users who hold `perUser` leases already (so one user's slow receivers hold at
    /// most that many dispatchers). With several processes on PostgreSQL, rows another
    /// claim holds are skipped, and two claims at one moment may each give a user one.
    func claimQueues(now: Int, limit: Int, lease: Int, owner: String, perUser: Int) throws(StoreError)
        -> [WebhookQueue]
    /// The queue's first waiting delivery, extending the lease; nil when it has none (the
    /// queue is then idle until the next change) or the lease was lost.
    func nextDelivery(in queue: WebhookQueue, now: Int, lease: Int) throws(StoreError) -> WebhookDelivery?
    /// Records an attempt and what follows from it (see ``WebhookOutcome``); pauses the
    /// subscription after `pauseAfter` failures in a row. Returns whether the caller
    /// still holds the queue and should go on with its next delivery.
    func finish(
        _ delivery: WebhookDelivery, in queue: WebhookQueue, outcome: WebhookOutcome, now: Int, lease: Int,
        pauseAfter: Int
    ) throws(StoreError) -> Bool
    /// Gives a queue's lease back, leaving it due.
    func release(_ queue: WebhookQueue) throws(StoreError)
    /// On SQLite, whose file only processes of this host share, gives back the leases of
    /// owners `isGone` says have ended (a server killed with its queues leased), so a
    /// restart resumes at once rather than when the leases run out. Elsewhere nothing:
    /// on PostgreSQL the owners may be on other hosts. Returns how many were freed.
    func releaseLeases(ofGoneOwners isGone: (String) -> Bool) throws(StoreError) -> Int
    /// Forgets delivered and given-up deliveries finished before `before` (Unix
    /// milliseconds); returns how many.
    func pruneDeliveries(finishedBefore before: Int) throws(StoreError) -> Int
}

/// How many attempts each subscription keeps for its owner to read.
public let recentAttemptsKept = 50

/// The webhook store of a ``DatabaseBackend``, in the same database as the calendars, so
/// the outbox commits with the changes (tables `webhooks`, `webhook_calendars`,
/// `webhook_deliveries`, `webhook_queues`, `webhook_attempts`).
public struct DatabaseWebhookStore: WebhookStore {
    let backend: DatabaseBackend
    var database: any StoreDatabase { backend.database }

    /// See ``WebhookStore/outboxSignal``.
    public var outboxSignal: OutboxSignal { database.outbox }

    // MARK: Subscriptions

    static let columns = """
        SELECT w.id, w.identifier, u.name, w.url, w.events, w.all_calendars, w.description, w.state, w.state_reason,
            w.failures, w.created,
            (SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.state = 'pending')
        FROM webhooks w JOIN users u ON u.id = w.user_id
        """

    func webhook(_ row: Row, _ connection: Connection) throws(StoreError) -> Webhook {
        var calendars: [String]?
        if row.int(5) == 0 {
            calendars = try connection.rows(
                "SELECT calendar FROM webhook_calendars WHERE webhook_id = ? ORDER BY calendar",
                [.integer(row.int64(0))]
            ) { $0.string(0) }
        }
        return Webhook(
            id: row.string(1), user: row.string(2), url: row.string(3),
            events: WebhookEventType.types(inMask: row.int(4)),
            calendars: calendars, description: row.optionalString(6),
            state: Webhook.State(rawValue: row.string(7)) ?? .paused, stateReason: row.optionalString(8),
            failures: row.int(9), created: row.int(10), pending: row.int(11))
    }

    func webhook(id: String, user: String, _ connection: Connection) throws(StoreError) -> (Int64, Webhook) {
        var rowID: Int64 = 0
        guard
            let found = try connection.firstRow(
                Self.columns + " WHERE w.identifier = ? AND u.name = ?", [.text(id), .text(user)],
                { (row) throws(StoreError) -> Webhook in
                    rowID = row.int64(0)
                    return try webhook(row, connection)
                })
        else { throw StoreError(.notFound, "\(user) has no webhook \(id)", resource: id) }
        return (rowID, found)
    }

    func validate(_ webhook: Webhook, userID: Int64, _ connection: Connection) throws(StoreError) {
        guard !webhook.url.isEmpty, webhook.url.utf8.count <= Webhook.maxURLBytes else {
            throw StoreError(.invalidArgument, "a webhook URL is 1 to \(Webhook.maxURLBytes) bytes")
        }
        if let description = webhook.description, description.utf8.count > Webhook.maxDescriptionBytes {
            throw StoreError(.invalidArgument, "a webhook description is at most \(Webhook.maxDescriptionBytes) bytes")
        }
        guard !webhook.events.isEmpty else {
            throw StoreError(.invalidArgument, "a webhook wants at least one type of event")
        }
        guard let calendars = webhook.calendars else { return }
        guard !calendars.isEmpty, calendars.count <= Webhook.maxCalendars else {
            throw StoreError(
                .invalidArgument, "a webhook names 1 to \(Webhook.maxCalendars) calendars (or none, for all of them)")
        }
        for calendar in calendars {
            let owned = try connection.firstRow(
                "SELECT 1 FROM calendars WHERE identifier = ? AND owner_id = ?", [.text(calendar), .integer(userID)],
                { _ in true })
            if owned == nil {
                throw StoreError(.invalidArgument, "no calendar \(calendar) of the user's own", resource: calendar)
            }
        }
    }

    func writeCalendars(_ webhook: Webhook, rowID: Int64, _ connection: Connection) throws(StoreError) {
        try connection.run("DELETE FROM webhook_calendars WHERE webhook_id = ?", [.integer(rowID)])
        for calendar in Set(webhook.calendars ?? []) {
            try connection.run(
                "INSERT INTO webhook_calendars (webhook_id, calendar) VALUES (?, ?)",
                [.integer(rowID), .text(calendar)])
        }
    }

    /// See ``WebhookStore/createWebhook(_:secret:)``; a URL, description or calendar list out of bounds,
    /// or no event type, is `invalidArgument`.
    public func createWebhook(_ webhook: Webhook, secret: String) throws(StoreError) -> Webhook {
        try database.write { (connection) throws(StoreError) -> Webhook in
            let userID = try connection.userRowID(named: webhook.user)
            if let lock = connection.dialect.lockUser { try connection.run(lock, [.integer(userID)]) }
            try validate(webhook, userID: userID, connection)
            let count =
                try connection.firstRow("SELECT count(*) FROM webhooks WHERE user_id = ?", [.integer(userID)]) {
                    $0.int(0)
                } ?? 0
            guard count < Webhook.maxPerUser else {
                throw StoreError(.invalidArgument, "a user has at most \(Webhook.maxPerUser) webhooks")
            }
            let rowID = try connection.firstRow(
                """
                INSERT INTO webhooks (identifier, user_id, url, secret, events, all_calendars, description, state, created)
                VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?) RETURNING id
                """,
                [
                    .text(webhook.id), .integer(userID), .text(webhook.url), .text(secret),
                    .int(WebhookEventType.mask(webhook.events)), .int(webhook.calendars == nil ? 1 : 0),
                    .optional(webhook.description), .int(WallClock.now()),
                ], { $0.int64(0) })
            guard let rowID else { throw StoreError(.database, "the new webhook's row was not returned") }
            try writeCalendars(webhook, rowID: rowID, connection)
            return try self.webhook(id: webhook.id, user: webhook.user, connection).1
        }
    }

    /// See ``WebhookStore/webhooks(user:after:limit:)``.
    public func webhooks(user: String, after cursor: String?, limit: Int) throws(StoreError) -> [Webhook] {
        try database.read { (connection) throws(StoreError) -> [Webhook] in
            try connection.rows(
                Self.columns + " WHERE u.name = ? AND w.identifier > ? ORDER BY w.identifier LIMIT ?",
                [.text(user), .text(cursor ?? ""), .int(limit)]
            ) { (row) throws(StoreError) in try webhook(row, connection) }
        }
    }

    /// See ``WebhookStore/webhook(id:user:)``.
    public func webhook(id: String, user: String) throws(StoreError) -> Webhook {
        try database.read { (connection) throws(StoreError) -> Webhook in try webhook(id: id, user: user, connection).1
        }
    }

    /// See ``WebhookStore/updateWebhook(_:)``; asking for `disabled` is `invalidArgument`.
    public func updateWebhook(_ webhook: Webhook) throws(StoreError) -> Webhook {
        guard webhook.state != .disabled else {
            throw StoreError(.invalidArgument, "a webhook is made active or paused; only a 410 Gone disables it")
        }
        return try database.write { (connection) throws(StoreError) -> Webhook in
            let (rowID, current) = try self.webhook(id: webhook.id, user: webhook.user, connection)
            try validate(webhook, userID: try connection.userRowID(named: webhook.user), connection)
            let resumed = webhook.state == .active && current.state != .active
            try connection.run(
                """
                UPDATE webhooks SET url = ?, events = ?, all_calendars = ?, description = ?, state = ?,
                    state_reason = CASE WHEN ? = state THEN state_reason ELSE NULL END,
                    failures = CASE WHEN ? = 1 THEN 0 ELSE failures END WHERE id = ?
                """,
                [
                    .text(webhook.url), .int(WebhookEventType.mask(webhook.events)),
                    .int(webhook.calendars == nil ? 1 : 0), .optional(webhook.description),
                    .text(webhook.state.rawValue), .text(webhook.state.rawValue), .int(resumed ? 1 : 0),
                    .integer(rowID),
                ])
            if webhook.state == .paused && current.state != .paused {
                try connection.run(
                    "UPDATE webhooks SET state_reason = 'paused by the owner' WHERE id = ?", [.integer(rowID)])
            }
            if resumed {
                try connection.run(
                    "UPDATE webhook_queues SET next_attempt = ? WHERE webhook_id = ? AND next_attempt IS NOT NULL",
                    [.int(WallClock.nowMilliseconds()), .integer(rowID)])
                connection.outboxDeliveries += 1
            }
            try writeCalendars(webhook, rowID: rowID, connection)
            return try self.webhook(id: webhook.id, user: webhook.user, connection).1
        }
    }

    /// See ``WebhookStore/deleteWebhook(id:user:)``.
    public func deleteWebhook(id: String, user: String) throws(StoreError) {
        let removed = try database.write { (connection) throws(StoreError) -> Int in
            try connection.run(
                "DELETE FROM webhooks WHERE identifier = ? AND user_id = (SELECT id FROM users WHERE name = ?)",
                [.text(id), .text(user)])
        }
        if removed == 0 { throw StoreError(.notFound, "\(user) has no webhook \(id)", resource: id) }
    }

    /// See ``WebhookStore/webhookSecret(id:user:)``; `notFound` for another user's subscription.
    public func webhookSecret(id: String, user: String) throws(StoreError) -> String {
        let secret = try database.read { (connection) throws(StoreError) -> String? in
            try connection.firstRow(
                "SELECT w.secret FROM webhooks w JOIN users u ON u.id = w.user_id WHERE w.identifier = ? AND u.name = ?",
                [.text(id), .text(user)], { $0.string(0) })
        }
        guard let secret else { throw StoreError(.notFound, "\(user) has no webhook \(id)", resource: id) }
        return secret
    }

    /// See ``WebhookStore/recentAttempts(webhook:user:limit:)``.
    public func recentAttempts(webhook id: String, user: String, limit: Int) throws(StoreError) -> [WebhookAttempt] {
        try database.read { (connection) throws(StoreError) -> [WebhookAttempt] in
            let (rowID, _) = try webhook(id: id, user: user, connection)
            return try connection.rows(
                "SELECT delivery, type, at, status, error, duration FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT ?",
                [.integer(rowID), .int(limit)]
            ) { row in
                WebhookAttempt(
                    delivery: row.string(0), type: WebhookEventType(rawValue: row.string(1)) ?? .eventUpdated,
                    at: row.int(2), status: row.optionalInt(3), error: row.optionalString(4),
                    durationMilliseconds: row.int(5))
            }
        }
    }

    static let deliveryColumns = """
        SELECT d.id, d.identifier, w.identifier, d.type, d.calendar, d.sequence, d.event_identifier, d.uid, d.etag,
            d.resource, d.recurrence_id, d.span, d.occurred, d.state, d.attempts, d.last_status, d.last_error, d.finished,
            d.booking, d.detail
        FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        """

    static func delivery(_ row: Row) -> WebhookDelivery {
        var occurrence: WebhookDelivery.OccurrenceSpan?
        if let recurrenceID = row.optionalString(10) {
            occurrence = .init(recurrenceID: recurrenceID, span: row.optionalString(11) ?? "this")
        }
        return WebhookDelivery(
            id: row.string(1), webhookID: row.string(2),
            type: WebhookEventType(rawValue: row.string(3)) ?? .eventUpdated, calendar: row.string(4),
            sequence: row.int(5), eventIdentifier: row.optionalString(6), uid: row.optionalString(7),
            etag: row.optionalString(8), resource: row.optionalString(9), occurrence: occurrence,
            occurred: row.int(12), state: WebhookDelivery.State(rawValue: row.string(13)) ?? .pending,
            attempts: row.int(14), lastStatus: row.optionalInt(15), lastError: row.optionalString(16),
            finished: row.optionalInt(17), position: row.int64(0), booking: row.optionalString(18),
            detail: row.optionalString(19))
    }

    /// See ``WebhookStore/deliveries(webhook:user:before:limit:)``.
    public func deliveries(webhook id: String, user: String, before: Int64?, limit: Int) throws(StoreError)
        -> [WebhookDelivery]
    {
        try database.read { (connection) throws(StoreError) -> [WebhookDelivery] in
            let (rowID, _) = try webhook(id: id, user: user, connection)
            return try connection.rows(
                Self.deliveryColumns + " WHERE d.webhook_id = ? AND d.id < ? ORDER BY d.id DESC LIMIT ?",
                [.integer(rowID), .integer(before ?? Int64.max), .int(limit)], Self.delivery)
        }
    }

    /// See ``WebhookStore/replayDeliveries(webhook:user:from:)``.
    public func replayDeliveries(webhook id: String, user: String, from: Int) throws(StoreError) -> Int {
        try database.write { (connection) throws(StoreError) -> Int in
            let (rowID, _) = try webhook(id: id, user: user, connection)
            let count = try connection.run(
                """
                UPDATE webhook_deliveries SET state = 'pending', attempts = 0, finished = NULL
                WHERE webhook_id = ? AND occurred >= ? AND state <> 'pending'
                """, [.integer(rowID), .int(from)])
            guard count > 0 else { return 0 }
            try connection.run(
                """
                UPDATE webhook_queues SET next_attempt = COALESCE(next_attempt, ?) WHERE webhook_id = ? AND calendar IN
                    (SELECT calendar FROM webhook_deliveries WHERE webhook_id = ? AND state = 'pending')
                """, [.int(WallClock.nowMilliseconds()), .integer(rowID), .integer(rowID)])
            connection.outboxDeliveries += count
            return count
        }
    }

    // MARK: Dispatch

    /// See ``WebhookStore/claimQueues(now:limit:lease:owner:perUser:)``; looks in a read transaction
    /// first, so a poll that finds nothing due takes no write lock.
    public func claimQueues(now: Int, limit: Int, lease: Int, owner: String, perUser: Int) throws(StoreError)
        -> [WebhookQueue]
    {
        let due = """
            FROM webhook_queues q JOIN webhooks w ON w.id = q.webhook_id
            WHERE q.next_attempt IS NOT NULL AND q.next_attempt <= ?1 AND q.lease_until <= ?1 AND w.state = 'active'
                AND (SELECT count(*) FROM webhook_queues h JOIN webhooks hw ON hw.id = h.webhook_id
                    WHERE hw.user_id = w.user_id AND h.lease_owner IS NOT NULL AND h.lease_until > ?1) < ?3
            """
        // Most polls find nothing: look in a read transaction before taking the writer.
        let any = try database.read { (connection) throws(StoreError) -> Bool in
            try connection.firstRow(
                "SELECT 1 " + due + " LIMIT ?2", [.int(now), .int(1), .int(perUser)], { _ in true })
                ?? false
        }
        guard any else { return [] }
        return try database.write { (connection) throws(StoreError) -> [WebhookQueue] in
            let queues = try connection.rows(
                "SELECT q.webhook_id, q.calendar, w.identifier, w.url, w.secret " + due
                    + " ORDER BY q.next_attempt LIMIT ?2" + connection.dialect.skipLocked,
                [.int(now), .int(limit), .int(perUser)]
            ) { row in
                WebhookQueue(
                    webhookID: row.string(2), calendar: row.string(1), url: row.string(3), secret: row.string(4),
                    leaseOwner: owner, webhookRowID: row.int64(0))
            }
            for queue in queues {
                try connection.run(
                    "UPDATE webhook_queues SET lease_until = ?, lease_owner = ? WHERE webhook_id = ? AND calendar = ?",
                    [.int(now + lease), .text(owner), .integer(queue.webhookRowID), .text(queue.calendar)])
            }
            return queues
        }
    }

    static let headOfQueue =
        Self.deliveryColumns
        + " WHERE d.webhook_id = ? AND d.calendar = ? AND d.state = 'pending' ORDER BY d.id LIMIT 1"

    /// See ``WebhookStore/nextDelivery(in:now:lease:)``.
    public func nextDelivery(in queue: WebhookQueue, now: Int, lease: Int) throws(StoreError) -> WebhookDelivery? {
        let key: [SQLValue] = [.integer(queue.webhookRowID), .text(queue.calendar)]
        if let head = try database.read({ (connection) throws(StoreError) -> WebhookDelivery? in
            try connection.firstRow(Self.headOfQueue, key, Self.delivery)
        }) {
            return head
        }
        // Nothing waits: idle the queue, unless a change committed meanwhile. On PostgreSQL
        // the calendar's row lock (which every write to it takes first) keeps a write from
        // committing a delivery between the look and the update.
        return try database.write { (connection) throws(StoreError) -> WebhookDelivery? in
            if connection.dialect == .postgres {
                try connection.run("SELECT 1 FROM calendars WHERE identifier = ? FOR UPDATE", [.text(queue.calendar)])
            }
            if let head = try connection.firstRow(Self.headOfQueue, key, Self.delivery) {
                return try Self.update(queue, .extend(until: now + lease), connection) ? head : nil
            }
            _ = try Self.update(queue, .idle, connection)
            return nil
        }
    }

    /// See ``WebhookStore/finish(_:in:outcome:now:lease:pauseAfter:)``; keeps the last
    /// ``recentAttemptsKept`` attempts of the subscription.
    public func finish(
        _ delivery: WebhookDelivery, in queue: WebhookQueue, outcome: WebhookOutcome, now: Int, lease: Int,
        pauseAfter: Int
    ) throws(StoreError) -> Bool {
        try database.write { (connection) throws(StoreError) -> Bool in
            let webhook = queue.webhookRowID
            try connection.run(
                "INSERT INTO webhook_attempts (webhook_id, delivery, type, at, status, error, duration) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .integer(webhook), .text(delivery.id), .text(delivery.type.rawValue), .int(now),
                    .optional(outcome.status), .optional(outcome.error), .int(outcome.durationMilliseconds),
                ])
            try connection.run(
                """
                DELETE FROM webhook_attempts WHERE webhook_id = ?1 AND id <=
                    (SELECT id FROM webhook_attempts WHERE webhook_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)
                """, [.integer(webhook), .int(recentAttemptsKept)])
            let state: String
            let finished: SQLValue
            switch outcome.disposition {
            case .delivered: (state, finished) = ("delivered", .int(now))
            case .giveUp: (state, finished) = ("failed", .int(now))
            case .retry, .disable: (state, finished) = ("pending", nil)
            }
            try connection.run(
                """
                UPDATE webhook_deliveries SET state = ?, attempts = attempts + 1, last_status = ?, last_error = ?,
                    finished = ? WHERE id = ?
                """,
                [
                    .text(state), .optional(outcome.status), .optional(outcome.error), finished,
                    .integer(delivery.position),
                ])
            if case .delivered = outcome.disposition {
                try connection.run(
                    "UPDATE webhooks SET failures = 0 WHERE id = ? AND failures <> 0", [.integer(webhook)])
            } else if case .disable = outcome.disposition {
                try connection.run(
                    "UPDATE webhooks SET state = 'disabled', state_reason = ?, failures = failures + 1 WHERE id = ?",
                    [.text("disabled: the endpoint answered 410 Gone"), .integer(webhook)])
            } else {
                let reason = "paused after \(pauseAfter) failed attempts in a row; the last: " + (outcome.error ?? "")
                try connection.run(
                    """
                    UPDATE webhooks SET failures = failures + 1,
                        state = CASE WHEN failures + 1 >= ? AND state = 'active' THEN 'paused' ELSE state END,
                        state_reason = CASE WHEN failures + 1 >= ? AND state = 'active' THEN ? ELSE state_reason END
                    WHERE id = ?
                    """, [.int(pauseAfter), .int(pauseAfter), .text(reason), .integer(webhook)])
            }
            let active =
                try connection.firstRow("SELECT state FROM webhooks WHERE id = ?", [.integer(webhook)]) {
                    $0.string(0) == "active"
                } ?? false
            switch outcome.disposition {
            case .retry(let at):
                _ = try Self.update(queue, .retry(at: at), connection)
                return false
            case .delivered, .giveUp, .disable:
                guard active else {
                    _ = try Self.update(queue, .release, connection)
                    return false
                }
                return try Self.update(queue, .extend(until: now + lease), connection)
            }
        }
    }

    /// See ``WebhookStore/release(_:)``.
    public func release(_ queue: WebhookQueue) throws(StoreError) {
        _ = try database.write { (connection) throws(StoreError) -> Bool in try Self.update(queue, .release, connection)
        }
    }

    /// See ``WebhookStore/releaseLeases(ofGoneOwners:)``; always 0 on PostgreSQL.
    public func releaseLeases(ofGoneOwners isGone: (String) -> Bool) throws(StoreError) -> Int {
        guard database.dialect == .sqlite else { return 0 }
        return try database.write { (connection) throws(StoreError) -> Int in
            let owners = try connection.rows(
                "SELECT DISTINCT lease_owner FROM webhook_queues WHERE lease_owner IS NOT NULL", [], { $0.string(0) })
            var freed = 0
            for owner in owners where isGone(owner) {
                freed += try connection.run(
                    "UPDATE webhook_queues SET lease_until = 0, lease_owner = NULL WHERE lease_owner = ?",
                    [.text(owner)])
            }
            return freed
        }
    }

    /// What a lease holder does to its queue.
    enum LeaseChange {
        /// Keeps it longer.
        case extend(until: Int)
        /// Gives it back, due as it was.
        case release
        /// Gives it back, due again at this time (Unix milliseconds).
        case retry(at: Int)
        /// Gives it back with nothing waiting: due again at the next change.
        case idle
    }

    /// Changes a queue the caller leases; returns whether it still held the lease (one
    /// that expired may have been claimed by another dispatcher, which then holds it).
    static func update(_ queue: WebhookQueue, _ change: LeaseChange, _ connection: Connection) throws(StoreError)
        -> Bool
    {
        let (assignments, values): (String, [SQLValue]) =
            switch change {
            case .extend(let until): ("lease_until = ?", [.int(until)])
            case .release: ("lease_until = 0, lease_owner = NULL", [])
            case .retry(let at): ("next_attempt = ?, lease_until = 0, lease_owner = NULL", [.int(at)])
            case .idle: ("next_attempt = NULL, lease_until = 0, lease_owner = NULL", [])
            }
        let changed = try connection.run(
            "UPDATE webhook_queues SET " + assignments + " WHERE webhook_id = ? AND calendar = ? AND lease_owner = ?",
            values + [.integer(queue.webhookRowID), .text(queue.calendar), .text(queue.leaseOwner)])
        return changed == 1
    }

    /// See ``WebhookStore/pruneDeliveries(finishedBefore:)``.
    public func pruneDeliveries(finishedBefore before: Int) throws(StoreError) -> Int {
        try database.write { (connection) throws(StoreError) -> Int in
            try connection.run(
                "DELETE FROM webhook_deliveries WHERE state <> 'pending' AND finished < ?", [.int(before)])
        }
    }
}
