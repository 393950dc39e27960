/// The webhook outbox: in the transaction of every change to a calendar, one delivery
/// row for each subscription of the calendar's owner that wants the change, and the
/// subscription's queue for that calendar marked due (and the WebDAV-Push messages the
/// change owes, ``PushQueue``). The change and its deliveries
/// commit together or not at all, so a crash at any moment loses no notification and
/// sends none for a write that did not happen.
enum Outbox {
    /// What a change was to: an event (a calendar object) or the calendar itself.
    struct Change {
        var type: WebhookEventType
        var calendar: String
        var ownerID: Int64
        var sequence: Int
        var eventIdentifier: String? = nil
        var uid: String? = nil
        var etag: String? = nil
        var resource: String? = nil
        var occurrence: WebhookDelivery.OccurrenceSpan? = nil
        var booking: String? = nil
        /// What an `alarm.due` delivery says of its alarm (JSON text).
        var detail: String? = nil
        /// When the change happened, Unix milliseconds; now when nil.
        var occurred: Int? = nil
    }

    /// What a write through the event API says of itself beyond "created" or "updated":
    /// an instance's edit or removal.
    struct Note {
        var type: WebhookEventType
        var occurrence: WebhookDelivery.OccurrenceSpan?
    }

    /// (Parameters in a SELECT list are cast: PostgreSQL would take them as text.)
    /// The subscriptions a change reaches: the owner's, not disabled, wanting the type,
    /// for all calendars or this one (?1 calendar, ?2 owner, ?3 type bit).
    private static let subscribers = """
        FROM webhooks w WHERE w.user_id = ?2 AND w.state <> 'disabled' AND (w.events & ?3) <> 0
          AND (w.all_calendars = 1 OR EXISTS (SELECT 1 FROM webhook_calendars c WHERE c.webhook_id = w.id AND c.calendar = ?1))
        """

    static func record(_ change: Change, _ connection: Connection) throws(StoreError) {
        let now = change.occurred ?? WallClock.nowMilliseconds()
        try PushQueue.record(
            type: change.type, calendar: change.calendar, sequence: change.sequence, now: now, connection)
        let inserted = try connection.run(
            """
            INSERT INTO webhook_deliveries (identifier, webhook_id, calendar, type, sequence, event_identifier, uid, etag,
                resource, recurrence_id, span, occurred, booking, detail)
            SELECT \(connection.dialect.newDeliveryID), w.id, ?1, ?4, CAST(?5 AS BIGINT), ?6, ?7, ?8, ?9, ?10, ?11,
                CAST(?12 AS BIGINT), CAST(?13 AS TEXT), CAST(?14 AS TEXT)
            """ + subscribers,
            [
                .text(change.calendar), .integer(change.ownerID), .int(change.type.bit), .text(change.type.rawValue),
                .int(change.sequence), .optional(change.eventIdentifier), .optional(change.uid), .optional(change.etag),
                .optional(change.resource), .optional(change.occurrence?.recurrenceID),
                .optional(change.occurrence?.span), .int(now), .optional(change.booking), .optional(change.detail),
            ])
        guard inserted > 0 else { return }
        // A queue that waits for a retry keeps its time: the new delivery goes after the
        // one it retries.
        try connection.run(
            """
            INSERT INTO webhook_queues (webhook_id, calendar, next_attempt) SELECT w.id, ?1, CAST(?4 AS BIGINT)
            """ + subscribers
                + """

                ON CONFLICT (webhook_id, calendar) DO UPDATE SET next_attempt = COALESCE(webhook_queues.next_attempt, excluded.next_attempt)
                """,
            [.text(change.calendar), .integer(change.ownerID), .int(change.type.bit), .int(now)])
        connection.outboxDeliveries += inserted
    }
}
