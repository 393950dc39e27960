import AlmanacTestSupport
import CivilTime
import ICalendar
import Testing

@testable import Recurrence

/// Recognising and replacing the VTIMEZONEs earlier versions wrote (each change an
/// observance with its first onset as DTSTART and the others as RDATEs, which ical.js
/// reads an hour off before the second onset), and nothing else.
@Suite struct EarlierVTimeZoneFormTests {
    static let legacyBerlin = LegacyVTimeZone.berlin

    static let event = [
        "BEGIN:VEVENT", "UID:heal@example.com", "DTSTAMP:20261101T000000Z",
        "DTSTART;TZID=Europe/Berlin:20270311T143000", "SUMMARY:Training", "END:VEVENT",
    ]

    static func calendar(_ lines: [String]) -> [UInt8] {
        Array(
            (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN"] + lines + ["END:VCALENDAR", ""])
                .joined(separator: "\r\n").utf8)
    }

    static func timeZone(_ lines: [String]) throws -> Component {
        try ICalendarParser.parse(calendar(lines)).components[0].components[0]
    }

    @Test func theEarlierFormIsRecognised() throws {
        #expect(VTimeZone.isEarlierAlmanacForm(try Self.timeZone(Self.legacyBerlin)))
    }

    @Test func nothingElseIsTakenForIt() throws {
        // This version's form.
        let zone = try #require(TimeZoneDatabase.zone(named: "Europe/Berlin"))
        let current = VTimeZone.component(
            for: zone, from: CivilDateTime(year: 2026, month: 1, day: 1)!.secondsSinceEpoch,
            to: CivilDateTime(year: 2028, month: 1, day: 1)!.secondsSinceEpoch)
        #expect(!VTimeZone.isEarlierAlmanacForm(current))
        // A client's RRULE form of the same zone.
        let rules = [
            "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
            "BEGIN:DAYLIGHT", "DTSTART:19700329T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", "END:DAYLIGHT",
            "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET",
            "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", "END:STANDARD",
            "END:VTIMEZONE",
        ]
        #expect(!VTimeZone.isEarlierAlmanacForm(try Self.timeZone(rules)))
        // The earlier form with a client's touch: another abbreviation, an X- property,
        // the observances in the other order, a TZID no IANA zone has.
        var renamed = Self.legacyBerlin
        renamed[renamed.firstIndex(of: "TZNAME:CET")!] = "TZNAME:MEZ"
        var extended = Self.legacyBerlin
        extended.insert("X-LIC-LOCATION:Europe/Berlin", at: 2)
        let reordered =
            Array(Self.legacyBerlin[0..<2] + Self.legacyBerlin[9..<16] + Self.legacyBerlin[2..<9]) + [
                "END:VTIMEZONE"
            ]
        var foreign = Self.legacyBerlin
        foreign[1] = "TZID:Mitteleuropa"
        for lines in [renamed, extended, reordered, foreign] {
            #expect(!VTimeZone.isEarlierAlmanacForm(try Self.timeZone(lines)), "\(lines)")
        }
    }

    @Test func replacingChangesOnlyTheBlock() throws {
        let data = Self.calendar(Self.legacyBerlin + Self.event)
        let healed = try #require(VTimeZone.replacingEarlierForms(in: data))
        let text = String(decoding: healed, as: UTF8.self)
        let original = String(decoding: data, as: UTF8.self)
        // Every line outside the block stays where it was.
        let begin = try #require(original.range(of: "BEGIN:VTIMEZONE"))
        let end = try #require(original.range(of: "END:VTIMEZONE\r\n"))
        #expect(text.hasPrefix(original[..<begin.lowerBound]))
        #expect(text.hasSuffix(original[end.upperBound...]))
        // The new block reads as the zone over the same changes and after them.
        let document = try ICalendarParser.parse(healed)
        let timeZone = document.components[0].components[0]
        #expect(!VTimeZone.isEarlierAlmanacForm(timeZone))
        let rules = try VTimeZone.rules(from: timeZone)
        let zone = try #require(TimeZoneDatabase.zone(named: "Europe/Berlin"))
        let from = CivilDateTime(year: 2025, month: 12, day: 1)!.secondsSinceEpoch
        let to = CivilDateTime(year: 2030, month: 1, day: 1)!.secondsSinceEpoch
        for instant in stride(from: from, to: to, by: 3600) {
            #expect(rules.offset(at: instant) == zone.offset(at: instant))
        }
        // Once is enough: the healed bytes hold nothing more to replace.
        #expect(VTimeZone.replacingEarlierForms(in: healed) == nil)
    }

    @Test func objectsWithoutTheEarlierFormAreLeftAlone() throws {
        let zone = try #require(TimeZoneDatabase.zone(named: "Europe/Berlin"))
        let current = VTimeZone.component(
            for: zone, from: CivilDateTime(year: 2026, month: 1, day: 1)!.secondsSinceEpoch,
            to: CivilDateTime(year: 2028, month: 1, day: 1)!.secondsSinceEpoch)
        var renamed = Self.legacyBerlin
        renamed[renamed.firstIndex(of: "TZNAME:CET")!] = "TZNAME:MEZ"
        for data in [
            Self.calendar(Self.event), Self.calendar(renamed + Self.event),
            Self.calendar(current.icalendarText.split(separator: "\r\n").map(String.init) + Self.event),
        ] {
            #expect(VTimeZone.replacingEarlierForms(in: data) == nil)
        }
    }
}
