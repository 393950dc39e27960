import CivilTime
import ICalendar
import Testing

@testable import Recurrence

/// Whole calendar objects: masters, overrides, exclusions, durations, windows.
@Suite struct ExpansionTests {
    static func calendar(_ lines: [String]) throws -> Component {
        let text =
            (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN"] + lines + ["END:VCALENDAR"])
            .joined(separator: "\r\n") + "\r\n"
        return try ICalendarParser.parse(text, options: .lenient).components[0]
    }

    static func event(_ lines: [String], uid: String = "e") -> [String] {
        ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20261101T000000Z"] + lines + ["END:VEVENT"]
    }

    static func utc(_ text: String) -> Int {
        // "2026-11-30T09:00" in UTC.
        let digits = text.filter(\.isNumber).map { Int(String($0))! }
        func value(_ range: Range<Int>) -> Int { range.reduce(0) { $0 * 10 + digits[$1] } }
        return CivilDateTime(
            year: value(0..<4), month: value(4..<6), day: value(6..<8), hour: value(8..<10), minute: value(10..<12))!
            .secondsSinceEpoch
    }

    static func expand(_ calendar: Component, from: String, to: String, mode: ParseOptions.Mode = .lenient) throws
        -> [Occurrence]
    {
        let expansion = CalendarObjectExpansion(resolver: ZoneResolver(calendar: calendar, mode: mode))
        return try expansion.expand(calendar, from: utc(from), to: utc(to)).occurrences
    }

    @Test func countCountsBeforeExdateRemoves() throws {
        // RFC 5545: COUNT=5 makes five instances; EXDATE then removes one, leaving four.
        let calendar = try Self.calendar(
            Self.event([
                "DTSTART:20261201T090000Z", "RRULE:FREQ=DAILY;COUNT=5", "EXDATE:20261203T090000Z",
            ]))
        let starts = try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00").map(\.start.text)
        #expect(
            starts == ["2026-12-01T09:00:00Z", "2026-12-02T09:00:00Z", "2026-12-04T09:00:00Z", "2026-12-05T09:00:00Z"])
    }

