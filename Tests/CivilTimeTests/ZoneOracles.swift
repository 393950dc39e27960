import AlmanacTestSupport
import CivilTime
import Foundation
import Testing

/// Python as an independent oracle for time zones: its `zoneinfo` module
/// (Paul Ganssle's implementation of PEP 615) and glibc's `localtime`, both
/// reading the same TZif files with code that shares nothing with Almanac's.
///
/// Requests go to one `python3` process as lines in a temporary file; each
/// line gets one answer line, in order:
///
/// - `Z <zone>`: use this IANA zone (zoneinfo and glibc) → `ok`
/// - `P <tz string>`: use this POSIX TZ string (glibc only) → `ok`
/// - `O <instant>`: → `<zoneinfo offset or -> <glibc offset> <glibc isdst> <glibc abbreviation>`
/// - `L <y> <m> <d> <H> <M> <S>`: the instant of that wall clock with
///   `fold=0` (zoneinfo), which is RFC 5545's choice in gaps and overlaps → `<instant>`
enum PythonOracle {
    static let script = #"""
        import os, sys, time
        from datetime import datetime
        from zoneinfo import ZoneInfo
        zone = None
        out = []
        with open(sys.argv[1]) as requests:
            for line in requests:
                kind, _, rest = line.rstrip("\n").partition(" ")
                if kind == "Z":
                    zone = ZoneInfo(rest)
                    os.environ["TZ"] = ":" + rest
                    time.tzset()
                    out.append("ok")
                elif kind == "P":
                    zone = None
                    os.environ["TZ"] = rest
                    time.tzset()
                    out.append("ok")
                elif kind == "O":
                    instant = int(rest)
                    local = time.localtime(instant)
                    offset = "-" if zone is None else str(int(datetime.fromtimestamp(instant, zone).utcoffset().total_seconds()))
                    out.append(f"{offset} {local.tm_gmtoff} {local.tm_isdst} {local.tm_zone}")
                elif kind == "L":
                    y, m, d, hh, mm, ss = map(int, rest.split())
                    out.append(str(int(datetime(y, m, d, hh, mm, ss, tzinfo=zone).timestamp())))
        sys.stdout.write("\n".join(out) + "\n")
        """#

    /// Whether `python3` with `zoneinfo` (3.9+) is on this machine.
    static let isAvailable: Bool = {
        (try? run(["-c", "import zoneinfo"]))?.status == 0
    }()

    /// Answers `requests` (one per element), one answer per request.
    static func answer(_ requests: [String]) throws -> [Substring] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("zone-oracle-\(UUID().uuidString).txt")
        try (requests.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try run(["-c", script, file.path])
        guard result.status == 0 else { throw OracleFailure(message: "python3 exited with \(result.status)") }
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard lines.count == requests.count else {
            throw OracleFailure(message: "\(lines.count) answers for \(requests.count) requests")
        }
        return Array(lines)
    }

    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    struct OracleFailure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}

/// What the tests need about zones, shared by the suites.
enum ZoneSamples {
    /// The zones the brief names, each for a reason: DST both hemispheres,
    /// 30- and 45-minute offsets, dropped DST (São Paulo 2019), rule changes
    /// (Moscow 2011/2014), Ramadan suspensions (Casablanca), a two-hour DST
    /// (Troll), negative DST (Dublin), and UTC.
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "Pacific/Chatham",
        "America/Sao_Paulo", "Europe/Moscow", "Asia/Tehran", "America/St_Johns", "Africa/Casablanca",
        "Antarctica/Troll", "Europe/Dublin", "UTC",
    ]

    /// 1900-01-01T00:00:00Z and 2100-12-31T23:59:59Z.
    static let from1900 = -2_208_988_800
    static let through2100 = 4_133_980_799

    /// 2101-01-01T00:00:00Z and 2399-12-31T23:59:59Z.
    static let from2101 = 4_133_980_800
    static let through2399 = 13_569_465_599

    /// Deterministic instants spread over 1900…2100 (or another span).
    static func instants(count: Int, seed: UInt64, from: Int = from1900, through: Int = through2100) -> [Int] {
        var generator = SplitMix64(seed: seed)
        let span = UInt64(through - from)
        return (0..<count).map { _ in from + Int(generator.next() % span) }
    }

    /// Each transition of `rules` in 1900…2100 (or another span) with the seconds around it.
    static func instantsAroundTransitions(of rules: ZoneRules, from: Int = from1900, through: Int = through2100)
        -> [Int]
    {
        rules.transitions(from: from, to: through).flatMap { transition in
            [transition.instant - 3601, transition.instant - 1, transition.instant, transition.instant + 1]
        }
    }

    /// Wall clocks around each transition in 1900…2100 (or another span): just before, inside
    /// and just after each gap or overlap, from both offsets' points of view.
    static func wallClocksAroundTransitions(
        of rules: ZoneRules, from: Int = from1900, through: Int = through2100
    ) -> [CivilDateTime] {
        rules.transitions(from: from, to: through).flatMap { transition -> [CivilDateTime] in
            let before = transition.instant + transition.offsetBefore.seconds
            let after = transition.instant + transition.offsetAfter.seconds
            let low = min(before, after)
            let high = max(before, after)
            return [low - 1, low, (low + high) / 2, high - 1, high, high + 1].map(
                CivilDateTime.init(secondsSinceEpoch:))
        }
    }

    static func zone(_ identifier: String) throws -> ZoneRules {
        try #require(TimeZoneDatabase.zone(named: identifier), "\(identifier) is not in \(TimeZoneDatabase.directory)")
    }
}
