import Foundation

/// A stored event: a one-off event or a whole series, with its overrides kept by the
/// server (edit one instance with ``AlmanacClient/updateOccurrence(id:span:_:ifMatch:timeZone:idempotencyKey:)``).
public struct Event: Sendable, Hashable, Codable, Identifiable {
    /// The store's identifier, used in paths.
    public var id: String
    /// The iCalendar UID (RFC 5545 §3.8.4.7).
    public var uid: String
    /// The calendar it is in.
    public var calendarID: String?
    /// The strong ETag of its stored object (quoted), for `ifMatch:`.
    public var etag: String?
    /// The title (SUMMARY), or nil.
    public var title: String?
    /// The notes (DESCRIPTION), or nil.
    public var notes: String?
    /// The location, or nil.
    public var location: String?
    /// A URL, or nil.
    public var url: String?
    /// When it starts: a date for an all-day event, else an instant or a wall clock.
    public var start: EventTime?
    /// When it ends (exclusive), or nil when it has no length.
    public var end: EventTime?
    /// True for an all-day event.
    public var allDay: Bool
    /// The IANA zone of its wall-clock times, or nil (UTC or floating).
    public var timeZone: String?
    /// The recurrence rule without `RRULE:` (`FREQ=WEEKLY;COUNT=10`), or nil.
    public var rrule: String?
    /// Instances left out of the series (EXDATE).
    public var exdates: [EventTime]
    /// Its alarms.
    public var alarms: [Alarm]
    /// Whether it makes the user busy.
    public var availability: EventAvailability
    /// Confirmed, tentative or cancelled, or nil.
    public var status: EventStatus?
    /// Its categories.
    public var categories: [String]
    /// The iCalendar SEQUENCE (RFC 5545 §3.8.7.4).
    public var sequence: Int
    /// For an overridden instance, the RECURRENCE-ID it replaces.
    public var recurrenceID: EventTime?
    /// The whole component as jCal (RFC 7265), or nil.
    public var jcal: JSONValue?

    enum CodingKeys: String, CodingKey {
        case id, uid
        case calendarID = "calendarId"
        case etag, title, notes, location, url, start, end, allDay, timeZone
        case rrule, exdates, alarms, availability, status, categories, sequence
        case recurrenceID = "recurrenceId"
        case jcal
    }

    /// Reads an event; members this client does not know are ignored, and members it
    /// knows but the answer lacks take their empty value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        uid = try container.decodeIfPresent(String.self, forKey: .uid) ?? ""
        calendarID = try container.decodeIfPresent(String.self, forKey: .calendarID)
        etag = try container.decodeIfPresent(String.self, forKey: .etag)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        notes = try container.decodeIfPresent(String.self, forKey: .notes)
        location = try container.decodeIfPresent(String.self, forKey: .location)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        start = try container.decodeIfPresent(EventTime.self, forKey: .start)
        end = try container.decodeIfPresent(EventTime.self, forKey: .end)
        allDay = try container.decodeIfPresent(Bool.self, forKey: .allDay) ?? false
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
        rrule = try container.decodeIfPresent(String.self, forKey: .rrule)
        exdates = try container.decodeIfPresent([EventTime].self, forKey: .exdates) ?? []
        alarms = try container.decodeIfPresent([Alarm].self, forKey: .alarms) ?? []
        availability = try container.decodeIfPresent(EventAvailability.self, forKey: .availability) ?? .busy
        status = try container.decodeIfPresent(EventStatus.self, forKey: .status)
        categories = try container.decodeIfPresent([String].self, forKey: .categories) ?? []
        sequence = try container.decodeIfPresent(Int.self, forKey: .sequence) ?? 0
        recurrenceID = try container.decodeIfPresent(EventTime.self, forKey: .recurrenceID)
        jcal = try container.decodeIfPresent(JSONValue.self, forKey: .jcal)
        if jcal == .null { jcal = nil }
    }

    /// A draft with every member this event has, to send back whole with
    /// ``AlmanacClient/replaceEvent(id:with:ifMatch:idempotencyKey:)`` after changing it.
    public var draft: EventDraft {
        EventDraft(
            calendarID: calendarID, title: title, notes: notes, location: location, url: url, start: start, end: end,
            timeZone: timeZone, allDay: allDay, rrule: rrule, exdates: exdates, alarms: alarms,
            availability: availability, status: status, categories: categories)
    }
}

