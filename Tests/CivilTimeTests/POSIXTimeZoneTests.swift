import CivilTime
import Foundation
import Testing

@Suite struct POSIXTimeZoneTests {
    struct Parsed: Sendable, CustomTestStringConvertible {
        var text: String
        var standard: (String, Int)
        var daylight: (String, Int)?
        var canonical: String
        var testDescription: String { text }
    }

    /// TZ strings (the footers of real TZif files and the RFC 8536 §3.3.1
    /// forms), what they mean, and their shortest spelling.
    static let parsed: [Parsed] = [
        .init(
            text: "CET-1CEST,M3.5.0,M10.5.0/3", standard: ("CET", 3600), daylight: ("CEST", 7200),
            canonical: "CET-1CEST,M3.5.0,M10.5.0/3"),
        .init(text: "<+0545>-5:45", standard: ("+0545", 20_700), daylight: nil, canonical: "<+0545>-5:45"),
        .init(
            text: "EST5EDT,M3.2.0,M11.1.0", standard: ("EST", -18_000), daylight: ("EDT", -14_400),
            canonical: "EST5EDT,M3.2.0,M11.1.0"),
        .init(
            text: "IST-2IDT,M3.4.4/26,M10.5.0", standard: ("IST", 7200), daylight: ("IDT", 10_800),
            canonical: "IST-2IDT,M3.4.4/26,M10.5.0"),
        .init(text: "<-03>3", standard: ("-03", -10_800), daylight: nil, canonical: "<-03>3"),
        .init(
            text: "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", standard: ("-02", -7200), daylight: ("-01", -3600),
            canonical: "<-02>2<-01>,M3.5.0/-1,M10.5.0/0"),
        .init(
            text: "IST-1GMT0,M10.5.0,M3.5.0/1", standard: ("IST", 3600), daylight: ("GMT", 0),
            canonical: "IST-1GMT0,M10.5.0,M3.5.0/1"),
        .init(
            text: "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45", standard: ("+1245", 45_900),
            daylight: ("+1345", 49_500), canonical: "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45"),
        .init(
            text: "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", standard: ("+1030", 37_800), daylight: ("+11", 39_600),
            canonical: "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0"),
        .init(
            text: "<+00>0<+02>-2,M3.5.0/1,M10.5.0/3", standard: ("+00", 0), daylight: ("+02", 7200),
            canonical: "<+00>0<+02>-2,M3.5.0/1,M10.5.0/3"),
        .init(
            text: "EET-2EEST,M3.4.4/50,M10.4.4/50", standard: ("EET", 7200), daylight: ("EEST", 10_800),
            canonical: "EET-2EEST,M3.4.4/50,M10.4.4/50"),
        .init(
            text: "NST3:30NDT,M3.2.0,M11.1.0", standard: ("NST", -12_600), daylight: ("NDT", -9000),
            canonical: "NST3:30NDT,M3.2.0,M11.1.0"),
        .init(
            text: "EST5EDT,0/0,J365/25", standard: ("EST", -18_000), daylight: ("EDT", -14_400),
            canonical: "EST5EDT,0/0,J365/25"),
        .init(
            text: "CST6CDT,J60/2:00:00,300/-167", standard: ("CST", -21_600), daylight: ("CDT", -18_000),
            canonical: "CST6CDT,J60,300/-167"),
        .init(text: "UTC0", standard: ("UTC", 0), daylight: nil, canonical: "UTC0"),
        .init(text: "ABC+10:20:30", standard: ("ABC", -37_230), daylight: nil, canonical: "ABC10:20:30"),
        .init(
            text: "EST5EDT", standard: ("EST", -18_000), daylight: ("EDT", -14_400),
            canonical: "EST5EDT,M3.2.0,M11.1.0"),  // glibc's default rules
        .init(
            text: "<UTC+1>-1<UTC+2>-2:00,M3.5.0/2,M10.5.0/3", standard: ("UTC+1", 3600), daylight: ("UTC+2", 7200),
            canonical: "<UTC+1>-1<UTC+2>,M3.5.0,M10.5.0/3"),
    ]

    @Test(arguments: parsed)
    func parses(_ example: Parsed) throws {
        let zone = try #require(POSIXTimeZone(example.text))
        #expect(zone.standardAbbreviation == example.standard.0)
        #expect(zone.standardOffset.seconds == example.standard.1)
        #expect(zone.daylightSaving?.abbreviation == example.daylight?.0)
        #expect(zone.daylightSaving?.offset.seconds == example.daylight?.1)
        #expect(zone.description == example.canonical)
        #expect(POSIXTimeZone(zone.description) == zone)
    }

