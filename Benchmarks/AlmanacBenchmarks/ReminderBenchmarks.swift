import Accounts
import CalendarStore
import CivilTime
import Foundation
import HTTPServer
import HTTPTypes
import ICalendar
import JSON
import Outbound
import Push
import Reminders
import Synchronization
import Webhooks

/// Alarms as a backend hears them: `--alarms N` one-off events, each with one alarm,
/// due evenly over `--alarm-seconds S` (100,000 over an hour by default), in 100
/// calendars of 10 users, each user with an `alarm.due` webhook to a libmicrohttpd
/// receiver on 127.0.0.1. The real scheduler and dispatcher run on the real clock; the
/// figure is the delay from each alarm's trigger instant to the receiver reading its
/// webhook, p50 and p99, and how many arrived. `--postgres` runs it on PostgreSQL too,
/// at the same time.
///
/// Push: messages a second from the WebDAV-Push sender to a loopback receiver (each
/// encrypted per RFC 8291 with a fresh key and signed with a VAPID JWT), beside the
/// rate of the encryption and signing alone on one core (its CPU bound).
enum ReminderBenchmarks {
    /// Receipt delay (ms) of each alarm webhook, from its trigger instant.
    final class Receiver: LoopbackReceiver, @unchecked Sendable {
        let delays = Mutex([Int]())
        private(set) var server: HTTPServer!

        init() { server = listen() }

        var url: String { "http://127.0.0.1:\(server.port)/hook" }

        func receive(_ request: HTTPRequest) -> HTTPResponse {
            let now = Int(Date().timeIntervalSince1970 * 1_000)
            if let json = try? JSONValue(parsing: request.body), let trigger = json["alarm"]?["trigger"],
                case .string(let text) = trigger, let date = ISO8601DateFormatter().date(from: text)
            {
                let delay = now - Int(date.timeIntervalSince1970 * 1_000)
                delays.withLock { $0.append(delay) }
            }
            return HTTPResponse(status: 204)
        }

        var count: Int { delays.withLock { $0.count } }
    }

    static func run(alarms: Int, seconds: Int, postgres: BenchPostgres?) {
        // The two stores run side by side, each with its own scheduler, dispatcher and
        // receiver, so the hour-long default takes an hour (together twice the rate).
        let done = DispatchGroup()
        if let postgres {
            let url = postgres.freshDatabase("alarms_\(alarms)")
            DispatchQueue.global().async(group: done) {
                scheduler(
                    alarms: alarms, seconds: seconds, backend: try! DatabaseBackend(postgresURL: url),
                    store: "postgres", alongside: "sqlite")
            }
        }
        scheduler(
            alarms: alarms, seconds: seconds, backend: sqliteBackend(), store: "sqlite",
            alongside: postgres == nil ? nil : "postgres")
        done.wait()
        push(messages: 2_000)
    }

    static func sqliteBackend() -> DatabaseBackend {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("almanac-alarms-\(UUID())")
        return try! DatabaseBackend(directory: directory.path)
    }

