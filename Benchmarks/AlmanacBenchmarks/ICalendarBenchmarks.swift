import CMallocCounter
import Foundation
import ICalendar

/// Parse and serialize throughput of the iCalendar codec against libical (issue 2).
enum ICalendarBenchmarks {
    static func run(events: Int, iterations: Int) {
        let url = Corpus.file(events: events)
        let bytes = [UInt8](try! Data(contentsOf: url))
        let megabytes = Double(bytes.count) / 1_000_000
        let context: [String: Any] = ["events": events, "bytes": bytes.count, "iterations": iterations]
        let document = try! ICalendarParser.parse(bytes)
        let components = document.components.reduce(0) { $0 + $1.componentCount }

        // Rounds alternate our three phases with one run of the libical harness, so each
        // ratio compares figures taken moments apart on this (noisy, shared) machine.
        var ours: [[Double]] = [[], [], []]
        var peers: [[Double]] = [[], [], []]
        var version = "?"
        for _ in 0..<iterations {
            ours[0].append(medianSeconds(iterations: 1) { try! ICalendarParser.parse(bytes) })
            ours[1].append(medianSeconds(iterations: 1) { document.serialized() })
            ours[2].append(
                medianSeconds(iterations: 1) {
                    let parsed = try! ICalendarParser.parse(bytes)
                    return (parsed, parsed.serialized())
                })
            if let peer = LibICal.run(["parse", url.path, "1"]),
                let parse = peer["parse_seconds"] as? Double, let serialize = peer["serialize_seconds"] as? Double,
                let roundTrip = peer["roundtrip_seconds"] as? Double
            {
                peers[0].append(parse)
                peers[1].append(serialize)
                peers[2].append(roundTrip)
                version = "\(peer["version"] ?? "?")"
            }
        }
        let names = ["parse", "serialize", "parse+serialize"]
        func milliseconds(_ values: [Double]) -> String { values.map { String(Int($0 * 1000)) }.joined(separator: " ") }
        for (index, name) in names.enumerated() {
            Report.note(
                "\(name) ms per round: almanac \(milliseconds(ours[index])); libical \(milliseconds(peers[index]))")
        }
        for (index, name) in names.enumerated() {
            Report.figure("icalendar.\(name)", megabytes / median(ours[index]), unit: "MB/s", context)
        }

        let before = almanac_allocation_count()
        let parsed = try! ICalendarParser.parse(bytes)
        let allocations = almanac_allocation_count() - before
        withExtendedLifetime(parsed) {}
        if almanac_allocation_counting_supported() != 0 {
            Report.figure(
                "icalendar.parse.allocations-per-component", Double(allocations) / Double(components),
                unit: "allocations", context.merging(["components": components]) { a, _ in a })
        }
        Report.note(
            "output \(document.serialized().count) bytes for \(bytes.count) input bytes, \(components) components")

        guard peers[2].count == iterations else { return }
        let peerContext = context.merging(["peer": "libical \(version)"]) { a, _ in a }
        for (index, name) in names.enumerated() {
            Report.figure("libical.\(name)", megabytes / median(peers[index]), unit: "MB/s", peerContext)
        }
        for (index, name) in names.enumerated() {
            let ratios = zip(peers[index], ours[index]).map { $0 / $1 }
            var extra = peerContext.merging(["min": ratios.min()!, "max": ratios.max()!]) { a, _ in a }
            if name == "parse+serialize" { extra["goal"] = 5 }
            Report.figure("ratio.\(name).vs-libical", median(ratios), unit: "x", extra)
        }
    }

    /// Our parse or serialize alone, round after round, to profile one side and to
    /// see this machine's noise without a peer in between.
    static func alone(serializing: Bool, events: Int, iterations: Int) {
        let bytes = [UInt8](try! Data(contentsOf: Corpus.file(events: events)))
        let document = try! ICalendarParser.parse(bytes)
        var times: [Double] = []
        for _ in 0..<iterations {
            times.append(
                serializing
                    ? medianSeconds(iterations: 1) { document.serialized() }
                    : medianSeconds(iterations: 1) { try! ICalendarParser.parse(bytes) })
        }
        let name = serializing ? "serialize" : "parse"
        Report.note("\(name) ms per round: " + times.map { String(Int($0 * 1000)) }.joined(separator: " "))
        Report.figure(
            "icalendar.\(name)", Double(bytes.count) / 1_000_000 / median(times), unit: "MB/s", ["events": events])
    }
}
