import Accounts
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import ICalendar
import Synchronization
import Testing

/// The provisioning API (`/api/v1/admin/…`): an admin makes, changes and removes
/// accounts and mints their tokens; nobody else may, and nothing of a removed user stays.
@Suite struct AdminAPITests {
    final class Clock: Sendable {
        // 2026-11-20T00:00:00Z.
        let now = Atomic(1_795_132_800)
        var value: Int { now.load(ordering: .relaxed) }
    }

    let clock = Clock()
    let server: TestServer
    var backend: DatabaseBackend { server.backend }
    /// Anna (an admin) with a token of the admin scope.
    let admin: APIClient

    init(_ setup: ServerSetup = .inProcess) throws {
        let clock = clock
        server = try TestServer(setup, users: ["anna", "bob"], now: { clock.value })
        try server.backend.setRole(.admin, forUser: "anna")
        admin = server.api(bearer: try server.createAPIToken(for: "anna", scope: .admin))
    }

    func body(_ answer: APIAnswer) -> String { "\(answer.status) \(answer.text)" }

    /// Who may call the admin routes: an admin by password, or an admin's token with the
    /// admin scope. An admin's read-write token, any token or password of a plain user,
    /// and no sign-in at all are refused, and nothing changes.
    @Test func onlyAnAdminMayProvision() throws {
        let create = #"{"name": "mallory", "password": "mallory password"}"#
        let readWrite = server.api(bearer: try server.createAPIToken(for: "anna", scope: .readWrite))
        let bobsAdminScope = server.api(bearer: try server.createAPIToken(for: "bob", scope: .admin))
        for (client, status) in [
            (readWrite, 403), (server.api("bob"), 403), (bobsAdminScope, 403),
            (APIClient(server: server, authorization: nil), 401),
        ] {
            let answer = try client.call("POST", "/api/v1/admin/users", create)
            #expect(answer.status == status, "\(body(answer))")
            #expect(try client.get("/api/v1/admin/users").status == status)
            #expect(try client.call("DELETE", "/api/v1/admin/users/bob").status == status)
            #expect(
                try client.call("POST", "/api/v1/admin/users/bob/tokens", #"{"name": "x", "scope": "read"}"#)
                    .status == status)
        }
        #expect(try backend.users().map(\.name) == ["anna", "bob"])
        // Anna's own password works as her admin token does.
        #expect(try server.api("anna").get("/api/v1/admin/users").status == 200)
        // A disabled admin is an admin no more.
        try backend.setDisabled(true, forUser: "anna")
        #expect(try admin.get("/api/v1/admin/users").status == 401)
    }

    /// An admin token names its own server's store: another server with the same users
    /// (and its own admin) does not know it, so it is 401 there and changes nothing.
    @Test func anAdminTokenOfOneServerIsUnknownToAnother() throws {
        let other = try TestServer(.inProcess, users: ["anna", "bob"])
        try other.backend.setRole(.admin, forUser: "anna")
        let secret = try server.createAPIToken(for: "anna", scope: .admin)
        #expect(try server.api(bearer: secret).get("/api/v1/admin/users").status == 200)
        let stranger = other.api(bearer: secret)
        #expect(try stranger.get("/api/v1/admin/users").status == 401)
        #expect(try stranger.call("DELETE", "/api/v1/admin/users/bob").status == 401)
        #expect(try other.backend.users().map(\.name) == ["anna", "bob"])
    }