    @Test func rulePartsAreKept() throws {
        let jerusalem = try #require(POSIXTimeZone("IST-2IDT,M3.4.4/26,M10.5.0"))
        #expect(
            jerusalem.daylightSaving?.start
                == .init(day: .monthWeekday(month: 3, week: 4, weekday: .thursday), time: 26 * 3600))
        #expect(jerusalem.daylightSaving?.end == .init(day: .monthWeekday(month: 10, week: 5, weekday: .sunday)))
        let julian = try #require(POSIXTimeZone("CST6CDT,J60/2:00:00,300/-167"))
        #expect(julian.daylightSaving?.start == .init(day: .julian(60)))
        #expect(julian.daylightSaving?.end == .init(day: .zeroBasedDayOfYear(300), time: -167 * 3600))
    }

    @Test(arguments: [
        "", "CET", "CE-1", "<>1", "<+05", "<+0 5>-5", "CET-25", "CET-1:60", "CET-1:00:60", "CET--1", "5",
        "CET-1CEST,M3.5.0", "CET-1CEST,M3.5.0,", "CET-1CEST,M13.1.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0",
        "CET-1CEST,M3.5.7,M10.5.0", "CET-1CEST,M0.5.0,M10.5.0", "CET-1CEST,J0,J365", "CET-1CEST,J366,J1",
        "CET-1CEST,366,0", "CET-1CEST,M3.5.0/168,M10.5.0", "CET-1CEST,M3.5.0/-168,M10.5.0",
        "CET-1CEST,M3.5.0,M10.5.0,", "CET-1CEST,M3.5.0,M10.5.0 ", " CET-1", "CET-1CEST,M3.5.0/,M10.5.0",
        "CET-1CEST-25,M3.5.0,M10.5.0", "CET-1CEST,M3.5.0,M10.5.0/3:", "CET-1CEST,M3..0,M10.5.0", "ÄÖÜ-1",
    ])
    func rejects(_ text: String) {
        #expect(POSIXTimeZone(text) == nil)
    }

    @Test func transitionsInAYear() throws {
        let newYork = try #require(POSIXTimeZone("EST5EDT,M3.2.0,M11.1.0"))
        #expect(newYork.transitions(inYear: 2026).map(\.instant) == [1_772_953_200, 1_793_512_800])
        // 2026-03-08T07:00:00Z, 2026-11-01T06:00:00Z
        #expect(newYork.transitions(inYear: 2026).map(\.abbreviation) == ["EDT", "EST"])

        // Southern hemisphere: the end of daylight saving comes first in the year.
        let sydney = try #require(POSIXTimeZone("AEST-10AEDT,M10.1.0,M4.1.0/3"))
        let changes = sydney.transitions(inYear: 2026)
        #expect(changes.map(\.instant) == [1_775_318_400, 1_791_043_200])
        // 2026-04-04T16:00:00Z, 2026-10-03T16:00:00Z
        #expect(changes.map(\.isDaylightSaving) == [false, true])
        #expect(changes[0].offsetBefore.seconds == 39_600 && changes[0].offsetAfter.seconds == 36_000)

        // J60 is March 1 in every year; zero-based 59 is February 29 in a leap year, else March 1.
        let julian = try #require(POSIXTimeZone("XXX0YYY,J60/0,59/0"))
        #expect(julian.transitions(inYear: 2024).map(\.instant) == [1_709_161_200, 1_709_251_200])
        // 2024-02-28T23:00:00Z (February 29 00:00 in YYY, +01), 2024-03-01T00:00:00Z
        #expect(julian.transitions(inYear: 2024).map(\.isDaylightSaving) == [false, true])
        #expect(julian.transitions(inYear: 2026).map(\.instant) == [1_772_319_600, 1_772_323_200])
        // 2026-02-28T23:00:00Z (March 1 00:00 in YYY), 2026-03-01T00:00:00Z
        #expect(POSIXTimeZone("<+0545>-5:45")?.transitions(inYear: 2026) == [])
    }

    @Test func daylightSavingAllYearChangesNothing() throws {
        // RFC 8536 §3.3.1: "EST5EDT,0/0,J365/25" is daylight saving all year.
        let zone = try #require(POSIXTimeZone("EST5EDT,0/0,J365/25"))
        #expect(zone.transitions(inYear: 2026).isEmpty)
        for instant in ZoneSamples.instants(count: 2000, seed: 365) + [4_102_444_799, 4_102_444_800, 4_102_462_800] {
            #expect(zone.offset(at: instant).seconds == -14_400, "\(instant)")
            #expect(zone.isDaylightSaving(at: instant) && zone.abbreviation(at: instant) == "EDT")
        }
    }

    /// Footers and RFC examples whose changes stay well inside their year,
    /// where glibc's evaluation (one UTC year at a time) is exact.
    /// (Rules that cross New Year are checked against ``ReferenceRules`` below.)
    static let glibcComparable = [
        "CET-1CEST,M3.5.0,M10.5.0/3", "EST5EDT,M3.2.0,M11.1.0", "IST-2IDT,M3.4.4/26,M10.5.0",
        "<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "IST-1GMT0,M10.5.0,M3.5.0/1", "AEST-10AEDT,M10.1.0,M4.1.0/3",
        "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45", "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
        "<+00>0<+02>-2,M3.5.0/1,M10.5.0/3", "EET-2EEST,M3.4.4/50,M10.4.4/50", "<-04>4<-03>,M9.1.6/24,M4.1.6/24",
        "EET-2EEST,M4.5.5/0,M10.5.4/24", "NST3:30NDT,M3.2.0,M11.1.0", "CST6CDT,J60/2:00:00,300/-167",
        "XXX0YYY,J100/-30,J200/40", "XXX-3YYY,59,300", "<+0545>-5:45", "<-03>3", "ABC+10:20:30",
    ]

    @Test(.enabled(if: PythonOracle.isAvailable), arguments: glibcComparable)
    func agreesWithGlibc(_ text: String) throws {
        let zone = try #require(POSIXTimeZone(text))
        // glibc's tzset evaluates rules for years up to 1970 as if in 1970
        // (compute_change starts counting at the epoch), so compare from 1971 on.
        var instants = ZoneSamples.instants(count: 2500, seed: 8536).filter { $0 >= 31_536_000 }  // 1971-01-01Z
        for year in [1971, 2024, 2026, 2037, 2038, 2099, 2100] {
            for change in zone.transitions(inYear: year) {
                instants += [change.instant - 1, change.instant, change.instant + 1]
            }
        }
        let answers = try PythonOracle.answer(["P \(text)"] + instants.map { "O \($0)" })
        for (instant, answer) in zip(instants, answers.dropFirst()) {
            let fields = answer.split(separator: " ")
            let context = "\(text) at \(CivilDateTime(secondsSinceEpoch: instant))Z"
            #expect(String(zone.offset(at: instant).seconds) == fields[1], "\(context)")
            #expect((zone.isDaylightSaving(at: instant) ? "1" : "0") == fields[2], "\(context)")
            #expect(zone.abbreviation(at: instant) == fields[3], "\(context)")
        }
    }

    /// Rules that put changes on the other side of New Year, checked against a
    /// reference that lists every change of seven years with Foundation's
    /// calendar and takes the latest one at or before the instant.
    @Test(arguments: [
        "EST5EDT,0/0,J365/25", "AAA3BBB,M1.1.0/-100,M12.5.6/150", "AAA-14BBB-15,J1/-167,J365/167",
        "AAA3BBB,M12.5.0/167,M1.1.0/-167", "AAA0BBB,0/0,364/0", "AAA-12BBB-13,M12.1.0,M1.5.6",
        "CET-1CEST,M3.5.0,M10.5.0/3", "AEST-10AEDT,M10.1.0,M4.1.0/3",
    ])
    func rulesAcrossNewYearAgreeWithAReference(_ text: String) throws {
        let zone = try #require(POSIXTimeZone(text))
        let reference = ReferenceRules(zone)
        var instants = ZoneSamples.instants(count: 1500, seed: 167)
        for year in 2023...2029 {
            for change in reference.changes(inYear: year) { instants += [change.instant - 1, change.instant] }
        }
        for instant in instants {
            #expect(
                zone.isDaylightSaving(at: instant) == reference.isDaylightSaving(at: instant), "\(text) at \(instant)")
        }
    }
}

