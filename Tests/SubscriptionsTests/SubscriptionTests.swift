import AlmanacTesting
import CalendarStore
import HTTPTypes
import Outbound
import Subscriptions
import Synchronization
import Testing
import Webhooks

/// Subscribed calendars end to end: a publisher on a loopback port (counting what it is
/// asked), the server's refresher fetching with libcurl, and the calendars read through
/// CalDAV and the API as users would.
@Suite struct SubscriptionTests {
    static let start = 1_796_212_800  // 2026-12-02 12:00 UTC

    /// A weekly class with a moved instance and a one-off, asking to be polled hourly.
    static func feed(_ events: [String], interval: String? = "PT1H") -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Publisher//EN", "X-WR-CALNAME:School"]
            + (interval.map { ["REFRESH-INTERVAL;VALUE=DURATION:\($0)"] } ?? []) + events + ["END:VCALENDAR", ""])
            .joined(separator: "\r\n")
    }

    static func event(_ uid: String, _ lines: [String]) -> String {
        (["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20261101T000000Z"] + lines + ["END:VEVENT"]).joined(separator: "\r\n")
    }

    static let weekly =
        event(
            "class",
            ["DTSTART:20261207T090000Z", "DTEND:20261207T100000Z", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Class"])
        + "\r\n"
        + event(
            "class",
            [
                "RECURRENCE-ID:20261214T090000Z", "DTSTART:20261214T130000Z", "DTEND:20261214T140000Z",
                "SUMMARY:Class (moved)",
            ])
    static let holiday = event(
        "holiday", ["DTSTART;VALUE=DATE:20261223", "DTEND;VALUE=DATE:20270102", "SUMMARY:Holidays"])
    static let fair = event("fair", ["DTSTART:20261210T150000Z", "DTEND:20261210T170000Z", "SUMMARY:Fair"])

    final class Clock: Sendable {
        let value = Atomic(SubscriptionTests.start)
        func advance(_ seconds: Int) { value.add(seconds, ordering: .relaxed) }
        var now: Int { value.load(ordering: .relaxed) }
    }

    static func server(_ setup: ServerSetup, clock: Clock, users: [String] = ["anna", "bob", "carol"]) throws
        -> TestServer
    {
        var feeds = SubscriptionRefresher.Configuration(policy: OutboundPolicy(allowsPrivateAddresses: true))
        feeds.interval = 3_600  // never by the timer: the test calls refreshDue()
        return try TestServer(setup, users: users, subscriptions: feeds, now: { clock.now })
    }

    @Test(arguments: ServerSetup.everyStore) func aFeedIsFetchedOnceForEverySubscriberAndKeptCurrent(
        _ setup: ServerSetup
    ) throws {
        let publisher = try FeedServer()
        publisher.publish(Self.feed([Self.weekly, Self.holiday]))
        let clock = Clock()
        let server = try Self.server(setup, clock: clock)
        let refresher = try #require(server.server.subscriptionRefresher)
        let anna = server.api("anna")
        let subscribed = try anna.call(
            "POST", "/api/v1/subscriptions", #"{"url": "\#(publisher.url())", "title": "School"}"#)
        #expect(subscribed.status == 201, "\(subscribed.text)")
        let annas = try #require(subscribed["calendar"]?["id"]?.stringValue)
        #expect(subscribed["calendar"]?["subscribedFrom"]?.stringValue == publisher.url())
        let bobs = try #require(
            try server.api("bob").call(
                "POST", "/api/v1/subscriptions", #"{"url": "\#(publisher.url())", "title": "Kids' school"}"#
            )["calendar"]?["id"]?.stringValue)

        // One fetch for both subscribers; each calendar holds the feed.
        #expect(refresher.refreshDue().count == 1)
        #expect(publisher.hits.count == 1)
        for (user, id) in [("anna", annas), ("bob", bobs)] {
            let events = try server.api(user).get("/api/v1/calendars/\(id)/events")["events"]?.arrayValue ?? []
            #expect(events.compactMap { $0["title"]?.stringValue }.sorted() == ["Class", "Holidays"], "\(user)")
        }
        // Every instance, the moved one included, over CalDAV; and read-only there and in the API.
        let dav = server.dav("anna")
        let name = try server.eventStore(for: "anna").calendar(withIdentifier: annas).name
        let query = try dav.calendarQuery(
            "/dav/calendars/anna/\(name)/",
            prop:
                "<D:getetag/><C:calendar-data><C:expand start=\"20261201T000000Z\" end=\"20270101T000000Z\"/></C:calendar-data>",
            start: "20261201T000000Z", end: "20270101T000000Z")
        #expect(query.text.components(separatedBy: "BEGIN:VEVENT").count - 1 == 5, "four classes and the holidays")
        #expect(query.text.contains("Class (moved)"))
        let put = try dav.put("/dav/calendars/anna/\(name)/mine.ics", Self.feed([Self.fair]))
        #expect(put.status == 403, "\(put.text)")
        let privileges = try dav.propfind(
            "/dav/calendars/anna/\(name)/", props: [DAVName.dav("current-user-privilege-set")]
        ).multistatus().responses[0].property(DAVName.dav("current-user-privilege-set"))
        let granted = (privileges?.descendants ?? []).map(\DAVElement.name)
        #expect(granted.contains(DAVName.dav("read")) && !granted.contains(DAVName.dav("write-content")))
        let write = try anna.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(annas)", "title": "Mine", "start": "2026-12-08T10:00:00Z", "end": "2026-12-08T11:00:00Z"}"#
        )
        #expect(write.status == 403)
        // The feed's holidays block availability like any busy calendar.
        let slots =
            try anna.get(
                "/api/v1/availability?calendars=\(annas)&from=2026-12-22&to=2026-12-26&duration=60&tz=UTC&allDay=busy"
            )["slots"]?.arrayValue ?? []
        #expect(
            !slots.isEmpty && slots.allSatisfy { ($0["start"]?.stringValue ?? "") < "2026-12-23" },
            "\(slots.count) slots")

        // Polled as the feed asks (hourly); nothing before that.
        let state = try #require(try anna.get("/api/v1/subscriptions")["subscriptions"]?[0])
        #expect(state["lastStatus"]?.intValue == 200 && state["objects"]?.intValue == 2, "\(state)")
        #expect(refresher.refreshDue().isEmpty && publisher.hits.count == 1)
        let token = try server.eventStore(for: "anna").calendar(withIdentifier: annas).syncToken
        clock.advance(3_600)
        // Unchanged: a conditional GET answered 304, and the calendar did not change.
        #expect(refresher.refreshDue().first?.lastStatus == 304)
        #expect(publisher.hits.last?.conditional == true && publisher.hits.last?.status == 304)
        #expect(try server.eventStore(for: "anna").calendar(withIdentifier: annas).syncToken == token)

        // The feed grows and changes: one new, one changed, one gone; sync shows exactly those.
        publisher.publish(
            Self.feed([Self.weekly.replacingOccurrences(of: "COUNT=4", with: "COUNT=6"), Self.fair]))
        clock.advance(3_600)
        #expect(refresher.refreshDue().first?.objects == 2)
        let changes = try dav.syncCollection("/dav/calendars/anna/\(name)/", token: token.description).multistatus()
        #expect(changes.responses.count == 3, "\(changes)")
        let events = try server.api("bob").get("/api/v1/calendars/\(bobs)/events")["events"]?.arrayValue ?? []
        #expect(events.compactMap { $0["title"]?.stringValue }.sorted() == ["Class", "Fair"])

        // Broken: a 500, then something that is not iCalendar. The last good copy stays;
        // the wait grows from five minutes.
        publisher.fail(with: 500)
        clock.advance(3_600)
        let failed = try #require(refresher.refreshDue().first)
        #expect(failed.failures == 1 && failed.lastStatus == 500 && failed.nextFetch == clock.now + 300)
        publisher.publish("this is no calendar")
        clock.advance(300)
        let garbage = try #require(refresher.refreshDue().first)
        #expect(garbage.failures == 2 && garbage.lastError?.contains("not iCalendar") == true, "\(garbage)")
        #expect(garbage.nextFetch == clock.now + 600)
        let kept = try anna.get("/api/v1/calendars/\(annas)/events")["events"]?.arrayValue ?? []
        #expect(kept.compactMap { $0["title"]?.stringValue }.sorted() == ["Class", "Fair"])
        let told = try #require(try anna.get("/api/v1/subscriptions")["subscriptions"]?[0])
        #expect(told["failures"]?.intValue == 2 && told["lastError"]?.stringValue != nil)

        // A new subscriber gets the last good copy at once, without a fetch.
        let hits = publisher.hits.count
        let carols = try #require(
            try server.api("carol").call(
                "POST", "/api/v1/subscriptions", #"{"url": "\#(publisher.url())", "title": "School"}"#
            )["calendar"]?["id"]?.stringValue)
        #expect(try server.api("carol").get("/api/v1/calendars/\(carols)/events")["events"]?.arrayValue?.count == 2)
        #expect(publisher.hits.count == hits)

        // A refresh asked for is due at once (15 seconds after the last answer at the soonest).
        publisher.publish(Self.feed([Self.fair]))
        #expect(try anna.call("POST", "/api/v1/calendars/\(annas)/refresh").status == 202)
        clock.advance(FeedRules.refreshSpacing)
        #expect(refresher.refreshDue().first?.objects == 1)
        // Unsubscribed by all: the feed is dropped and never fetched again.
        for (user, id) in [("anna", annas), ("bob", bobs), ("carol", carols)] {
            #expect(try server.api(user).call("DELETE", "/api/v1/calendars/\(id)").status == 204)
        }
        clock.advance(86_400)
        #expect(refresher.refreshDue().isEmpty)
        #expect(try server.backend.subscriptions.source(url: publisher.url()) == nil)
    }

    /// Redirects are followed under the outbound rules; private addresses, oversized
    /// feeds and bad requests are refused with a reason, and nothing is stored.
    @Test func redirectsLimitsAndRefusals() throws {
        let publisher = try FeedServer()
        publisher.publish(Self.feed([Self.fair], interval: nil))
        publisher.redirect("/old.ics", to: publisher.url())
        let fetcher = try FeedFetcher(policy: OutboundPolicy(allowsPrivateAddresses: true))
        func source(_ url: String) -> FeedSource { FeedSource(url: url) }
        guard case .content(_, let split, let etag, _) = fetcher.fetch(source(publisher.url("/old.ics"))) else {
            Issue.record("the redirect was not followed")
            return
        }
        #expect(split.objects.map(\.uid) == ["fair"] && etag != nil && split.refreshInterval == nil)
        #expect(publisher.hits.map(\.status) == [302, 200])
        // Loopback is refused where private addresses are not allowed, at the socket.
        let strict = try FeedFetcher(policy: OutboundPolicy())
        guard case .failed(let why, _) = strict.fetch(source(publisher.url())) else {
            Issue.record("a loopback feed was fetched")
            return
        }
        #expect(why.contains("refused"), "\(why)")
        // More than 10 MiB is cut and refused.
        publisher.publish(String(repeating: "X", count: FeedRules.maxBytes + 1))
        guard case .failed(let large, _) = fetcher.fetch(source(publisher.url())) else {
            Issue.record("an oversized feed was read")
            return
        }
        #expect(large.contains("longer than"))

        let clock = Clock()
        let server = try Self.server(.inProcess, clock: clock, users: ["anna"])
        let anna = server.api("anna")
        let cases: [(String, Int)] = [
            (#"{"url": "ftp://example.com/x.ics", "title": "X"}"#, 400),
            (#"{"url": "https://user@example.com/x.ics", "title": "X"}"#, 400),
            (#"{"url": "https://example.com/x.ics"}"#, 400),
            (#"{"url": "https://example.com/x.ics", "title": "X", "refreshInterval": 60}"#, 400),
            (#"{"url": "https://example.com/x.ics", "title": "X", "refreshInterval": 9223372036854775807}"#, 400),
            (#"{"url": "https://example.com/x.ics", "title": "X", "colour": "red"}"#, 400),
        ]
        for (body, status) in cases {
            let answer = try anna.call("POST", "/api/v1/subscriptions", body)
            #expect(answer.status == status, "\(body): \(answer.text)")
        }
        #expect(try server.eventStore(for: "anna").calendars().isEmpty)
        // A server without feeds refuses; one with strict rules refuses loopback.
        let none = try TestServer(users: ["anna"])
        #expect(
            try none.api("anna").call(
                "POST", "/api/v1/subscriptions", #"{"url": "https://example.com/x.ics", "title": "X"}"#
            )
            .status == 503)
        let strictServer = try TestServer(
            users: ["anna"], subscriptions: SubscriptionRefresher.Configuration(policy: OutboundPolicy()))
        let loopback = try strictServer.api("anna").call(
            "POST", "/api/v1/subscriptions", #"{"url": "\#(publisher.url())", "title": "X"}"#)
        #expect(loopback.status == 400 && loopback.text.contains("cannot fetch"), "\(loopback.text)")
    }

    /// The polling interval: what subscribers ask, never sooner than the feed asks, within bounds.
    @Test func intervalsAndURLs() {
        #expect(FeedRules.interval(requested: nil, feed: nil) == 86_400)
        #expect(FeedRules.interval(requested: nil, feed: 3_600) == 3_600)
        #expect(FeedRules.interval(requested: 3_600, feed: 86_400) == 86_400)
        #expect(FeedRules.interval(requested: 86_400, feed: 3_600) == 86_400)
        #expect(FeedRules.interval(requested: nil, feed: 60) == 900)
        #expect(FeedRules.interval(requested: nil, feed: 30 * 86_400) == 7 * 86_400)
        #expect(FeedRules.backoff(failures: 1) == 300 && FeedRules.backoff(failures: 2) == 600)
        #expect(FeedRules.backoff(failures: 100) == 86_400)
        #expect(FeedRules.normalized("webcal://example.com/a.ics") == "https://example.com/a.ics")
        #expect(FeedRules.normalized("WEBCALS://example.com/a.ics") == "https://example.com/a.ics")
        for bad in ["ftp://x/a", "https://", "https:///a", "https://a b/c", "https://u:p@host/x", "javascript:x", ""] {
            #expect(FeedRules.normalized(bad) == nil, "\(bad)")
        }
    }
}
