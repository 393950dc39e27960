import CivilTime
import Foundation
import Testing

/// A wall clock in a zone and the instant RFC 5545 §3.3.5 (with erratum
/// 4271) says it names, worked out by hand from the zone's rules.
struct WallClockCase: Sendable, CustomTestStringConvertible {
    var zone: String
    var local: CivilDateTime
    var expected: Int

    init(_ zone: String, _ local: String, _ expected: Int) {
        let fields = local.split(whereSeparator: { "-T:".contains($0) }).map { Int($0)! }
        self.zone = zone
        self.local = CivilDateTime(
            year: fields[0], month: fields[1], day: fields[2], hour: fields[3], minute: fields[4], second: fields[5])!
        self.expected = expected
    }

    var testDescription: String { "\(zone) \(local)" }
}

@Suite struct ZoneTests {
    /// Gaps move forward by their length; ambiguous times take the earlier
    /// instant. Each instant is Unix seconds with its UTC form beside it.
    static let wallClockCases: [WallClockCase] = [
        // 2026-03-29T00:59:59Z last CET second before the gap
        WallClockCase("Europe/Berlin", "2026-03-29T01:59:59", 1_774_745_999),
        // 2026-03-29T01:00:00Z gap: shown as 03:00 CEST
        WallClockCase("Europe/Berlin", "2026-03-29T02:00:00", 1_774_746_000),
        // 2026-03-29T01:30:00Z gap: shown as 03:30 CEST
        WallClockCase("Europe/Berlin", "2026-03-29T02:30:00", 1_774_747_800),
        // 2026-03-29T01:59:59Z gap: shown as 03:59:59 CEST
        WallClockCase("Europe/Berlin", "2026-03-29T02:59:59", 1_774_749_599),
        // 2026-03-29T01:00:00Z first CEST wall clock
        WallClockCase("Europe/Berlin", "2026-03-29T03:00:00", 1_774_746_000),
        // 2026-10-24T23:59:59Z CEST, before the overlap
        WallClockCase("Europe/Berlin", "2026-10-25T01:59:59", 1_792_886_399),
        // 2026-10-25T00:00:00Z ambiguous: CEST, not 01:00Z
        WallClockCase("Europe/Berlin", "2026-10-25T02:00:00", 1_792_886_400),
        // 2026-10-25T00:30:00Z ambiguous: CEST, not 01:30Z
        WallClockCase("Europe/Berlin", "2026-10-25T02:30:00", 1_792_888_200),
        // 2026-10-25T00:59:59Z ambiguous: CEST, not 01:59:59Z
        WallClockCase("Europe/Berlin", "2026-10-25T02:59:59", 1_792_889_999),
        WallClockCase("Europe/Berlin", "2026-10-25T03:00:00", 1_792_893_600),  // 2026-10-25T02:00:00Z CET only
        // 2100-03-28T01:30:00Z footer gap, shown as 03:30 CEST
        WallClockCase("Europe/Berlin", "2100-03-28T02:30:00", 4_109_880_600),
        // 2100-10-31T00:30:00Z footer overlap: CEST, not 01:30Z
        WallClockCase("Europe/Berlin", "2100-10-31T02:30:00", 4_128_625_800),
        // 1890-06-01T11:06:32Z before the first transition: LMT +0:53:28
        WallClockCase("Europe/Berlin", "1890-06-01T12:00:00", -2_511_435_208),
        // 1893-03-31T23:09:32Z the 392-second gap from LMT to CET
        WallClockCase("Europe/Berlin", "1893-04-01T00:03:00", -2_422_054_228),
        // 2026-03-08T06:59:59Z last EST second before the gap
        WallClockCase("America/New_York", "2026-03-08T01:59:59", 1_772_953_199),
        // 2026-03-08T07:00:00Z gap: shown as 03:00 EDT
        WallClockCase("America/New_York", "2026-03-08T02:00:00", 1_772_953_200),
        // 2026-03-08T07:30:00Z gap: shown as 03:30 EDT
        WallClockCase("America/New_York", "2026-03-08T02:30:00", 1_772_955_000),
        // 2026-03-08T07:00:00Z first EDT wall clock
        WallClockCase("America/New_York", "2026-03-08T03:00:00", 1_772_953_200),
        // 2026-11-01T04:59:59Z EDT, before the overlap
        WallClockCase("America/New_York", "2026-11-01T00:59:59", 1_793_509_199),
        // 2026-11-01T05:00:00Z ambiguous: EDT, not 06:00Z
        WallClockCase("America/New_York", "2026-11-01T01:00:00", 1_793_509_200),
        // 2026-11-01T05:30:00Z ambiguous: EDT, not 06:30Z
        WallClockCase("America/New_York", "2026-11-01T01:30:00", 1_793_511_000),
        // 2026-11-01T05:59:59Z ambiguous: EDT, not 06:59:59Z
        WallClockCase("America/New_York", "2026-11-01T01:59:59", 1_793_512_799),
        WallClockCase("America/New_York", "2026-11-01T02:00:00", 1_793_516_400),  // 2026-11-01T07:00:00Z EST only
        // 1883-11-18T16:58:02Z LMT -4:56:02 to EST overlap: LMT, not 17:02Z
        WallClockCase("America/New_York", "1883-11-18T12:02:00", -2_717_650_918),
        // 2026-04-04T14:59:59Z AEDT, before the overlap
        WallClockCase("Australia/Sydney", "2026-04-05T01:59:59", 1_775_314_799),
        // 2026-04-04T15:00:00Z ambiguous: AEDT, not 16:00Z
        WallClockCase("Australia/Sydney", "2026-04-05T02:00:00", 1_775_314_800),
        // 2026-04-04T15:30:00Z ambiguous: AEDT, not 16:30Z
        WallClockCase("Australia/Sydney", "2026-04-05T02:30:00", 1_775_316_600),
        WallClockCase("Australia/Sydney", "2026-04-05T03:00:00", 1_775_322_000),  // 2026-04-04T17:00:00Z AEST only
        // 2026-10-03T15:59:59Z last AEST second before the gap
        WallClockCase("Australia/Sydney", "2026-10-04T01:59:59", 1_791_043_199),
        // 2026-10-03T16:00:00Z gap: shown as 03:00 AEDT
        WallClockCase("Australia/Sydney", "2026-10-04T02:00:00", 1_791_043_200),
        // 2026-10-03T16:30:00Z gap: shown as 03:30 AEDT
        WallClockCase("Australia/Sydney", "2026-10-04T02:30:00", 1_791_045_000),
        // 2026-10-03T16:00:00Z first AEDT wall clock
        WallClockCase("Australia/Sydney", "2026-10-04T03:00:00", 1_791_043_200),
        // 2026-04-04T12:59:59Z +1345, before the overlap
        WallClockCase("Pacific/Chatham", "2026-04-05T02:44:59", 1_775_307_599),
        // 2026-04-04T13:00:00Z ambiguous: +1345, not 14:00Z
        WallClockCase("Pacific/Chatham", "2026-04-05T02:45:00", 1_775_307_600),
        // 2026-04-04T13:15:00Z ambiguous: +1345, not 14:15Z
        WallClockCase("Pacific/Chatham", "2026-04-05T03:00:00", 1_775_308_500),
        // 2026-04-04T13:59:59Z ambiguous: +1345, not 14:59:59Z
        WallClockCase("Pacific/Chatham", "2026-04-05T03:44:59", 1_775_311_199),
        WallClockCase("Pacific/Chatham", "2026-04-05T03:45:00", 1_775_314_800),  // 2026-04-04T15:00:00Z +1245 only
        // 2026-09-26T13:59:59Z last +1245 second before the gap
        WallClockCase("Pacific/Chatham", "2026-09-27T02:44:59", 1_790_431_199),
        // 2026-09-26T14:00:00Z gap: shown as 03:45 +1345
        WallClockCase("Pacific/Chatham", "2026-09-27T02:45:00", 1_790_431_200),
        // 2026-09-26T14:15:00Z gap: shown as 04:00 +1345
        WallClockCase("Pacific/Chatham", "2026-09-27T03:00:00", 1_790_432_100),
        // 2026-09-26T14:59:59Z gap: shown as 04:44:59 +1345
        WallClockCase("Pacific/Chatham", "2026-09-27T03:44:59", 1_790_434_799),
        // 2026-09-26T14:00:00Z first +1345 wall clock
        WallClockCase("Pacific/Chatham", "2026-09-27T03:45:00", 1_790_431_200),
        // 2026-10-03T15:45:00Z 30-minute gap: shown as 02:45 +11
        WallClockCase("Australia/Lord_Howe", "2026-10-04T02:15:00", 1_791_042_300),
        // 2026-04-04T14:45:00Z 30-minute overlap: +11, not 15:15Z
        WallClockCase("Australia/Lord_Howe", "2026-04-05T01:45:00", 1_775_313_900),
        // 2026-03-29T01:30:00Z two-hour gap: shown as 03:30 +02
        WallClockCase("Antarctica/Troll", "2026-03-29T01:30:00", 1_774_747_800),
        // 2026-10-25T00:00:00Z two-hour overlap: +02, not 02:00Z
        WallClockCase("Antarctica/Troll", "2026-10-25T02:00:00", 1_792_886_400),
        // 2026-03-29T01:30:00Z gap (GMT is the "daylight" time): shown as 02:30 IST
        WallClockCase("Europe/Dublin", "2026-03-29T01:30:00", 1_774_747_800),
        // 2026-10-25T00:30:00Z ambiguous: IST, not 01:30Z
        WallClockCase("Europe/Dublin", "2026-10-25T01:30:00", 1_792_888_200),
        // 2026-03-08T06:00:00Z gap: shown as 03:30 NDT (-2:30)
        WallClockCase("America/St_Johns", "2026-03-08T02:30:00", 1_772_949_600),
        // 2026-11-01T04:00:00Z ambiguous: NDT, not 05:00Z
        WallClockCase("America/St_Johns", "2026-11-01T01:30:00", 1_793_505_600),
        // 2025-12-31T18:30:00Z +0530, no transitions since 1945
        WallClockCase("Asia/Kolkata", "2026-01-01T00:00:00", 1_767_205_800),
        // 2100-03-26T00:30:00Z footer "M3.4.4/26": Thursday 26:00 is Friday 02:00
        WallClockCase("Asia/Jerusalem", "2100-03-26T02:30:00", 4_109_704_200),
        // 2100-03-28T01:30:00Z footer "M3.5.0/-1": the gap is Saturday 23:00
        WallClockCase("America/Nuuk", "2100-03-27T23:30:00", 4_109_880_600),
        // 2100-10-31T00:30:00Z footer "M10.5.0/0": overlap, -01 not 01:30Z
        WallClockCase("America/Nuuk", "2100-10-30T23:30:00", 4_128_625_800),
    ]

