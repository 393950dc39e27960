import CivilTime
import ICalendar
import Testing

@testable import Recurrence

/// One budget for every candidate an expansion examines (DESIGN.md, "Bad input"):
/// rules whose candidates are all excluded, rejected or idle still end, and an
/// expansion cut by a bound says so.
@Suite struct BudgetTests {
    static let start = CivilDateTime(year: 2026, month: 1, day: 1, hour: 9)!  // 2026-01-01T09:00:00Z

    static func set(_ rule: String, exclusions: [String] = [], limits: ExpansionLimits = .default) throws
        -> RecurrenceSet
    {
        RecurrenceSet(
            time: .zoned(.utc), start: start, rules: [try RecurrenceRule(parsing: rule)],
            exceptionRules: try exclusions.map { try RecurrenceRule(parsing: $0) }, limits: limits)
    }

    static func collect(_ set: RecurrenceSet) -> (count: Int, truncated: Bool) {
        var iterator = set.makeIterator()
        var count = 0
        while iterator.next() != nil { count += 1 }
        return (count, iterator.isTruncated)
    }

    @Test func anExruleThatRemovesEveryInstanceEndsUnbounded() throws {
        // Every DAILY instance is excluded: nothing is produced, and the walk stops at the
        // step budget, saying so, instead of looping forever.
        let set = try Self.set("FREQ=DAILY", exclusions: ["FREQ=DAILY"], limits: ExpansionLimits(maxSteps: 50_000))
        let result = Self.collect(set)
        #expect(result.count == 0 && result.truncated)
    }

    @Test func anExruleThatRemovesEveryInstanceAnswersAWindowCompletely() throws {
        // A bounded window ends at its end even when every candidate in it is excluded.
        let set = try Self.set("FREQ=DAILY", exclusions: ["FREQ=DAILY"])
        let from = CivilDateTime(year: 2030, month: 3, day: 1)!.secondsSinceEpoch  // 2030-03-01T00:00:00Z
        let to = CivilDateTime(year: 2030, month: 4, day: 1)!.secondsSinceEpoch  // 2030-04-01T00:00:00Z
        let window = set.instances(from: from, to: to)
        #expect(window.instances.isEmpty && window.isComplete)
    }

    @Test func secondlyWithAnUnreachableSetPositionIsDead() throws {
        // Each SECONDLY period holds one candidate, so BYSETPOS=2 rejects them all: DTSTART
        // alone, and the rule is declared dead after a bounded number of idle periods.
        let set = try Self.set("FREQ=SECONDLY;BYSETPOS=2")
        let result = Self.collect(set)
        #expect(result.count == 1 && !result.truncated)
    }

    @Test func aFineExruleIsSkippedAheadNotWalked() throws {
        // A yearly series with an EXRULE every second at :30 excludes nothing; reaching each
        // year must not walk its 31 million seconds (that would exhaust the budget).
        let set = try Self.set("FREQ=YEARLY;COUNT=10", exclusions: ["FREQ=SECONDLY;BYSECOND=30"])
        let result = Self.collect(set)
        #expect(result.count == 10 && !result.truncated)
    }

    @Test func anExruleExcludesDtstartOnlyWhenItMatches() throws {
        // DTSTART is always an instance of an RRULE (RFC 5545 §3.8.5.3); an EXRULE that does
        // not match it (weekends, from a Thursday DTSTART) must not remove it.
        let set = try Self.set("FREQ=DAILY;COUNT=7", exclusions: ["FREQ=WEEKLY;BYDAY=SA,SU"])
        var iterator = set.makeIterator()
        var days: [Int] = []
        while let instance = iterator.next() { days.append(CivilDateTime(secondsSinceEpoch: instance.start).date.day) }
        #expect(days == [1, 2, 5, 6, 7])  // 2026-01-01 is a Thursday; the 3rd and 4th are the weekend
    }

    @Test func aSecondlyExruleStillExcludesWhatItNames() throws {
        // The skip must not lose exclusions: an EXRULE firing at 09:00:00 every day removes
        // every instance of a daily 09:00 series, in any window.
        let set = try Self.set("FREQ=DAILY;COUNT=5", exclusions: ["FREQ=SECONDLY;BYHOUR=9;BYMINUTE=0;BYSECOND=0"])
        let result = Self.collect(set)
        #expect(result.count == 0 && !result.truncated)
    }

    @Test func aHugePeriodIsCutByTheBudgetNotMemory() throws {
        // 24 × 60 × 60 candidate times on each of 366 days would be 31 million candidates in
        // one YEARLY period; the budget stops building them and the expansion says it was cut.
        let everySecond = (0...59).map(String.init).joined(separator: ",")
        let rule =
            "FREQ=YEARLY;BYHOUR=\((0...23).map(String.init).joined(separator: ","));BYMINUTE=\(everySecond);BYSECOND=\(everySecond);BYSETPOS=-1"
        let set = try Self.set(rule, limits: ExpansionLimits(maxSteps: 50_000))
        let result = Self.collect(set)
        #expect(result.count == 1 && result.truncated)
    }

    @Test(arguments: [(count: 1_000, truncated: false), (count: 1_001, truncated: true)])
    func theInstanceCapIsReportedOnlyWhenMoreRemain(count: Int, truncated: Bool) throws {
        let set = try Self.set("FREQ=HOURLY;COUNT=\(count)", limits: ExpansionLimits(maxInstances: 1_000))
        let result = Self.collect(set)
        #expect(result.count == 1_000 && result.truncated == truncated)
    }

    @Test func aVTimeZoneWithSecondlyRulesIsRefusedNotExpandedIntoMemory() throws {
        // Twenty SECONDLY observance rules would be twenty million onsets.
        let rules = Array(repeating: "RRULE:FREQ=SECONDLY", count: 20)
        let text =
            ([
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VTIMEZONE", "TZID:Custom/Bomb",
                "BEGIN:DAYLIGHT",
                "DTSTART:20260101T000000", "TZOFFSETFROM:+0000", "TZOFFSETTO:+0100",
            ] + rules
            + ["END:DAYLIGHT", "END:VTIMEZONE", "END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
        let zone = try ICalendarParser.parse(text).components[0].components[0]
        #expect(throws: ICalendarError.self) { try VTimeZone.rules(from: zone) }
        // A real zone's two yearly rules stay well inside the bound.
        let real =
            ([
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VTIMEZONE",
                "TZID:Custom/Berlin",
                "BEGIN:DAYLIGHT", "DTSTART:19810329T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200",
                "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT",
                "BEGIN:STANDARD", "DTSTART:19961027T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100",
                "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
                "END:VTIMEZONE", "END:VCALENDAR",
            ]).joined(separator: "\r\n") + "\r\n"
        let berlin = try VTimeZone.rules(from: try ICalendarParser.parse(real).components[0].components[0])
        let july = CivilDateTime(year: 2100, month: 7, day: 1, hour: 12)!  // 2100-07-01T12:00 local
        #expect(berlin.instant(for: july) == july.secondsSinceEpoch - 7200)
    }
}
