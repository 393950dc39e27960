import AlmanacTestSupport
import CivilTime
import Foundation
import ICalendar
import Testing

@testable import Recurrence

/// Expansion across DST changes, in zones north and south, with half-hour and
/// 45-minute offsets, and in a zone whose rules changed. Each expected instant
/// is derived by hand from the zone's rules (comment beside it): a wall clock
/// in a gap moves forward by the gap's length; an ambiguous one takes the
/// earlier instant (RFC 5545 §3.3.5, erratum 4271).
@Suite struct TimeZoneExpansionTests {
    static func starts(tzid: String, start: String, rule: String, from: String, to: String) throws -> [String] {
        let calendar = try ExpansionTests.calendar(
            ExpansionTests.event(["DTSTART;TZID=\(tzid):\(start)", "RRULE:\(rule)"]))
        let expansion = CalendarObjectExpansion(resolver: ZoneResolver(calendar: calendar, mode: .strict))
        return try expansion.expand(calendar, from: ExpansionTests.utc(from), to: ExpansionTests.utc(to)).occurrences
            .map(\.start.text)
    }

    @Test func berlinSpringForwardAndFallBack() throws {
        // 2026-03-29 02:00 CET → 03:00 CEST; 2026-10-25 03:00 CEST → 02:00 CET.
        #expect(
            try Self.starts(
                tzid: "Europe/Berlin", start: "20260328T023000", rule: "FREQ=DAILY;COUNT=3", from: "2026-03-01T00:00",
                to: "2026-04-01T00:00") == [
                    "2026-03-28T01:30:00Z",  // 02:30 CET (+01:00)
                    "2026-03-29T01:30:00Z",  // 02:30 does not exist: 03:30 CEST (+02:00)
                    "2026-03-30T00:30:00Z",  // 02:30 CEST
                ])
        #expect(
            try Self.starts(
                tzid: "Europe/Berlin", start: "20261024T023000", rule: "FREQ=DAILY;COUNT=3", from: "2026-10-01T00:00",
                to: "2026-11-01T00:00") == [
                    "2026-10-24T00:30:00Z",  // 02:30 CEST
                    "2026-10-25T00:30:00Z",  // 02:30 happens twice: the first, CEST
                    "2026-10-26T01:30:00Z",  // 02:30 CET
                ])
    }

    @Test func newYorkGapAndOverlap() throws {
        // 2026-03-08 02:00 EST → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST.
        #expect(
            try Self.starts(
                tzid: "America/New_York", start: "20260308T023000", rule: "FREQ=YEARLY;COUNT=1",
                from: "2026-01-01T00:00", to: "2027-01-01T00:00") == [
                    "2026-03-08T07:30:00Z"  // 02:30 EST (-05:00) = 03:30 EDT
                ])
        #expect(
            try Self.starts(
                tzid: "America/New_York", start: "20261101T013000", rule: "FREQ=YEARLY;COUNT=1",
                from: "2026-01-01T00:00", to: "2027-01-01T00:00") == [
                    "2026-11-01T05:30:00Z"  // 01:30 EDT (-04:00), the earlier
                ])
    }

    @Test func sydneyIsSouthern() throws {
        // 2026-04-05 03:00 AEDT → 02:00 AEST; 2026-10-04 02:00 AEST → 03:00 AEDT.
        #expect(
            try Self.starts(
                tzid: "Australia/Sydney", start: "20260405T023000", rule: "FREQ=YEARLY;COUNT=1",
                from: "2026-01-01T00:00", to: "2027-01-01T00:00") == [
                    "2026-04-04T15:30:00Z"  // 02:30 AEDT (+11:00), the earlier
                ])
        #expect(
            try Self.starts(
                tzid: "Australia/Sydney", start: "20261004T023000", rule: "FREQ=YEARLY;COUNT=1",
                from: "2026-01-01T00:00", to: "2027-01-01T00:00") == [
                    "2026-10-03T16:30:00Z"  // 02:30 AEST (+10:00) = 03:30 AEDT
                ])
    }

    @Test func halfHourAndFortyFiveMinuteZones() throws {
        #expect(
            try Self.starts(
                tzid: "Asia/Kolkata", start: "20261201T090000", rule: "FREQ=DAILY;COUNT=1", from: "2026-11-01T00:00",
                to: "2027-01-01T00:00") == [
                    "2026-12-01T03:30:00Z"  // +05:30
                ])
        // Chatham: 2026-09-27 02:45 +12:45 → 03:45 +13:45.
        #expect(
            try Self.starts(
                tzid: "Pacific/Chatham", start: "20260926T030000", rule: "FREQ=DAILY;COUNT=3", from: "2026-09-01T00:00",
                to: "2026-10-01T00:00") == [
                    "2026-09-25T14:15:00Z",  // 03:00 +12:45
                    "2026-09-26T14:15:00Z",  // 03:00 does not exist: 04:00 +13:45
                    "2026-09-27T13:15:00Z",  // 03:00 +13:45
                ])
    }

    @Test func aZoneWhoseRulesChanged() throws {
        // São Paulo: DST began 2018-11-04 00:00 (→ 01:00, -02:00); Brazil dropped DST in 2019.
        #expect(
            try Self.starts(
                tzid: "America/Sao_Paulo", start: "20181103T003000", rule: "FREQ=YEARLY;BYMONTH=11;BYDAY=1SU",
                from: "2018-01-01T00:00", to: "2020-12-31T00:00") == [
                    "2018-11-03T03:30:00Z",  // DTSTART, 00:30 -03:00
                    "2018-11-04T03:30:00Z",  // 00:30 does not exist: 01:30 -02:00
                    "2019-11-03T03:30:00Z",  // no DST any more: 00:30 -03:00
                    "2020-11-01T03:30:00Z",
                ])
    }

    @Test func untilInUTCAgainstAZonedStartComparesInstants() throws {
        // The last instance is 2026-12-03 09:00 Berlin = 08:00Z, exactly UNTIL.
        #expect(
            try Self.starts(
                tzid: "Europe/Berlin", start: "20261201T090000", rule: "FREQ=DAILY;UNTIL=20261203T080000Z",
                from: "2026-11-01T00:00", to: "2027-01-01T00:00"
            ).count == 3)
        // One second earlier and the third instance is gone.
        #expect(
            try Self.starts(
                tzid: "Europe/Berlin", start: "20261201T090000", rule: "FREQ=DAILY;UNTIL=20261203T075959Z",
                from: "2026-11-01T00:00", to: "2027-01-01T00:00"
            ).count == 2)
    }

    @Test func windowsZoneNamesResolve() throws {
        #expect(
            try Self.starts(
                tzid: "W. Europe Standard Time", start: "20261201T090000", rule: "FREQ=DAILY;COUNT=1",
                from: "2026-11-01T00:00", to: "2027-01-01T00:00") == [
                    "2026-12-01T08:00:00Z"  // Berlin in winter, +01:00
                ])
    }

    /// Every zone kind: plain yearly rules north and south, a 30-minute shift (Lord Howe,
    /// Chatham's 45), rules abolished (São Paulo, Apia), fixed dates (Tehran until 2022),
    /// no yearly rule at all (Casablanca), negative DST in tzdata (Dublin), a change at
    /// 26:00 (Jerusalem) and at -1:00 (Nuuk), which no plain RRULE says.
    @Test(arguments: [
        "Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Tokyo", "Pacific/Chatham", "America/Sao_Paulo",
        "Australia/Lord_Howe", "Pacific/Apia", "Asia/Tehran", "Africa/Casablanca", "Europe/Dublin", "Asia/Jerusalem",
        "America/Nuuk",
    ])
    func writtenVTimeZoneAgreesWithItsZone(identifier: String) throws {
        let zone = try #require(TimeZoneDatabase.zone(named: identifier))
        let from = CivilDateTime(year: 2015, month: 1, day: 1)!.secondsSinceEpoch
        let to = CivilDateTime(year: 2031, month: 1, day: 1)!.secondsSinceEpoch
        let component = VTimeZone.component(for: zone, from: from, to: to)
        // Written, parsed back strictly, and interpreted: the same offset at every hour of the range.
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\n" + component.icalendarText + "END:VCALENDAR\r\n"
        let parsed = try ICalendarParser.parse(text).components[0].components[0]
        let rules = try VTimeZone.rules(from: parsed)
        for instant in stride(from: from, to: to, by: 3600) {
            #expect(
                rules.offset(at: instant) == zone.offset(at: instant),
                "\(identifier) at \(CivilDateTime(secondsSinceEpoch: instant))")
        }
        // A zone whose rule goes on says so: right for decades after the range too, where
        // its rule holds (its TZif footer from the end of the table on).
        if let footer = zone.footer, footer.daylightSaving != nil,
            component.components.contains(where: { $0.property("RRULE") != nil })
        {
            let later = CivilDateTime(year: 2060, month: 1, day: 1)!.secondsSinceEpoch
            for instant in stride(from: to, to: later, by: 6 * 3600) {
                #expect(rules.offset(at: instant) == zone.offset(at: instant), "\(identifier) after the range")
            }
        }
        for observance in parsed.components {
            let from = try #require(try observance.property("TZOFFSETFROM")?.utcOffsetValue())
            let to = try #require(try observance.property("TZOFFSETTO")?.utcOffsetValue())
            // DAYLIGHT puts the clocks forward (tzdata's flags aside); an observance of
            // RDATEs lists its DTSTART as the first (ical.js ignores DTSTART beside them),
            // one date per property (ical.js reads only the first of a list).
            if from != to { #expect((observance.name == "DAYLIGHT") == (to.seconds > from.seconds), "\(identifier)") }
            let dates = observance.properties(named: "RDATE")
            if !dates.isEmpty {
                #expect(dates.first?.value == observance.property("DTSTART")?.value, "\(identifier)")
                #expect(dates.allSatisfy { !$0.value.contains(",") })
            }
            #expect(observance.properties(named: "RRULE").count <= 1)
        }
        // It starts with the change in force at the range's start: no reader guesses the
        // offset before its first onset.
        let firstOnset = try parsed.components.compactMap { try $0.property("DTSTART")?.dateTimeValue().civil }.min()
        #expect(try #require(firstOnset).secondsSinceEpoch - 14 * 3600 <= from, "\(identifier)")
    }
}

extension TimeZoneExpansionTests {
    /// The generated corpus carries VTIMEZONEs for its zones; read from them, every
    /// DTSTART and DTEND of the corpus is the same instant as through the IANA zone.
    @Test func corpusVTimeZonesAgreeWithIANA() throws {
        let calendar = try ICalendarParser.parse(try Corpus.generate(events: 2000, seed: 11)).components[0]
        var fromVTimeZone: [String: ZoneRules] = [:]
        for component in calendar.components where component.name == "VTIMEZONE" {
            let rules = try VTimeZone.rules(from: component)
            fromVTimeZone[rules.identifier] = rules
        }
        #expect(fromVTimeZone.count >= 3)
        var compared = 0
        for event in calendar.components where event.name == "VEVENT" {
            for name in ["DTSTART", "DTEND", "RECURRENCE-ID"] {
                guard let value = try event.property(name)?.dateTimeValue(), let tzid = value.tzid,
                    let vtimezone = fromVTimeZone[tzid], let iana = TimeZoneDatabase.zone(named: tzid)
                else { continue }
                #expect(vtimezone.instant(for: value.civil) == iana.instant(for: value.civil), "\(tzid) \(value.civil)")
                compared += 1
            }
        }
        #expect(compared > 1000)
    }
}
