import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import Foundation
import HTTPTypes
import Outbound
import Subscriptions
import Synchronization
import Testing
import Webhooks

/// The server's own requests are fenced and fair between users (issue 33, instances 4
/// and 5): no URL of a non-public address or of this host is accepted or reached, and
/// one user's receivers and feeds that accept and never answer (a tarpit) delay another
/// user's deliveries, refreshes and test pings by seconds at most. The bounds asserted
/// are generous (the tarpit is given 30 s to hold each request); they tell "not held up"
/// from "waited behind the tarpit", they do not measure speed.
@Suite struct TrustOutboundTests {
    /// Seconds since `start`, by the monotonic clock.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Anna's four webhooks point at a tarpit; Bob's delivery still arrives at once, and
    /// Anna's hold one dispatcher, not all four.
    @Test func oneUsersHangingReceiversDoNotDelayAnothersDeliveries() throws {
        let tarpit = try Tarpit()
        defer { tarpit.close() }
        var dispatch = WebhookReceiver.fastDispatch()
        dispatch.workers = 4
        dispatch.http.firstByteTimeoutMilliseconds = 30_000
        dispatch.http.timeoutMilliseconds = 30_000
        let server = try TestServer(users: ["anna", "bob"], webhooks: dispatch)
        let anna = server.api("anna")
        for index in 1...4 {
            let created = try anna.call("POST", "/api/v1/webhooks", #"{"url": "\#(tarpit.url)/hook\#(index)"}"#)
            #expect(created.status == 201, "\(created.text)")
        }
        let annas = try #require(try anna.call("POST", "/api/v1/calendars", #"{"title": "A"}"#)["id"]?.stringValue)
        _ = try anna.call(
            "POST", "/api/v1/events", #"{"calendarId": "\#(annas)", "title": "x", "start": "2026-12-07T09:00:00Z"}"#)
        var waited = 0
        while tarpit.connections == 0 && waited < 2_000 {
            usleep(10_000)
            waited += 1
        }
        #expect(tarpit.connections >= 1, "a dispatcher is held by the tarpit")

        let receiver = try WebhookReceiver()
        let bob = server.api("bob")
        #expect(try bob.call("POST", "/api/v1/webhooks", #"{"url": "\#(receiver.url)"}"#).status == 201)
        let start = ContinuousClock.now
        _ = try bob.call("POST", "/api/v1/calendars", #"{"title": "B"}"#)
        #expect(receiver.wait(seconds: 60) { !$0.isEmpty }, "Bob's delivery arrived")
        let delay = Self.seconds(since: start)
        #expect(delay < 10, "Bob's delivery waited \(delay) s behind Anna's tarpit")
        #expect(tarpit.connections == 1, "Anna's four receivers hold one dispatcher: \(tarpit.connections)")
        // Let go of the held request before the server stops (it waits for its workers).
        tarpit.close()
        withExtendedLifetime(server) {}
    }

    /// Anna's feed is a tarpit and due first; Bob's feed is fetched at once beside it.
    @Test func oneUsersHangingFeedDoesNotDelayAnothersRefresh() throws {
        let tarpit = try Tarpit()
        defer { tarpit.close() }
        let publisher = try FeedServer()
        publisher.publish(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//T//EN\r\nBEGIN:VEVENT\r\nUID:f1\r\n"
                + "DTSTAMP:20261101T000000Z\r\nDTSTART:20261210T150000Z\r\nSUMMARY:Fair\r\nEND:VEVENT\r\n"
                + "END:VCALENDAR\r\n")
        let clock = Atomic(1_796_601_600)
        var feeds = SubscriptionRefresher.Configuration(policy: OutboundPolicy(allowsPrivateAddresses: true))
        feeds.interval = 3_600  // the test starts the fetches itself
        let server = try TestServer(
            users: ["anna", "bob"], subscriptions: feeds, now: { clock.load(ordering: .relaxed) })
        let refresher = try #require(server.server.subscriptionRefresher)
        let subscribed = try server.api("anna").call(
            "POST", "/api/v1/subscriptions", #"{"url": "\#(tarpit.url)/feed.ics", "title": "Tarpit"}"#)
        #expect(subscribed.status == 201, "\(subscribed.text)")
        clock.add(1, ordering: .relaxed)
        let bobs = try #require(
            try server.api("bob").call(
                "POST", "/api/v1/subscriptions", #"{"url": "\#(publisher.url())", "title": "Fair"}"#
            )["calendar"]?["id"]?.stringValue)
        clock.add(1, ordering: .relaxed)

        let start = ContinuousClock.now
        refresher.startDue()
        var events: [JSON] = []
        for _ in 0..<600 where events.isEmpty {
            events = try server.api("bob").get("/api/v1/calendars/\(bobs)/events")["events"]?.arrayValue ?? []
            if events.isEmpty { usleep(50_000) }
        }
        let delay = Self.seconds(since: start)
        #expect(events.count == 1, "Bob's feed was fetched")
        #expect(delay < 8, "Bob's refresh waited \(delay) s behind Anna's tarpit")
        #expect(tarpit.connections == 1)
        tarpit.close()
        withExtendedLifetime(server) {}
    }

    /// URLs aimed at this host or at addresses no registry calls public are refused when
    /// registered, for webhooks and subscriptions alike, and so are URLs that could split
    /// a request; with private addresses allowed (tests' loopback) only the form counts.
    @Test func outboundURLsAreCheckedWhenRegistered() throws {
        var feeds = SubscriptionRefresher.Configuration(policy: OutboundPolicy(permission: "--allow-private-feeds"))
        feeds.interval = 3_600
        let server = try TestServer(
            users: ["anna"], outbound: OutboundPolicy(), subscriptions: feeds)
        let own = HostAddresses.current.filter { $0.count == 4 && $0[0] != 127 }.map(IPAddress.text)
        let refusedHosts = ["192.0.2.10", "198.18.0.1", "240.0.0.1", "[2001:db8::1]", "[64:ff9b:1::1]"] + own
        for host in refusedHosts {
            let hook = try server.api("anna").call("POST", "/api/v1/webhooks", #"{"url": "http://\#(host):8080/x"}"#)
            #expect(hook.status == 400, "\(host): \(hook.text)")
            #expect(hook["detail"]?.stringValue?.contains("--allow-private-webhooks") == true, "\(hook.text)")
            let feed = try server.api("anna").call(
                "POST", "/api/v1/subscriptions", #"{"url": "http://\#(host):8080/x.ics", "title": "x"}"#)
            #expect(feed.status == 400, "\(host): \(feed.text)")
            #expect(feed["detail"]?.stringValue?.contains("--allow-private-feeds") == true, "\(feed.text)")
        }
        for url in [#"http://93.184.216.34/a\r\nX: 1"#, #"http://93.184.216.34/a b"#, #"http://93.184.216.34/\u0000"#] {
            let hook = try server.api("anna").call("POST", "/api/v1/webhooks", #"{"url": "\#(url)"}"#)
            #expect(hook.status == 400, "\(url): \(hook.text)")
        }
        #expect(try server.api("anna").get("/api/v1/webhooks")["webhooks"]?.arrayValue?.isEmpty == true)
    }
}
