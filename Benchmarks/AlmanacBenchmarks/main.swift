import Foundation

// Almanac benchmarks: one JSON line per figure on stdout, notes on stderr.
//
//   swift run -c release AlmanacBenchmarks [--events N] [--iterations K] [SUITE...]
//
// Suites: icalendar, recurrence, store, server (default: icalendar and recurrence;
// store is large: --calendars N of --calendar-events M events, default 100 x 10,000;
// server runs almanac serve and Radicale on --events events, one .ics per UID, timing
// PUTs over the first --put-sample; --without-peer skips Radicale; --postgres also runs
// store and server on a throwaway PostgreSQL cluster, and one server process against two; api times the JSON
// API's availability over 10 x 10,000 events and occurrences among 100 x 10,000). Peers (libical) run in the same process
// invocation on the same generated file, and a ratio line follows each pair.
// load keeps --connections N (default 64) keep-alive connections busy with a mix of
// CalDAV requests for --seconds S (default 60) on a calendar of --events events
// (default 2,000 for this suite); --postgres runs it on PostgreSQL too.
// webhooks times delivery from the outbox to a receiver on loopback: latency from commit
// to receipt, and deliveries a second over 8 calendars and over one. bookings times a
// booking type's slot search over 90 days of 10 calendars of 10,000 events, and bookings
// a second from 16 concurrent bookers over loopback. alarms times the delay from each
// alarm's trigger to its alarm.due webhook with --alarms N (default 100,000) due over
// --alarm-seconds S (default 3,600; --postgres on PostgreSQL at the same time), then
// WebDAV-Push messages a second.

var events = 20_000
var eventsGiven: Int?
var iterations = 5
var calendars = 100
var calendarEvents = 10_000
var queries = 1_000
var reuse = false
var putSample = 2_000
var withPeer = true
var withPostgres = false
var connections = 64
var loadSeconds = 60.0
var alarmCount = 100_000
var alarmSeconds = 3_600
var suites: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--events":
        events = Int(arguments.popFirst() ?? "") ?? events
        eventsGiven = events
    case "--iterations": iterations = max(1, Int(arguments.popFirst() ?? "") ?? iterations)
    case "--calendars": calendars = max(1, Int(arguments.popFirst() ?? "") ?? calendars)
    case "--calendar-events": calendarEvents = max(1, Int(arguments.popFirst() ?? "") ?? calendarEvents)
    case "--reuse-store": reuse = true
    case "--put-sample": putSample = max(1, Int(arguments.popFirst() ?? "") ?? putSample)
    case "--without-peer": withPeer = false
    case "--postgres": withPostgres = true
    case "--server-threads": Server.threads = Int(arguments.popFirst() ?? "").map { max(0, $0) }
    case "--queries": queries = max(1, Int(arguments.popFirst() ?? "") ?? queries)
    case "--connections": connections = max(1, Int(arguments.popFirst() ?? "") ?? connections)
    case "--seconds": loadSeconds = max(1, Double(arguments.popFirst() ?? "") ?? loadSeconds)
    case "--alarms": alarmCount = max(1, Int(arguments.popFirst() ?? "") ?? alarmCount)
    case "--alarm-seconds": alarmSeconds = max(1, Int(arguments.popFirst() ?? "") ?? alarmSeconds)
    case "-h", "--help":
        print(
            "usage: AlmanacBenchmarks [--events N] [--iterations K] [--calendars N] [--calendar-events M] [--queries Q] [--reuse-store] [--put-sample N] [--without-peer] [--postgres] [--server-threads N] [--connections N] [--seconds S] [--alarms N] [--alarm-seconds S] [icalendar] [recurrence] [cli] [store] [server] [load] [api] [webhooks] [bookings] [alarms] [push]"
        )
        exit(0)
    default: suites.append(argument)
    }
}
let all = suites.isEmpty
if all || suites.contains("icalendar") { ICalendarBenchmarks.run(events: events, iterations: iterations) }
if all || suites.contains("recurrence") { RecurrenceBenchmarks.run(events: events, iterations: iterations) }
if all || suites.contains("cli") { CLIBenchmarks.run(events: events, iterations: iterations) }
let postgres =
    withPostgres
        && (suites.contains("server") || suites.contains("store") || suites.contains("load")
            || suites.contains("alarms"))
    ? BenchPostgres() : nil
if suites.contains("server") {
    ServerBenchmarks.run(events: events, putSample: putSample, withPeer: withPeer, postgres: postgres)
}
if suites.contains("load") {
    LoadBenchmarks.run(events: eventsGiven ?? 2_000, connections: connections, seconds: loadSeconds, postgres: postgres)
}
if suites.contains("webhooks") { WebhookBenchmarks.run() }
if suites.contains("alarms") { ReminderBenchmarks.run(alarms: alarmCount, seconds: alarmSeconds, postgres: postgres) }
if suites.contains("push") { ReminderBenchmarks.push(messages: 2_000) }
if suites.contains("bookings") { BookingBenchmarks.run(samples: queries == 1_000 ? 200 : queries) }
if suites.contains("api") { APIBenchmarks.run(samples: queries == 1_000 ? 200 : queries) }
if suites.contains("store") {
    StoreBenchmarks.run(calendars: calendars, eventsPerCalendar: calendarEvents, queries: queries, reuse: reuse)
    if let postgres {
        let database = postgres.freshDatabase("store_\(calendars)x\(calendarEvents)")
        StoreBenchmarks.run(
            calendars: calendars, eventsPerCalendar: calendarEvents, queries: queries, reuse: false,
            postgres: (postgres, database))
    }
}
if suites.contains("expand-only") { RecurrenceBenchmarks.run(events: events, iterations: iterations, withPeers: false) }
if suites.contains("parse-only") {
    ICalendarBenchmarks.alone(serializing: false, events: events, iterations: iterations)
}
if suites.contains("serialize-only") {
    ICalendarBenchmarks.alone(serializing: true, events: events, iterations: iterations)
}
postgres?.stop()
