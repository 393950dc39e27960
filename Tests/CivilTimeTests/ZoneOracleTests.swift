import CivilTime
import Foundation
import Testing

/// Differential tests: Almanac's zone code against implementations that
/// share none of its code. Foundation's `TimeZone` (ICU, with its own copy
/// of the IANA data) checks offsets and wall clocks; Python's `zoneinfo` and
/// glibc check offsets, daylight-saving flags, abbreviations and, with
/// `fold=0`, the RFC 5545 reading of wall clocks in gaps and overlaps.
@Suite struct ZoneOracleTests {
    @Test(arguments: ZoneSamples.zones)
    func offsetsAndWallClocksAgreeWithFoundation(_ identifier: String) throws {
        let zone = try ZoneSamples.zone(identifier)
        let foundation = try #require(TimeZone(identifier: identifier))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = foundation
        let instants = ZoneSamples.instants(count: 4000, seed: 1900) + ZoneSamples.instantsAroundTransitions(of: zone)
        for instant in instants {
            let date = Date(timeIntervalSince1970: Double(instant))
            #expect(
                zone.offset(at: instant).seconds == foundation.secondsFromGMT(for: date),
                "\(identifier) at \(CivilDateTime(secondsSinceEpoch: instant))Z")
        }
        for instant in instants.prefix(1500) {
            let parts = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(instant)))
            let expected = CivilDateTime(
                year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour!, minute: parts.minute!,
                second: parts.second!)
            #expect(zone.localTime(at: instant) == expected, "\(identifier) at \(instant)")
        }
    }

    @Test(.enabled(if: PythonOracle.isAvailable), arguments: ZoneSamples.zones)
    func agreesWithPythonZoneinfoAndGlibc(_ identifier: String) throws {
        let zone = try ZoneSamples.zone(identifier)
        // 1900…2100 (the table and the footer's changes worked out in advance)
        // and 2101…2399 (the footer's rules evaluated on each call).
        let instants =
            ZoneSamples.instants(count: 3000, seed: 2100) + ZoneSamples.instantsAroundTransitions(of: zone)
            + ZoneSamples.instants(
                count: 1000, seed: 2400, from: ZoneSamples.from2101, through: ZoneSamples.through2399)
            + ZoneSamples.instantsAroundTransitions(
                of: zone, from: ZoneSamples.from2101, through: ZoneSamples.through2399)
        let wallClocks =
            ZoneSamples.instants(count: 2000, seed: 5545).map(CivilDateTime.init(secondsSinceEpoch:))
            + ZoneSamples.wallClocksAroundTransitions(of: zone)
            + ZoneSamples.wallClocksAroundTransitions(
                of: zone, from: ZoneSamples.from2101, through: ZoneSamples.through2399)
        let answers = try PythonOracle.answer(
            ["Z \(identifier)"] + instants.map { "O \($0)" } + wallClocks.map(Self.wallClockRequest))
        #expect(answers[0] == "ok")
        for (instant, answer) in zip(instants, answers.dropFirst()) {
            let fields = answer.split(separator: " ")
            let context = "\(identifier) at \(CivilDateTime(secondsSinceEpoch: instant))Z"
            #expect(String(zone.offset(at: instant).seconds) == fields[0], "zoneinfo: \(context)")
            #expect(String(zone.offset(at: instant).seconds) == fields[1], "glibc: \(context)")
            #expect((zone.isDaylightSaving(at: instant) ? "1" : "0") == fields[2], "glibc isdst: \(context)")
            #expect(zone.abbreviation(at: instant) == fields[3], "glibc abbreviation: \(context)")
        }
        for (local, answer) in zip(wallClocks, answers.dropFirst(1 + instants.count)) {
            #expect(String(zone.instant(for: local)) == answer, "\(identifier) wall clock \(local)")
        }
    }

    /// Every zone of the installed database, around every transition from
    /// 1900 to 2100 (table and footer), against zoneinfo and glibc in one run.
    @Test(.enabled(if: PythonOracle.isAvailable))
    func everyZoneAgreesWithPythonAroundEveryTransition() throws {
        let index = try String(
            contentsOfFile: TimeZoneDatabase.directory + "/tzdata.zi", encoding: .utf8)
        let identifiers = index.split(separator: "\n").filter { $0.hasPrefix("Z ") }.map {
            String($0.split(separator: " ")[1])
        }
        #expect(identifiers.count > 300)
        var requests: [String] = []
        var checks: [(zone: ZoneRules, request: Int, instant: Int?, local: CivilDateTime?)] = []
        for identifier in identifiers {
            let zone = try ZoneSamples.zone(identifier)
            requests.append("Z \(identifier)")
            for instant in ZoneSamples.instantsAroundTransitions(of: zone) {
                checks.append((zone, requests.count, instant, nil))
                requests.append("O \(instant)")
            }
            for local in ZoneSamples.wallClocksAroundTransitions(of: zone) {
                checks.append((zone, requests.count, nil, local))
                requests.append(Self.wallClockRequest(local))
            }
        }
        let answers = try PythonOracle.answer(requests)
        var failures: [String] = []
        for check in checks {
            let answer = answers[check.request]
            if let instant = check.instant {
                let ours =
                    "\(check.zone.offset(at: instant).seconds) \(check.zone.offset(at: instant).seconds) "
                    + "\(check.zone.isDaylightSaving(at: instant) ? 1 : 0) \(check.zone.abbreviation(at: instant))"
                if ours != answer { failures.append("\(check.zone) at \(instant): \(ours) vs \(answer)") }
            } else if let local = check.local {
                let ours = String(check.zone.instant(for: local))
                if ours != answer { failures.append("\(check.zone) wall clock \(local): \(ours) vs \(answer)") }
            }
        }
        #expect(checks.count > 100_000)
        #expect(failures.isEmpty, "\(failures.count) disagreements, first: \(failures.prefix(20))")
    }

    static func wallClockRequest(_ local: CivilDateTime) -> String {
        "L \(local.date.year) \(local.date.month) \(local.date.day) \(local.time.hour) \(local.time.minute) \(local.time.second)"
    }
}
