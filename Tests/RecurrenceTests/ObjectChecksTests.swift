import CivilTime
import ICalendar
import Testing

@testable import Recurrence

/// What real exports contain beyond single lines: two versions of one component, a VEVENT
/// and a VTODO sharing a UID, ends before starts, overrides of excluded instances. Every
/// expectation is worked out from RFC 5545 by hand in the comment beside it.
@Suite struct ObjectChecksTests {
    static func calendar(_ lines: [String]) throws -> Component {
        let text = (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x"] + lines + ["END:VCALENDAR", ""])
            .joined(separator: "\r\n")
        return try ICalendarParser.parse(text, options: .lenient).components[0]
    }

    static func event(_ uid: String, _ lines: [String], kind: String = "VEVENT") -> [String] {
        ["BEGIN:\(kind)", "UID:\(uid)", "DTSTAMP:20260101T000000Z"] + lines + ["END:\(kind)"]
    }

    static func codes(_ calendar: Component) -> [ICalendarError.Code] {
        ObjectChecks.diagnostics(of: calendar, duplicates: .error, ends: .error).map(\.code)
    }

    @Test func twoMastersAndTwoVersionsOfAnInstanceAreDuplicates() throws {
        let masters = try Self.calendar(
            Self.event("a", ["DTSTART:20270105T100000Z", "SUMMARY:old"])
                + Self.event("a", ["SEQUENCE:1", "DTSTART:20270105T120000Z", "SUMMARY:new"]))
        #expect(Self.codes(masters) == [.duplicateComponent])
        let instances = try Self.calendar(
            Self.event("b", ["DTSTART:20270105T100000Z", "RRULE:FREQ=DAILY;COUNT=3"])
                + Self.event("b", ["RECURRENCE-ID:20270106T100000Z", "DTSTART:20270106T110000Z"])
                + Self.event("b", ["RECURRENCE-ID:20270106T100000Z", "DTSTART:20270106T120000Z"]))
        #expect(Self.codes(instances) == [.duplicateComponent])
        // A lenient reader is told which version it gets.
        let lenient = ObjectChecks.diagnostics(of: masters, duplicates: .warning, ends: .warning)
        #expect(lenient.map(\.severity) == [.warning] && lenient[0].message.contains("highest SEQUENCE"))
    }

    @Test func anEventAndAToDoSharingAUIDAreTwoSeries() throws {
        let calendar = try Self.calendar(
            Self.event("shared", ["DTSTART:20270105T100000Z", "DURATION:PT1H", "SUMMARY:meeting"])
                + Self.event("shared", ["DTSTART:20270107T100000Z", "SUMMARY:task"], kind: "VTODO"))
        #expect(Self.codes(calendar) == [])
        let series = try CalendarObjectExpansion(resolver: ZoneResolver(calendar: calendar))
            .expandSeries(calendar, from: nil, to: nil)
        #expect(series.map(\.kind) == ["VEVENT", "VTODO"])
        #expect(
            series.map { $0.occurrences.map(\.start.text) } == [["2027-01-05T10:00:00Z"], ["2027-01-07T10:00:00Z"]])
    }

    @Test func theLatestVersionIsKept() throws {
        // SEQUENCE first (the later one in the file has the lower SEQUENCE), then DTSTAMP,
        // then the last in the file; kept where the first of them stood.
        let calendar = try Self.calendar(
            Self.event("a", ["SEQUENCE:2", "DTSTART:20270105T100000Z", "SUMMARY:a2"])
                + Self.event("other", ["DTSTART:20270105T100000Z", "SUMMARY:other"])
                + Self.event("a", ["SEQUENCE:1", "DTSTART:20270105T110000Z", "SUMMARY:a1"])
                + [
                    "BEGIN:VEVENT", "UID:b", "DTSTAMP:20260301T000000Z", "DTSTART:20270105T100000Z", "SUMMARY:b-march",
                    "END:VEVENT",
                ]
                + Self.event("b", ["DTSTART:20270105T100000Z", "SUMMARY:b-january"])
                + Self.event("c", ["DTSTART:20270105T100000Z", "SUMMARY:c-first"])
                + Self.event("c", ["DTSTART:20270105T100000Z", "SUMMARY:c-last"]))
        let kept = ObjectChecks.keepingLatestVersions(calendar)
        #expect(kept.components.map { $0.property("SUMMARY")?.value } == ["a2", "other", "b-march", "c-last"])
        #expect(Self.codes(kept) == [])
        let single = try Self.calendar(Self.event("x", ["DTSTART:20270105T100000Z"]))
        #expect(ObjectChecks.keepingLatestVersions(single) == single)
    }