/// An independent evaluation of POSIX rules: Foundation's Gregorian calendar
/// finds the rule days, and the state at an instant is that of the latest
/// change at or before it among seven years' changes.
struct ReferenceRules {
    let zone: POSIXTimeZone
    let calendar: Calendar

    init(_ zone: POSIXTimeZone) {
        self.zone = zone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        self.calendar = calendar
    }

    func changes(inYear year: Int) -> [(instant: Int, isDaylightSaving: Bool)] {
        guard let daylight = zone.daylightSaving else { return [] }
        let start = seconds(daylight.start, year: year) - zone.standardOffset.seconds
        let end = seconds(daylight.end, year: year) - daylight.offset.seconds
        return start <= end ? [(start, true), (end, false)] : [(end, false), (start, true)]
    }

    func isDaylightSaving(at instant: Int) -> Bool {
        let year = calendar.component(.year, from: Date(timeIntervalSince1970: Double(instant)))
        var latest: (instant: Int, isDaylightSaving: Bool) = (.min, false)
        for candidate in (year - 3)...(year + 3) {
            for change in changes(inYear: candidate) where change.instant <= instant && change.instant >= latest.instant
            {
                latest = change
            }
        }
        return latest.isDaylightSaving
    }

    private func seconds(_ rule: POSIXTimeZone.Rule, year: Int) -> Int {
        let january = calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
        let day: Date
        switch rule.day {
        case .julian(let n):
            let isLeap = calendar.range(of: .day, in: .year, for: january)!.count == 366
            day = calendar.date(byAdding: .day, value: n - 1 + (isLeap && n >= 60 ? 1 : 0), to: january)!
        case .zeroBasedDayOfYear(let n):
            day = calendar.date(byAdding: .day, value: n, to: january)!
        case .monthWeekday(let month, let week, let weekday):
            // Foundation numbers weekdays Sunday = 1 … Saturday = 7.
            let target = weekday.rawValue % 7 + 1
            let matches = (1...31).compactMap { dayOfMonth -> Date? in
                guard let date = calendar.date(from: DateComponents(year: year, month: month, day: dayOfMonth)),
                    calendar.component(.month, from: date) == month,
                    calendar.component(.weekday, from: date) == target
                else { return nil }
                return date
            }
            day = week == 5 ? matches.last! : matches[week - 1]
        }
        return Int(day.timeIntervalSince1970) + rule.time
    }
}