    @Test(arguments: wallClockCases)
    func wallClockToInstantFollowsRFC5545(_ example: WallClockCase) throws {
        let zone = try ZoneSamples.zone(example.zone)
        let instant = zone.instant(for: example.local)
        #expect(instant == example.expected, "got \(CivilDateTime(secondsSinceEpoch: instant))Z")
        let shown = zone.localTime(at: instant)
        if shown != example.local {
            // A gap: the clocks show the wall clock moved forward by exactly the gap's length.
            let jump = try #require(zone.transitions(from: instant - 86_400, to: instant + 1).last)
            #expect(jump.wallClockShift > 0)
            #expect(shown.secondsSinceEpoch - example.local.secondsSinceEpoch == jump.wallClockShift)
        }
    }

    @Test func gapsAndOverlapsOfAFooterOnlyZoneMatchTheTZifFile() throws {
        // The rules a VTIMEZONE with RRULEs would give: no table, only the yearly rule.
        let rules = ZoneRules(
            identifier: "Berlin rules", initialOffset: UTCOffset(seconds: 3600), initialAbbreviation: "CET",
            transitions: [], footer: POSIXTimeZone("CET-1CEST,M3.5.0,M10.5.0/3"))
        let berlin = try ZoneSamples.zone("Europe/Berlin")
        for example in Self.wallClockCases where example.zone == "Europe/Berlin" && example.local.date.year >= 2026 {
            #expect(rules.instant(for: example.local) == example.expected, "\(example.local)")
        }
        for instant in ZoneSamples.instants(count: 2000, seed: 7) where instant > 1_000_000_000 {
            #expect(rules.offset(at: instant) == berlin.offset(at: instant))
            #expect(rules.abbreviation(at: instant) == berlin.abbreviation(at: instant))
        }
    }

