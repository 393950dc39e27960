import Foundation

/// A webhook: where the server POSTs a signed notice of each change to the user's
/// calendars and events.
public struct Webhook: Sendable, Hashable, Codable, Identifiable {
    /// Its identifier (`wh_…`).
    public var id: String
    /// Where deliveries are POSTed.
    public var url: URL
    /// The kinds of change it is sent.
    public var events: [WebhookEventType]
    /// The calendars it covers; nil for all of the user's calendars.
    public var calendars: [String]?
    /// The caller's description, or nil.
    public var description: String?
    /// Active, paused by the user, or disabled by the server after repeated failures.
    public var state: WebhookState
    /// Why it is in its state (a disabled webhook's last failure), or nil.
    public var stateReason: String?
    /// Consecutive failed attempts.
    public var failures: Int
    /// Deliveries waiting to be sent.
    public var pending: Int
    /// When it was created.
    public var createdAt: Date
    /// The latest attempts, newest first; only when read alone (``AlmanacClient/webhook(id:)``).
    public var recentAttempts: [WebhookAttempt]?

    enum CodingKeys: String, CodingKey {
        case id, url, events, calendars, description, state, stateReason, failures, pending, createdAt, recentAttempts
    }

    /// Reads a webhook; unknown members are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        url = try container.decode(URL.self, forKey: .url)
        events = try container.decodeIfPresent([WebhookEventType].self, forKey: .events) ?? []
        calendars = try container.decodeIfPresent([String].self, forKey: .calendars)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        state = try container.decodeIfPresent(WebhookState.self, forKey: .state) ?? .active
        stateReason = try container.decodeIfPresent(String.self, forKey: .stateReason)
        failures = try container.decodeIfPresent(Int.self, forKey: .failures) ?? 0
        pending = try container.decodeIfPresent(Int.self, forKey: .pending) ?? 0
        createdAt = try container.decodeIfPresent(Date.self, forKey: .createdAt) ?? Date(timeIntervalSince1970: 0)
        recentAttempts = try container.decodeIfPresent([WebhookAttempt].self, forKey: .recentAttempts)
    }
}

/// A webhook just created, with its signing secret: the only answer that carries it.
public struct NewWebhook: Sendable, Hashable, Decodable {
    /// The webhook.
    public var webhook: Webhook
    /// The signing secret (`whsec_…`) for ``WebhookSignature/verify(body:signatureHeader:secret:tolerance:now:)``;
    /// keep it, it is not shown again.
    public var secret: String

    enum CodingKeys: String, CodingKey { case secret }

    /// Reads the webhook object and its `secret`.
    public init(from decoder: any Decoder) throws {
        webhook = try Webhook(from: decoder)
        secret = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .secret)
    }
}

/// The kind of change a delivery reports (`event.created`).
public struct WebhookEventType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The value as sent.
    public var rawValue: String
    /// The type `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// An event was created.
    public static let eventCreated = WebhookEventType(rawValue: "event.created")
    /// An event was changed (an instance of a series too: see ``WebhookEvent/occurrence``).
    public static let eventUpdated = WebhookEventType(rawValue: "event.updated")
    /// An event was deleted.
    public static let eventDeleted = WebhookEventType(rawValue: "event.deleted")
    /// A calendar was created.
    public static let calendarCreated = WebhookEventType(rawValue: "calendar.created")
    /// A calendar was changed.
    public static let calendarUpdated = WebhookEventType(rawValue: "calendar.updated")
    /// A calendar was deleted.
    public static let calendarDeleted = WebhookEventType(rawValue: "calendar.deleted")
    /// A slot or seat was booked (or a waiting booker got a seat).
    public static let bookingCreated = WebhookEventType(rawValue: "booking.created")
    /// A booking was cancelled.
    public static let bookingCancelled = WebhookEventType(rawValue: "booking.cancelled")
    /// A booking moved to another slot.
    public static let bookingRescheduled = WebhookEventType(rawValue: "booking.rescheduled")
    /// A hold on a slot ran out without being booked.
    public static let holdExpired = WebhookEventType(rawValue: "hold.expired")
    /// An alarm of an event came due (the body's `alarm` says which; see ``WebhookEvent/alarm``).
    public static let alarmDue = WebhookEventType(rawValue: "alarm.due")
    /// Every type there is, the default of a new webhook.
    public static let all: [WebhookEventType] = [
        .eventCreated, .eventUpdated, .eventDeleted, .calendarCreated, .calendarUpdated, .calendarDeleted,
        .bookingCreated, .bookingCancelled, .bookingRescheduled, .holdExpired, .alarmDue,
    ]

    /// Reads the value from a JSON string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Writes the value as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The value as sent.
    public var description: String { rawValue }
}

