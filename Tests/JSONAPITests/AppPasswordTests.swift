import Accounts
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// App passwords (HTTP Basic for CalDAV clients and the API, never the web pages) and
/// tokens limited to some calendars, tried as the clients that hold them would.
@Suite struct AppPasswordTests {
    final class Clock: Sendable {
        // 2026-11-20T00:00:00Z.
        let now = Atomic(1_795_132_800)
        var value: Int { now.load(ordering: .relaxed) }
    }

    let clock = Clock()
    let server: TestServer

    init(_ setup: ServerSetup = .inProcess) throws {
        let clock = clock
        server = try TestServer(setup, users: ["anna", "bob"], now: { clock.value })
    }

    func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    func dav(_ method: String, _ path: String, _ body: String = "", as authorization: String, depth: String? = nil)
        throws -> DAVAnswer
    {
        var headers: HTTPHeaders = ["Content-Type": "application/xml; charset=utf-8"]
        if let depth { headers.set("Depth", depth) }
        if method == "PUT" { headers.set("Content-Type", "text/calendar; charset=utf-8") }
        return DAVAnswer(
            try server.send(method, path, headers: headers, body: Array(body.utf8), authorization: authorization))
    }

    /// A one-event calendar object (the same as the delta-sync tests write).
    static func event(_ uid: String) -> String { DeltaSyncTests.object(uid, uid) }

