// The child process of CalendarStoreTests' crash test.
//
//   StoreCrashWorker DATA_DIR SEED COUNT
//
// Imports and updates COUNT events in one calendar of the store in DATA_DIR,
// one acknowledged write at a time, and after each write returns prints
// `ack NAME ETAG` on standard output. The test kills it with SIGKILL at random
// moments and checks that every acknowledged write survived.
import CalendarStore

#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 4, let seed = UInt64(arguments[2]), let count = Int(arguments[3]) else {
    emit("usage: StoreCrashWorker DATA_DIR SEED COUNT", to: 2)
    exit(2)
}

/// Writes a line straight to a file descriptor (no buffering: an ack printed is an ack seen).
func emit(_ line: String, to descriptor: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

do {
    let backend = try DatabaseBackend(directory: arguments[1])
    if (try? backend.user(named: "crash")) == nil { try backend.createUser(named: "crash") }
    let store = try backend.eventStore(for: "crash")
    guard let calendar = try store.calendar(titled: "Crash", createIfMissing: true) else { exit(1) }
    var state = seed
    func random(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    for step in 0..<count {
        // Mostly new events, sometimes a rewrite of an earlier one, sometimes a batch in one transaction.
        let index = step > 10 && random(4) == 0 ? random(step) : step
        let name = "event-\(seed)-\(index).ics"
        let day = 1 + random(28)
        let text = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Crash//EN", "BEGIN:VEVENT",
            "UID:crash-\(seed)-\(index)", "DTSTAMP:20261101T000000Z",
            "DTSTART;TZID=Europe/Berlin:202612\(day < 10 ? "0" : "")\(day)T090000",
            "DURATION:PT1H", "SUMMARY:Write \(step) of \(index)",
            index % 7 == 0 ? "RRULE:FREQ=WEEKLY;COUNT=10" : "X-STEP:\(step)",
            "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let etag = try store.putResource(
            Array(text.utf8), name: name, calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
        emit("ack \(name) \(etag)")
    }
    emit("done")
} catch {
    emit("StoreCrashWorker: \(error)", to: 2)
    exit(1)
}
