import ICalendar
import Testing

@testable import Recurrence

/// RFC 7529 rules (RSCALE, SKIP, leap months) expanded in their calendars. The expected
/// dates are RFC 7529's own examples (§4.3) and what its definitions give, each checked
/// by hand against the calendar in the comment (and agreeing with libical built with
/// ICU; `Tests/Differential/rscale_libical.py` compares many more).
@Suite struct RScaleTests {
    static func dates(start: String, rule: String, count: Int = 6) throws -> [String] {
        let text = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x", "BEGIN:VEVENT", "UID:r", "DTSTAMP:20260101T000000Z",
            "DTSTART;VALUE=DATE:\(start)", "RRULE:\(rule)", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let calendar = try ICalendarParser.parse(text).components[0]
        let occurrences = try CalendarObjectExpansion(resolver: ZoneResolver(calendar: calendar))
            .expand(calendar, from: nil, to: 2_240_611_200).occurrences  // to 2041
        return Array(occurrences.prefix(count).map(\.start.text))
    }

    @Test(arguments: [
        // Chinese New Year (1st day of the 1st month), yearly from 2013.
        (
            "20130210", "RSCALE=CHINESE;FREQ=YEARLY",
            ["2013-02-10", "2014-01-31", "2015-02-19", "2016-02-08", "2017-01-28", "2018-02-16"]
        ),
        // The Ethiopian 13th month (Pagume), monthly but only in month 13: once a year.
        (
            "20130906", "RSCALE=ETHIOPIC;FREQ=MONTHLY;BYMONTH=13",
            ["2013-09-06", "2014-09-06", "2015-09-06", "2016-09-06", "2017-09-06", "2018-09-06"]
        ),
        // 8 Adar I; in a year without Adar I (5775, 5777, 5778), SKIP=FORWARD takes 8 Adar.
        (
            "20140208", "RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=8;SKIP=FORWARD",
            ["2014-02-08", "2015-02-27", "2016-02-17", "2017-03-06", "2018-02-23", "2019-02-13"]
        ),
        // The same with BACKWARD: 8 Shevat, the month before.
        (
            "20140208", "RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=8;SKIP=BACKWARD",
            ["2014-02-08", "2015-01-28", "2016-02-17", "2017-02-04", "2018-01-24", "2019-02-13"]
        ),
        // And OMIT (the default): only the leap years 5774, 5776, 5779, 5782.
        (
            "20140208", "RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=8;COUNT=4",
            ["2014-02-08", "2016-02-17", "2019-02-13", "2022-02-09"]
        ),
        // A leap-day birthday: 1 March in common years (FORWARD), 28 February (BACKWARD).
        (
            "20120229", "RSCALE=GREGORIAN;FREQ=YEARLY;SKIP=FORWARD",
            ["2012-02-29", "2013-03-01", "2014-03-01", "2015-03-01", "2016-02-29", "2017-03-01"]
        ),
        (
            "20120229", "RSCALE=GREGORIAN;FREQ=YEARLY;SKIP=BACKWARD",
            ["2012-02-29", "2013-02-28", "2014-02-28", "2015-02-28", "2016-02-29", "2017-02-28"]
        ),
        // The 31st of each month: the last day where there is none (BACKWARD)...
        (
            "20141231", "RSCALE=GREGORIAN;FREQ=MONTHLY;SKIP=BACKWARD",
            ["2014-12-31", "2015-01-31", "2015-02-28", "2015-03-31", "2015-04-30", "2015-05-31"]
        ),
        // ...the first of the next month (FORWARD)...
        (
            "20141231", "RSCALE=GREGORIAN;FREQ=MONTHLY;SKIP=FORWARD",
            ["2014-12-31", "2015-01-31", "2015-03-01", "2015-03-31", "2015-05-01", "2015-05-31"]
        ),
        // ...and left out without SKIP, as RFC 5545 does.
        (
            "20141231", "RSCALE=GREGORIAN;FREQ=MONTHLY",
            ["2014-12-31", "2015-01-31", "2015-03-31", "2015-05-31", "2015-07-31", "2015-08-31"]
        ),
    ])
    func rfc7529(_ start: String, _ rule: String, _ expected: [String]) throws {
        #expect(try Self.dates(start: start, rule: rule, count: expected.count) == expected, "\(rule)")
    }

    /// An INTERVAL so large that the second period is past year 9999 (the largest a rule
    /// may name) ends the rule after DTSTART, in every frequency, without handing ICU a
    /// step of two billion months or days.
    @Test(arguments: ["YEARLY", "MONTHLY", "WEEKLY", "DAILY"])
    func aHugeIntervalEndsTheRule(_ frequency: String) throws {
        for interval in ["2147483647", "20000"] {
            let rule = "RSCALE=HEBREW;FREQ=\(frequency);INTERVAL=\(interval)"
            #expect(try Self.dates(start: "20140208", rule: rule) == ["2014-02-08"], "\(rule)")
        }
    }

    @Test func aScaleNotExpandedIsRefusedByName() throws {
        let error = try #require(throws: ICalendarError.self) {
            try Self.dates(start: "20130210", rule: "RSCALE=MAYAN;FREQ=YEARLY")
        }
        #expect(error.message.contains("RSCALE=MAYAN is not a calendar Almanac expands"))
        let finer = try #require(throws: ICalendarError.self) {
            try Self.dates(start: "20130210", rule: "RSCALE=HEBREW;FREQ=HOURLY")
        }
        #expect(finer.message.contains("FREQ=HOURLY is not expanded"))
    }

    @Test func leapMonthsNeedAScale() throws {
        #expect(throws: ICalendarError.self) { try RecurrenceRule(parsing: "FREQ=YEARLY;BYMONTH=5L") }
        #expect(throws: ICalendarError.self) { try RecurrenceRule(parsing: "FREQ=YEARLY;BYMONTH=13") }
        #expect(throws: ICalendarError.self) { try RecurrenceRule(parsing: "FREQ=YEARLY;SKIP=FORWARD") }
        // The rule keeps its parts as written.
        let rule = try RecurrenceRule(parsing: "RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L,6;BYMONTHDAY=8;SKIP=FORWARD")
        #expect(rule.extensions.map { "\($0.name)=\($0.value)" } == ["RSCALE=HEBREW", "BYMONTH=5L,6", "SKIP=FORWARD"])
    }
}
