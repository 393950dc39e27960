import CalendarStore
import CivilTime

/// A week of 7 columns from a first day: an all-day row, where multi-day events span
/// columns and stack in lanes, and timed events placed by minute, overlapping ones
/// side by side.
public struct WeekGrid: Sendable {
    public struct Column: Sendable, Hashable {
        public var date: CivilDate
        public var isToday: Bool
        /// The day's length in minutes: 1440, or 1380/1500 on a DST-change day.
        public var minutes: Int
        public var timed: [Placed]
        public var marker: DayMarker
    }

    /// A timed event in a day column: minutes from that day's midnight (clipped to the
    /// day; an event crossing midnight shows in both columns), and its place among the
    /// events it overlaps: column `lane` of `lanes`.
    public struct Placed: Sendable, Hashable {
        public var event: ViewEvent
        public var startMinute: Int
        public var endMinute: Int
        public var lane: Int
        public var lanes: Int
        /// Whether it began on an earlier day / goes on past this one.
        public var continuesFromBefore: Bool
        public var continuesAfter: Bool
    }

    /// An all-day event in the all-day row: from column `first` for `span` columns, in `lane`.
    public struct AllDay: Sendable, Hashable {
        public var event: ViewEvent
        public var first: Int
        public var span: Int
        public var lane: Int
    }

    public var columns: [Column]
    public var allDay: [AllDay]
    public var allDayLanes: Int
    /// The series whose expansion a bound stopped before the grid's end
    /// (``OccurrenceList/truncatedSeries``): their events are placed up to where they
    /// stopped, and a view shows that some are missing. Empty when the events are complete.
    public var truncatedSeries: [TruncatedEvent] = []

    /// The instants the week covers in `zone`.
    public static func range(from first: CivilDate, zone: ZoneRules) -> (start: Int, end: Int) {
        let bounds = DayBounds(zone: zone)
        return (bounds.start(of: first), bounds.start(of: first.adding(days: 7)))
    }

    public init(from first: CivilDate, zone: ZoneRules, events: [ViewEvent], today: CivilDate) {
        let bounds = DayBounds(zone: zone)
        let dates = (0..<7).map { first.adding(days: $0) }
        columns = dates.map { date in
            let dayStart = bounds.start(of: date)
            let dayEnd = bounds.start(of: date.adding(days: 1))
            let minutes = (dayEnd - dayStart) / 60
            let dayEvents = bounds.events(on: date, from: events)
            var placed: [Placed] = dayEvents.filter { !$0.isAllDay }.map { event in
                let start = max(event.start, dayStart)
                let end = min(max(event.end, event.start), dayEnd)
                return Placed(
                    event: event, startMinute: (start - dayStart) / 60, endMinute: (end - dayStart + 59) / 60, lane: 0, lanes: 1,
                    continuesFromBefore: event.start < dayStart, continuesAfter: event.end > dayEnd)
            }
            Self.assignLanes(&placed)
            return Column(date: date, isToday: date == today, minutes: minutes, timed: placed, marker: bounds.marker(dayEvents))
        }
        // All-day events: clip to the week, then first fit into lanes.
        var rows: [AllDay] = []
        var laneEnds: [Int] = []
        let allDayEvents = events.filter { event in event.dates.map { $0.first < first.adding(days: 7) && $0.afterLast > first } ?? false }
            .sorted { left, right in
                let a = left.dates!, b = right.dates!
                if a.first != b.first { return a.first < b.first }
                if a.afterLast != b.afterLast { return a.afterLast > b.afterLast }
                return left.title < right.title
            }
        for event in allDayEvents {
            let dates = event.dates!
            let startColumn = max(0, dates.first.days(since: first))
            let endColumn = min(7, dates.afterLast.days(since: first))
            let lane = laneEnds.firstIndex { $0 <= startColumn } ?? laneEnds.count
            if lane == laneEnds.count { laneEnds.append(endColumn) } else { laneEnds[lane] = endColumn }
            rows.append(AllDay(event: event, first: startColumn, span: max(1, endColumn - startColumn), lane: lane))
        }
        allDay = rows
        allDayLanes = laneEnds.count
    }

    /// Side by side: events sorted by start (longer first) take the first lane free at
    /// their start; every event of a group that overlaps, directly or through others,
    /// shares the group's lane count.
    static func assignLanes(_ placed: inout [Placed]) {
        placed.sort { left, right in
            if left.startMinute != right.startMinute { return left.startMinute < right.startMinute }
            return left.endMinute > right.endMinute
        }
        var groupStart = 0
        var groupEnd = Int.min
        var laneEnds: [Int] = []
        func closeGroup(upTo end: Int) {
            for index in groupStart..<end { placed[index].lanes = max(1, laneEnds.count) }
        }
        for index in placed.indices {
            // A zero-length event still takes a minute of room.
            let start = placed[index].startMinute
            let end = max(placed[index].endMinute, start + 1)
            if start >= groupEnd {
                closeGroup(upTo: index)
                groupStart = index
                laneEnds = []
            }
            let lane = laneEnds.firstIndex { $0 <= start } ?? laneEnds.count
            if lane == laneEnds.count { laneEnds.append(end) } else { laneEnds[lane] = end }
            placed[index].lane = lane
            groupEnd = max(groupEnd, end)
        }
        closeGroup(upTo: placed.count)
    }
}