/// An alarm: a number of minutes before the start, or an RFC 5545 trigger (`-PT1H`,
/// `END:PT0S` for the end, or a UTC date-time), with its action.
public struct Alarm: Sendable, Hashable, Codable {
    /// Minutes before the start; nil for a trigger that is not a whole number of minutes
    /// before the start.
    public var minutesBefore: Int?
    /// The trigger as RFC 5545 writes it (`-PT15M`, `END:PT0S`, `2026-12-01T08:00:00Z`).
    public var trigger: String?
    /// `DISPLAY` (the default), `AUDIO` or `EMAIL`.
    public var action: String?

    /// An alarm with the given members.
    public init(minutesBefore: Int? = nil, trigger: String? = nil, action: String? = nil) {
        self.minutesBefore = minutesBefore
        self.trigger = trigger
        self.action = action
    }

    /// A display alarm `minutes` before the start.
    public static func minutesBefore(_ minutes: Int) -> Alarm { Alarm(minutesBefore: minutes) }

    /// An alarm at `trigger` (`-PT1H`, `END:PT0S`, `2026-12-01T08:00:00Z`).
    public static func trigger(_ trigger: String, action: String? = nil) -> Alarm {
        Alarm(trigger: trigger, action: action)
    }

    /// Writes `minutesBefore` when it is set, else `trigger`, and the action: the API
    /// takes one of the two.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        if let minutesBefore {
            try container.encode(minutesBefore, forKey: AnyKey("minutesBefore"))
        } else {
            try container.encodeIfPresent(trigger, forKey: AnyKey("trigger"))
        }
        try container.encodeIfPresent(action, forKey: AnyKey("action"))
    }
}

/// Whether an event makes its attendee busy (TRANSP, RFC 5545 §3.8.2.7).
public struct EventAvailability: RawRepresentable, Sendable, Hashable, Codable {
    /// The value as sent (`busy`, `free`).
    public var rawValue: String
    /// The value `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Busy (OPAQUE), the default.
    public static let busy = EventAvailability(rawValue: "busy")
    /// Free (TRANSPARENT).
    public static let free = EventAvailability(rawValue: "free")

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

/// An event's STATUS (RFC 5545 §3.8.1.11).
public struct EventStatus: RawRepresentable, Sendable, Hashable, Codable {
    /// The value as sent (`confirmed`).
    public var rawValue: String
    /// The value `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// CONFIRMED.
    public static let confirmed = EventStatus(rawValue: "confirmed")
    /// TENTATIVE.
    public static let tentative = EventStatus(rawValue: "tentative")
    /// CANCELLED.
    public static let cancelled = EventStatus(rawValue: "cancelled")

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

/// What to set on an event, for ``AlmanacClient/createEvent(_:rejectConflicts:idempotencyKey:)``
/// (``calendarID`` and ``start`` are needed), ``AlmanacClient/updateEvent(id:_:ifMatch:idempotencyKey:)``
/// (only the members given change) and ``AlmanacClient/replaceEvent(id:with:ifMatch:idempotencyKey:)``
/// (what is not given is reset).
///
/// A member that is nil is left out of the request; the members in ``clearing`` are
/// sent as `null`, which clears them.
public struct EventDraft: Sendable, Hashable, Encodable {
    /// The calendar the event goes to (a change moves it).
    public var calendarID: String?
    /// The iCalendar UID, on creation only (the server makes one otherwise).
    public var uid: String?
    /// The title.
    public var title: String?
    /// Notes.
    public var notes: String?
    /// The location.
    public var location: String?
    /// A URL.
    public var url: String?
    /// The start: a date (all-day), an instant, or a wall clock in ``timeZone``.
    public var start: EventTime?
    /// The end (exclusive); give this or ``duration``.
    public var end: EventTime?
    /// The length (`PT45M`); give this or ``end``.
    public var duration: EventDuration?
    /// The IANA zone of wall-clock times (`Europe/Berlin`).
    public var timeZone: String?
    /// True for an all-day event.
    public var allDay: Bool?
    /// A recurrence rule without `RRULE:` (`FREQ=WEEKLY;BYDAY=TU`).
    public var rrule: String?
    /// Instances left out of the series.
    public var exdates: [EventTime]?
    /// Alarms (`[.minutesBefore(15)]`); an empty list removes them.
    public var alarms: [Alarm]?
    /// Busy or free.
    public var availability: EventAvailability?
    /// Confirmed, tentative or cancelled.
    public var status: EventStatus?
    /// Categories.
    public var categories: [String]?
    /// Members to clear (sent as `null`).
    public var clearing: Set<Member>

