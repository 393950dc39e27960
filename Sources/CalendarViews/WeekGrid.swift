import CivilTime

/// Day columns from a first day (7 for a week, 1 for a day): an all-day row, where
/// multi-day events span columns and stack in lanes, and timed events placed by
/// wall-clock minute, overlapping ones side by side; each column has its hour marks
/// and, on today, where now is.
///
/// Every column is the same 24 hours of wall clock, so every day's rows line up with
/// one hour gutter, on DST-change days too (as Google Calendar and Fantastical draw
/// them): the hour that clocks skip in spring is an empty row marked as skipped, and
/// the hour they repeat in autumn is one row holding both of its passes.
public struct WeekGrid: Sendable {
    public struct Column: Sendable, Hashable {
        public var date: CivilDate
        public var isToday: Bool
        /// The day's length in elapsed minutes: 1440, or 1380/1500 on a DST-change day.
        /// (Placement is by wall clock, on 1440 minutes, whatever the day's length.)
        public var minutes: Int
        public var timed: [Placed]
        public var marker: DayMarker
        /// The 24 hours of the day's wall clock, each with how often the day has it.
        public var hours: [HourMark]
        /// The wall-clock minute of the grid's `now`, when now is on this day.
        public var nowMinute: Int?
    }

    /// A full hour of wall-clock time: its wall-clock minute (`hour * 60`), the label
    /// `HH:00`, and the zone's abbreviation at each time the day's clock reads it: one,
    /// none for the hour clocks skip when they go forward, two (in order) for the hour
    /// they repeat when they go back.
    public struct HourMark: Sendable, Hashable {
        public var hour: Int
        public var zones: [String]
        public var minute: Int { hour * 60 }
        public var label: String { (hour < 10 ? "0" : "") + String(hour) + ":00" }
        /// Whether clocks skip this hour (it never happens on this day).
        public var isSkipped: Bool { zones.isEmpty }
        /// Whether clocks go through this hour twice on this day.
        public var isRepeated: Bool { zones.count > 1 }
    }

    /// A timed event in a day column: its wall-clock minutes on that day (clipped to
    /// the day; an event crossing midnight shows in both columns), and its place among
    /// the events it overlaps: column `lane` of `lanes`.
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

    /// The instants `days` days from `first` cover in `zone`.
    public static func range(from first: CivilDate, days: Int = 7, zone: ZoneRules) -> (start: Int, end: Int) {
        let bounds = DayBounds(zone: zone)
        return (bounds.start(of: first), bounds.start(of: first.adding(days: max(1, days))))
    }

    /// The grid of `days` days (7 by default) from `first`; `now`, if given, marks where
    /// now is on its day.
    public init(
        from first: CivilDate, days: Int = 7, zone: ZoneRules, events: [ViewEvent], today: CivilDate, now: Int? = nil
    ) {
        let bounds = DayBounds(zone: zone)
        let dayCount = max(1, days)
        let dates = (0..<dayCount).map { first.adding(days: $0) }
        columns = dates.map { date in
            let dayStart = bounds.start(of: date)
            let dayEnd = bounds.start(of: date.adding(days: 1))
            let minutes = (dayEnd - dayStart) / 60
            let dayEvents = bounds.events(on: date, from: events)
            func wallMinute(_ instant: Int, roundingUp: Bool = false) -> Int {
                let local = zone.localTime(at: instant)
                if local.date < date { return 0 }
                if local.date > date { return 1440 }
                let seconds = local.time.hour * 3600 + local.time.minute * 60 + local.time.second
                return roundingUp ? (seconds + 59) / 60 : seconds / 60
            }
            var placed: [Placed] = dayEvents.filter { !$0.isAllDay }.map { event in
                let start = max(event.start, dayStart)
                let end = min(max(event.end, event.start), dayEnd)
                let startMinute = wallMinute(start)
                // Across a fall-back, the wall clock can end before it began (02:30 CEST
                // to 02:15 CET): such an event is drawn its elapsed length.
                var endMinute = end == dayEnd ? 1440 : wallMinute(end, roundingUp: true)
                if endMinute < startMinute { endMinute = min(1440, startMinute + (end - start + 59) / 60) }
                return Placed(
                    event: event, startMinute: startMinute, endMinute: endMinute, lane: 0, lanes: 1,
                    continuesFromBefore: event.start < dayStart, continuesAfter: event.end > dayEnd)
            }
            Self.assignLanes(&placed)
            let nowMinute = now.flatMap { $0 >= dayStart && $0 < dayEnd ? wallMinute($0) : nil }
            return Column(
                date: date, isToday: date == today, minutes: minutes, timed: placed, marker: bounds.marker(dayEvents),
                hours: Self.hourMarks(of: date, from: dayStart, to: dayEnd, zone: zone), nowMinute: nowMinute)
        }
        // All-day events: clip to the week, then first fit into lanes.
        var rows: [AllDay] = []
        var laneEnds: [Int] = []
        let allDayEvents = events.filter { event in
            event.dates.map { $0.first < first.adding(days: dayCount) && $0.afterLast > first } ?? false
        }
        .sorted { left, right in
            let a = left.dates!
            let b = right.dates!
            if a.first != b.first { return a.first < b.first }
            if a.afterLast != b.afterLast { return a.afterLast > b.afterLast }
            return left.title < right.title
        }
        for event in allDayEvents {
            let dates = event.dates!
            let startColumn = max(0, dates.first.days(since: first))
            let endColumn = min(dayCount, dates.afterLast.days(since: first))
            let lane = laneEnds.firstIndex { $0 <= startColumn } ?? laneEnds.count
            if lane == laneEnds.count { laneEnds.append(endColumn) } else { laneEnds[lane] = endColumn }
            rows.append(AllDay(event: event, first: startColumn, span: max(1, endColumn - startColumn), lane: lane))
        }
        allDay = rows
        allDayLanes = laneEnds.count
    }

    /// The 24 wall-clock hours of `date` (between the instants `start` and `end`), each
    /// with the zone's abbreviation every time the clock reads its full hour. Offsets
    /// change on quarter hours at the finest, so the day is read every 15 minutes.
    static func hourMarks(of date: CivilDate, from start: Int, to end: Int, zone: ZoneRules) -> [HourMark] {
        var marks = (0..<24).map { HourMark(hour: $0, zones: []) }
        var instant = start
        while instant < end {
            let local = zone.localTime(at: instant)
            if local.date == date && local.time.minute == 0 && local.time.second == 0 {
                marks[local.time.hour].zones.append(zone.abbreviation(at: instant))
            }
            instant += 900
        }
        return marks
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