    static func stamp(_ seconds: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func object(uid: String, fireAt: Int) -> [UInt8] {
        // The alarm fires 10 minutes before the start.
        let text = """
            BEGIN:VCALENDAR\r
            VERSION:2.0\r
            PRODID:-//Almanac//Bench//EN\r
            BEGIN:VEVENT\r
            UID:\(uid)\r
            DTSTAMP:20261201T000000Z\r
            DTSTART:\(stamp(fireAt + 600))\r
            DURATION:PT30M\r
            SUMMARY:Session\r
            BEGIN:VALARM\r
            ACTION:DISPLAY\r
            DESCRIPTION:Soon\r
            TRIGGER:-PT10M\r
            END:VALARM\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        return Array(text.utf8)
    }

    static func scheduler(alarms: Int, seconds: Int, backend: DatabaseBackend, store name: String, alongside: String?) {
        let receiver = Receiver()
        let users = 10
        let calendarsPerUser = 10
        var calendars: [(store: any EventStore, id: String)] = []
        for user in 0..<users {
            try! backend.createUser(named: "u\(user)", displayName: nil, passwordHash: nil)
            let store = try! backend.eventStore(for: "u\(user)")
            _ = try! backend.webhooks.createWebhook(
                Webhook(id: Webhook.newIdentifier(), user: "u\(user)", url: receiver.url, events: [.alarmDue]),
                secret: Webhook.newSecret())
            for number in 0..<calendarsPerUser {
                calendars.append((store, try! store.createCalendar(EventCalendar(title: "C\(number)")).id))
            }
        }
        // Time the import of one calendar's share, then put the first alarm safely after
        // the whole import (so none is late before the scheduler even starts).
        let share = (alarms + calendars.count - 1) / calendars.count
        let probe = Date()
        _ = try! calendars[0].store.importResources(
            (0..<share).map { object(uid: "probe-\($0)", fireAt: 2_000_000_000 + $0) }, calendar: calendars[0].id)
        let perCalendar = Date().timeIntervalSince(probe)
        let first = Int(Date().timeIntervalSince1970) + Int(perCalendar * Double(calendars.count) * 1.5) + 20
        for (index, calendar) in calendars.enumerated() {
            let numbers = stride(from: index, to: alarms, by: calendars.count)
            _ = try! calendar.store.importResources(
                numbers.map { object(uid: "a-\($0)", fireAt: first + $0 * seconds / alarms) }, calendar: calendar.id)
        }
        Report.note(
            "alarms (\(name)): \(alarms) imported; the first fires in \(first - Int(Date().timeIntervalSince1970)) s")
        var webhooks = WebhookDispatcher.Configuration()
        webhooks.http.policy = OutboundPolicy(allowsPrivateAddresses: true)
        let dispatcher = WebhookDispatcher(store: backend.webhooks, configuration: webhooks)
        let scheduler = AlarmScheduler(
            store: backend.reminders, configuration: AlarmScheduler.Configuration(),
            now: { Int(Date().timeIntervalSince1970) })
        dispatcher.start()
        scheduler.start()
        // Every alarm's time, then up to a minute for the last deliveries.
        let end = Date(timeIntervalSince1970: TimeInterval(first + seconds + 60))
        while receiver.count < alarms, Date() < end { usleep(100_000) }
        scheduler.stop()
        dispatcher.stop()
        let delays = receiver.delays.withLock { $0 }.sorted()
        guard !delays.isEmpty else {
            Report.note("alarms (\(name)): nothing arrived")
            return
        }
        Report.figure(
            "alarms.trigger_to_webhook.\(name)", Double(delays[delays.count / 2]), unit: "ms (p50)",
            [
                "p99": delays[delays.count * 99 / 100], "max": delays.last ?? 0, "received": delays.count,
                "alarms": alarms, "seconds": seconds,
                "rate_vs_hourly_goal": (Double(alarms) / Double(seconds)) / (100_000.0 / 3_600),
                "note": "real scheduler, webhook dispatcher and receiver on loopback, wall clock"
                    + (alongside.map { ", while the same ran on \($0)" } ?? ""),
            ])
    }

    /// A receiver that counts what it is sent.
    final class Counter: LoopbackReceiver, @unchecked Sendable {
        let count = Atomic(0)
        private(set) var server: HTTPServer!

        init() { server = listen() }

        func receive(_ request: HTTPRequest) -> HTTPResponse {
            count.add(1, ordering: .relaxed)
            return HTTPResponse(status: 201)
        }
    }

    static func push(messages: Int) {
        let backend = sqliteBackend()
        let counter = Counter()
        let keys = try! PushKeys.load(from: backend.push)
        // Subscriptions' keys: one user agent key pair serves them all. Users of at most
        // their limit of subscriptions each, all on one calendar of their own.
        let agent = try! P256KeyMaterial.generate()
        let agentPoint = Base64URL.decode(Substring(agent.publicKey)) ?? []
        var calendars: [(store: any EventStore, id: String)] = []
        for number in 0..<messages {
            if number % PushLimits.perUser == 0 {
                let user = "bench\(calendars.count)"
                try! backend.createUser(named: user, displayName: nil, passwordHash: nil)
                let store = try! backend.eventStore(for: user)
                calendars.append((store, try! store.createCalendar(EventCalendar(title: "Pushed")).id))
            }
            _ = try! backend.push.register(
                PushSubscription(
                    pushResource: "http://127.0.0.1:\(counter.server.port)/push/\(number)", publicKey: agent.publicKey,
                    authSecret: "BTBZMqHH6r4Tts7J_aSIgg", expires: Int(Date().timeIntervalSince1970) + 3_600),
                user: "bench\(calendars.count - 1)", calendar: calendars[calendars.count - 1].id)
        }
        // The CPU bound: encryption and signing alone, on this thread.
        let vapid = VAPID(key: keys.vapid, subject: nil)
        let body = PushMessage.body(
            topic: "rBf03zuJG2YWZQs2z8lCog", syncToken: "almanac-sync:x:1", propertiesChanged: false)
        let secret = Array(repeating: UInt8(7), count: 16)
        let cryptoStart = Date()
        for _ in 0..<messages {
            _ = try! WebPushEncryption.encrypt(body, userAgentKey: agentPoint, authSecret: secret)
            _ = try! vapid.authorization(for: "http://127.0.0.1:1/push", now: 1_800_000_000)
        }
        let cryptoRate = Double(messages) / Date().timeIntervalSince(cryptoStart)

        // One change to each calendar: a message for every subscription, sent by the two workers.
        var configuration = PushDispatcher.Configuration()
        configuration.http.policy = OutboundPolicy(allowsPrivateAddresses: true)
        configuration.perUser = configuration.workers
        let dispatcher = PushDispatcher(store: backend.push, keys: keys, configuration: configuration)
        for calendar in calendars {
            _ = try! calendar.store.save(
                Event(
                    title: "Change", start: DateTimeValue(CivilDateTime(secondsSinceEpoch: 1_796_720_400), form: .utc),
                    calendarIdentifier: calendar.id))
        }
        usleep(UInt32(PushLimits.coalescing) * 1_000)
        let started = Date()
        dispatcher.start()
        while counter.count.load(ordering: .relaxed) < messages { usleep(1_000) }
        let seconds = Date().timeIntervalSince(started)
        dispatcher.stop()
        let rate = Double(messages) / seconds
        Report.figure(
            "push.messages_per_second", rate, unit: "messages/s",
            [
                "messages": messages, "workers": configuration.workers, "users": calendars.count,
                "crypto_only_per_second_one_core": cryptoRate.rounded(),
                "ratio_to_crypto_bound": (rate / cryptoRate * 1000).rounded() / 1000,
                "note": "aes128gcm + VAPID ES256 per message, SQLite queue, receiver on loopback",
            ])
    }
}
