import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// Cursor pagination of every listing: following `next` lists each item that was there
/// throughout exactly once, however many are written between the pages.
@Suite struct PaginationTests {
    let server: TestServer
    let api: APIClient

    init(_ setup: ServerSetup = .inProcess) throws {
        server = try TestServer(setup, users: ["anna"])
        api = server.api("anna")
    }

    /// Follows `next` from `first`, calling `between` after each page; returns the ids of
    /// every item listed under `member`, in order.
    func follow(_ first: String, _ member: String, between: (Int) throws -> Void) throws -> [String] {
        var ids: [String] = []
        var target: String? = first
        var pages = 0
        while let path = target {
            let page = try api.get(path)
            #expect(page.status == 200, "\(path): \(page.text)")
            ids += (page[member]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
            target = page["next"]?.stringValue
            pages += 1
            guard pages < 500 else { break }
            try between(pages)
        }
        return ids
    }

    func createEvent(_ calendar: String, _ title: String, start: String = "2026-12-08T09:00:00Z") throws -> String {
        let made = try api.call(
            "POST", "/api/v1/events", #"{"calendarId": "\#(calendar)", "title": "\#(title)", "start": "\#(start)"}"#)
        #expect(made.status == 201)
        return try #require(made["id"]?.stringValue)
    }

    @Test(arguments: ServerSetup.all) func calendarsPageUnderConcurrentInserts(_ setup: ServerSetup) throws {
        let test = try PaginationTests(setup)
        let store = try test.server.eventStore(for: "anna")
        var before = Set<String>()
        for index in 0..<23 { before.insert(try store.createCalendar(EventCalendar(title: "C\(index)")).id) }
        let listed = try test.follow("/api/v1/calendars?limit=5", "calendars") { page in
            // New calendars that sort before and after the cursor.
            _ = try store.createCalendar(EventCalendar(title: "A\(page)"))
            _ = try store.createCalendar(EventCalendar(title: "Z\(page)"))
        }
        #expect(Set(listed).count == listed.count, "nothing listed twice")
        #expect(before.isSubset(of: Set(listed)), "nothing that was there is skipped")
    }

    @Test(arguments: ServerSetup.all) func eventsPageUnderConcurrentInserts(_ setup: ServerSetup) throws {
        let test = try PaginationTests(setup)
        let calendar = try test.server.eventStore(for: "anna").createCalendar(EventCalendar(title: "Work")).id
        var before = Set<String>()
        for index in 0..<60 { before.insert(try test.createEvent(calendar, "E\(index)")) }
        var added = 0
        let listed = try test.follow("/api/v1/calendars/\(calendar)/events?limit=7", "events") { _ in
            for _ in 0..<3 {
                _ = try test.createEvent(calendar, "new")
                added += 1
            }
        }
        #expect(Set(listed).count == listed.count)
        #expect(before.isSubset(of: Set(listed)))
        #expect(listed.count <= before.count + added)
        let first = try test.api.get("/api/v1/calendars/\(calendar)/events?limit=7")
        #expect(first["events"]?.arrayValue?.count == 7)
        #expect(first["events"]?[0]?["title"]?.stringValue != nil)
    }

    @Test func occurrencesPageUnderConcurrentInserts() throws {
        let test = try PaginationTests()
        let calendar = try test.server.eventStore(for: "anna").createCalendar(EventCalendar(title: "Work")).id
        let made = try test.api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Daily", "start": "2026-12-01T07:00:00Z", "rrule": "FREQ=DAILY;COUNT=120"}"#
        )
        #expect(made.status == 201)
        let series = try #require(made["id"]?.stringValue)
        // Another series at the same minutes, so pages split between occurrences that start together.
        #expect(
            try test.api.call(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(calendar)", "title": "Also", "start": "2026-12-01T07:00:00Z", "rrule": "FREQ=DAILY;COUNT=120"}"#
            ).status == 201)
        let range = "from=2026-12-01T00:00:00Z&to=2027-12-01T00:00:00Z"
        let listed = try test.follow("/api/v1/calendars/\(calendar)/occurrences?\(range)&limit=25", "occurrences") {
            page in
            _ = try test.createEvent(calendar, "one-off \(page)", start: "2027-01-\(10 + page % 15)T07:00:00Z")
        }
        #expect(Set(listed).count == listed.count)
        #expect(listed.filter { $0.hasPrefix(series + "/") }.count == 120)
        #expect(listed.count >= 240)
        // The same listing in one answer, for comparison: the series' part is identical.
        let whole = try test.api.get("/api/v1/calendars/\(calendar)/occurrences?\(range)")
        #expect(whole["truncated"]?.boolValue == false && whole["next"] == .null)
        let wholeIDs = (whole["occurrences"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        #expect(
            wholeIDs.filter { $0.hasPrefix(series + "/") } == listed.filter { $0.hasPrefix(series + "/") })
    }

    @Test func tokensAndDeliveriesPage() throws {
        let test = try PaginationTests()
        var tokens = Set<String>()
        for _ in 0..<7 {
            let secret = try test.server.createAPIToken(for: "anna", scope: .read)
            tokens.insert(String(secret.split(separator: "_")[1]))
        }
        let listed = try test.follow("/api/v1/tokens?limit=3", "tokens") { _ in }
        #expect(Set(listed) == tokens && listed.count == 7)

        // No dispatcher: the deliveries stay in the outbox to be listed.
        let hook = try test.api.call("POST", "/api/v1/webhooks", #"{"url": "http://127.0.0.1:9/x"}"#)
        let id = try #require(hook["id"]?.stringValue)
        let store = try test.server.eventStore(for: "anna")
        for index in 0..<12 { _ = try store.createCalendar(EventCalendar(title: "C\(index)")) }
        let before = Set(
            try test.server.backend.webhooks.deliveries(webhook: id, user: "anna", before: nil, limit: 100).map(\.id))
        #expect(before.count == 12)
        var count = 12
        let deliveries = try test.follow("/api/v1/webhooks/\(id)/deliveries?limit=5", "deliveries") { _ in
            count += 1
            _ = try store.createCalendar(EventCalendar(title: "N\(count)"))
        }
        #expect(Set(deliveries).count == deliveries.count && before.isSubset(of: Set(deliveries)))
        for _ in 0..<3 {
            #expect(try test.api.call("POST", "/api/v1/webhooks", #"{"url": "http://127.0.0.1:9/y"}"#).status == 201)
        }
        #expect(try test.follow("/api/v1/webhooks?limit=2", "webhooks") { _ in }.count == 4)
    }

    @Test func badPagesAreRefused() throws {
        let test = try PaginationTests()
        let calendar = try test.server.eventStore(for: "anna").createCalendar(EventCalendar(title: "Work")).id
        let tokens = try test.api.get("/api/v1/tokens?limit=1")
        #expect(tokens.status == 200)
        for target in [
            "/api/v1/calendars?limit=0", "/api/v1/calendars?limit=1001", "/api/v1/calendars?limit=-1",
            "/api/v1/calendars?limit=99999999999999999999", "/api/v1/calendars?cursor=%%%",
            "/api/v1/calendars?cursor=abc",
            "/api/v1/calendars/\(calendar)/events?cursor=" + Page.foreignCursor,
            "/api/v1/calendars/\(calendar)/occurrences?from=2026-12-01&to=2026-12-02&cursor=eA",
            "/api/v1/calendars/\(calendar)/occurrences?from=2026-12-01&to=2026-12-02&limit=10001",
        ] {
            let answer = try test.api.get(target)
            #expect(answer.status == 400, "\(target): \(answer.text)")
            #expect(answer["type"]?.stringValue == "urn:almanac:problem:invalid-query", "\(target)")
        }
    }
}

extension PaginationTests {
    /// A cursor the calendars listing gave, offered to another listing.
    enum Page {
        static var foreignCursor: String {
            Data("calendars\n[0,\"A\",\"B\"]".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
        }
    }
}