    @Test func dateExdateOnATimedSeriesRemovesThatDay() throws {
        let calendar = try Self.calendar(
            Self.event([
                "DTSTART:20261201T090000Z", "RRULE:FREQ=DAILY;COUNT=3", "EXDATE;VALUE=DATE:20261202",
            ]))
        #expect(
            try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00").map(\.start.text)
                == ["2026-12-01T09:00:00Z", "2026-12-03T09:00:00Z"])
    }

    @Test func dateTimeExdateOnAnAllDaySeriesRemovesItsDate() throws {
        // Exchange writes all-day EXDATEs as DATE-TIMEs at local midnight.
        let calendar = try Self.calendar(
            Self.event([
                "DTSTART;VALUE=DATE:20261201", "RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20261202T000000",
            ]))
        let occurrences = try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00")
        #expect(occurrences.map(\.start.text) == ["2026-12-01", "2026-12-03"])
        #expect(occurrences.allSatisfy { $0.isAllDay })
        #expect(occurrences.map(\.end.text) == ["2026-12-02", "2026-12-04"])  // the all-day default of one day
    }

    @Test func overridesReplaceTheirInstanceAndMayMoveAnywhere() throws {
        let calendar = try Self.calendar(
            Self.event([
                "DTSTART:20261201T090000Z", "DTEND:20261201T100000Z", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Standup",
            ])
                + Self.event([
                    "RECURRENCE-ID:20261208T090000Z", "DTSTART:20261209T140000Z", "DTEND:20261209T143000Z",
                    "SUMMARY:Moved",
                ])
                // Moved out of the week it belonged to, into the next window.
                + Self.event(["RECURRENCE-ID:20261222T090000Z", "DTSTART:20270105T090000Z", "DTEND:20270105T100000Z"]))
        let december = try Self.expand(calendar, from: "2026-12-01T00:00", to: "2027-01-01T00:00")
        #expect(december.map(\.start.text) == ["2026-12-01T09:00:00Z", "2026-12-09T14:00:00Z", "2026-12-15T09:00:00Z"])
        #expect(december[1].isOverride && december[1].recurrenceID?.text == "2026-12-08T09:00:00Z")
        #expect(december[1].end.text == "2026-12-09T14:30:00Z")
        #expect(december[1].component.property("SUMMARY")?.textValue() == "Moved")
        let january = try Self.expand(calendar, from: "2027-01-01T00:00", to: "2027-02-01T00:00")
        #expect(january.map(\.start.text) == ["2027-01-05T09:00:00Z"])
        #expect(january.first?.recurrenceID?.text == "2026-12-22T09:00:00Z")
    }

    @Test func thisAndFutureMovesEveryLaterInstance() throws {
        let calendar = try Self.calendar(
            Self.event(["DTSTART:20261201T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=5"])
                + Self.event([
                    "RECURRENCE-ID;RANGE=THISANDFUTURE:20261203T090000Z", "DTSTART:20261203T110000Z", "DURATION:PT30M",
                ]))
        let occurrences = try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00")
        #expect(
            occurrences.map(\.start.text) == [
                "2026-12-01T09:00:00Z", "2026-12-02T09:00:00Z", "2026-12-03T11:00:00Z", "2026-12-04T11:00:00Z",
                "2026-12-05T11:00:00Z",
            ])
        #expect(occurrences.suffix(3).allSatisfy { $0.isOverride })
        #expect(occurrences.last?.end.text == "2026-12-05T11:30:00Z")
    }

    @Test func instancesThatStartBeforeTheWindowButEndInsideItAreIncluded() throws {
        let calendar = try Self.calendar(
            Self.event(["DTSTART:20261130T230000Z", "DTEND:20261201T010000Z", "RRULE:FREQ=DAILY;COUNT=2"]))
        let occurrences = try Self.expand(calendar, from: "2026-12-01T00:00", to: "2026-12-01T12:00")
        #expect(occurrences.map(\.start.text) == ["2026-11-30T23:00:00Z"])
        // And one that ends exactly at the window's start is not.
        #expect(try Self.expand(calendar, from: "2026-12-01T01:00", to: "2026-12-01T12:00").isEmpty)
    }

    @Test func rdatesIncludingPeriodsJoinTheSet() throws {
        let calendar = try Self.calendar(
            Self.event([
                "DTSTART:20261201T090000Z", "DTEND:20261201T100000Z", "RRULE:FREQ=DAILY;COUNT=2",
                "RDATE:20261210T090000Z", "RDATE;VALUE=PERIOD:20261215T120000Z/PT3H",
                "RDATE:20261202T090000Z",  // already an instance: produced once
            ]))
        let occurrences = try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00")
        #expect(
            occurrences.map(\.start.text) == [
                "2026-12-01T09:00:00Z", "2026-12-02T09:00:00Z", "2026-12-10T09:00:00Z", "2026-12-15T12:00:00Z",
            ])
        #expect(occurrences.last?.end.text == "2026-12-15T15:00:00Z")
    }

    @Test func exruleRemovesItsInstances() throws {
        let calendar = try Self.calendar(
            Self.event([
                "DTSTART:20261201T090000Z", "RRULE:FREQ=DAILY;COUNT=7", "EXRULE:FREQ=DAILY;INTERVAL=2;COUNT=4",
            ]))
        #expect(
            try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00").map(\.start.text)
                == ["2026-12-02T09:00:00Z", "2026-12-04T09:00:00Z", "2026-12-06T09:00:00Z"])
    }

    @Test func floatingTimesStayOnTheirWallClock() throws {
        let calendar = try Self.calendar(Self.event(["DTSTART:20261201T090000", "RRULE:FREQ=DAILY;COUNT=2"]))
        let occurrences = try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00")
        #expect(occurrences.map(\.start.text) == ["2026-12-01T09:00:00", "2026-12-02T09:00:00"])
        #expect(occurrences.allSatisfy { $0.tzid == nil && !$0.isAllDay })
    }

    @Test func durationAddsNominalDaysThenExactTime() throws {
        let calendar = try Self.calendar(Self.event(["DTSTART;VALUE=DATE:20261230", "DURATION:P3D"]))
        #expect(
            try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-02-01T00:00").map(\.end.text) == [
                "2027-01-02"
            ])
    }

    @Test func untilInUTCAgainstAFloatingOrDateSeries() throws {
        // UNTIL=20261203 (DATE) keeps the instance on December 3.
        let calendar = try Self.calendar(Self.event(["DTSTART:20261201T090000Z", "RRULE:FREQ=DAILY;UNTIL=20261203"]))
        #expect(try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00").count == 3)
    }

    @Test func customVTimeZoneDefinesAPrefixedTZID() throws {
        // A zone only the VTIMEZONE defines: +05:00 standard, +06:00 daylight from the last Sunday of March.
        let calendar = try Self.calendar(
            [
                "BEGIN:VTIMEZONE", "TZID:/example.com/Custom/Zone",
                "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0600", "TZOFFSETTO:+0500",
                "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU", "END:STANDARD",
                "BEGIN:DAYLIGHT", "DTSTART:19700329T020000", "TZOFFSETFROM:+0500", "TZOFFSETTO:+0600",
                "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "END:DAYLIGHT", "END:VTIMEZONE",
            ] + Self.event(["DTSTART;TZID=/example.com/Custom/Zone:20260301T090000", "RRULE:FREQ=MONTHLY;COUNT=2"]))
        let occurrences = try Self.expand(calendar, from: "2026-01-01T00:00", to: "2027-01-01T00:00", mode: .strict)
        // March 1 is standard time (+05:00): 04:00Z. April 1 is daylight time (+06:00): 03:00Z.
        #expect(occurrences.map(\.start.text) == ["2026-03-01T04:00:00Z", "2026-04-01T03:00:00Z"])
        #expect(occurrences.first?.tzid == "/example.com/Custom/Zone")
    }

    @Test func unknownTZIDIsAnErrorInStrictModeAndUTCInLenient() throws {
        let calendar = try Self.calendar(Self.event(["DTSTART;TZID=Nowhere/Special:20261201T090000"]))
        #expect(throws: ICalendarError.self) {
            try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00", mode: .strict)
        }
        let resolver = ZoneResolver(calendar: calendar, mode: .lenient)
        let occurrences = try CalendarObjectExpansion(resolver: resolver).expand(calendar, from: nil, to: nil)
            .occurrences
        #expect(occurrences.map(\.start.text) == ["2026-12-01T09:00:00Z"])
        #expect(resolver.warnings.count == 1)
    }

    @Test func cancelledOverridesAreKeptAndMarked() throws {
        let calendar = try Self.calendar(
            Self.event(["DTSTART:20261201T090000Z", "RRULE:FREQ=DAILY;COUNT=3"])
                + Self.event(["RECURRENCE-ID:20261202T090000Z", "DTSTART:20261202T090000Z", "STATUS:CANCELLED"]))
        let occurrences = try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00")
        #expect(occurrences.map(\.isCancelled) == [false, true, false])
    }

    @Test func orphanOverridesStandAlone() throws {
        let calendar = try Self.calendar(Self.event(["RECURRENCE-ID:20261208T090000Z", "DTSTART:20261208T100000Z"]))
        let occurrences = try Self.expand(calendar, from: "2026-11-01T00:00", to: "2027-01-01T00:00")
        #expect(occurrences.map(\.start.text) == ["2026-12-08T10:00:00Z"])
        #expect(occurrences.first?.isOverride == true)
    }

    @Test func limitsBoundHugeExpansions() throws {
        let set = RecurrenceSet(
            time: .floating, start: CivilDateTime(year: 2026, month: 1, day: 1)!,
            rules: [try RecurrenceRule(parsing: "FREQ=SECONDLY")], limits: ExpansionLimits(maxInstances: 1000))
        let expansion = set.instances()
        #expect(expansion.instances.count == 1000 && !expansion.isComplete)
    }
}