/// Whether a webhook is sent deliveries.
public struct WebhookState: RawRepresentable, Sendable, Hashable, Codable {
    /// The value as sent.
    public var rawValue: String
    /// The state `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Deliveries are sent.
    public static let active = WebhookState(rawValue: "active")
    /// The user paused it: changes are queued, not sent.
    public static let paused = WebhookState(rawValue: "paused")
    /// The server stopped it after repeated failures (``Webhook/stateReason`` says why);
    /// set it `active` again to resume.
    public static let disabled = WebhookState(rawValue: "disabled")

    /// Reads the value from a JSON string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Writes the value as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// One attempt to deliver to a webhook.
public struct WebhookAttempt: Sendable, Hashable, Codable {
    /// The delivery (`dl_…`).
    public var delivery: String
    /// Its type.
    public var type: WebhookEventType
    /// When it was attempted.
    public var at: Date
    /// The receiver's HTTP status, or nil when none came (``error`` says why).
    public var status: Int?
    /// What went wrong, or nil.
    public var error: String?
    /// How long it took, in milliseconds.
    public var durationMs: Int
}

/// What a webhook's test delivery got (`POST /api/v1/webhooks/{id}/test`).
public struct WebhookTestResult: Sendable, Hashable, Codable {
    /// The receiver's HTTP status, or nil when none came.
    public var status: Int?
    /// What went wrong, or nil.
    public var error: String?
    /// How long it took, in milliseconds.
    public var durationMs: Int
}

/// A delivery as the server records it (`GET /api/v1/webhooks/{id}/deliveries`).
public struct WebhookDelivery: Sendable, Hashable, Codable, Identifiable {
    /// Its identifier (`dl_…`), the `id` of the ``WebhookEvent`` the receiver gets.
    public var id: String
    /// Its type.
    public var type: WebhookEventType
    /// When the change happened.
    public var occurredAt: Date
    /// The calendar changed.
    public var calendarID: String
    /// The event changed, or nil for a calendar's change.
    public var eventID: String?
    /// Pending, delivered or failed.
    public var state: State
    /// How many attempts were made.
    public var attempts: Int
    /// The last attempt's HTTP status, or nil.
    public var lastStatus: Int?
    /// The last attempt's failure, or nil.
    public var lastError: String?
    /// When it was delivered, or nil.
    public var deliveredAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, type, occurredAt
        case calendarID = "calendarId"
        case eventID = "eventId"
        case state, attempts, lastStatus
        case lastError, deliveredAt
    }

    /// A delivery's state.
    public struct State: RawRepresentable, Sendable, Hashable, Codable {
        /// The value as sent.
        public var rawValue: String
        /// The state `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Not delivered yet; attempts go on.
        public static let pending = State(rawValue: "pending")
        /// The receiver answered 2xx.
        public static let delivered = State(rawValue: "delivered")
        /// Attempts gave up.
        public static let failed = State(rawValue: "failed")

        /// Reads the value from a JSON string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Writes the value as a JSON string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

/// The calendars a webhook covers.
public enum WebhookCalendars: Sendable, Hashable {
    /// Every calendar of the user, those created later too.
    case all
    /// These calendars only.
    case only([String])
}

/// A new webhook (`POST /api/v1/webhooks`).
public struct WebhookDraft: Sendable, Hashable, Encodable {
    /// Where deliveries are POSTed.
    public var url: URL
    /// The kinds of change sent; all when nil.
    public var events: [WebhookEventType]?
    /// The calendars covered; all when nil.
    public var calendars: WebhookCalendars?
    /// A description.
    public var description: String?

    /// A webhook to `url` for `events` in `calendars`.
    public init(
        url: URL, events: [WebhookEventType]? = nil, calendars: WebhookCalendars? = nil, description: String? = nil
    ) {
        self.url = url
        self.events = events
        self.calendars = calendars
        self.description = description
    }

    /// Writes the members that are set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(url.absoluteString, forKey: AnyKey("url"))
        try container.encodeIfPresent(events, forKey: AnyKey("events"))
        switch calendars {
        case .only(let identifiers)?: try container.encode(identifiers, forKey: AnyKey("calendars"))
        case .all?: try container.encodeNil(forKey: AnyKey("calendars"))
        case nil: break
        }
        try container.encodeIfPresent(description, forKey: AnyKey("description"))
    }
}

/// Changes to a webhook (`PATCH /api/v1/webhooks/{id}`): members that are nil stay as
/// they are.
public struct WebhookChanges: Sendable, Hashable, Encodable {
    /// A new URL.
    public var url: URL?
    /// The kinds of change sent.
    public var events: [WebhookEventType]?
    /// The calendars covered.
    public var calendars: WebhookCalendars?
    /// A new description.
    public var description: String?
    /// True clears the description.
    public var clearDescription: Bool
    /// `active` (also to resume a disabled webhook) or `paused`.
    public var state: WebhookState?

