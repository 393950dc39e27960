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

        // Parse: the tree is released after the clock stops, as the libical harness does.
        let parse = medianSeconds(iterations: iterations) { try! ICalendarParser.parse(bytes) }
        let document = try! ICalendarParser.parse(bytes)
        let components = document.components.reduce(0) { $0 + $1.componentCount }
        Report.figure("icalendar.parse", megabytes / parse, unit: "MB/s", context)

        let serialize = medianSeconds(iterations: iterations) { document.serialized() }
        Report.figure("icalendar.serialize", megabytes / serialize, unit: "MB/s", context)

        let roundTrip = medianSeconds(iterations: iterations) {
            let parsed = try! ICalendarParser.parse(bytes)
            return (parsed, parsed.serialized())
        }
        Report.figure("icalendar.parse+serialize", megabytes / roundTrip, unit: "MB/s", context)

        if almanac_allocation_counting_supported() != 0 {
            let before = almanac_allocation_count()
            let parsed = try! ICalendarParser.parse(bytes)
            let allocations = almanac_allocation_count() - before
            withExtendedLifetime(parsed) {}
            Report.figure(
                "icalendar.parse.allocations-per-component", Double(allocations) / Double(components),
                unit: "allocations", context.merging(["components": components]) { a, _ in a })
        }
        Report.note("output \(document.serialized().count) bytes for \(bytes.count) input bytes, \(components) components")

        guard let peer = LibICal.run(["parse", url.path, String(iterations)]),
            let peerParse = peer["parse_seconds"] as? Double, let peerSerialize = peer["serialize_seconds"] as? Double,
            let peerRoundTrip = peer["roundtrip_seconds"] as? Double
        else { return }
        let peerContext = context.merging(["peer": "libical \(peer["version"] ?? "?")"]) { a, _ in a }
        Report.figure("libical.parse", megabytes / peerParse, unit: "MB/s", peerContext)
        Report.figure("libical.serialize", megabytes / peerSerialize, unit: "MB/s", peerContext)
        Report.figure("libical.parse+serialize", megabytes / peerRoundTrip, unit: "MB/s", peerContext)
        Report.figure("ratio.parse.vs-libical", peerParse / parse, unit: "x", peerContext)
        Report.figure("ratio.serialize.vs-libical", peerSerialize / serialize, unit: "x", peerContext)
        Report.figure("ratio.parse+serialize.vs-libical", peerRoundTrip / roundTrip, unit: "x",
            peerContext.merging(["goal": 5]) { a, _ in a })
    }
}
