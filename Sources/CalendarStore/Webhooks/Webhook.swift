/// What a webhook subscription may be told about: a change to an event (a calendar
/// object), to a calendar, or to a booking. The raw values are the `type` members of
/// the deliveries.
public enum WebhookEventType: String, Sendable, CaseIterable, Hashable, Comparable {
    /// A calendar object was written where there was none.
    case eventCreated = "event.created"
    /// A calendar object was changed (or instances of a series edited).
    case eventUpdated = "event.updated"
    /// A calendar object was deleted (or instances removed from a series).
    case eventDeleted = "event.deleted"
    /// A calendar was created.
    case calendarCreated = "calendar.created"
    /// A calendar's settings changed.
    case calendarUpdated = "calendar.updated"
    /// A calendar was deleted.
    case calendarDeleted = "calendar.deleted"
    // Appended: a type's bit is its place in this list, and stored masks keep their bits.
    /// A booking was made, or taken from the waiting list.
    case bookingCreated = "booking.created"
    /// A booking was cancelled.
    case bookingCancelled = "booking.cancelled"
    /// A booking moved to another slot.
    case bookingRescheduled = "booking.rescheduled"
    /// A hold ran out without being booked.
    case holdExpired = "hold.expired"
    /// An alarm of an event came due (the reminder scheduler).
    case alarmDue = "alarm.due"

    /// The bit of this type in the `events` mask a subscription is stored with.
    var bit: Int { 1 << WebhookEventType.allCases.firstIndex(of: self)! }

    static func mask(_ types: Set<WebhookEventType>) -> Int { types.reduce(0) { $0 | $1.bit } }

    static func types(inMask mask: Int) -> Set<WebhookEventType> { Set(allCases.filter { mask & $0.bit != 0 }) }

    /// Orders types as they are declared, which is the order of their bits.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A user's webhook subscription: where changes to their calendars (all, or a list) are
/// POSTed, signed with a secret that only the answer creating it shows.
public struct Webhook: Sendable, Hashable {
    /// `wh_` and 24 hex digits.
    public var id: String
    /// The owner: only their calendars' changes reach the endpoint.
    public var user: String
    /// An `http` or `https` URL (checked by whoever creates it; the store keeps it as given).
    public var url: String
    /// The types of change delivered; at least one.
    public var events: Set<WebhookEventType>
    /// The calendars whose changes are delivered, by identifier; nil for all of the
    /// user's calendars, including those created later.
    public var calendars: [String]?
    /// The owner's note on what it is for; nil for none. At most 500 bytes.
    public var description: String?
    /// Whether deliveries are made, held back or stopped.
    public var state: State
    /// Why the subscription was paused or disabled.
    public var stateReason: String?
    /// Failed attempts in a row (0 after any success).
    public var failures: Int
    /// Unix seconds.
    public var created: Int
    /// Deliveries waiting (read only; counted when the subscription is read).
    public var pending: Int

    /// Whether a subscription's deliveries go out.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Deliveries are made.
        case active
        /// Changes are still recorded, and delivered in order once the owner resumes it
        /// (after repeated failures, or by the owner).
        case paused
        /// Nothing is recorded or delivered (the endpoint answered 410 Gone).
        case disabled
    }

    /// A subscription as the caller describes it; the store sets `state`, `failures`, `created` and
    /// `pending` on the one it returns.
    public init(
        id: String, user: String, url: String, events: Set<WebhookEventType> = Set(WebhookEventType.allCases),
        calendars: [String]? = nil, description: String? = nil, state: State = .active, stateReason: String? = nil,
        failures: Int = 0, created: Int = 0, pending: Int = 0
    ) {
        self.id = id
        self.user = user
        self.url = url
        self.events = events
        self.calendars = calendars
        self.description = description
        self.state = state
        self.stateReason = stateReason
        self.failures = failures
        self.created = created
        self.pending = pending
    }

    /// How many subscriptions a user may have.
    public static let maxPerUser = 25
    /// How many calendars one subscription may name.
    public static let maxCalendars = 100
    /// The longest URL and description kept.
    public static let maxURLBytes = 2_048
    /// The longest description, in UTF-8 bytes.
    public static let maxDescriptionBytes = 500
}

