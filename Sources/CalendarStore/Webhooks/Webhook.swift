/// What a webhook subscription may be told about: a change to an event (a calendar
/// object), to a calendar, or to a booking. The raw values are the `type` members of
/// the deliveries.
public enum WebhookEventType: String, Sendable, CaseIterable, Hashable, Comparable {
    case eventCreated = "event.created"
    case eventUpdated = "event.updated"
    case eventDeleted = "event.deleted"
    case calendarCreated = "calendar.created"
    case calendarUpdated = "calendar.updated"
    case calendarDeleted = "calendar.deleted"
    // Appended: a type's bit is its place in this list, and stored masks keep their bits.
    case bookingCreated = "booking.created"
    case bookingCancelled = "booking.cancelled"
    case bookingRescheduled = "booking.rescheduled"
    /// A hold ran out without being booked.
    case holdExpired = "hold.expired"

    /// The bit of this type in the `events` mask a subscription is stored with.
    var bit: Int { 1 << WebhookEventType.allCases.firstIndex(of: self)! }

    static func mask(_ types: Set<WebhookEventType>) -> Int { types.reduce(0) { $0 | $1.bit } }

    static func types(inMask mask: Int) -> Set<WebhookEventType> { Set(allCases.filter { mask & $0.bit != 0 }) }

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
    public var events: Set<WebhookEventType>
    /// The calendars whose changes are delivered, by identifier; nil for all of the
    /// user's calendars, including those created later.
    public var calendars: [String]?
    public var description: String?
    public var state: State
    /// Why the subscription was paused or disabled.
    public var stateReason: String?
    /// Failed attempts in a row (0 after any success).
    public var failures: Int
    /// Unix seconds.
    public var created: Int
    /// Deliveries waiting (read only; counted when the subscription is read).
    public var pending: Int

    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Deliveries are made.
        case active
        /// Changes are still recorded, and delivered in order once the owner resumes it
        /// (after repeated failures, or by the owner).
        case paused
        /// Nothing is recorded or delivered (the endpoint answered 410 Gone).
        case disabled
    }

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
    public static let maxDescriptionBytes = 500
}

/// One change to deliver to one subscription, as the outbox row holds it. The body
/// sent is built from these fields, so every attempt sends the same document.
public struct WebhookDelivery: Sendable, Hashable {
    /// `dl_` and 24 random hex digits: unique, the id receivers deduplicate by.
    public var id: String
    public var webhookID: String
    public var type: WebhookEventType
    /// The calendar's identifier (it may since have been deleted).
    public var calendar: String
    /// The calendar's change sequence this change made (its sync token's position).
    public var sequence: Int
    /// The event's store identifier, UID, ETag (nil for a deletion) and resource name;
    /// all nil for a calendar's own changes.
    public var eventIdentifier: String?
    public var uid: String?
    public var etag: String?
    public var resource: String?
    /// For an edit or removal of one instance of a series (or this and the following
    /// ones): which, as the API's RECURRENCE-ID text.
    public var occurrence: OccurrenceSpan?
    /// When the change committed, in Unix milliseconds.
    public var occurred: Int
    public var state: State
    public var attempts: Int
    public var lastStatus: Int?
    public var lastError: String?
    /// When it was delivered or given up, Unix milliseconds.
    public var finished: Int?
    /// The outbox row's number: it orders the deliveries of a calendar, and a listing
    /// of deliveries pages by it.
    public var position: Int64
    /// The booking a `booking.*` delivery tells of, or the hold of a `hold.expired` one.
    public var booking: String? = nil

    public enum State: String, Sendable, Hashable {
        case pending
        case delivered
        /// Given up after failing for ``WebhookPolicy/maxAge``.
        case failed
    }

    /// An instance, or an instance and every one after it.
    public struct OccurrenceSpan: Sendable, Hashable {
        public var recurrenceID: String
        /// `this` or `future`.
        public var span: String

        public init(recurrenceID: String, span: String) {
            self.recurrenceID = recurrenceID
            self.span = span
        }
    }
}

/// One attempt to deliver, for the owner to see what went wrong.
public struct WebhookAttempt: Sendable, Hashable {
    public var delivery: String
    public var type: WebhookEventType
    /// Unix milliseconds.
    public var at: Int
    /// The HTTP status the endpoint answered, nil when there was no answer.
    public var status: Int?
    public var error: String?
    public var durationMilliseconds: Int

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
    public var webhookID: String
    public var calendar: String
    public var url: String
    /// The key the deliveries are signed with.
    public var secret: String
    /// Who holds the lease (a random text per dispatcher worker).
    public var leaseOwner: String
    var webhookRowID: Int64
}

/// What happened to one attempt, as the dispatcher reports it to the store.
public struct WebhookOutcome: Sendable {
    public var status: Int?
    public var error: String?
    public var durationMilliseconds: Int
    public var disposition: Disposition

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