    @Test(arguments: [
        "CET-1CEST,M3.5.0,M10.5.0/3", "AEST-10AEDT,M10.1.0,M4.1.0/3", "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45",
        "IST-1GMT0,M10.5.0,M3.5.0/1", "EST5EDT,0/0,J365/25", "AAA3BBB,M1.1.0/-100,M12.5.6/150", "<+0545>-5:45",
    ])
    func footerChangesWorkedOutInAdvanceMatchTheRules(_ text: String) throws {
        // A zone made of only a footer keeps its changes through 2100 in a
        // table; the POSIX zone evaluates its rules on every call. Both must agree.
        let footer = try #require(POSIXTimeZone(text))
        let rules = ZoneRules(
            identifier: text, initialOffset: .zero, initialAbbreviation: "XXX", transitions: [], footer: footer)
        let instants =
            ZoneSamples.instants(count: 3000, seed: 42, from: -5_000_000_000, through: ZoneSamples.through2399)
            + rules.transitions(from: ZoneSamples.from1900, to: ZoneSamples.through2399).flatMap {
                [$0.instant - 1, $0.instant]
            }
        for instant in instants {
            #expect(rules.offset(at: instant) == footer.offset(at: instant), "\(text) at \(instant)")
            #expect(rules.isDaylightSaving(at: instant) == footer.isDaylightSaving(at: instant))
            #expect(rules.abbreviation(at: instant) == footer.abbreviation(at: instant))
            let local = rules.localTime(at: instant)
            let back = rules.instant(for: local)
            #expect(back == instant || (back < instant && rules.localTime(at: back) == local), "\(text) \(local)")
        }
    }

