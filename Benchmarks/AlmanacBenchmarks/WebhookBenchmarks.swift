import CalendarStore
import CivilTime
import Foundation
import HTTPServer
import HTTPTypes
import ICalendar
import JSON
import Outbound
import Synchronization
import Webhooks

/// Webhook delivery as a receiver sees it: a real dispatcher (libcurl, the SQLite store's
/// outbox, its transactions) posting to a libmicrohttpd receiver on 127.0.0.1.
/// - latency: one change at a time; from the change's commit (its `occurredAt`, stamped
///   in the write's transaction) to the receiver reading the request, p50 and p99;
/// - throughput: an outbox of changes written while no dispatcher ran, then drained by
///   one with the default four workers: deliveries a second, over 8 calendars (4 at a
///   time) and over one calendar (strictly one after another, as order requires).
enum WebhookBenchmarks {
    /// Receipt times (Unix ms) by delivery id, and each delivery's `occurredAt`.
    final class Receiver: LoopbackReceiver, @unchecked Sendable {
        struct Arrival {
            var occurred: Int
            var received: Int
        }
        let arrivals = Mutex([String: Arrival]())
        private(set) var server: HTTPServer!

        init() { server = listen() }

        var url: String { "http://127.0.0.1:\(server.port)/hook" }

        func receive(_ request: HTTPRequest) -> HTTPResponse {
            let now = Int(Date().timeIntervalSince1970 * 1_000)
            guard case .object(let members) = try? JSONValue(parsing: request.body),
                case .string(let id)? = members.first(where: { $0.key == "id" })?.value,
                case .string(let occurred)? = members.first(where: { $0.key == "occurredAt" })?.value
            else { return HTTPResponse(status: 400) }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let at = formatter.date(from: occurred).map { Int($0.timeIntervalSince1970 * 1_000) } ?? now
            arrivals.withLock { $0[id] = Arrival(occurred: at, received: now) }
            return HTTPResponse(status: 204)
        }

        var count: Int { arrivals.withLock { $0.count } }

        func wait(for count: Int) {
            while self.count < count { usleep(1_000) }
        }
    }

    static func run() {
        latency(changes: 1_000)
        throughput(changes: 10_000, calendars: 8)
        throughput(changes: 5_000, calendars: 1)
    }

    static func store() -> (DatabaseBackend, any EventStore, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("almanac-webhooks-\(UUID())")
        let backend = try! DatabaseBackend(directory: directory.path)
        try! backend.createUser(named: "bench", displayName: nil, passwordHash: nil)
        return (backend, try! backend.eventStore(for: "bench"), directory)
    }

    static func subscribe(_ backend: DatabaseBackend, _ receiver: Receiver) {
        _ = try! backend.webhooks.createWebhook(
            Webhook(id: Webhook.newIdentifier(), user: "bench", url: receiver.url, events: [.eventCreated]),
            secret: Webhook.newSecret())
    }

    static func dispatcher(_ backend: DatabaseBackend) -> WebhookDispatcher {
        var configuration = WebhookDispatcher.Configuration()
        configuration.http.policy = OutboundPolicy(allowsPrivateAddresses: true)
        return WebhookDispatcher(store: backend.webhooks, configuration: configuration)
    }

    static func event(_ number: Int, calendar: String) -> Event {
        Event(
            title: "Class \(number)",
            start: DateTimeValue(CivilDateTime(secondsSinceEpoch: 1_796_720_400 + number * 3_600), form: .utc),
            calendarIdentifier: calendar)
    }

    static func latency(changes: Int) {
        let (backend, store, directory) = store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let receiver = Receiver()
        subscribe(backend, receiver)
        let calendar = try! store.createCalendar(EventCalendar(title: "Trainings")).id
        let dispatcher = dispatcher(backend)
        dispatcher.start()
        defer { dispatcher.stop() }
        for number in 0..<changes {
            _ = try! store.save(event(number, calendar: calendar))
            receiver.wait(for: number + 1)
        }
        let latencies = receiver.arrivals.withLock { $0.values.map { Double($0.received - $0.occurred) } }.sorted()
        Report.figure(
            "webhooks.latency_commit_to_receipt", latencies[latencies.count / 2], unit: "ms (p50)",
            [
                "p99": latencies[latencies.count * 99 / 100], "max": latencies.last ?? 0, "changes": changes,
                "note": "one change at a time, SQLite, receiver on loopback",
            ])
    }

    static func throughput(changes: Int, calendars count: Int) {
        let (backend, store, directory) = store()
        defer { try? FileManager.default.removeItem(at: directory) }
        let receiver = Receiver()
        subscribe(backend, receiver)
        let calendars = (0..<count).map { try! store.createCalendar(EventCalendar(title: "C\($0)")).id }
        // The outbox fills while no dispatcher runs; imports write many changes a transaction.
        for (index, calendar) in calendars.enumerated() {
            let share = changes / count + (index < changes % count ? 1 : 0)
            var objects: [[UInt8]] = []
            for number in 0..<share {
                var component = event(number, calendar: calendar).component
                component.setProperty(Property(name: "UID", value: "bench-\(index)-\(number)"))
                component.setProperty(Property(name: "DTSTAMP", value: "20261201T000000Z"))
                objects.append(
                    Component(
                        name: "VCALENDAR",
                        properties: [
                            Property(name: "VERSION", value: "2.0"),
                            Property(name: "PRODID", value: "-//Almanac//Bench//EN"),
                        ], components: [component]
                    ).serialized())
            }
            _ = try! store.importResources(objects, calendar: calendar)
        }
        let dispatcher = dispatcher(backend)
        let started = Date()
        dispatcher.start()
        receiver.wait(for: changes)
        let seconds = Date().timeIntervalSince(started)
        dispatcher.stop()
        Report.figure(
            "webhooks.deliveries_per_second.\(count == 1 ? "one_calendar" : "\(count)_calendars")",
            Double(changes) / seconds, unit: "deliveries/s",
            ["changes": changes, "calendars": count, "workers": 4, "seconds": (seconds * 1000).rounded() / 1000])
    }
}
