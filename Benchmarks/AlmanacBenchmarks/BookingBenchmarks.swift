import Accounts
import AlmanacServer
import CalendarStore
import Foundation
import HTTPServer
import HTTPTypes
import ICalendar
import JSON
import Synchronization

/// Bookings as an app's backend uses them, over the benchmark store of 10 calendars of
/// 10,000 events (recurring series, overrides, all-day and multi-day events):
/// - slot search: `GET /api/v1/booking-types/{id}/slots` over a random 90-day window,
///   the type following a stored schedule (Mon-Fri 09:00-17:00 in Berlin) with every
///   calendar's busy time, buffers and a step, in process through the server's routes.
///   All-day events are free for this type (`"allDay": "free"`): the corpus has an
///   opaque all-day event on nearly every day of every calendar, which would leave no
///   slot at all (the figure would time an empty answer);
/// - booking throughput: 16 bookers on keep-alive connections to `almanac serve`'s
///   server on 127.0.0.1, each booking its own slots (`POST /api/v1/bookings`: the
///   transaction that locks the calendar, re-reads the busy time and writes the event),
///   then 16 racing for the same slots (one wins each, the others get 409).
enum BookingBenchmarks {
    static func run(samples: Int) {
        let source = StoreBenchmarks.ensure(calendars: 10, eventsPerCalendar: 10_000)
        // A copy: the booking type and the bookings stay out of the shared benchmark store.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "almanac-bench-bookings-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try! FileManager.default.copyItem(at: source, to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The corpus spans 2024-2027; "now" is its start, so every window is bookable.
        let now = 1_704_067_200
        let backend = try! DatabaseBackend(directory: directory.path)
        let (id, secret) = APITokenSecret.generate()
        try! backend.appState.createAccessToken(
            AccessToken(id: id, user: "bench", name: "benchmark", scope: .readWrite, created: now),
            secretHash: APITokenSecret.hash(secret))
        let calendars = try! backend.eventStore(for: "bench").calendars()
        let server = AlmanacServer(
            backend: backend, configuration: ServerConfiguration(port: 0, accessLog: false), apiRateLimit: 0,
            now: { now })
        let authorization = "Bearer " + secret
        func call(_ method: String, _ path: String, _ body: String) -> HTTPResponse {
            server.respond(
                to: HTTPRequest(
                    method: method, path: path,
                    headers: ["Authorization": authorization, "Content-Type": "application/json"],
                    body: Array(body.utf8)))
        }
        precondition(
            call(
                "POST", "/api/v1/availability-schedules",
                #"{"title": "Studio", "timeZone": "Europe/Berlin", "hours": "Mon-Fri 09:00-17:00"}"#
            ).status == 201)
        func makeType(_ body: String) -> String {
            let made = call("POST", "/api/v1/booking-types", body)
            guard case .object(let members) = try? JSONValue(parsing: made.body),
                case .string(let type)? = members.first(where: { $0.key == "id" })?.value
            else { fatalError("no booking type: \(String(decoding: made.body, as: UTF8.self))") }
            return type
        }
        // Every calendar's busy time: the corpus (about 20 events a day in each calendar)
        // leaves no free hour across all ten, so this times the whole busy-time work with an
        // empty answer; the same search over the booking calendar alone answers slots.
        let everyCalendar = makeType(
            #"{"title": "Training", "durations": [60], "calendar": "\#(calendars[0].id)", "step": 30, "bufferBefore": 10, "bufferAfter": 10, "allDay": "free"}"#
        )
        let oneCalendar = makeType(
            #"{"title": "Quick", "durations": [30], "calendar": "\#(calendars[0].id)", "busyCalendars": [], "step": 15, "allDay": "free"}"#
        )
        for (label, type, count) in [
            ("bookings.slots_90_days", everyCalendar, calendars.count),
            ("bookings.slots_90_days_one_calendar", oneCalendar, 1),
        ] {
            // A running server has read its series once: warm the cache over the corpus's years first.
            for year in 2024...2027 {
                _ = server.respond(
                    to: HTTPRequest(
                        method: "GET", path: "/api/v1/booking-types/\(type)/slots",
                        query: "from=\(year)-01-01&to=\(year)-12-31", headers: ["Authorization": authorization]))
            }
            APIBenchmarks.time(
                label, samples: samples,
                ["calendars": count, "events": count * 10_000, "stored_events": 100_000],
                { generator in
                    let (from, to) = APIBenchmarks.randomDay(&generator, spanDays: 90)
                    return HTTPRequest(
                        method: "GET", path: "/api/v1/booking-types/\(type)/slots",
                        query: "from=\(from)&to=\(to)&tz=Europe/Berlin", headers: ["Authorization": authorization])
                }, server: server)
        }
        throughput(server: server, type: oneCalendar, authorization: authorization, now: now)
    }