    @Test(arguments: ZoneSamples.zones)
    func localTimeRoundTrips(_ identifier: String) throws {
        let zone = try ZoneSamples.zone(identifier)
        let instants = ZoneSamples.instants(count: 3000, seed: 11) + ZoneSamples.instantsAroundTransitions(of: zone)
        for instant in instants {
            let local = zone.localTime(at: instant)
            let back = zone.instant(for: local)
            if back != instant {
                // Only the second pass through an overlap maps back to the earlier instant.
                #expect(back < instant && zone.localTime(at: back) == local, "\(identifier) \(instant) → \(local)")
            }
        }
    }

    @Test(arguments: ZoneSamples.zones)
    func transitionsAgreeWithLookups(_ identifier: String) throws {
        let zone = try ZoneSamples.zone(identifier)
        let transitions = zone.transitions(from: ZoneSamples.from1900, to: ZoneSamples.through2100)
        var previous = ZoneSamples.from1900
        for transition in transitions {
            #expect(transition.instant >= previous)
            previous = transition.instant
            #expect(zone.offset(at: transition.instant - 1) == transition.offsetBefore, "\(identifier) \(transition)")
            #expect(zone.offset(at: transition.instant) == transition.offsetAfter, "\(identifier) \(transition)")
            #expect(zone.isDaylightSaving(at: transition.instant) == transition.isDaylightSaving)
            #expect(zone.abbreviation(at: transition.instant) == transition.abbreviation)
        }
        // Between two transitions nothing changes.
        for (current, next) in zip(transitions, transitions.dropFirst()) {
            let middle = current.instant + (next.instant - current.instant) / 2
            #expect(zone.offset(at: middle) == current.offsetAfter)
            #expect(zone.offset(at: next.instant - 1) == current.offsetAfter)
        }
    }