/// One change to deliver to one subscription, as the outbox row holds it. The body
/// sent is built from these fields, so every attempt sends the same document.
public struct WebhookDelivery: Sendable, Hashable {
    /// `dl_` and 24 random hex digits: unique, the id receivers deduplicate by.
    public var id: String
    /// The identifier of the subscription it goes to.
    public var webhookID: String
    /// What kind of change it tells of.
    public var type: WebhookEventType
    /// The calendar's identifier (it may since have been deleted).
    public var calendar: String
    /// The calendar's change sequence this change made (its sync token's position).
    public var sequence: Int
    /// The event's store identifier, UID, ETag (nil for a deletion) and resource name;
    /// all nil for a calendar's own changes.
    public var eventIdentifier: String?
    /// The event's UID; nil for a calendar's own change.
    public var uid: String?
    /// The event's new ETag; nil for a deletion or a calendar's own change.
    public var etag: String?
    /// The name of the event's resource in the calendar; nil for a calendar's own change.
    public var resource: String?
    /// For an edit or removal of one instance of a series (or this and the following
    /// ones): which, as the API's RECURRENCE-ID text.
    public var occurrence: OccurrenceSpan?
    /// When the change committed, in Unix milliseconds.
    public var occurred: Int
    /// Whether it waits, went out or was given up.
    public var state: State
    /// How many times it was sent (0 while it waits for its first attempt).
    public var attempts: Int
    /// The HTTP status of the last attempt; nil before any, or when there was no answer.
    public var lastStatus: Int?
    /// What went wrong with the last attempt; nil when nothing did.
    public var lastError: String?
    /// When it was delivered or given up, Unix milliseconds.
    public var finished: Int?
    /// The outbox row's number: it orders the deliveries of a calendar, and a listing
    /// of deliveries pages by it.
    public var position: Int64
    /// The booking a `booking.*` delivery tells of, or the hold of a `hold.expired` one.
    public var booking: String? = nil
    /// What an `alarm.due` delivery tells of its alarm: a JSON object's text (see
    /// docs/webhooks.md); nil for other types.
    public var detail: String? = nil

    /// Where a delivery is in its life.
    public enum State: String, Sendable, Hashable {
        /// Waiting to be sent, or to be sent again.
        case pending
        /// The endpoint answered with a 2xx status.
        case delivered
        /// Given up after failing for ``WebhookPolicy/maxAge``.
        case failed
    }

    /// An instance, or an instance and every one after it.
    public struct OccurrenceSpan: Sendable, Hashable {
        /// The instance's RECURRENCE-ID, as the API's text form.
        public var recurrenceID: String
        /// `this` or `future`.
        public var span: String

        /// The instance `recurrenceID`, and `this` or `future` for the span.
        public init(recurrenceID: String, span: String) {
            self.recurrenceID = recurrenceID
            self.span = span
        }
    }
}

/// One attempt to deliver, for the owner to see what went wrong.
public struct WebhookAttempt: Sendable, Hashable {
    /// The identifier of the delivery attempted.
    public var delivery: String
    /// The delivery's type of change.
    public var type: WebhookEventType
    /// Unix milliseconds.
    public var at: Int
    /// The HTTP status the endpoint answered, nil when there was no answer.
    public var status: Int?
    /// What went wrong; nil when nothing did.
    public var error: String?
    /// How long the attempt took, in milliseconds.
    public var durationMilliseconds: Int

    /// An attempt as it is read back.
    public init(
        delivery: String, type: WebhookEventType, at: Int, status: Int?, error: String?, durationMilliseconds: Int
    ) {
        self.delivery = delivery
        self.type = type
        self.at = at
        self.status = status
        self.error = error
        self.durationMilliseconds = durationMilliseconds
    }
}

/// The queue of one subscription and one calendar, leased by a dispatcher: only the
/// holder of the lease delivers from it, one delivery at a time, in order.
public struct WebhookQueue: Sendable, Hashable {
    /// The identifier of the subscription.
    public var webhookID: String
    /// The identifier of the calendar whose deliveries the queue holds.
    public var calendar: String
    /// The subscription's endpoint.
    public var url: String
    /// The key the deliveries are signed with.
    public var secret: String
    /// Who holds the lease (a random text per dispatcher worker).
    public var leaseOwner: String
    var webhookRowID: Int64
}

/// What happened to one attempt, as the dispatcher reports it to the store.
public struct WebhookOutcome: Sendable {
    /// The HTTP status the endpoint answered; nil when there was no answer.
    public var status: Int?
    /// What went wrong, for the owner to read; nil when nothing did.
    public var error: String?
    /// How long the attempt took, in milliseconds.
    public var durationMilliseconds: Int
    /// What the store does next with the delivery and the queue.
    public var disposition: Disposition

    /// What follows from an attempt.
    public enum Disposition: Sendable {
        /// A 2xx answer.
        case delivered
        /// Try again at this time (Unix milliseconds).
        case retry(at: Int)
        /// Give the delivery up and go on with the next one.
        case giveUp
        /// 410 Gone: disable the subscription.
        case disable
    }

    /// An outcome as the dispatcher reports it.
    public init(status: Int?, error: String?, durationMilliseconds: Int, disposition: Disposition) {
        self.status = status
        self.error = error
        self.durationMilliseconds = durationMilliseconds
        self.disposition = disposition
    }
}

extension Webhook {
    /// A new subscription id: `wh_` and 24 random hex digits.
    public static func newIdentifier() -> String { "wh_" + Identifiers.randomHex(bytes: 12) }

    /// A new signing secret: `whsec_` and 48 random hex digits (192 bits).
    public static func newSecret() -> String { "whsec_" + Identifiers.randomHex(bytes: 24) }
}
