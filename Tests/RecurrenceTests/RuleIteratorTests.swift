import CivilTime
import Foundation
import ICalendar
import Testing

@testable import Recurrence

/// Rule expansion in wall-clock time, for the cases TIME-EDGE-CASES.md lists.
/// Expected dates are derived independently: from the RFC text, or by
/// enumerating the calendar with CivilDate in the test itself.
@Suite struct RuleIteratorTests {
    static func expand(_ rule: String, from start: String, limit: Int = 1000, until: String? = nil) throws -> [String] {
        let rule = try RecurrenceRule(parsing: rule, strict: false)
        let parts = start.split(separator: "T")
        let dateDigits = Array(parts[0].utf8).map { Int($0 - 48) }
        let date = CivilDate(
            year: dateDigits[0] * 1000 + dateDigits[1] * 100 + dateDigits[2] * 10 + dateDigits[3],
            month: dateDigits[4] * 10 + dateDigits[5], day: dateDigits[6] * 10 + dateDigits[7])!
        var time = TimeOfDay.midnight
        if parts.count == 2 {
            let t = Array(parts[1].utf8).map { Int($0 - 48) }
            time = TimeOfDay(hour: t[0] * 10 + t[1], minute: t[2] * 10 + t[3], second: t[4] * 10 + t[5])!
        }
        var iterator = RuleIterator(
            rule: rule, start: CivilDateTime(date: date, time: time), isDate: parts.count == 1, zone: nil,
            limits: .default)
        var result: [String] = []
        while let next = iterator.next(), result.count < limit {
            result.append(parts.count == 1 ? next.date.description : next.description)
        }
        return result
    }

    /// Every date from `start` on, for `days` days, that satisfies `include`.
    static func dates(from start: CivilDate, days: Int, where include: (CivilDate) -> Bool) -> [String] {
        (0..<days).map { start.adding(days: $0) }.filter(include).map(\.description)
    }

