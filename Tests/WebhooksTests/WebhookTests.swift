import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import CivilTime
import Foundation
import HTTPTypes
import ICalendar
import Outbound
import Synchronization
import Testing
import Webhooks

/// Webhooks from the outbox: every change a user's calendars go through (CalDAV, the API)
/// reaches a real receiver on loopback once, in order per calendar, signed; failures are
/// retried, repeated ones pause, 410 disables; several dispatchers deliver each change
/// once; outbound requests never reach private addresses unless allowed.
@Suite struct WebhookTests {
    let server: TestServer
    let receiver: WebhookReceiver
    let api: APIClient

    init(_ setup: ServerSetup = .inProcess, webhooks: WebhookDispatcher.Configuration? = WebhookReceiver.fastDispatch())
        throws
    {
        server = try TestServer(setup, users: ["anna", "bob"], webhooks: webhooks)
        receiver = try WebhookReceiver()
        api = server.api("anna")
    }

    /// Registers the receiver for anna; returns the webhook's id and secret.
    func subscribe(_ extra: String = "") throws -> (id: String, secret: String) {
        let created = try api.call("POST", "/api/v1/webhooks", #"{"url": "\#(receiver.url)"\#(extra)}"#)
        #expect(created.status == 201, "\(created.text)")
        return (try #require(created["id"]?.stringValue), try #require(created["secret"]?.stringValue))
    }

    func webhook(_ id: String) throws -> APIAnswer { try api.get("/api/v1/webhooks/\(id)") }

    /// Waits until nothing is pending for the webhook and returns what the receiver has.
    func settled(_ id: String, state: String = "active") throws -> [ReceivedDelivery] {
        var last = try webhook(id)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, last["pending"]?.intValue != 0 || last["state"]?.stringValue != state {
            usleep(5_000)
            last = try webhook(id)
        }
        #expect(last["pending"]?.intValue == 0 && last["state"]?.stringValue == state, "\(last.text)")
        return receiver.delivered
    }

    func calendarSequence(_ id: String) throws -> Int {
        let etag = try #require(try api.get("/api/v1/calendars/\(id)")["etag"]?.stringValue)
        return try #require(Int(etag.split(separator: ":").last?.dropLast() ?? ""))
    }

    static func object(_ uid: String, _ summary: String, rule: String? = nil) -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Almanac tests//EN\r
        BEGIN:VEVENT\r
        UID:\(uid)\r
        DTSTAMP:20261201T000000Z\r
        DTSTART:20261207T170000Z\r
        DTEND:20261207T180000Z\r
        \(rule.map { "RRULE:\($0)\r\n" } ?? "")SUMMARY:\(summary)\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    @Test(arguments: ServerSetup.all) func everyChangeArrivesOnceInOrderAndSigned(_ setup: ServerSetup) throws {
        let test = try WebhookTests(setup)
        let (hook, secret) = try test.subscribe()
        let dav = test.server.dav("anna")
        var expected: [(type: String, sequence: Int?)] = []

        #expect(try dav.mkcalendar("/dav/calendars/anna/work/").status == 201)
        let calendars = try test.api.get("/api/v1/calendars")["calendars"]?.arrayValue ?? []
        let calendar = try #require(calendars.first?["id"]?.stringValue)
        expected.append(("calendar.created", nil))
        // A phone writes a series, then changes it.
        let path = "/dav/calendars/anna/work/class.ics"
        #expect(try dav.put(path, Self.object("class", "Spin", rule: "FREQ=DAILY;COUNT=5")).status == 201)
        expected.append(("event.created", try test.calendarSequence(calendar)))
        #expect(try dav.put(path, Self.object("class", "Spin class", rule: "FREQ=DAILY;COUNT=5")).status == 204)
        expected.append(("event.updated", try test.calendarSequence(calendar)))
        // The app edits it, removes one instance, and adds an event.
        let eventID = try #require(
            try test.api.get("/api/v1/calendars/\(calendar)/events")["events"]?[0]?["id"]?.stringValue)
        #expect(try test.api.call("PATCH", "/api/v1/events/\(eventID)", #"{"location": "Studio 2"}"#).status == 200)
        expected.append(("event.updated", try test.calendarSequence(calendar)))
        let removed = try test.api.call("DELETE", "/api/v1/occurrences/\(eventID)/2026-12-09T17:00:00Z?span=this")
        #expect(removed.status == 204, "\(removed.text)")
        expected.append(("event.deleted", try test.calendarSequence(calendar)))
        let made = try test.api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Yoga", "start": "2026-12-08T09:00:00Z"}"#)
        #expect(made.status == 201)
        expected.append(("event.created", try test.calendarSequence(calendar)))
        // Bob's writes are not anna's business.
        _ = try test.server.eventStore(for: "bob").createCalendar(EventCalendar(title: "Bob's"))
        #expect(try dav.delete(path).status == 204)
        expected.append(("event.deleted", try test.calendarSequence(calendar)))
        #expect(try test.api.call("PATCH", "/api/v1/calendars/\(calendar)", #"{"title": "Work"}"#).status == 200)
        expected.append(("calendar.updated", try test.calendarSequence(calendar)))

        let delivered = try test.settled(hook)
        #expect(test.receiver.received.count == expected.count, "each change once, nothing else")
        #expect(delivered.map(\.type) == expected.map(\.type))
        for (delivery, wanted) in zip(delivered, expected) {
            #expect(delivery.isSigned(with: secret), "\(delivery.headers)")
            #expect(delivery.calendar == calendar)
            if let sequence = wanted.sequence { #expect(delivery.sequence == sequence) }
            #expect(delivery.headers["Almanac-Delivery"] == delivery.id)
            #expect(delivery.headers["Almanac-Event"] == delivery.type)
            #expect(delivery.headers["Content-Type"] == "application/json")
        }
        #expect(Set(delivered.map(\.id)).count == delivered.count)
        let instance = delivered[4]
        #expect(instance.json["occurrence"]?["recurrenceId"]?.stringValue == "2026-12-09T17:00:00Z")
        #expect(instance.json["occurrence"]?["span"]?.stringValue == "this")
        #expect(instance.json["href"]?.stringValue == "/api/v1/events/\(eventID)")
        #expect(delivered[1].json["etag"]?.stringValue?.isEmpty == false)
        #expect(delivered[6].json["href"] == .null, "a deleted event has nothing to fetch")
        // The owner sees the attempts, newest first.
        let attempts = try test.webhook(hook)["recentAttempts"]?.arrayValue ?? []
        #expect(attempts.count == expected.count)
        #expect(attempts.first?["status"]?.intValue == 204)
        #expect(attempts.map { $0["delivery"]?.stringValue ?? "" } == delivered.reversed().map(\.id))
    }

    @Test func onlyTheChosenCalendarsAndTypesArrive() throws {
        let test = try WebhookTests()
        let store = try test.server.eventStore(for: "anna")
        let work = try store.createCalendar(EventCalendar(title: "Work")).id
        let home = try store.createCalendar(EventCalendar(title: "Home")).id
        let (hook, _) = try test.subscribe(#", "calendars": ["\#(work)"], "events": ["event.created"]"#)
        for calendar in [home, work, home, work] {
            #expect(
                try test.api.call(
                    "POST", "/api/v1/events",
                    #"{"calendarId": "\#(calendar)", "title": "X", "start": "2026-12-08T09:00:00Z"}"#
                ).status == 201)
        }
        let eventID = try #require(
            try test.api.get("/api/v1/calendars/\(work)/events")["events"]?[0]?["id"]?.stringValue)
        #expect(try test.api.call("PATCH", "/api/v1/events/\(eventID)", #"{"title": "Y"}"#).status == 200)
        let delivered = try test.settled(hook)
        #expect(delivered.map(\.type) == ["event.created", "event.created"])
        #expect(delivered.allSatisfy { $0.calendar == work })
        // Another user's calendar cannot be named.
        let bobs = try test.server.eventStore(for: "bob").createCalendar(EventCalendar(title: "Bob's")).id
        let refused = try test.api.call(
            "POST", "/api/v1/webhooks", #"{"url": "\#(test.receiver.url)", "calendars": ["\#(bobs)"]}"#)
        #expect(refused.status == 400)
    }

    @Test(arguments: ServerSetup.everyStore) func aReceiverThatFailsThenRecoversGetsEverythingInOrder(
        _ setup: ServerSetup
    ) throws {
        let test = try WebhookTests(setup)
        test.receiver.answer { $0 < 4 ? 500 : 200 }
        let (hook, secret) = try test.subscribe(#", "events": ["event.created"]"#)
        let calendar = try test.server.eventStore(for: "anna").createCalendar(EventCalendar(title: "Work")).id
        for title in ["one", "two", "three"] {
            #expect(
                try test.api.call(
                    "POST", "/api/v1/events",
                    #"{"calendarId": "\#(calendar)", "title": "\#(title)", "start": "2026-12-08T09:00:00Z"}"#
                ).status == 201)
        }
        let delivered = try test.settled(hook)
        #expect(delivered.map(\.sequence) == [1, 2, 3])
        #expect(delivered.allSatisfy { $0.isSigned(with: secret) })
        // Four failures first, all of the first delivery (order holds the others back).
        let received = test.receiver.received
        #expect(received.count == 7)
        #expect(received.prefix(5).allSatisfy { $0.id == delivered[0].id })
        #expect(received.prefix(5).map { $0.headers["Almanac-Attempt"] } == ["1", "2", "3", "4", "5"])
        let state = try test.webhook(hook)
        #expect(state["failures"]?.intValue == 0)
        let attempts = state["recentAttempts"]?.arrayValue ?? []
        #expect(attempts.last?["status"]?.intValue == 500)
        #expect(attempts.last?["error"]?.stringValue == "the endpoint answered 500")
        let deliveries = try test.api.get("/api/v1/webhooks/\(hook)/deliveries")["deliveries"]?.arrayValue ?? []
        #expect(deliveries.map { $0["attempts"]?.intValue } == [1, 1, 5])
        #expect(deliveries.allSatisfy { $0["state"]?.stringValue == "delivered" })
    }

    @Test func goneDisablesTheSubscription() throws {
        let test = try WebhookTests()
        test.receiver.answer { _ in 410 }
        let (hook, _) = try test.subscribe()
        _ = try test.server.eventStore(for: "anna").createCalendar(EventCalendar(title: "Work"))
        #expect(test.receiver.wait { $0.count == 1 })
        var state = try test.webhook(hook)
        for _ in 0..<2_000 where state["state"]?.stringValue != "disabled" {
            usleep(5_000)
            state = try test.webhook(hook)
        }
        #expect(state["state"]?.stringValue == "disabled")
        #expect(state["stateReason"]?.stringValue?.contains("410") == true)
        // Changes after it are not recorded for it.
        _ = try test.server.eventStore(for: "anna").createCalendar(EventCalendar(title: "Home"))
        #expect(try test.webhook(hook)["pending"]?.intValue == 1, "only the one it refused")
        #expect(test.receiver.received.count == 1)
    }

    @Test func repeatedFailuresPauseAndResumingDeliversInOrder() throws {
        let test = try WebhookTests(webhooks: WebhookReceiver.fastDispatch(pauseAfter: 3))
        let failing = Mutex(true)
        test.receiver.answer { _ in failing.withLock { $0 } ? 503 : 204 }
        let (hook, _) = try test.subscribe()
        let store = try test.server.eventStore(for: "anna")
        let calendar = try store.createCalendar(EventCalendar(title: "Work")).id
        var state = try test.webhook(hook)
        for _ in 0..<2_000 where state["state"]?.stringValue != "paused" {
            usleep(5_000)
            state = try test.webhook(hook)
        }
        #expect(state["state"]?.stringValue == "paused")
        #expect(state["stateReason"]?.stringValue?.contains("503") == true)
        #expect(test.receiver.received.count == 3)
        // Changes while paused wait, in order.
        for title in ["a", "b"] {
            #expect(
                try test.api.call(
                    "POST", "/api/v1/events",
                    #"{"calendarId": "\#(calendar)", "title": "\#(title)", "start": "2026-12-08T09:00:00Z"}"#
                ).status == 201)
        }
        #expect(try test.webhook(hook)["pending"]?.intValue == 3)
        failing.withLock { $0 = false }
        #expect(try test.api.call("PATCH", "/api/v1/webhooks/\(hook)", #"{"state": "active"}"#).status == 200)
        let delivered = try test.settled(hook)
        #expect(delivered.map(\.type) == ["calendar.created", "event.created", "event.created"])
        #expect(delivered.map(\.sequence) == [0, 1, 2])
    }

    @Test func replaySendsAgainFromAPointWithTheSameIDs() throws {
        let test = try WebhookTests()
        let (hook, _) = try test.subscribe()
        let store = try test.server.eventStore(for: "anna")
        _ = try store.createCalendar(EventCalendar(title: "One"))
        let first = try test.settled(hook)
        // `from` is whole seconds: start the next changes in the next second.
        let cut = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1).rounded(.down))
        usleep(useconds_t(max(0, cut.timeIntervalSinceNow) * 1_000_000) + 10_000)
        _ = try store.createCalendar(EventCalendar(title: "Two"))
        _ = try store.createCalendar(EventCalendar(title: "Three"))
        let before = try test.settled(hook)
        #expect(before.count == 3)
        let from = ISO8601DateFormatter().string(from: cut)
        let replay = try test.api.call("POST", "/api/v1/webhooks/\(hook)/replay", #"{"from": "\#(from)"}"#)
        #expect(replay["requeued"]?.intValue == 2, "\(replay.text)")
        #expect(test.receiver.wait { $0.count == 5 })
        _ = try test.settled(hook)
        let again = test.receiver.received.suffix(2).map(\.id)
        // Two calendars: each in order, the two in either.
        #expect(Set(again) == Set(before.suffix(2).map(\.id)))
        #expect(!again.contains(first[0].id))
    }

