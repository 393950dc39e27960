import CivilTime

/// Day columns from a first day (7 for a week, 1 for a day): an all-day row, where
/// multi-day events span columns and stack in lanes, and timed events placed by
/// minute, overlapping ones side by side; each column has its hour marks and, on
/// today, where now is.
public struct WeekGrid: Sendable {
    public struct Column: Sendable, Hashable {
        public var date: CivilDate
        public var isToday: Bool
        /// The day's length in minutes: 1440, or 1380/1500 on a DST-change day.
        public var minutes: Int
        public var timed: [Placed]
        public var marker: DayMarker
        /// Each full hour of the day's wall clock, where it falls: 24 marks, 23 on a
        /// spring-forward day (the skipped hour has none), 25 on a fall-back day.
        public var hours: [HourMark]
        /// Minutes from midnight to the grid's `now`, when now is on this day.
        public var nowMinute: Int?
    }

    /// A full hour of wall-clock time: minutes from the day's midnight (elapsed time, as
    /// events are placed), the hour shown, and for an hour the day has twice (when
    /// clocks go back) which of the two it is, by the zone's abbreviation then.
    public struct HourMark: Sendable, Hashable {
        public var minute: Int
        public var hour: Int
        /// `HH:00`, followed by the zone's abbreviation for an hour that occurs twice.
        public var label: String
        /// Whether the day has this wall-clock hour twice.
        public var isRepeated: Bool
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
            var placed: [Placed] = dayEvents.filter { !$0.isAllDay }.map { event in
                let start = max(event.start, dayStart)
                let end = min(max(event.end, event.start), dayEnd)
                return Placed(
                    event: event, startMinute: (start - dayStart) / 60, endMinute: (end - dayStart + 59) / 60, lane: 0,
                    lanes: 1,
                    continuesFromBefore: event.start < dayStart, continuesAfter: event.end > dayEnd)
            }
            Self.assignLanes(&placed)
            let nowMinute = now.flatMap { $0 >= dayStart && $0 < dayEnd ? ($0 - dayStart) / 60 : nil }
            return Column(
                date: date, isToday: date == today, minutes: minutes, timed: placed, marker: bounds.marker(dayEvents),
                hours: Self.hourMarks(from: dayStart, to: dayEnd, zone: zone), nowMinute: nowMinute)
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

    /// The full wall-clock hours between two instants (a day): every instant at which the
    /// zone's clock reads a full hour. Offsets change on quarter hours at the finest, so
    /// the day is read every 15 minutes.
    static func hourMarks(from start: Int, to end: Int, zone: ZoneRules) -> [HourMark] {
        var found: [(minute: Int, hour: Int, instant: Int)] = []
        var instant = start
        while instant < end {
            let local = zone.localTime(at: instant)
            if local.time.minute == 0 && local.time.second == 0 {
                found.append(((instant - start) / 60, local.time.hour, instant))
            }
            instant += 900
        }
        var counts: [Int: Int] = [:]
        for mark in found { counts[mark.hour, default: 0] += 1 }
        return found.map { mark in
            let repeated = (counts[mark.hour] ?? 0) > 1
            let clock = (mark.hour < 10 ? "0" : "") + String(mark.hour) + ":00"
            return HourMark(
                minute: mark.minute, hour: mark.hour,
                label: repeated ? clock + " " + zone.abbreviation(at: mark.instant) : clock, isRepeated: repeated)
        }
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