    @Test func dtstartIsTheFirstInstanceEvenOffTheRule() throws {
        // RFC 5545 §3.8.5.3: DTSTART (a Wednesday) counts as the first of COUNT=3; then two Fridays.
        #expect(
            try Self.expand("FREQ=WEEKLY;BYDAY=FR;COUNT=3", from: "20261125T100000")
                == ["2026-11-25T10:00:00", "2026-11-27T10:00:00", "2026-12-04T10:00:00"])
    }

    @Test func invalidDatesAreSkippedNeverMoved() throws {
        // The 31st only in months that have one; February 29 only in leap years.
        let monthly = try Self.expand("FREQ=MONTHLY;BYMONTHDAY=31;COUNT=7", from: "20260131")
        #expect(
            monthly == [
                "2026-01-31", "2026-03-31", "2026-05-31", "2026-07-31", "2026-08-31", "2026-10-31", "2026-12-31",
            ])
        let leap = try Self.expand("FREQ=YEARLY;COUNT=4", from: "20240229")
        #expect(leap == ["2024-02-29", "2028-02-29", "2032-02-29", "2036-02-29"])
    }

    @Test(arguments: [
        "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "FREQ=MONTHLY;BYMONTHDAY=31;BYMONTH=4",
        "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=YEARLY;BYMONTH=4,6,9,11;BYMONTHDAY=-31", "FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=30",
    ])
    func rulesThatNeverFireEndAtOnceAfterDTSTART(rule: String) throws {
        #expect(try Self.expand(rule, from: "20260101T090000") == ["2026-01-01T09:00:00"])
    }

    @Test func negativeMonthDayAsAFilterMatchesAndEnds() throws {
        let expected = Self.dates(from: CivilDate(year: 2026, month: 1, day: 31)!, days: 400) {
            $0.day == CivilDate.daysInMonth(year: $0.year, month: $0.month)
        }
        #expect(try Self.expand("FREQ=DAILY;BYMONTHDAY=-1", from: "20260131", limit: expected.count) == expected)
    }

    @Test func bySetPosPicksWithinEachPeriod() throws {
        // The last weekday of each month (RFC 5545 §3.8.5.3).
        let expected = (1...12).map { month -> String in
            var day = CivilDate(year: 2027, month: month, day: CivilDate.daysInMonth(year: 2027, month: month))!
            while day.weekday == .saturday || day.weekday == .sunday { day = day.adding(days: -1) }
            return day.description
        }
        let result = try Self.expand("FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1", from: "20270129", limit: 12)
        #expect(result == expected)
        // BYSETPOS in a WEEKLY rule: the second of Tuesday/Thursday is Thursday.
        #expect(
            try Self.expand("FREQ=WEEKLY;BYDAY=TU,TH;BYSETPOS=2;COUNT=3", from: "20261126") == [
                "2026-11-26", "2026-12-03", "2026-12-10",
            ])
    }

    @Test func weekNumberFiftyThreeAndWeekStart() throws {
        // ISO years with 53 weeks (January 1 a Thursday, or a Wednesday in a leap year): the Monday of week 53.
        let expected = (2000...2040).filter { CivilDate.numberOfWeeks(inYear: $0) == 53 }.map { year -> String in
            let mondayOfWeekOne = CivilDate(daysSinceEpoch: CivilDate.firstDayOfWeekOne(year: year, weekStart: .monday))
            return mondayOfWeekOne.adding(days: 52 * 7).description
        }
        #expect(
            try Self.expand("FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO", from: "20041227", limit: expected.count) == expected)
        // WKST changes which days week 1 holds: with WKST=SU, week 1 of 2027 starts Sunday 2027-01-03.
        #expect(try Self.expand("FREQ=YEARLY;BYWEEKNO=1;BYDAY=SU;WKST=SU;COUNT=1", from: "20270103") == ["2027-01-03"])
    }

    @Test func yearlyWithMonthDayButNoMonthCoversEveryMonth() throws {
        #expect(
            try Self.expand("FREQ=YEARLY;BYMONTHDAY=15;COUNT=4", from: "20260115") == [
                "2026-01-15", "2026-02-15", "2026-03-15", "2026-04-15",
            ])
    }

    @Test func yearlyWeekNumberWithoutWeekdayTakesDTSTARTsWeekday() throws {
        // DTSTART is Wednesday 2026-05-13, in ISO week 20: each year, the Wednesday of week 20.
        let expected = (2026...2029).map { year -> String in
            CivilDate(daysSinceEpoch: CivilDate.firstDayOfWeekOne(year: year, weekStart: .monday) + 19 * 7 + 2)
                .description
        }
        #expect(try Self.expand("FREQ=YEARLY;BYWEEKNO=20", from: "20260513", limit: 4) == expected)
    }

    @Test func ordinalWeekdaysCountWithinMonthOrYear() throws {
        // With BYMONTH: the first Sunday of March. Without: the 20th Monday of the year (RFC 5545 example).
        #expect(
            try Self.expand("FREQ=YEARLY;BYMONTH=3;BYDAY=1SU;COUNT=2", from: "20260301") == [
                "2026-03-01", "2027-03-07",
            ])
        let twentiethMonday = (1997...1999).map { year -> String in
            var day = CivilDate(year: year, month: 1, day: 1)!
            while day.weekday != .monday { day = day.adding(days: 1) }
            return day.adding(days: 19 * 7).description
        }
        #expect(try Self.expand("FREQ=YEARLY;BYDAY=20MO", from: "19970519", limit: 3) == twentiethMonday)
    }

    @Test func countWithUntilInLenientModeStopsAtWhicheverComesFirst() throws {
        #expect(try Self.expand("FREQ=DAILY;COUNT=10;UNTIL=20260103", from: "20260101").count == 3)
    }

    @Test func subDailyFrequencies() throws {
        #expect(
            try Self.expand("FREQ=HOURLY;INTERVAL=5;COUNT=3", from: "20261129T220000") == [
                "2026-11-29T22:00:00", "2026-11-30T03:00:00", "2026-11-30T08:00:00",
            ])
        #expect(
            try Self.expand("FREQ=MINUTELY;BYHOUR=9;BYMINUTE=0,30;COUNT=3", from: "20261129T090000") == [
                "2026-11-29T09:00:00", "2026-11-29T09:30:00", "2026-11-30T09:00:00",
            ])
        #expect(
            try Self.expand("FREQ=SECONDLY;BYSECOND=0,30;COUNT=3", from: "20261129T090000") == [
                "2026-11-29T09:00:00", "2026-11-29T09:00:30", "2026-11-29T09:01:00",
            ])
        // Skipping days that fail the day filter keeps INTERVAL alignment: every 7 hours, weekdays only.
        let result = try Self.expand("FREQ=HOURLY;INTERVAL=7;BYDAY=MO;COUNT=4", from: "20261130T000000")
        #expect(result == ["2026-11-30T00:00:00", "2026-11-30T07:00:00", "2026-11-30T14:00:00", "2026-11-30T21:00:00"])
    }

    @Test func skippingAheadGivesTheSameInstancesAsWalking() throws {
        for text in [
            "FREQ=DAILY;INTERVAL=3", "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,FR", "FREQ=MONTHLY;BYDAY=-1FR",
            "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29",
            "FREQ=HOURLY;INTERVAL=5;BYHOUR=1,6,11,16,21", "FREQ=MONTHLY;INTERVAL=5;BYMONTHDAY=-3,10",
        ] {
            let rule = try RecurrenceRule(parsing: text)
            let start = CivilDateTime(year: 1990, month: 1, day: 1, hour: 9)!
            let target = CivilDateTime(year: 2026, month: 11, day: 1)!
            var walking = RuleIterator(rule: rule, start: start, isDate: false, zone: nil, limits: .default)
            var walked: [CivilDateTime] = []
            while let next = walking.next(), walked.count < 5 { if next >= target { walked.append(next) } }
            var skipping = RuleIterator(rule: rule, start: start, isDate: false, zone: nil, limits: .default)
            skipping.skip(toward: target)
            var skipped: [CivilDateTime] = []
            while let next = skipping.next(), skipped.count < 5 { if next >= target { skipped.append(next) } }
            #expect(skipped == walked, "\(text)")
        }
    }

    @Test func plainAndOrdinalWeekdaysAreAUnion() throws {
        // Every Tuesday and the last Sunday of each month (dateutil intersects the two kinds).
        let expected = Self.dates(from: CivilDate(year: 2026, month: 12, day: 1)!, days: 62) { date in
            date.weekday == .tuesday
                || (date.weekday == .sunday && date.day + 7 > CivilDate.daysInMonth(year: date.year, month: date.month))
        }
        #expect(try Self.expand("FREQ=MONTHLY;BYDAY=TU,-1SU", from: "20261201", limit: expected.count) == expected)
    }

    /// Week numbers at the edges of years, against Foundation's week numbering: each day
    /// belongs to its own week-year's week, counted from the start or (negative) the end.
    @Test(arguments: [(53, Weekday.monday), (-53, .saturday), (-52, .monday), (52, .sunday), (1, .wednesday)])
    func weekNumbersAtTheEdgesOfYears(week: Int, weekStart: Weekday) throws {
        var calendar = Foundation.Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        calendar.firstWeekday = weekStart.rawValue % 7 + 1
        calendar.minimumDaysInFirstWeek = 4
        let first = CivilDate(year: 2000, month: 1, day: 1)!
        let expected = Self.dates(from: first, days: 30 * 366) { date in
            guard
                date.weekday == .sunday || date.weekday == .monday || date.weekday == .saturday
                    || date.weekday == .wednesday
            else { return false }
            let instant = Date(timeIntervalSince1970: Double(date.daysSinceEpoch) * 86_400)
            let number = calendar.component(.weekOfYear, from: instant)
            let weeks = calendar.range(of: .weekOfYear, in: .yearForWeekOfYear, for: instant)!.count
            return week > 0 ? number == week : number == weeks + 1 + week
        }.filter { $0 < "2030" }
        let rule = "FREQ=YEARLY;BYWEEKNO=\(week);BYDAY=SU,MO,SA,WE;WKST=\(weekStart.icalendarCode)"
        let result = try Self.expand(rule, from: "20000101", limit: 400).filter { $0 >= expected.first! && $0 < "2030" }
        #expect(result == expected, "\(rule)")
    }
}