    @Test func berlinIn2026() throws {
        let berlin = try ZoneSamples.zone("Europe/Berlin")
        // 2026-01-01T00:00Z ..< 2027-01-01T00:00Z
        let year = berlin.transitions(from: 1_767_225_600, to: 1_798_761_600)
        #expect(
            year == [
                ZoneTransition(
                    instant: 1_774_746_000,  // 2026-03-29T01:00:00Z
                    offsetBefore: UTCOffset(seconds: 3600), offsetAfter: UTCOffset(seconds: 7200),
                    isDaylightSaving: true, abbreviation: "CEST"),
                ZoneTransition(
                    instant: 1_792_890_000,  // 2026-10-25T01:00:00Z
                    offsetBefore: UTCOffset(seconds: 7200), offsetAfter: UTCOffset(seconds: 3600),
                    isDaylightSaving: false, abbreviation: "CET"),
            ])
        #expect(berlin.abbreviation(at: 1_774_745_999) == "CET")
        #expect(berlin.isDaylightSaving(at: 1_774_746_000))
        #expect(berlin.localTime(at: 1_774_746_000) == CivilDateTime(year: 2026, month: 3, day: 29, hour: 3))
    }

    @Test func footerTransitionsFarAhead() throws {
        let berlin = try ZoneSamples.zone("Europe/Berlin")
        // 2099-01-01T00:00Z ..< 2102-01-01T00:00Z: the table of a "fat" file ends in 2037.
        let transitions = berlin.transitions(from: 4_070_908_800, to: 4_165_516_800)
        #expect(transitions.count == 6)
        #expect(transitions.map(\.abbreviation) == ["CEST", "CET", "CEST", "CET", "CEST", "CET"])
        #expect(transitions[2].instant == 4_109_878_800)  // 2100-03-28T01:00:00Z
        #expect(transitions[3].instant == 4_128_627_600)  // 2100-10-31T01:00:00Z
        // Asking for everything stays bounded: the table plus 10,000 years of rules.
        let everything = berlin.transitions(from: .min, to: .max)
        #expect(everything.count > 20_000 && everything.count < 20_300)
        #expect(berlin.transitions(from: 10, to: 10).isEmpty)
    }

    @Test func zonesThatChangedTheirRules() throws {
        // São Paulo dropped DST in 2019: its last transition ends DST on 2019-02-17.
        let saoPaulo = try ZoneSamples.zone("America/Sao_Paulo")
        let since2018 = saoPaulo.transitions(from: 1_514_764_800, to: 4_102_444_800)  // 2018-01-01Z ..< 2100-01-01Z
        #expect(since2018.map(\.instant) == [1_518_919_200, 1_541_300_400, 1_550_368_800])
        // 2018-02-18T02:00Z, 2018-11-04T03:00Z, 2019-02-17T02:00Z
        #expect(saoPaulo.offset(at: 4_102_444_800).seconds == -3 * 3600)

        // Moscow: summer time until 2010, permanent "summer" (+04 MSK) from 2011, back to +03 in 2014.
        let moscow = try ZoneSamples.zone("Europe/Moscow")
        let changes = moscow.transitions(from: 1_262_304_000, to: 1_420_070_400)  // 2010-01-01Z ..< 2015-01-01Z
        #expect(changes.map(\.offsetAfter.seconds) == [14_400, 10_800, 14_400, 10_800])
        #expect(changes.map(\.abbreviation) == ["MSD", "MSK", "MSK", "MSK"])
        #expect(changes.map(\.isDaylightSaving) == [true, false, false, false])

        // Kolkata has kept +05:30 since 1945.
        let kolkata = try ZoneSamples.zone("Asia/Kolkata")
        #expect(kolkata.transitions(from: -757_382_400, to: .max).isEmpty)  // 1946-01-01Z ..<
        #expect(kolkata.offset(at: 4_102_444_800) == UTCOffset(seconds: 19_800))
    }

    @Test func beforeTheFirstTransitionTheFirstTimeTypeApplies() throws {
        let newYork = try ZoneSamples.zone("America/New_York")
        #expect(newYork.initialAbbreviation == "LMT")
        #expect(newYork.initialOffset == UTCOffset(seconds: -17_762))  // -4:56:02
        #expect(newYork.offset(at: -5_000_000_000) == UTCOffset(seconds: -17_762))  // 1811
        #expect(newYork.offset(at: .min) == UTCOffset(seconds: -17_762))
        #expect(newYork.localTime(at: -2_717_650_800) == CivilDateTime(year: 1883, month: 11, day: 18, hour: 12))
        // 1883-11-18T17:00:00Z: EST begins at noon
    }

    @Test func extremeInstantsNeverTrap() throws {
        for identifier in ["Europe/Berlin", "Australia/Sydney", "Pacific/Chatham", "UTC"] {
            let zone = try ZoneSamples.zone(identifier)
            for instant in [Int.min, Int.min + 1, -(1 << 62), 1 << 62, Int.max - 1, Int.max] {
                _ = zone.offset(at: instant)
                _ = zone.isDaylightSaving(at: instant)
                _ = zone.abbreviation(at: instant)
                _ = zone.localTime(at: instant)
                _ = zone.transitions(from: instant, to: instant == .max ? instant : instant + 1)
            }
            // A million years ahead the rules still hold (they repeat every 400 years).
            let farLocal = CivilDateTime(year: 1_002_026, month: 7, day: 1, hour: 12)!
            let far = zone.instant(for: farLocal)
            #expect(zone.localTime(at: far) == farLocal)
            let summer2026 = zone.offset(at: 1_782_907_200)  // 2026-07-01T12:00Z
            #expect(zone.offset(at: far) == summer2026)
        }
    }

    @Test func utc() throws {
        let utc = ZoneRules.utc
        #expect(utc.offset(at: 1_774_746_000) == .zero)
        #expect(utc.abbreviation(at: 0) == "UTC")
        #expect(!utc.isDaylightSaving(at: 0))
        #expect(utc.transitions(from: .min, to: .max).isEmpty)
        let local = CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)!
        #expect(utc.instant(for: local) == 1_774_751_400)  // 2026-03-29T02:30:00Z
        #expect(utc.localTime(at: 1_774_751_400) == local)
        let file = try ZoneSamples.zone("UTC")
        #expect(file.offset(at: 1_774_746_000) == .zero && file.abbreviation(at: 0) == "UTC")
    }

    @Test func initializerNormalizesItsTable() {
        let cet = UTCOffset(seconds: 3600)
        let cest = UTCOffset(seconds: 7200)
        func change(_ instant: Int, _ offset: UTCOffset, _ name: String, from: UTCOffset = .zero) -> ZoneTransition {
            ZoneTransition(
                instant: instant, offsetBefore: from, offsetAfter: offset, isDaylightSaving: offset == cest,
                abbreviation: name)
        }
        let rules = ZoneRules(
            identifier: "Test", initialOffset: cet, initialAbbreviation: "CET",
            transitions: [
                change(300, cet, "CET"),  // out of order; the CEST at 200 comes first
                change(200, cest, "CEST"),
                change(100, cet, "CET"),  // changes nothing
                change(400, cet, "XXX"),  // replaced: the last one given at an instant wins
                change(400, cest, "CEST"),
            ], footer: nil)
        #expect(rules.transitions.map(\.instant) == [200, 300, 400])
        #expect(rules.transitions.map(\.offsetBefore) == [cet, cest, cet])
        #expect(rules.offset(at: 199) == cet && rules.offset(at: 200) == cest && rules.offset(at: 10_000) == cest)
    }

    @Test func databaseRefusesNamesOutsideTheDirectory() {
        for name in [
            "../etc/passwd", "/etc/passwd", "Europe/../../etc/passwd", "..", "Europe/Berlin/..", "",
            "Europe/Nowhere", "Europe", "zone.tab", "tzdata.zi", "leapseconds", "Europe/Berlin\u{0}",
            "Europe\\Berlin", "Europe/Berlin ", "Europe/Zürich", String(repeating: "A", count: 300),
        ] {
            #expect(TimeZoneDatabase.zone(named: name) == nil, "\(name)")
        }
        #expect(TimeZoneDatabase.zone(named: "Asia/Calcutta")?.identifier == "Asia/Calcutta")
        #expect(TimeZoneDatabase.zone(named: "Etc/GMT+5")?.offset(at: 0) == UTCOffset(seconds: -18_000))
    }

    @Test func databaseIsSafeFromManyThreads() async throws {
        let names = ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Chatham", "Nowhere/Else"]
        let results = await withTaskGroup(of: (String, ZoneRules?).self) { group in
            for index in 0..<200 {
                let name = names[index % names.count]
                group.addTask { (name, TimeZoneDatabase.zone(named: name)) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for (name, rules) in results {
            #expect(rules == TimeZoneDatabase.zone(named: name))
            #expect((rules == nil) == (name == "Nowhere/Else"))
        }
    }
}