    @Test func privateAddressesAreRefusedUnlessAllowed() throws {
        let server = try TestServer(users: ["anna"], outbound: OutboundPolicy())
        for url in [
            "http://127.0.0.1:9/x", "http://localhost:9/x", "http://[::1]/x", "http://10.1.2.3/x",
            "http://169.254.169.254/latest/meta-data", "http://0x7f000001/x", "http://192.168.1.1/x",
            "http://[::ffff:127.0.0.1]/x", "http://100.64.0.1/x",
        ] {
            let answer = try server.api("anna").call("POST", "/api/v1/webhooks", #"{"url": "\#(url)"}"#)
            #expect(answer.status == 400, "\(url): \(answer.text)")
            #expect(answer["detail"]?.stringValue?.contains("--allow-private-webhooks") == true, "\(url)")
        }
        for url in ["ftp://example.com/x", "http://user:pass@example.com/x", "not a url", "http:///x"] {
            let answer = try server.api("anna").call("POST", "/api/v1/webhooks", #"{"url": "\#(url)"}"#)
            #expect(answer.status == 400, "\(url): \(answer.text)")
        }
        // The connection itself is checked too: a receiver on loopback is never reached.
        let receiver = try WebhookReceiver()
        let client = try OutboundHTTPClient(options: OutboundHTTPClient.Options(policy: OutboundPolicy()))
        let refused = client.post(receiver.url, headers: [], body: Array("{}".utf8))
        #expect(refused.status == nil)
        #expect(refused.error?.hasPrefix("refused: 127.0.0.1 is in 127.0.0.0/8 (Loopback") == true, "\(refused)")
        #expect(receiver.received.isEmpty)
        let allowed = try OutboundHTTPClient(
            options: OutboundHTTPClient.Options(policy: OutboundPolicy(allowsPrivateAddresses: true)))
        #expect(allowed.post(receiver.url, headers: [], body: Array("{}".utf8)).status == 204)
    }

    /// The signature of docs/webhooks.md's test vector, which Python's `hmac` computed.
    @Test func theSignatureMatchesTheDocumentedVector() {
        let body =
            #"{"id":"dl_5f1c2e9a7b3d4c6e8f0a1b2c","type":"event.created","occurredAt":"2026-12-02T05:00:00.123Z","webhookId":"wh_8a2b4c6d8e0f1a3b5c7d9e1f","calendarId":"0BA5EA6F-0B80-440A-8B02-C23B2523C9A8","sequence":12,"eventId":"65F90AEE-2C43-4ED8-AFFB-CAE8B6FF89A2","uid":"190211A3-E573-4C34-950D-3E6686102B22","etag":"\"12-6c3fdc17db60206d\"","resource":"190211A3-E573-4C34-950D-3E6686102B22.ics","href":"/api/v1/events/65F90AEE-2C43-4ED8-AFFB-CAE8B6FF89A2","occurrence":null}"#
        #expect(body.utf8.count == 467)
        let secret = "whsec_0123456789abcdef0123456789abcdef0123456789abcdef"
        let header = WebhookSignature.header(secret: secret, timestamp: 1_796_187_600, body: Array(body.utf8))
        #expect(header == "t=1796187600,v1=6bb1cce132bac1c266f2fc13bedc66a4a5c81a5f14182aff72c188fd3d178008")
        #expect(WebhookSignature.isValid(header: header, body: Array(body.utf8), secret: secret, now: 1_796_187_700))
        #expect(!WebhookSignature.isValid(header: header, body: Array(body.utf8), secret: secret, now: 1_796_188_000))
        #expect(
            !WebhookSignature.isValid(
                header: header, body: Array(body.utf8) + [0x20], secret: secret, now: 1_796_187_600))
    }

    /// Two dispatchers on one database (two server processes, as far as the database can
    /// tell): every change is delivered once, and each calendar's in order.
    @Test(arguments: StoreKind.allCases) func twoDispatchersDeliverEachChangeOnce(_ kind: StoreKind) throws {
        let test = try WebhookTests(ServerSetup(kind, .inProcess))
        let (hook, _) = try test.subscribe(#", "events": ["event.created"]"#)
        let other = try DatabaseBackend(location: test.server.backend.location)
        let second = WebhookDispatcher(store: other.webhooks, configuration: WebhookReceiver.fastDispatch())
        second.start()
        defer { second.stop() }
        let store = try test.server.eventStore(for: "anna")
        let calendars = try (0..<4).map { try store.createCalendar(EventCalendar(title: "C\($0)")).id }
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            for number in 0..<30 {
                let start = DateTimeValue(CivilDateTime(secondsSinceEpoch: 1_796_720_400 + number * 60), form: .utc)
                _ = try? store.save(Event(title: "E\(number)", start: start, calendarIdentifier: calendars[index]))
            }
        }
        let delivered = try test.settled(hook)
        #expect(delivered.count == 120)
        #expect(test.receiver.received.count == 120, "no delivery was made twice")
        for calendar in calendars {
            let sequences = test.receiver.received.filter { $0.calendar == calendar }.map(\.sequence)
            #expect(sequences == Array(1...30), "\(calendar)")
        }
    }

    @Test func theSecretIsShownOnceAndTheAPIManagesSubscriptions() throws {
        let test = try WebhookTests(webhooks: nil)
        let (hook, secret) = try test.subscribe(#", "description": "bookings""#)
        #expect(secret.hasPrefix("whsec_") && secret.count == 54)
        let read = try test.webhook(hook)
        #expect(read["secret"] == nil)
        #expect(read["description"]?.stringValue == "bookings")
        #expect(read["calendars"] == .null)
        let patched = try test.api.call(
            "PATCH", "/api/v1/webhooks/\(hook)", #"{"events": ["event.deleted"], "state": "paused"}"#)
        #expect(patched["events"]?.arrayValue?.compactMap(\.stringValue) == ["event.deleted"])
        #expect(patched["state"]?.stringValue == "paused")
        #expect(
            try test.api.call("PATCH", "/api/v1/webhooks/\(hook)", #"{"state": "disabled"}"#).status == 400)
        #expect(try test.api.call("POST", "/api/v1/webhooks", #"{"url": 5}"#).status == 400)
        #expect(
            try test.api.call("POST", "/api/v1/webhooks", #"{"url": "\#(test.receiver.url)", "events": []}"#).status
                == 400)
        #expect(
            try test.api.call(
                "POST", "/api/v1/webhooks", #"{"url": "\#(test.receiver.url)", "events": ["booking.made"]}"#
            ).status == 400)
        // Bob sees none of it.
        #expect(try test.server.api("bob").get("/api/v1/webhooks/\(hook)").status == 404)
        #expect(try test.server.api("bob").call("DELETE", "/api/v1/webhooks/\(hook)").status == 404)
        // A ping is signed with the same secret.
        let ping = try test.api.call("POST", "/api/v1/webhooks/\(hook)/test")
        #expect(ping["status"]?.intValue == 204, "\(ping.text)")
        let received = try #require(test.receiver.received.first)
        #expect(received.type == "ping" && received.isSigned(with: secret))
        #expect(try test.api.call("DELETE", "/api/v1/webhooks/\(hook)").status == 204)
        #expect(try test.webhook(hook).status == 404)
        // At most 25 a user.
        for _ in 0..<Webhook.maxPerUser { _ = try test.subscribe() }
        #expect(try test.api.call("POST", "/api/v1/webhooks", #"{"url": "\#(test.receiver.url)"}"#).status == 400)
    }
}
