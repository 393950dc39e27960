import Foundation

/// A request for free slots: a range, a slot length and the booking rules; what is not
/// set is left to the server's defaults (docs/api.md, "Availability").
public struct AvailabilityQuery: Sendable, Hashable {
    /// The range's start: a date (in ``timeZone``) or a date-time.
    public var from: EventTime
    /// The range's end, exclusive.
    public var to: EventTime
    /// The slot length, at least a minute.
    public var duration: EventDuration
    /// The zone of dates, working hours and the answer (`Europe/Berlin`); UTC when nil.
    public var timeZone: String?
    /// Calendars whose events are busy; all when nil.
    public var calendars: [String]?
    /// The step between slot starts; the length when nil.
    public var step: EventDuration?
    /// `Mon-Fri 09:00-12:00 13:00-17:00, Sat 10:00-14:00`; all day when nil.
    public var workingHours: String?
    /// Free time kept before every booking and busy block.
    public var bufferBefore: EventDuration?
    /// Free time kept after.
    public var bufferAfter: EventDuration?
    /// Minimum notice (`PT2H`), or `nextDay`.
    public var notice: String?
    /// Offer slots before now too.
    public var includePast: Bool?
    /// Any other rule by its query name (`daysOff`, `dateHours`, `bookingWindowDays`,
    /// `dailyLimit`, `tentative`, …), as the server spells its value.
    public var rules: [String: String]

    /// A query for `duration` slots between `from` and `to`.
    public init(
        from: EventTime, to: EventTime, duration: EventDuration, timeZone: String? = nil, calendars: [String]? = nil,
        step: EventDuration? = nil, workingHours: String? = nil, bufferBefore: EventDuration? = nil,
        bufferAfter: EventDuration? = nil, notice: String? = nil, includePast: Bool? = nil,
        rules: [String: String] = [:]
    ) {
        self.from = from
        self.to = to
        self.duration = duration
        self.timeZone = timeZone
        self.calendars = calendars
        self.step = step
        self.workingHours = workingHours
        self.bufferBefore = bufferBefore
        self.bufferAfter = bufferAfter
        self.notice = notice
        self.includePast = includePast
        self.rules = rules
    }

    /// The query's parameters, in a stable order.
    var parameters: [(String, String?)] {
        [
            ("from", from.text), ("to", to.text), ("duration", duration.text), ("tz", timeZone),
            ("calendars", calendars?.joined(separator: ",")), ("step", step?.text), ("workingHours", workingHours),
            ("bufferBefore", bufferBefore?.text), ("bufferAfter", bufferAfter?.text), ("notice", notice),
            ("includePast", includePast.map { $0 ? "true" : "false" }),
        ] + rules.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}

/// A free interval, or an occurrence's interval, in UTC.
public struct Slot: Sendable, Hashable, Codable {
    /// Where it starts.
    public var start: Date
    /// Where it ends (exclusive).
    public var end: Date

    /// A slot from `start` to `end`.
    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }
}

/// Free slots in a range, earliest first.
public struct AvailabilityListing: Sendable, Hashable, Codable {
    /// The zone the rules were read in.
    public var timeZone: String
    /// The free slots (at most 10,000 an answer).
    public var slots: [Slot]
    /// Present when part of the range lies before now: slots are never offered there
    /// (unless ``AvailabilityQuery/includePast``).
    public var pastExcluded: PastExcluded?
    /// True when not every slot is listed; ask again from ``continueFrom``.
    public var truncated: Bool
    /// With ``truncated``: where the slots left out begin.
    public var continueFrom: Date?

    /// The part of a range that lies before now.
    public struct PastExcluded: Sendable, Hashable, Codable {
        /// The end of the part left out: now, or the range's end.
        public var until: Date
        /// True when all of the range is past.
        public var wholeRange: Bool
    }
}

/// An occurrence of a proposed event that collides with busy time.
public struct Conflict: Sendable, Hashable, Codable {
    /// The proposed occurrence.
    public var occurrence: Slot
    /// What it collides with.
    public var with: Other
    /// `overlap`, or `buffer` when only the buffers touch.
    public var reason: String

    /// The busy occurrence a proposed one collides with.
    public struct Other: Sendable, Hashable, Codable {
        /// Its event.
        public var eventID: String
        /// The occurrence's id.
        public var occurrenceID: String
        /// Its title, or nil.
        public var title: String?
        /// Its start (UTC).
        public var start: Date
        /// Its end (UTC).
        public var end: Date

        enum CodingKeys: String, CodingKey {
            case eventID = "eventId"
            case occurrenceID = "occurrenceId"
            case title, start, end
        }
    }
}
