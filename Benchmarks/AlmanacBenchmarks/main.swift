import Foundation

// Almanac benchmarks: one JSON line per figure on stdout, notes on stderr.
//
//   swift run -c release AlmanacBenchmarks [--events N] [--iterations K] [SUITE...]
//
// Suites: icalendar, recurrence (default: all). Peers (libical) run in the same process
// invocation on the same generated file, and a ratio line follows each pair.

var events = 20_000
var iterations = 5
var suites: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--events": events = Int(arguments.popFirst() ?? "") ?? events
    case "--iterations": iterations = max(1, Int(arguments.popFirst() ?? "") ?? iterations)
    case "-h", "--help":
        print("usage: AlmanacBenchmarks [--events N] [--iterations K] [icalendar] [recurrence]")
        exit(0)
    default: suites.append(argument)
    }
}
let all = suites.isEmpty
if all || suites.contains("icalendar") { ICalendarBenchmarks.run(events: events, iterations: iterations) }
if all || suites.contains("recurrence") { RecurrenceBenchmarks.run(events: events, iterations: iterations) }
if suites.contains("expand-only") { RecurrenceBenchmarks.run(events: events, iterations: iterations, withPeers: false) }
if suites.contains("parse-only") { ICalendarBenchmarks.parseOnly(events: events, iterations: iterations) }