    /// Changes with the given members.
    public init(
        url: URL? = nil, events: [WebhookEventType]? = nil, calendars: WebhookCalendars? = nil,
        description: String? = nil, clearDescription: Bool = false, state: WebhookState? = nil
    ) {
        self.url = url
        self.events = events
        self.calendars = calendars
        self.description = description
        self.clearDescription = clearDescription
        self.state = state
    }

    /// Writes the members that are set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encodeIfPresent(url?.absoluteString, forKey: AnyKey("url"))
        try container.encodeIfPresent(events, forKey: AnyKey("events"))
        switch calendars {
        case .only(let identifiers)?: try container.encode(identifiers, forKey: AnyKey("calendars"))
        case .all?: try container.encodeNil(forKey: AnyKey("calendars"))
        case nil: break
        }
        if clearDescription {
            try container.encodeNil(forKey: AnyKey("description"))
        } else {
            try container.encodeIfPresent(description, forKey: AnyKey("description"))
        }
        try container.encodeIfPresent(state, forKey: AnyKey("state"))
    }
}

/// What a receiver gets: the body of one delivery, after
/// ``WebhookSignature/verify(body:signatureHeader:secret:tolerance:now:)`` checked it.
///
/// It says what changed, not the new contents: read the event (``href``) or the
/// calendar's changes to catch up. Deliveries may come more than once and out of
/// order; dedupe by ``id`` and order by ``sequence`` within a calendar.
public struct WebhookEvent: Sendable, Hashable, Codable, Identifiable {
    /// The delivery's identifier (`dl_…`, also `Almanac-Delivery`): the same on every retry.
    public var id: String
    /// What happened.
    public var type: WebhookEventType
    /// When it happened (UTC, milliseconds).
    public var occurredAt: Date
    /// The webhook it was sent to.
    public var webhookID: String
    /// The calendar changed.
    public var calendarID: String
    /// The change's position in the calendar's change log (as in ``Change/sequence``).
    public var sequence: Int
    /// The event changed, or nil for a calendar's change.
    public var eventID: String?
    /// The event's UID, or nil.
    public var uid: String?
    /// The event's ETag after the change, or nil (a deletion).
    public var etag: String?
    /// The resource's name in the calendar (`….ics`), or nil.
    public var resource: String?
    /// The event in the API (`/api/v1/events/…`), or nil.
    public var href: String?
    /// For a change to instances of a series: which, and how far.
    public var occurrence: OccurrenceChange?
    /// The booking a `booking.*` event tells of, or nil.
    public var bookingID: String?
    /// The hold that ran out (`hold.expired`), or nil.
    public var holdID: String?
    /// The alarm that came due (`alarm.due`), or nil.
    public var alarm: DueAlarm?

    /// An alarm as an `alarm.due` event tells of it.
    public struct DueAlarm: Sendable, Hashable, Codable {
        /// The alarm's UID (RFC 9074): what acknowledging or snoozing it names.
        public var uid: String
        /// DISPLAY, AUDIO or EMAIL.
        public var action: String
        /// Its DESCRIPTION, or nil.
        public var description: String?
        /// When it was due.
        public var trigger: Date
        /// 0 for the first firing, then one per REPEAT.
        public var repetition: Int
        /// True when it fired more than a minute after its time (the server was down).
        public var late: Bool
        /// For a snooze alarm, the UID of the alarm it snoozes.
        public var snoozeOf: String?
        /// The event's SUMMARY, or nil.
        public var summary: String?
        /// The occurrence the alarm belongs to.
        public var occurrenceStart: Date
        public var occurrenceEnd: Date
    }

    /// Which instances of a series a change applied to.
    public struct OccurrenceChange: Sendable, Hashable, Codable {
        /// The instance's RECURRENCE-ID.
        public var recurrenceID: String
        /// `this` instance, or this and the `future` ones.
        public var span: String

        enum CodingKeys: String, CodingKey {
            case recurrenceID = "recurrenceId"
            case span
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, type, occurredAt
        case webhookID = "webhookId"
        case calendarID = "calendarId"
        case sequence
        case eventID = "eventId"
        case uid, etag, resource, href, occurrence
        case bookingID = "bookingId"
        case holdID = "holdId"
        case alarm
    }
}