    @Test(arguments: [
        // DTEND an hour before DTSTART.
        (["DTSTART:20270105T100000Z", "DTEND:20270105T090000Z"], true),
        // A DATE end to a DATE-TIME start, and the reverse (§3.8.2.2: the same value type).
        (["DTSTART:20270105T100000Z", "DTEND;VALUE=DATE:20270106"], true),
        (["DTSTART;VALUE=DATE:20270105", "DTEND:20270106T000000Z"], true),
        // Floating to a zoned end (§3.8.2.2: floating if and only if DTSTART is).
        (["DTSTART:20270105T100000", "DTEND:20270105T110000Z"], true),
        // 09:30 UTC is 10:30 in Berlin (CET, +01:00): after 10:00 Berlin, though written earlier.
        (["DTSTART;TZID=Europe/Berlin:20270105T100000", "DTEND:20270105T093000Z"], false),
        // 08:30 UTC is 09:30 in Berlin: before.
        (["DTSTART;TZID=Europe/Berlin:20270105T100000", "DTEND:20270105T083000Z"], true),
        // A zero-length event and an all-day one are fine.
        (["DTSTART:20270105T100000Z", "DTEND:20270105T100000Z"], false),
        (["DTSTART;VALUE=DATE:20270105", "DTEND;VALUE=DATE:20270106"], false),
    ])
    func endsBeforeStarts(_ lines: [String], flagged: Bool) throws {
        let calendar = try Self.calendar(Self.event("e", lines))
        #expect(Self.codes(calendar) == (flagged ? [.endBeforeStart] : []), "\(lines)")
    }

    @Test func aToDoDueBeforeItsStartIsFlagged() throws {
        let calendar = try Self.calendar(
            Self.event("t", ["DTSTART:20270105T100000Z", "DUE:20270104T100000Z"], kind: "VTODO"))
        let found = ObjectChecks.diagnostics(of: calendar, duplicates: .error, ends: .warning)
        #expect(found.map(\.code) == [.endBeforeStart] && found[0].property == "DUE" && found[0].severity == .warning)
    }

    @Test func anOverrideOfAnExcludedInstanceIsNotShown() throws {
        // Daily 5–7 January at 10:00; 6 January excluded and also overridden (moved to 12:00).
        let calendar = try Self.calendar(
            Self.event(
                "x",
                [
                    "DTSTART;TZID=Europe/Berlin:20270105T100000", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=3",
                    "EXDATE;TZID=Europe/Berlin:20270106T100000", "SUMMARY:series",
                ])
                + Self.event(
                    "x",
                    [
                        "RECURRENCE-ID:20270106T090000Z", "DTSTART;TZID=Europe/Berlin:20270106T120000", "DURATION:PT1H",
                        "SUMMARY:moved",
                    ]))
        // The RECURRENCE-ID in UTC names the excluded instance (09:00Z is 10:00 Berlin).
        #expect(Self.codes(calendar) == [.excludedOverride])
        let occurrences = try CalendarObjectExpansion(resolver: ZoneResolver(calendar: calendar))
            .expand(calendar, from: nil, to: nil).occurrences
        #expect(occurrences.map(\.start.text) == ["2027-01-05T09:00:00Z", "2027-01-07T09:00:00Z"])
    }
}

extension ObjectChecksTests {
    /// A rule of a scale the engine cannot expand is an error in every mode, as a PUT refuses it.
    @Test func aRuleThatCannotBeExpandedIsAnError() throws {
        let calendar = try Self.calendar(
            Self.event("m", ["DTSTART:20270105T100000Z", "RRULE:RSCALE=MAYAN;FREQ=YEARLY"]))
        let found = ObjectChecks.diagnostics(of: calendar, duplicates: .warning, ends: .warning)
        #expect(found.map(\.code) == [.invalidValue] && found[0].severity == .error)
        #expect(found[0].message.contains("RSCALE=MAYAN"))
    }
}
