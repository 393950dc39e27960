import CivilTime

/// A month as a grid of whole weeks from `firstWeekday`: 5 or 6 rows, each day with
/// its events and marker, days of the neighbouring months marked as outside.
public struct MonthGrid: Sendable {
    public struct Day: Sendable, Hashable {
        public var date: CivilDate
        public var isInMonth: Bool
        public var isToday: Bool
        /// All-day events first, then by start.
        public var events: [ViewEvent]
        public var marker: DayMarker
    }

    public var year: Int
    public var month: Int
    public var firstWeekday: Weekday
    public var weeks: [[Day]]

    /// The weekdays of the columns, from `firstWeekday`.
    public var weekdays: [Weekday] { (0..<7).map { Weekday(rawValue: (firstWeekday.rawValue - 1 + $0) % 7 + 1)! } }

    /// The instants the grid covers in `zone` (to query events for it).
    public static func range(year: Int, month: Int, firstWeekday: Weekday, zone: ZoneRules) -> (start: Int, end: Int)? {
        days(year: year, month: month, firstWeekday: firstWeekday).flatMap { instantRange(of: $0, zone: zone) }
    }

    /// The grid's dates, row by row; nil for a month that does not exist.
    public static func days(year: Int, month: Int, firstWeekday: Weekday) -> [CivilDate]? {
        guard let first = CivilDate(year: year, month: month, day: 1) else { return nil }
        let gridStart = first.startOfWeek(firstWeekday: firstWeekday)
        let last = first.adding(days: CivilDate.daysInMonth(year: year, month: month) - 1)
        // Whole weeks; a February that fits in four gets the next week too, so the grid
        // keeps its height (5 or 6 rows).
        let count = max(5, last.days(since: gridStart) / 7 + 1) * 7
        return (0..<count).map { gridStart.adding(days: $0) }
    }

    /// nil for a month that does not exist.
    public init?(year: Int, month: Int, firstWeekday: Weekday, zone: ZoneRules, events: [ViewEvent], today: CivilDate) {
        guard let dates = Self.days(year: year, month: month, firstWeekday: firstWeekday) else { return nil }
        self.year = year
        self.month = month
        self.firstWeekday = firstWeekday
        let days = daySummaries(for: dates, zone: zone, events: events).map { day in
            Day(
                date: day.date, isInMonth: day.date.month == month && day.date.year == year, isToday: day.date == today,
                events: day.events,
                marker: day.marker)
        }
        weeks = stride(from: 0, to: days.count, by: 7).map { Array(days[$0..<$0 + 7]) }
    }
}