    /// Makes one of anna's app passwords through the API with her password; its secret.
    func appPassword(_ body: String) throws -> (id: String, secret: String) {
        let made = try server.api("anna").call("POST", "/api/v1/tokens", body)
        #expect(made.status == 201, "\(made.status) \(made.text)")
        return (try #require(made["id"]?.stringValue), try #require(made["token"]?.stringValue))
    }

    /// A read-write app password signs anna in on CalDAV and the API with her name, and
    /// nowhere else: not as a bearer token, not with bob's name, not on the web sign-in
    /// form. Its use shows as `lastUsedAt`; revoked, expired or with anna disabled it is 401.
    @Test(arguments: ServerSetup.everyStore) func anAppPasswordSignsInWhereAPasswordDoes(_ setup: ServerSetup) throws {
        let test = try AppPasswordTests(setup)
        #expect(try test.server.dav("anna").mkcalendar("/dav/calendars/anna/work/").status == 201)
        let (id, secret) = try test.appPassword(
            #"{"name": "Thunderbird", "kind": "app-password", "scope": "read-write", "expiresIn": 3600}"#)
        let annas = test.basic("anna", secret)
        #expect(try test.dav("PROPFIND", "/dav/calendars/anna/", as: annas, depth: "1").status == 207)
        let put = try test.dav("PUT", "/dav/calendars/anna/work/a.ics", Self.event("a"), as: annas)
        #expect(put.status == 201, "\(put.text)")
        #expect(try test.server.api("anna").get("/api/v1/calendars").status == 200)
        #expect(try APIClient(server: test.server, authorization: annas).get("/api/v1/calendars").status == 200)

        // Nowhere else.
        #expect(try test.server.api(bearer: secret).get("/api/v1/calendars").status == 401)
        #expect(
            try test.dav("PROPFIND", "/dav/calendars/bob/", as: test.basic("bob", secret), depth: "0").status == 401)
        let web = try test.server.send(
            "POST", "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array("user=anna&password=\(secret)".utf8))
        #expect(web.status == 401 && web.headers["Set-Cookie"] == nil, "\(web.status)")

        // Listed with its kind and last use; its secret never again.
        let listed = try test.server.api("anna").get("/api/v1/tokens")
        let entry = try #require(listed["tokens"]?.arrayValue?.first { $0["id"]?.stringValue == id })
        #expect(entry["kind"]?.stringValue == "app-password" && entry["scope"]?.stringValue == "read-write")
        #expect(entry["lastUsedAt"]?.stringValue == "2026-11-20T00:00:00Z" && entry["token"] == nil)

        // A token cannot make tokens, nor may an app password (it is one).
        let bearer = test.server.api(bearer: try test.server.createAPIToken(for: "anna", scope: .readWrite))
        let body = #"{"name": "more", "kind": "app-password", "scope": "read"}"#
        #expect(try bearer.call("POST", "/api/v1/tokens", body).status == 403)
        #expect(
            try APIClient(server: test.server, authorization: annas).call("POST", "/api/v1/tokens", body).status == 403)
        for refused in [
            #"{"name": "x", "kind": "app-password", "scope": "add-only"}"#,
            #"{"name": "x", "kind": "app-password", "scope": "admin"}"#,
            #"{"name": "x", "kind": "password", "scope": "read"}"#,
        ] {
            #expect(try test.server.api("anna").call("POST", "/api/v1/tokens", refused).status == 400, "\(refused)")
        }

        // Disabled, she is out by it too; enabled, back in.
        try test.server.backend.setDisabled(true, forUser: "anna")
        #expect(try test.dav("PROPFIND", "/dav/calendars/anna/", as: annas, depth: "0").status == 401)
        try test.server.backend.setDisabled(false, forUser: "anna")
        #expect(try test.dav("PROPFIND", "/dav/calendars/anna/", as: annas, depth: "0").status == 207)
        // An hour on it has expired; a second one revoked is out at once.
        test.clock.now.store(1_795_132_800 + 3600, ordering: .relaxed)
        #expect(try test.dav("PROPFIND", "/dav/calendars/anna/", as: annas, depth: "0").status == 401)
        let (second, secondSecret) = try test.appPassword(
            #"{"name": "Phone", "kind": "app-password", "scope": "read"}"#)
        let phone = test.basic("anna", secondSecret)
        #expect(try test.dav("PROPFIND", "/dav/calendars/anna/", as: phone, depth: "0").status == 207)
        #expect(try test.server.api("anna").call("DELETE", "/api/v1/tokens/\(second)").status == 204)
        #expect(try test.dav("PROPFIND", "/dav/calendars/anna/", as: phone, depth: "0").status == 401)
    }

    /// A read app password reads everything and changes nothing: every method that would
    /// change something is 403 `DAV:need-privileges`, and the store is as it was.
    @Test func aReadAppPasswordOnlyReads() throws {
        #expect(try server.dav("anna").mkcalendar("/dav/calendars/anna/work/").status == 201)
        #expect(try server.dav("anna").put("/dav/calendars/anna/work/a.ics", Self.event("a")).status == 201)
        let reader = basic(
            "anna", try appPassword(#"{"name": "Viewer", "kind": "app-password", "scope": "read"}"#).secret)
        #expect(try dav("PROPFIND", "/dav/calendars/anna/work/", as: reader, depth: "1").status == 207)
        #expect(try dav("GET", "/dav/calendars/anna/work/a.ics", as: reader).status == 200)
        // Its privileges say so before a client tries to write (with anna's password they
        // include DAV:write): the home, the calendar, an object and her principal.
        let privileges =
            #"<D:propfind xmlns:D="DAV:"><D:prop><D:current-user-privilege-set/></D:prop></D:propfind>"#
        for path in [
            "/dav/calendars/anna/", "/dav/calendars/anna/work/", "/dav/calendars/anna/work/a.ics",
            "/dav/principals/anna/",
        ] {
            let withPassword = try server.dav("anna").propfind(
                path, props: [DAVName("DAV:", "current-user-privilege-set")])
            #expect(withPassword.text.contains("<D:write/>"), "\(path) with her password")
            let answer = try dav("PROPFIND", path, privileges, as: reader, depth: "0")
            #expect(
                answer.status == 207 && answer.text.contains("<D:read/>") && !answer.text.contains("write"),
                "\(path): \(answer.text)")
        }
        for (method, path, body) in [
            ("PUT", "/dav/calendars/anna/work/b.ics", Self.event("b")),
            ("DELETE", "/dav/calendars/anna/work/a.ics", ""),
            ("MKCALENDAR", "/dav/calendars/anna/home/", ""),
            (
                "PROPPATCH", "/dav/calendars/anna/work/",
                #"<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:displayname>X</D:displayname></D:prop></D:set></D:propertyupdate>"#
            ),
            ("MOVE", "/dav/calendars/anna/work/a.ics", ""),
        ] {
            let answer = try dav(method, path, body, as: reader)
            #expect(
                answer.status == 403 && answer.precondition?.name == "need-privileges", "\(method): \(answer.status)")
        }
        let store = try server.eventStore(for: "anna")
        #expect(try store.calendars().map(\.name) == ["work"])
        #expect(try store.resources(calendar: store.calendar(named: "work").id).map(\.name) == ["a.ics"])
        // On the API it is a read token.
        let api = APIClient(server: server, authorization: reader)
        #expect(try api.call("POST", "/api/v1/calendars", #"{"title": "No"}"#).status == 403)
    }

    /// A token limited to one calendar sees that one only, as if the others were another
    /// user's: not listed, 404 by id, their events 404, none can be made, and the API
    /// routes that could reach the others are 403. An app password so limited lists only
    /// it on CalDAV. A limit naming a calendar she does not see is refused.
    @Test(arguments: ServerSetup.everyStore) func aTokenLimitedToACalendarSeesOnlyIt(_ setup: ServerSetup) throws {
        let test = try AppPasswordTests(setup)
        let anna = test.server.api("anna")
        func calendar(_ title: String) throws -> String {
            try #require(try anna.call("POST", "/api/v1/calendars", #"{"title": "\#(title)"}"#)["id"]?.stringValue)
        }
        let work = try calendar("Work")
        let home = try calendar("Home")
        func event(in calendar: String, _ title: String) throws -> String {
            try #require(
                try anna.call(
                    "POST", "/api/v1/events",
                    #"{"calendarId": "\#(calendar)", "title": "\#(title)", "start": "2026-11-24T09:00:00Z"}"#)["id"]?
                    .stringValue)
        }
        let workEvent = try event(in: work, "Stand-up")
        let homeEvent = try event(in: home, "Dentist")
        let bobs = try #require(
            try test.server.api("bob").call("POST", "/api/v1/calendars", #"{"title": "Bob's"}"#)["id"]?.stringValue)

        let made = try anna.call(
            "POST", "/api/v1/tokens", #"{"name": "work app", "scope": "read-write", "calendars": ["\#(work)"]}"#)
        #expect(made.status == 201 && made["calendars"]?[0]?.stringValue == work, "\(made.text)")
        let limited = test.server.api(bearer: try #require(made["token"]?.stringValue))
        #expect(
            try limited.get("/api/v1/calendars")["calendars"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [
                work
            ])
        #expect(try limited.get("/api/v1/calendars/\(work)").status == 200)
        #expect(try limited.get("/api/v1/events/\(workEvent)").status == 200)
        #expect(try limited.get("/api/v1/calendars/\(home)").status == 404)
        #expect(try limited.get("/api/v1/events/\(homeEvent)").status == 404)
        #expect(try limited.call("PATCH", "/api/v1/events/\(homeEvent)", #"{"title": "Moved"}"#).status == 404)
        #expect(try limited.call("DELETE", "/api/v1/events/\(homeEvent)").status == 404)
        #expect(
            try limited.call(
                "POST", "/api/v1/events", #"{"calendarId": "\#(home)", "title": "X", "start": "2026-11-25T09:00:00Z"}"#
            ).status == 404)
        #expect(try limited.call("POST", "/api/v1/calendars", #"{"title": "New"}"#).status == 403)
        let occurrences = try limited.get(
            "/api/v1/calendars/\(work)/occurrences?from=2026-11-23T00:00:00Z&to=2026-11-30T00:00:00Z")
        #expect(occurrences.status == 200, "\(occurrences.text)")
        for target in [
            "/api/v1/bookings", "/api/v1/webhooks", "/api/v1/subscriptions", "/api/v1/availability-schedules",
        ] {
            #expect(try limited.get(target).status == 403, "\(target)")
        }
        #expect(try test.server.eventStore(for: "anna").event(withIdentifier: homeEvent).title == "Dentist")

        // A limit to bob's calendar, or none of hers, is refused.
        for refused in [
            #"{"name": "x", "scope": "read", "calendars": ["\#(bobs)"]}"#,
            #"{"name": "x", "scope": "read", "calendars": []}"#,
            #"{"name": "x", "scope": "read", "calendars": ["\#(work)", "\#(work)"]}"#,
        ] {
            let answer = try anna.call("POST", "/api/v1/tokens", refused)
            #expect(answer.status == 400, "\(refused): \(answer.text)")
        }

        // On CalDAV, an app password limited to Work lists Work alone.
        let secret = try #require(
            try anna.call(
                "POST", "/api/v1/tokens",
                #"{"name": "phone", "kind": "app-password", "scope": "read-write", "calendars": ["\#(work)"]}"#)[
                    "token"]?
                .stringValue)
        let listing = try test.dav("PROPFIND", "/dav/calendars/anna/", as: test.basic("anna", secret), depth: "1")
        let hrefs = try listing.multistatus().responses.map(\.href)
        let store = try test.server.eventStore(for: "anna")
        let workName = try store.calendar(withIdentifier: work).name
        let homeName = try store.calendar(withIdentifier: home).name
        #expect(hrefs.contains { $0.hasSuffix("/\(workName)/") } && !hrefs.contains { $0.hasSuffix("/\(homeName)/") })
        #expect(
            try test.dav("PROPFIND", "/dav/calendars/anna/\(homeName)/", as: test.basic("anna", secret), depth: "0")
                .status == 404)
        #expect(try test.dav("MKCALENDAR", "/dav/calendars/anna/new/", as: test.basic("anna", secret)).status == 403)
        // The scheduling inbox and outbox and the sharing notifications are the whole
        // account's: not there for it (an unlimited app password reaches them).
        let whole = try #require(
            try anna.call(
                "POST", "/api/v1/tokens", #"{"name": "laptop", "kind": "app-password", "scope": "read-write"}"#)[
                    "token"]?
                .stringValue)
        for (method, path) in [
            ("PROPFIND", "/dav/inbox/anna/"), ("PROPFIND", "/dav/notifications/anna/"),
            ("PROPFIND", "/dav/outbox/anna/"),
            ("DELETE", "/dav/inbox/anna/message.ics"),
        ] {
            #expect(
                try test.dav(method, path, as: test.basic("anna", secret), depth: "0").status == 404,
                "\(method) \(path)")
        }
        #expect(try test.dav("PROPFIND", "/dav/inbox/anna/", as: test.basic("anna", whole), depth: "0").status == 207)
    }

    /// A user holds at most ``AccessToken/maxPerUser`` tokens and app passwords, so every
    /// listing of them is bounded: the next is 507 and nothing is made, another user is
    /// not affected, and revoking one makes room.
    @Test func aUserHoldsABoundedNumberOfTokens() throws {
        for index in 0..<AccessToken.maxPerUser {
            try server.backend.appState.createAccessToken(
                AccessToken(id: "t\(index)", user: "anna", name: "t\(index)", scope: .read, created: 0),
                secretHash: "hash \(index)")
        }
        let body = #"{"name": "one more", "kind": "app-password", "scope": "read"}"#
        let refused = try server.api("anna").call("POST", "/api/v1/tokens", body)
        #expect(refused.status == 507, "\(refused.text)")
        #expect(try server.backend.appState.accessTokens(user: "anna").count == AccessToken.maxPerUser)
        #expect(try server.api("bob").call("POST", "/api/v1/tokens", body).status == 201)
        try server.backend.appState.revokeAccessToken(id: "t0", user: "anna")
        #expect(try server.api("anna").call("POST", "/api/v1/tokens", body).status == 201)
    }
}