    /// The members that can be cleared.
    public enum Member: String, Sendable, Hashable, CaseIterable {
        case title, notes, location, url, end, duration, timeZone, rrule, status
    }

    /// A draft with the given members.
    public init(
        calendarID: String? = nil, uid: String? = nil, title: String? = nil, notes: String? = nil,
        location: String? = nil, url: String? = nil, start: EventTime? = nil, end: EventTime? = nil,
        duration: EventDuration? = nil, timeZone: String? = nil, allDay: Bool? = nil, rrule: String? = nil,
        exdates: [EventTime]? = nil, alarms: [Alarm]? = nil, availability: EventAvailability? = nil,
        status: EventStatus? = nil, categories: [String]? = nil, clearing: Set<Member> = []
    ) {
        self.calendarID = calendarID
        self.uid = uid
        self.title = title
        self.notes = notes
        self.location = location
        self.url = url
        self.start = start
        self.end = end
        self.duration = duration
        self.timeZone = timeZone
        self.allDay = allDay
        self.rrule = rrule
        self.exdates = exdates
        self.alarms = alarms
        self.availability = availability
        self.status = status
        self.categories = categories
        self.clearing = clearing
    }

    /// Writes the members that are set, and `null` for those in ``clearing``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encodeIfPresent(calendarID, forKey: AnyKey("calendarId"))
        try container.encodeIfPresent(uid, forKey: AnyKey("uid"))
        try container.encodeIfPresent(title, forKey: AnyKey("title"))
        try container.encodeIfPresent(notes, forKey: AnyKey("notes"))
        try container.encodeIfPresent(location, forKey: AnyKey("location"))
        try container.encodeIfPresent(url, forKey: AnyKey("url"))
        try container.encodeIfPresent(start, forKey: AnyKey("start"))
        try container.encodeIfPresent(end, forKey: AnyKey("end"))
        try container.encodeIfPresent(duration, forKey: AnyKey("duration"))
        try container.encodeIfPresent(timeZone, forKey: AnyKey("timeZone"))
        try container.encodeIfPresent(allDay, forKey: AnyKey("allDay"))
        try container.encodeIfPresent(rrule, forKey: AnyKey("rrule"))
        try container.encodeIfPresent(exdates, forKey: AnyKey("exdates"))
        try container.encodeIfPresent(alarms, forKey: AnyKey("alarms"))
        try container.encodeIfPresent(availability, forKey: AnyKey("availability"))
        try container.encodeIfPresent(status, forKey: AnyKey("status"))
        try container.encodeIfPresent(categories, forKey: AnyKey("categories"))
        for member in clearing { try container.encodeNil(forKey: AnyKey(member.rawValue)) }
    }
}
