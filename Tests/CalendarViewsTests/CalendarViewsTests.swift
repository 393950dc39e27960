import CalendarViews
import CivilTime
import Foundation
import Testing

/// Month and week layout. Weekdays come from Foundation's calendar (independent of
/// CivilTime); minutes on DST-change days are worked out by hand in the comments.
@Suite struct CalendarViewsTests {
    static let berlin = TimeZoneDatabase.zone(named: "Europe/Berlin")!

    static func date(_ year: Int, _ month: Int, _ day: Int) -> CivilDate {
        CivilDate(year: year, month: month, day: day)!
    }

    /// Foundation's weekday of a date (1 = Sunday).
    static func foundationWeekday(_ year: Int, _ month: Int, _ day: Int) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.component(
            .weekday, from: calendar.date(from: DateComponents(year: year, month: month, day: day))!)
    }

    static func instant(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0, zone: ZoneRules = berlin)
        -> Int
    {
        zone.instant(for: CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute)!)
    }

    static func event(_ title: String, _ start: Int, _ end: Int, busy: Bool = true, color: String? = nil) -> ViewEvent {
        ViewEvent(
            id: title, eventID: title, calendarID: "c", title: title, start: start, end: end, color: color, isBusy: busy
        )
    }

    @Test(arguments: [Weekday.monday, .sunday], [(2026, 11), (2026, 2), (2027, 5), (2024, 2)])
    func monthGridsStartOnTheFirstWeekdayAndCoverTheMonth(firstWeekday: Weekday, month: (Int, Int)) throws {
        let grid = try #require(
            MonthGrid(
                year: month.0, month: month.1, firstWeekday: firstWeekday, zone: .utc, events: [],
                today: Self.date(2026, 11, 29)))
        #expect(grid.weeks.count == 5 || grid.weeks.count == 6)
        let days = grid.weeks.flatMap { $0 }
        // Every column starts on the first weekday (Foundation: Sunday 1, Monday 2).
        for week in grid.weeks {
            let first = week[0].date
            #expect(Self.foundationWeekday(first.year, first.month, first.day) == (firstWeekday == .sunday ? 1 : 2))
        }
        // The month's days are all there, in order, marked as inside; the others outside.
        let inside = days.filter(\.isInMonth).map(\.date.day)
        #expect(inside == Array(1...CivilDate.daysInMonth(year: month.0, month: month.1)))
        #expect(days.filter { !$0.isInMonth }.allSatisfy { $0.date.month != month.1 })
        // The first row holds the 1st; no row is wholly outside the month except to keep 5 rows.
        #expect(grid.weeks[0].contains { $0.isInMonth && $0.date.day == 1 })
        if grid.weeks.count == 6 { #expect(grid.weeks[5].contains { $0.isInMonth }) }
        #expect(grid.weekdays.first == firstWeekday)
    }

    @Test func novemberTwentyTwentySixByHand() throws {
        // 1 November 2026 is a Sunday, the 30th a Monday.
        let monday = try #require(
            MonthGrid(
                year: 2026, month: 11, firstWeekday: .monday, zone: .utc, events: [], today: Self.date(2026, 11, 29)))
        #expect(
            monday.weeks.count == 6 && monday.weeks[0][0].date == Self.date(2026, 10, 26)
                && monday.weeks[5][6].date == Self.date(2026, 12, 6))
        let sunday = try #require(
            MonthGrid(
                year: 2026, month: 11, firstWeekday: .sunday, zone: .utc, events: [], today: Self.date(2026, 11, 29)))
        #expect(
            sunday.weeks.count == 5 && sunday.weeks[0][0].date == Self.date(2026, 11, 1)
                && sunday.weeks[4][6].date == Self.date(2026, 12, 5))
        #expect(sunday.weeks[4][0].isToday)
    }

    @Test func markersCountColoursAndConflicts() throws {
        let events = [
            Self.event("A", Self.instant(2026, 12, 3, 18), Self.instant(2026, 12, 3, 19), color: "#FF0000"),
            Self.event("B", Self.instant(2026, 12, 3, 18, 30), Self.instant(2026, 12, 3, 20), color: "#00FF00"),
            Self.event(
                "Free", Self.instant(2026, 12, 4, 9), Self.instant(2026, 12, 4, 10), busy: false, color: "#FF0000"),
            Self.event("Also", Self.instant(2026, 12, 4, 9, 30), Self.instant(2026, 12, 4, 10), color: "#FF0000"),
        ]
        let grid = try #require(
            MonthGrid(
                year: 2026, month: 12, firstWeekday: .monday, zone: Self.berlin, events: events,
                today: Self.date(2026, 12, 1)))
        let days = Dictionary(uniqueKeysWithValues: grid.weeks.flatMap { $0 }.map { ($0.date, $0) })
        #expect(
            days[Self.date(2026, 12, 3)]?.marker
                == DayMarker(count: 2, colors: ["#FF0000", "#00FF00"], hasConflict: true))
        // A transparent event does not conflict.
        #expect(days[Self.date(2026, 12, 4)]?.marker == DayMarker(count: 2, colors: ["#FF0000"], hasConflict: false))
        #expect(days[Self.date(2026, 12, 5)]?.marker.count == 0)
    }

    @Test func threeOverlappingEventsSitSideBySide() {
        let day = Self.date(2026, 12, 1)
        let week = WeekGrid(
            from: Self.date(2026, 11, 30), zone: Self.berlin,
            events: [
                Self.event("A", Self.instant(2026, 12, 1, 10), Self.instant(2026, 12, 1, 11)),
                Self.event("B", Self.instant(2026, 12, 1, 10, 30), Self.instant(2026, 12, 1, 12)),
                Self.event("C", Self.instant(2026, 12, 1, 10, 45), Self.instant(2026, 12, 1, 11, 15)),
                Self.event("D", Self.instant(2026, 12, 1, 13), Self.instant(2026, 12, 1, 14)),
            ], today: day)
        let column = week.columns[1]
        #expect(column.date == day && column.minutes == 1440)
        let placed = Dictionary(uniqueKeysWithValues: column.timed.map { ($0.event.title, $0) })
        #expect(placed["A"]?.lane == 0 && placed["B"]?.lane == 1 && placed["C"]?.lane == 2)
        #expect([placed["A"]?.lanes, placed["B"]?.lanes, placed["C"]?.lanes] == [3, 3, 3])
        #expect(placed["D"]?.lane == 0 && placed["D"]?.lanes == 1)
        #expect(placed["B"]?.startMinute == 630 && placed["B"]?.endMinute == 720)
    }

    @Test func eventsCrossingMidnightShowOnBothDays() {
        let week = WeekGrid(
            from: Self.date(2026, 11, 30), zone: Self.berlin,
            events: [Self.event("Night", Self.instant(2026, 12, 1, 22), Self.instant(2026, 12, 2, 2))],
            today: Self.date(2026, 12, 1))
        let first = week.columns[1].timed
        let second = week.columns[2].timed
        #expect(
            first.count == 1 && first[0].startMinute == 1320 && first[0].endMinute == 1440 && first[0].continuesAfter)
        #expect(
            second.count == 1 && second[0].startMinute == 0 && second[0].endMinute == 120
                && second[0].continuesFromBefore)
        #expect(week.columns[3].timed.isEmpty)
    }

    /// Foundation's wall-clock minute of an instant in Berlin: the oracle for placement.
    static func foundationWallMinute(_ instant: Int) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        let parts = calendar.dateComponents([.hour, .minute], from: Date(timeIntervalSince1970: Double(instant)))
        return parts.hour! * 60 + parts.minute!
    }

    /// Every column is 24 hours of wall clock, so a day's rows line up with the gutter
    /// whatever its length: events sit at the minute Foundation's clock reads for them.
    @Test func daylightSavingDaysArePlacedByWallClock() {
        // Berlin springs forward on 2026-03-29 (23 hours) and falls back on 2026-10-25 (25 hours).
        let springEvents = [
            Self.event("Early", Self.instant(2026, 3, 29, 1, 30), Self.instant(2026, 3, 29, 4)),
            Self.event("Evening", Self.instant(2026, 3, 29, 18), Self.instant(2026, 3, 29, 19)),
        ]
        let spring = WeekGrid(
            from: Self.date(2026, 3, 23), zone: Self.berlin, events: springEvents, today: Self.date(2026, 3, 23))
        #expect(spring.columns.map(\.minutes) == [1440, 1440, 1440, 1440, 1440, 1440, 1380])
        let springPlaced = spring.columns[6].timed.map { [$0.startMinute, $0.endMinute] }
        #expect(
            springPlaced
                == springEvents.map { [Self.foundationWallMinute($0.start), Self.foundationWallMinute($0.end)] })
        // On the fall-back day 02:30 happens twice, an hour apart (00:30 and 01:30 UTC):
        // both passes sit in the one 02:00 row, side by side.
        let first = Self.instant(2026, 10, 25, 0, 30, zone: .utc)
        let second = Self.instant(2026, 10, 25, 1, 30, zone: .utc)
        let autumnEvents = [
            Self.event("First pass", first, first + 1800), Self.event("Second pass", second, second + 1800),
            Self.event("Evening", Self.instant(2026, 10, 25, 18), Self.instant(2026, 10, 25, 19)),
        ]
        let autumn = WeekGrid(
            from: Self.date(2026, 10, 19), zone: Self.berlin, events: autumnEvents, today: Self.date(2026, 10, 19))
        #expect(autumn.columns[6].minutes == 1500)
        let autumnPlaced = Dictionary(uniqueKeysWithValues: autumn.columns[6].timed.map { ($0.event.title, $0) })
        // The first pass ends at 03:00 CEST, which is 02:00 CET: the clock ends before it
        // began, so such an event is drawn its elapsed length from where it starts.
        for event in autumnEvents {
            let start = Self.foundationWallMinute(event.start)
            let end = Self.foundationWallMinute(event.end)
            #expect(
                autumnPlaced[event.title].map { [$0.startMinute, $0.endMinute] }
                    == [start, end >= start ? end : start + (event.end - event.start) / 60])
        }
        #expect(autumnPlaced["First pass"]?.lanes == 2 && autumnPlaced["Second pass"]?.lanes == 2)
    }

    @Test func multiDayAllDayEventsSpanColumnsInLanes() {
        let holidays = ViewEvent(
            id: "h", eventID: "h", calendarID: "c", title: "Holidays", start: Self.instant(2026, 12, 24, 0),
            end: Self.instant(2026, 12, 27, 0),
            dates: .init(first: Self.date(2026, 12, 24), afterLast: Self.date(2026, 12, 27)))
        let party = ViewEvent(
            id: "p", eventID: "p", calendarID: "c", title: "Party", start: Self.instant(2026, 12, 25, 0),
            end: Self.instant(2026, 12, 26, 0),
            dates: .init(first: Self.date(2026, 12, 25), afterLast: Self.date(2026, 12, 26)))
        let trip = ViewEvent(
            id: "t", eventID: "t", calendarID: "c", title: "Trip", start: Self.instant(2026, 12, 19, 0),
            end: Self.instant(2026, 12, 23, 0),
            dates: .init(first: Self.date(2026, 12, 19), afterLast: Self.date(2026, 12, 23)))
        let week = WeekGrid(
            from: Self.date(2026, 12, 21), zone: Self.berlin, events: [holidays, party, trip],
            today: Self.date(2026, 12, 21))
        let rows = Dictionary(uniqueKeysWithValues: week.allDay.map { ($0.event.title, $0) })
        #expect(rows["Trip"].map { [$0.first, $0.span, $0.lane] } == [0, 2, 0])
        #expect(rows["Holidays"].map { [$0.first, $0.span, $0.lane] } == [3, 3, 0])
        #expect(rows["Party"].map { [$0.first, $0.span, $0.lane] } == [4, 1, 1])
        #expect(week.allDayLanes == 2)
        // The month grid lists it on each of its days.
        let month = MonthGrid(
            year: 2026, month: 12, firstWeekday: .monday, zone: Self.berlin, events: [holidays],
            today: Self.date(2026, 12, 1))!
        let withHolidays = month.weeks.flatMap { $0 }.filter { !$0.events.isEmpty }.map(\.date.day)
        #expect(withHolidays == [24, 25, 26])
    }

    /// The hour gutter's marks: the 24 hours of the wall clock, each with the zone's
    /// abbreviation every time the day's clock reads it. On Berlin's spring-forward day
    /// 02:00 never happens (01:59 CET is followed by 03:00 CEST); on the fall-back day
    /// 02:00 happens twice, first in CEST, then in CET.
    @Test func hourMarksTellTheWallClockOnDaylightSavingDays() {
        let ordinary = WeekGrid(
            from: Self.date(2026, 12, 1), days: 1, zone: Self.berlin, events: [], today: Self.date(2026, 12, 1))
        #expect(ordinary.columns.count == 1)
        let hours = ordinary.columns[0].hours
        #expect(hours.map(\.hour) == Array(0..<24) && hours.map(\.minute) == (0..<24).map { $0 * 60 })
        #expect(hours[9].label == "09:00" && hours.allSatisfy { $0.zones == ["CET"] })
        let spring = WeekGrid(
            from: Self.date(2026, 3, 29), days: 1, zone: Self.berlin, events: [], today: Self.date(2026, 3, 1)
        ).columns[0]
        #expect(spring.hours.count == 24 && spring.hours.filter(\.isSkipped).map(\.hour) == [2])
        #expect(spring.hours[1].zones == ["CET"] && spring.hours[3].zones == ["CEST"])
        let autumn = WeekGrid(
            from: Self.date(2026, 10, 25), days: 1, zone: Self.berlin, events: [], today: Self.date(2026, 3, 1)
        ).columns[0]
        #expect(autumn.hours.count == 24 && autumn.hours.filter(\.isRepeated).map(\.hour) == [2])
        #expect(autumn.hours[2].zones == ["CEST", "CET"] && !autumn.hours.contains(where: \.isSkipped))
        // Kolkata is UTC+05:30: its hours still fall on its own full hours.
        let kolkata = TimeZoneDatabase.zone(named: "Asia/Kolkata")!
        let india = WeekGrid(
            from: Self.date(2026, 12, 1), days: 1, zone: kolkata, events: [], today: Self.date(2026, 12, 1)
        ).columns[0]
        #expect(india.hours.allSatisfy { $0.zones.count == 1 } && india.minutes == 1440)
    }

    @Test func theNowMinuteIsOnTodaysColumnOnly() {
        let now = Self.instant(2026, 12, 2, 13, 45)
        let week = WeekGrid(
            from: Self.date(2026, 11, 30), zone: Self.berlin, events: [], today: Self.date(2026, 12, 2), now: now)
        #expect(week.columns.map(\.nowMinute) == [nil, nil, 825, nil, nil, nil, nil])
        // After a spring-forward night the minute is the wall clock's: 04:00 CEST.
        let springNow = Self.instant(2026, 3, 29, 4)
        let spring = WeekGrid(
            from: Self.date(2026, 3, 29), days: 1, zone: Self.berlin, events: [], today: Self.date(2026, 3, 29),
            now: springNow)
        #expect(spring.columns[0].nowMinute == Self.foundationWallMinute(springNow))
        #expect(
            WeekGrid(from: Self.date(2026, 11, 30), zone: Self.berlin, events: [], today: Self.date(2026, 12, 2))
                .columns.allSatisfy { $0.nowMinute == nil })
    }

    @Test func aOneDayGridKeepsAllDayEventsInItsOneColumn() {
        let trip = ViewEvent(
            id: "t", eventID: "t", calendarID: "c", title: "Trip", start: Self.instant(2026, 12, 19, 0),
            end: Self.instant(2026, 12, 23, 0),
            dates: .init(first: Self.date(2026, 12, 19), afterLast: Self.date(2026, 12, 23)))
        let day = WeekGrid(
            from: Self.date(2026, 12, 21), days: 1, zone: Self.berlin, events: [trip], today: Self.date(2026, 12, 21))
        #expect(day.allDay.map { [$0.first, $0.span, $0.lane] } == [[0, 1, 0]])
        #expect(
            WeekGrid.range(from: Self.date(2026, 12, 21), days: 1, zone: Self.berlin) == (
                Self.instant(2026, 12, 21, 0), Self.instant(2026, 12, 22, 0)
            ))
    }
}