    /// 16 bookers over loopback: own slots, then the same slots.
    static func throughput(server: AlmanacServer, type: String, authorization: String, now: Int) {
        try! server.start()
        defer { server.stop(gracePeriod: 2) }
        let bookers = 16
        let perBooker = 25
        // Free slots of the corpus's years, spaced so that no two bookings' buffers touch:
        // each booker gets slots of its own, and a second set is raced for.
        let formatter = ISO8601DateFormatter()
        var starts: [String] = []
        var lastEnd = Int.min
        for year in 2024...2027 {
            let answer = server.respond(
                to: HTTPRequest(
                    method: "GET", path: "/api/v1/booking-types/\(type)/slots",
                    query: "from=\(year)-01-01&to=\(year)-12-31",
                    headers: ["Authorization": authorization]))
            guard case .object(let members) = try? JSONValue(parsing: answer.body),
                case .array(let listed)? = members.first(where: { $0.key == "slots" })?.value
            else { fatalError("no slots") }
            for slot in listed {
                guard case .object(let fields) = slot,
                    case .string(let text)? = fields.first(where: { $0.key == "start" })?.value,
                    let date = formatter.date(from: text)
                else { continue }
                let start = Int(date.timeIntervalSince1970)
                if start >= lastEnd {
                    starts.append(text)
                    lastEnd = start + 1_800
                }
            }
        }
        Report.note("\(starts.count) spaced free slots in 2024-2027")
        precondition(starts.count >= bookers * perBooker + perBooker, "only \(starts.count) spaced free slots")
        @Sendable func request(_ start: String, _ email: String) -> [UInt8] {
            let body = Array(
                #"{"bookingType": "\#(type)", "start": "\#(start)", "name": "Bench", "email": "\#(email)@example.com"}"#
                    .utf8)
            var bytes = Array(
                "POST /api/v1/bookings HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(authorization)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                    .utf8)
            bytes += body
            return bytes
        }
        func race(_ label: String, slots: @Sendable (Int, Int) -> String?, expect: ([Int: Int]) -> Bool) {
            let statuses = Mutex<[Int: Int]>([:])
            let clock = ContinuousClock()
            let start = clock.now
            DispatchQueue.concurrentPerform(iterations: bookers) { booker in
                let connection = LoadConnection(port: server.port)
                var seen: [Int: Int] = [:]
                for index in 0..<perBooker {
                    guard let slot = slots(booker, index) else { break }
                    seen[connection.exchange(request(slot, "\(label)-\(booker)-\(index)")), default: 0] += 1
                }
                statuses.withLock { all in for (status, count) in seen { all[status, default: 0] += count } }
            }
            let elapsed = clock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let counted = statuses.withLock { $0 }
            let total = counted.values.reduce(0, +)
            precondition(expect(counted), "\(label): \(counted)")
            Report.figure(
                "bookings.\(label)", Double(total) / seconds, unit: "requests/s",
                [
                    "bookers": bookers, "requests": total, "created": counted[201] ?? 0,
                    "refused_409": counted[409] ?? 0,
                    "seconds": (seconds * 1000).rounded() / 1000, "transport": "loopback HTTP/1.1 keep-alive",
                ])
        }
        // Each booker its own slots: every request books.
        let own = starts
        race(
            "throughput_16_own_slots", slots: { booker, index in own[booker * perBooker + index] },
            expect: { $0 == [201: bookers * perBooker] })
        // All 16 on the same slots: one booking each, 15 refusals.
        let shared = Array(starts[(bookers * perBooker)..<(bookers * perBooker + perBooker)])
        race(
            "throughput_16_same_slots", slots: { _, index in shared[index] },
            expect: { $0 == [201: perBooker, 409: perBooker * (bookers - 1)] })
    }
}
