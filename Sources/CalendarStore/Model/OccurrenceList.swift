import Recurrence

/// The occurrences a range holds, as ``EventStore/occurrences(in:calendars:matching:timeZone:limit:)``
/// answers: the earliest `limit` found, and every series whose expansion a bound stopped
/// before the range's end (nothing is cut silently; whoever shows the list says so).
public struct OccurrenceList: Sendable {
    /// In start order (then by event and instance): at most `limit` of them, the earliest found.
    public var occurrences: [EventOccurrence]
    /// The series that a bound of expansion (``ExpansionLimits``: 100,000 instances or
    /// 2,000,000 steps per series) stopped before the range's end, and whose missing
    /// instances could belong to this answer. Their instances are listed up to where
    /// they stopped; those of every other series are all there.
    public var truncatedSeries: [TruncatedEvent]

    /// A list of these occurrences, with the series a bound of expansion cut.
    public init(occurrences: [EventOccurrence], truncatedSeries: [TruncatedEvent] = []) {
        self.occurrences = occurrences
        self.truncatedSeries = truncatedSeries
    }

    /// Whether every matching occurrence up to `limit` is listed.
    public var isComplete: Bool { truncatedSeries.isEmpty }

    /// One sentence for people naming the first cut series and where it stopped; nil when complete.
    public var truncationNotice: String? {
        guard let first = truncatedSeries.first else { return nil }
        var text = first.description
        if truncatedSeries.count > 1 { text += " (and \(truncatedSeries.count - 1) more series)" }
        return text
    }
}

/// A stored series whose expansion a bound stopped before the end of the asked range.
public struct TruncatedEvent: Sendable, Hashable, CustomStringConvertible {
    /// The store's identifier of the event.
    public var eventIdentifier: String
    /// The identifier of the calendar it is stored in.
    public var calendarIdentifier: String
    /// Its UID.
    public var externalIdentifier: String
    /// The master's SUMMARY.
    public var title: String?
    /// How many of its instances in the range were expanded.
    public var listed: Int
    /// The start instant of the last of them; nil when none was.
    public var lastListedStart: Int?

    /// Describes a cut series; ``description`` says it for people.
    public init(
        eventIdentifier: String, calendarIdentifier: String, externalIdentifier: String, title: String?, listed: Int,
        lastListedStart: Int?
    ) {
        self.eventIdentifier = eventIdentifier
        self.calendarIdentifier = calendarIdentifier
        self.externalIdentifier = externalIdentifier
        self.title = title
        self.listed = listed
        self.lastListedStart = lastListedStart
    }

    /// `event "Gym" (UID x): only its first 100000 instances in the range were expanded (the last at 2026-…Z); …`.
    public var description: String {
        var text = "event \(title.map { "\"\($0)\" " } ?? "")(UID \(externalIdentifier))"
        text +=
            listed == 0
            ? ": none of its instances in the range could be expanded"
            : ": only its first \(listed) instance\(listed == 1 ? "" : "s") in the range could be expanded"
        if let lastListedStart { text += " (the last at \(OccurrenceTime.instant(lastListedStart).text))" }
        let limits = ExpansionLimits.default
        return text
            + "; one series may have at most \(limits.maxInstances) instances and \(limits.maxSteps) expansion steps per answer"
    }
}