    /// Create, list in pages, read, change, mint a token, use it until it expires
    /// (a moved clock), revoke, disable and delete: on every store.
    @Test(arguments: ServerSetup.everyStore) func anAccountFromCreationToDeletion(_ setup: ServerSetup) throws {
        let test = try AdminAPITests(setup)
        let admin = test.admin
        let created = try admin.call(
            "POST", "/api/v1/admin/users",
            #"{"name": "cara", "displayName": "Cara Diaz", "emails": ["Cara@Example.com"], "password": "cara password", "quota": {"maxObjects": 2}}"#
        )
        #expect(created.status == 201, "\(test.body(created))")
        #expect(created.headers["Location"] == "/api/v1/admin/users/cara")
        #expect(
            created["name"]?.stringValue == "cara" && created["displayName"]?.stringValue == "Cara Diaz"
                && created["emails"]?[0]?.stringValue == "cara@example.com" && created["role"]?.stringValue == "user"
                && created["disabled"] == .bool(false) && created["hasPassword"] == .bool(true)
                && created["quota"]?["maxObjects"] == .integer(2) && created["quota"]?["maxBytes"] == .null)
        #expect(try test.backend.user(withAddress: "mailto:cara@example.com")?.name == "cara")
        // Taken names and addresses are 409, bad fields 400; none of them makes anyone.
        for (input, status) in [
            (#"{"name": "cara"}"#, 409), (#"{"name": "dan", "emails": ["cara@example.com"]}"#, 409),
            (#"{"name": "dan", "password": "short"}"#, 400), (#"{"name": "d/n"}"#, 400),
            (#"{"name": "dan", "role": "owner"}"#, 400), (#"{"name": "dan", "quota": {"maxObjects": -1}}"#, 400),
            (#"{"name": "dan", "emails": ["not an address"]}"#, 400), (#"{"name": "dan", "disabled": true}"#, 400),
            (#"{"displayName": "No name"}"#, 400),
        ] {
            let answer = try admin.call("POST", "/api/v1/admin/users", input)
            #expect(answer.status == status, "\(input): \(test.body(answer))")
        }
        #expect(try test.backend.users().map(\.name) == ["anna", "bob", "cara"])

        // Pages of one, following `next` as given.
        var names: [String] = []
        var next: String? = "/api/v1/admin/users?limit=1"
        for _ in 0..<5 {
            guard let target = next else { break }
            let page = try admin.get(target)
            #expect(page.status == 200, "\(test.body(page))")
            names += page["users"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            next = page["next"]?.stringValue
        }
        #expect(names == ["anna", "bob", "cara"] && next == nil)

        // Her password signs her in; her quota holds at two objects.
        let cara = test.server.api("cara")
        #expect(try cara.get("/api/v1/calendars").status == 200)
        let calendar = try #require(
            try cara.call("POST", "/api/v1/calendars", #"{"title": "Mine", "timeZone": "Europe/Berlin"}"#)["id"]?
                .stringValue)
        for (index, status) in [(1, 201), (2, 201), (3, 507)] {
            let event = try cara.call(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(calendar)", "title": "E\#(index)", "start": "2026-11-2\#(index)T09:00:00Z"}"#)
            #expect(event.status == status, "\(test.body(event))")
        }
        let raised = try admin.call("PATCH", "/api/v1/admin/users/cara", #"{"quota": {"maxObjects": null}}"#)
        #expect(raised.status == 200 && raised["quota"]?["maxObjects"] == .null, "\(test.body(raised))")

        // A token minted for her, an hour long; the admin scope is an admin's only.
        let minted = try admin.call(
            "POST", "/api/v1/admin/users/cara/tokens", #"{"name": "sync app", "scope": "read", "expiresIn": 3600}"#)
        #expect(minted.status == 201, "\(test.body(minted))")
        #expect(minted["user"]?.stringValue == "cara" && minted["expiresAt"]?.stringValue == "2026-11-20T01:00:00Z")
        let secret = try #require(minted["token"]?.stringValue)
        let tokenID = try #require(minted["id"]?.stringValue)
        for input in [
            #"{"name": "x", "scope": "admin"}"#, #"{"name": "x", "scope": "read", "expiresIn": 31622401}"#,
            #"{"name": "x", "scope": "everything"}"#, #"{"scope": "read"}"#,
        ] {
            #expect(try admin.call("POST", "/api/v1/admin/users/cara/tokens", input).status == 400, "\(input)")
        }
        #expect(
            try admin.call("POST", "/api/v1/admin/users/nobody/tokens", #"{"name": "x", "scope": "read"}"#).status
                == 404)
        let caraToken = test.server.api(bearer: secret)
        let listed = try caraToken.get("/api/v1/tokens")
        #expect(listed["tokens"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [tokenID])
        #expect(try caraToken.get("/api/v1/calendars").status == 200)
        #expect(try caraToken.call("POST", "/api/v1/calendars", #"{"title": "No"}"#).status == 403)
        // An hour later it is expired (RFC 6750 invalid_token).
        test.clock.now.store(1_795_132_800 + 3600, ordering: .relaxed)
        let expired = try caraToken.get("/api/v1/calendars")
        #expect(expired.status == 401)
        #expect(expired.headers["WWW-Authenticate"]?.contains(#"error="invalid_token""#) == true)

        // She revokes her own tokens; another user's token id is 404 to her.
        let second = try admin.call("POST", "/api/v1/admin/users/cara/tokens", #"{"name": "b", "scope": "read"}"#)
        let secondID = try #require(second["id"]?.stringValue)
        let bobsToken = try #require(try test.backend.appState.accessTokens(user: "anna").first?.id)
        #expect(try cara.call("DELETE", "/api/v1/tokens/\(bobsToken)").status == 404)
        #expect(try cara.call("DELETE", "/api/v1/tokens/\(secondID)").status == 204)
        #expect(
            try test.server.api(bearer: try #require(second["token"]?.stringValue)).get("/api/v1/calendars").status
                == 401)

        // Disabled: no sign-in by any method; an admin cannot disable or demote themselves.
        let disabled = try admin.call("PATCH", "/api/v1/admin/users/cara", #"{"disabled": true}"#)
        #expect(disabled.status == 200 && disabled["disabled"] == .bool(true))
        #expect(try cara.get("/api/v1/calendars").status == 401)
        #expect(try admin.call("PATCH", "/api/v1/admin/users/anna", #"{"disabled": true}"#).status == 409)
        #expect(try admin.call("PATCH", "/api/v1/admin/users/anna", #"{"role": "user"}"#).status == 409)
        #expect(try admin.call("DELETE", "/api/v1/admin/users/anna").status == 409)
        let promoted = try admin.call(
            "PATCH", "/api/v1/admin/users/bob", #"{"role": "admin", "emails": ["bob@example.com"]}"#)
        #expect(promoted.status == 200 && promoted["role"]?.stringValue == "admin")
        #expect(try test.server.api("bob").get("/api/v1/admin/users/cara")["disabled"] == .bool(true))

        // Deleted, with a retry by the same key answering the first 204.
        let key: HTTPHeaders = ["Idempotency-Key": "delete-cara-1"]
        #expect(try admin.call("DELETE", "/api/v1/admin/users/cara", headers: key).status == 204)
        let retried = try admin.call("DELETE", "/api/v1/admin/users/cara", headers: key)
        #expect(retried.status == 204 && retried.headers["Idempotent-Replayed"] == "true")
        #expect(try admin.get("/api/v1/admin/users/cara").status == 404)
        #expect(try admin.call("DELETE", "/api/v1/admin/users/cara").status == 404)
        #expect(try test.backend.user(withAddress: "cara@example.com") == nil)
    }

    /// Row counts of every table the database copy knows, read by copying the store into
    /// a fresh SQLite file: what a removed user leaves behind shows as a count that moved.
    func tableCounts() throws -> [String: Int] {
        let directory = try TemporaryDirectory()
        let target = try DatabaseBackend(directory: directory.path)
        let report = try backend.copy(to: target)
        return Dictionary(uniqueKeysWithValues: report.rows.map { ($0.table, $0.count) })
    }

    /// A user with everything a user can have (calendars and events, a share to bob and
    /// one from him with their own alarms on it, a subscription, a booking type with a
    /// booking, a webhook, tokens, a session, addresses, an availability schedule) is
    /// deleted: every table holds what it held before they were created, and bob keeps
    /// his own calendar but loses the one she shared.
    @Test(arguments: ServerSetup.everyStore) func deletingAUserLeavesNoTrace(_ setup: ServerSetup) throws {
        let test = try AdminAPITests(setup)
        let bobsCalendar = try #require(
            try test.server.api("bob").call("POST", "/api/v1/calendars", #"{"title": "Bob's"}"#)["id"]?.stringValue)
        let before = try test.tableCounts()

        #expect(
            try test.admin.call(
                "POST", "/api/v1/admin/users",
                #"{"name": "cara", "emails": ["cara@example.com"], "password": "cara password"}"#
            ).status == 201)
        let cara = test.server.api("cara")
        let schedule = try cara.call(
            "POST", "/api/v1/availability-schedules",
            #"{"title": "Studio", "timeZone": "Europe/Berlin", "hours": "Mon-Fri 09:00-12:00"}"#)
        #expect(schedule.status == 201, "\(test.body(schedule))")
        let calendar = try #require(
            try cara.call("POST", "/api/v1/calendars", #"{"title": "Trainings", "timeZone": "Europe/Berlin"}"#)["id"]?
                .stringValue)
        #expect(
            try cara.call(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(calendar)", "title": "Class", "start": "2026-11-24T09:00:00Z", "rrule": "FREQ=WEEKLY"}"#
            ).status == 201)
        let type = try cara.call(
            "POST", "/api/v1/booking-types",
            #"{"title": "Personal training", "slug": "cara-personal", "durations": [60], "calendar": "\#(calendar)"}"#)
        #expect(type.status == 201, "\(test.body(type))")
        let booked = try cara.call(
            "POST", "/api/v1/bookings",
            #"{"bookingType": "\#(try #require(type["id"]?.stringValue))", "start": "2026-11-23T08:00:00Z", "name": "Lena Berg", "email": "lena@example.com"}"#
        )
        #expect(booked.status == 201, "\(test.body(booked))")
        let store = try test.server.eventStore(for: "cara")
        try store.share(calendar: calendar, with: "bob", access: .read, invite: false, summary: nil)
        try test.server.eventStore(for: "bob").share(
            calendar: bobsCalendar, with: "cara", access: .readWrite, invite: false, summary: nil)
        let shared = try #require(try store.calendars().first { $0.access != nil })
        try store.setPersonalProperties(["X-ALMANAC-TEST": "mine"], ofCalendar: shared.id)
        _ = try test.backend.subscriptions.subscribe(
            user: "cara", url: "https://feeds.example.com/cara-secret.ics", title: "Team", refreshInterval: nil,
            now: test.clock.value)
        _ = try test.backend.webhooks.createWebhook(
            Webhook(id: Webhook.newIdentifier(), user: "cara", url: "https://hooks.example.com/cara"), secret: "s")
        _ = try test.server.createAPIToken(for: "cara", scope: .readWrite)
        try test.backend.appState.createSession(
            SignInSession(user: "cara", csrfToken: "c", expires: Int.max / 2), secretHash: "cara session")
        #expect(try test.tableCounts() != before, "the scenario stored nothing")

        #expect(try test.admin.call("DELETE", "/api/v1/admin/users/cara").status == 204)
        let after = try test.tableCounts()
        for table in Set(before.keys).union(after.keys).sorted() {
            #expect(
                after[table] == before[table], "\(table): \(before[table] ?? 0) before cara, \(after[table] ?? 0) after"
            )
        }
        let bobs = try test.server.eventStore(for: "bob").calendars()
        #expect(bobs.map(\.id).contains(bobsCalendar) && !bobs.contains { $0.access != nil })
    }

    /// Removing a user withdraws their scheduling as deletions would (RFC 6638): bob's
    /// copy of the event she organized (never answered) goes, with a CANCEL in his inbox,
    /// and her answer to the event he organized turns DECLINED.
    @Test func deletingAUserCancelsWhatTheyOrganize() throws {
        let created = try admin.call(
            "POST", "/api/v1/admin/users",
            #"{"name": "cara", "emails": ["cara@example.com"], "password": "cara password"}"#)
        #expect(created.status == 201, "\(body(created))")
        try backend.setAddresses(["bob@example.com"], forUser: "bob")
        let cara = server.api("cara")
        let bob = server.api("bob")
        func calendar(_ client: APIClient) throws -> String {
            try #require(try client.call("POST", "/api/v1/calendars", #"{"title": "Work"}"#)["id"]?.stringValue)
        }
        let hers = try cara.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(try calendar(cara))", "title": "Her class", "start": "2026-11-24T09:00:00Z", "attendees": [{"email": "bob@example.com"}]}"#
        )
        #expect(hers.status == 201, "\(body(hers))")
        let uid = try #require(hers["uid"]?.stringValue)
        #expect(try server.eventStore(for: "bob").events(withExternalIdentifier: uid).count == 1)
        let his = try bob.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(try calendar(bob))", "title": "His review", "start": "2026-11-25T09:00:00Z", "attendees": [{"email": "cara@example.com"}]}"#
        )
        #expect(his.status == 201, "\(body(his))")
        let hisID = try #require(his["id"]?.stringValue)
        func carasAnswer() throws -> String? {
            try bob.get("/api/v1/events/\(hisID)")["attendees"]?.arrayValue?
                .first { $0["email"]?.stringValue == "cara@example.com" }?["status"]?.stringValue
        }
        #expect(try carasAnswer() == "needs-action")

        #expect(try admin.call("DELETE", "/api/v1/admin/users/cara").status == 204)
        #expect(try server.eventStore(for: "bob").events(withExternalIdentifier: uid).isEmpty)
        #expect(try backend.scheduling.inbox(of: "bob", uid: uid, method: "CANCEL").count == 1)
        #expect(try carasAnswer() == "declined")
    }

    /// A disabled user's published feeds and booking pages answer 404 (as if they never
    /// were), and work again once they are enabled.
    @Test func aDisabledUsersFeedsAndBookingPagesAre404() throws {
        let bob = server.api("bob")
        let calendar = try #require(
            try bob.call("POST", "/api/v1/calendars", #"{"title": "Classes", "timeZone": "Europe/Berlin"}"#)["id"]?
                .stringValue)
        _ = try server.eventStore(for: "bob").setFeedToken("bobsfeedtoken", for: .events, calendar: calendar)
        let type = try bob.call(
            "POST", "/api/v1/booking-types",
            #"{"title": "Training", "slug": "bob-training", "durations": [60], "calendar": "\#(calendar)"}"#)
        #expect(type.status == 201, "\(body(type))")
        func statuses() throws -> [Int] {
            [
                try server.send("GET", "/feeds/bobsfeedtoken.ics").status,
                try server.send("GET", "/book/bob-training").status,
            ]
        }
        #expect(try statuses() == [200, 200])
        #expect(try admin.call("PATCH", "/api/v1/admin/users/bob", #"{"disabled": true}"#).status == 200)
        #expect(try statuses() == [404, 404])
        #expect(try admin.call("PATCH", "/api/v1/admin/users/bob", #"{"disabled": false}"#).status == 200)
        #expect(try statuses() == [200, 200])
    }
}
