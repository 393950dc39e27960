import CivilTime

/// An occurrence as the views place it: its instants, or for an all-day event its
/// dates, with what the views show and mark.
public struct ViewEvent: Sendable, Hashable {
    /// The occurrence's identifier (stable across queries).
    public var id: String
    public var eventID: String
    public var calendarID: String
    public var title: String
    /// Unix seconds; for an all-day event, midnight of its first date in the view's zone.
    public var start: Int
    /// Exclusive.
    public var end: Int
    /// For an all-day event: its first date, and the day after its last.
    public var dates: DateSpan?
    /// The calendar's colour (`#RRGGBB` or `#RRGGBBAA`).
    public var color: String?
    /// Whether it blocks time (not transparent, not cancelled): only those conflict.
    public var isBusy: Bool
    /// Whether it takes place: the views mark tentative and cancelled ones.
    public var status: Status

    /// Whether an occurrence takes place (its STATUS).
    public enum Status: Sendable, Hashable {
        case confirmed
        /// Not yet certain: drawn as such, and still busy.
        case tentative
        /// Called off: drawn struck through, never busy.
        case cancelled
    }

    public struct DateSpan: Sendable, Hashable {
        public var first: CivilDate
        public var afterLast: CivilDate
        public init(first: CivilDate, afterLast: CivilDate) {
            self.first = first
            self.afterLast = afterLast
        }
    }

    public init(
        id: String, eventID: String, calendarID: String, title: String, start: Int, end: Int, dates: DateSpan? = nil,
        color: String? = nil,
        isBusy: Bool = true, status: Status = .confirmed
    ) {
        self.id = id
        self.eventID = eventID
        self.calendarID = calendarID
        self.title = title
        self.start = start
        self.end = end
        self.dates = dates
        self.color = color
        self.isBusy = isBusy && status != .cancelled
        self.status = status
    }

    public var isAllDay: Bool { dates != nil }
}

/// What a day cell marks: how many events, their calendars' colours, and whether two
/// busy timed events overlap.
public struct DayMarker: Sendable, Hashable {
    public var count: Int
    public var colors: [String]
    public var hasConflict: Bool

    public init(count: Int, colors: [String], hasConflict: Bool) {
        self.count = count
        self.colors = colors
        self.hasConflict = hasConflict
    }
}

/// The days of a zone: their bounds (a DST-change day has 23 or 25 hours) and which
/// events touch each.
struct DayBounds {
    let zone: ZoneRules

    func start(of date: CivilDate) -> Int { zone.instant(for: CivilDateTime(date: date, time: .midnight)) }

    /// Whether `event` shows on `date`: an all-day event on its dates; a timed one on
    /// each day it overlaps (a zero-length one on the day it is at).
    func touches(_ event: ViewEvent, _ date: CivilDate) -> Bool {
        if let dates = event.dates { return dates.first <= date && date < dates.afterLast }
        let dayStart = start(of: date)
        let dayEnd = start(of: date.adding(days: 1))
        if event.end > event.start { return event.start < dayEnd && event.end > dayStart }
        return event.start >= dayStart && event.start < dayEnd
    }

    func events(on date: CivilDate, from events: [ViewEvent]) -> [ViewEvent] {
        events.filter { touches($0, date) }.sorted(by: Self.order)
    }

    /// All-day events first, then by start, then longer first, then by title.
    static func order(_ left: ViewEvent, _ right: ViewEvent) -> Bool {
        if left.isAllDay != right.isAllDay { return left.isAllDay }
        if left.start != right.start { return left.start < right.start }
        if left.end != right.end { return left.end > right.end }
        return left.title < right.title
    }

    func marker(_ events: [ViewEvent]) -> DayMarker {
        var colors: [String] = []
        for event in events { if let color = event.color, !colors.contains(color) { colors.append(color) } }
        return DayMarker(count: events.count, colors: colors, hasConflict: Self.hasConflict(events))
    }

    /// Whether two busy timed events overlap.
    static func hasConflict(_ events: [ViewEvent]) -> Bool {
        var reach = Int.min
        for event in events.filter({ $0.isBusy && !$0.isAllDay }).sorted(by: { $0.start < $1.start }) {
            if event.start < reach { return true }
            reach = max(reach, event.end)
        }
        return false
    }
}

/// One day's events (all-day first, then by start) and its marker.
public struct DaySummary: Sendable, Hashable {
    public var date: CivilDate
    public var events: [ViewEvent]
    public var marker: DayMarker
}

/// Each date's events and marker, days beginning at midnight in `zone`.
public func daySummaries(for dates: [CivilDate], zone: ZoneRules, events: [ViewEvent]) -> [DaySummary] {
    let bounds = DayBounds(zone: zone)
    return dates.map { date in
        let dayEvents = bounds.events(on: date, from: events)
        return DaySummary(date: date, events: dayEvents, marker: bounds.marker(dayEvents))
    }
}

/// The instants from the first date's midnight to the midnight after the last, in `zone`.
public func instantRange(of dates: [CivilDate], zone: ZoneRules) -> (start: Int, end: Int)? {
    guard let first = dates.first, let last = dates.last else { return nil }
    let bounds = DayBounds(zone: zone)
    return (bounds.start(of: first), bounds.start(of: last.adding(days: 1)))
}

/// The Monday of ISO week `week` of `year` (`2026-W48`); nil when there is no such week.
public func isoWeekMonday(year: Int, week: Int) -> CivilDate? {
    guard week >= 1, week <= CivilDate.numberOfWeeks(inYear: year, weekStart: .monday) else { return nil }
    return CivilDate(daysSinceEpoch: CivilDate.firstDayOfWeekOne(year: year, weekStart: .monday) + (week - 1) * 7)
}
