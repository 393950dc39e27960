import AlmanacTestSupport
import CivilTime
import Foundation
import Testing

/// Foundation's calendars serve as the independent oracle here: they are
/// slow, which is why the engine does not use them, but they are right.
@Suite struct CivilDateTests {
    static let utc = TimeZone(identifier: "UTC")!

    static func gregorian(firstWeekday: Int = 1, minimumDaysInFirstWeek: Int = 1) -> Foundation.Calendar {
        var calendar = Foundation.Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        calendar.firstWeekday = firstWeekday
        calendar.minimumDaysInFirstWeek = minimumDaysInFirstWeek
        return calendar
    }

    /// Deterministic pseudo-random days, spread over 1600…9999 (Foundation's
    /// Gregorian calendar switches to Julian before 1582, so earlier dates
    /// are checked by the round trip below instead).
    static let sampleDays: [Int] = {
        var generator = SplitMix64(seed: 20_261_129)
        let low = -135_140  // 1600-01-01
        let high = 2_932_896  // 9999-12-31
        return (0..<4000).map { _ in low + Int(generator.next() % UInt64(high - low)) }
    }()

    @Test func epochAndKnownAnchors() {
        // 1970-01-01 is day 0; 2000-03-01 is day 11,017; 0000-03-01 is day −719,468
        // (the anchors of Hinnant's "chrono-Compatible Low-Level Date Algorithms").
        #expect(CivilDate(year: 1970, month: 1, day: 1)!.daysSinceEpoch == 0)
        #expect(CivilDate(year: 2000, month: 3, day: 1)!.daysSinceEpoch == 11_017)
        #expect(CivilDate(year: 0, month: 3, day: 1)!.daysSinceEpoch == -719_468)
        #expect(CivilDate(daysSinceEpoch: -1) == CivilDate(year: 1969, month: 12, day: 31))
    }

    @Test func daysFromCivilAgreesWithFoundation() {
        let calendar = Self.gregorian()
        for days in Self.sampleDays {
            let date = CivilDate(daysSinceEpoch: days)
            let components = calendar.dateComponents(
                [.year, .month, .day, .weekday], from: Date(timeIntervalSince1970: Double(days) * 86_400))
            #expect(
                date.year == components.year && date.month == components.month && date.day == components.day,
                "day \(days)")
            // Foundation numbers weekdays Sunday = 1 … Saturday = 7.
            #expect((date.weekday.rawValue % 7) + 1 == components.weekday, "weekday of \(date)")
            let dayOfYear = calendar.ordinality(
                of: .day, in: .year, for: Date(timeIntervalSince1970: Double(days) * 86_400))
            #expect(date.dayOfYear == dayOfYear, "day of year of \(date)")
        }
    }

    @Test func roundTripOverTwoMillionYears() {
        // Every 37th day over ±1,000 years, and far-away eras: civil → days → civil is the identity.
        for days in stride(from: -365_243 * 1000, through: 365_243 * 1000, by: 9_973) {
            let date = CivilDate(daysSinceEpoch: days)
            #expect(date.daysSinceEpoch == days)
            #expect(CivilDate(year: date.year, month: date.month, day: date.day) == date)
        }
        for days in -800...800 {
            let date = CivilDate(daysSinceEpoch: days)
            #expect(date.adding(days: 1).daysSinceEpoch == days + 1)
        }
    }

    @Test(arguments: [
        (2024, 2, 29, true), (2026, 2, 29, false), (2100, 2, 29, false), (2000, 2, 29, true),
        (2026, 4, 31, false), (2026, 13, 1, false), (2026, 0, 1, false), (2026, 12, 31, true), (2026, 1, 0, false),
    ])
    func validity(year: Int, month: Int, day: Int, valid: Bool) {
        #expect((CivilDate(year: year, month: month, day: day) != nil) == valid)
    }

    @Test func isoWeeksAgreeWithFoundation() {
        var calendar = Foundation.Calendar(identifier: .iso8601)
        calendar.timeZone = Self.utc
        for days in Self.sampleDays {
            let date = CivilDate(daysSinceEpoch: days)
            let instant = Date(timeIntervalSince1970: Double(days) * 86_400)
            let week = date.weekOfYear(weekStart: .monday)
            #expect(week.year == calendar.component(.yearForWeekOfYear, from: instant), "\(date)")
            #expect(week.week == calendar.component(.weekOfYear, from: instant), "\(date)")
        }
    }

    @Test(arguments: Weekday.allCases)
    func weeksWithAnyWeekStartAgreeWithFoundation(weekStart: Weekday) {
        // RFC 5545 BYWEEKNO: week 1 has at least four days of the year, weeks start on WKST.
        let calendar = Self.gregorian(firstWeekday: weekStart.rawValue % 7 + 1, minimumDaysInFirstWeek: 4)
        for days in Self.sampleDays.prefix(1500) {
            let date = CivilDate(daysSinceEpoch: days)
            let instant = Date(timeIntervalSince1970: Double(days) * 86_400)
            let week = date.weekOfYear(weekStart: weekStart)
            #expect(week.year == calendar.component(.yearForWeekOfYear, from: instant), "\(date) WKST=\(weekStart)")
            #expect(week.week == calendar.component(.weekOfYear, from: instant), "\(date) WKST=\(weekStart)")
        }
    }

    @Test func yearsWithFiftyThreeISOWeeks() {
        // An ISO year has 53 weeks when January 1 is a Thursday, or a Wednesday in a leap year.
        let calendar = Self.gregorian()
        for year in 1900...2100 {
            var components = DateComponents()
            (components.year, components.month, components.day) = (year, 1, 1)
            let weekday = calendar.component(.weekday, from: calendar.date(from: components)!)  // Sunday = 1
            let isLeap = calendar.range(of: .day, in: .year, for: calendar.date(from: components)!)!.count == 366
            let expected = weekday == 5 || (isLeap && weekday == 4) ? 53 : 52
            #expect(CivilDate.numberOfWeeks(inYear: year) == expected, "\(year)")
        }
    }

    @Test(arguments: [-1, 0, 33, 2026, 9999, 10_000])
    func appendedDescriptionsAreTheDescriptions(_ year: Int) throws {
        // The byte writer `ics expand` uses writes exactly `description`, also past four digits.
        let date = try #require(CivilDate(year: year, month: 2, day: 9))
        var bytes: [UInt8] = []
        date.appendDescription(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == date.description)
        let time = CivilDateTime(date: date, time: try #require(TimeOfDay(hour: 7, minute: 5, second: 59)))
        bytes = []
        time.appendDescription(to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == time.description)
    }

    @Test func descriptions() {
        #expect(CivilDate(year: 2026, month: 11, day: 29)!.description == "2026-11-29")
        #expect(CivilDate(year: 33, month: 1, day: 2)!.description == "0033-01-02")
        #expect(CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)!.description == "2026-03-29T02:30:00")
    }
}
