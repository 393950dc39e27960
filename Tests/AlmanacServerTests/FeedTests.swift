import Accounts
import AlmanacServer
import AlmanacTestSupport
import CalendarStore
import HTTPServer
import HTTPTypes
import Testing

/// Subscription feeds through the server's routes, in process.
@Suite struct FeedTests {
    @Test func feedsServeTheCalendarWithZonesAndNoFloatingTimes() throws {
        let directory = try TemporaryDirectory()
        let backend = try DatabaseBackend(directory: directory.path)
        try backend.createUser(named: "anna")
        let store = try backend.eventStore(for: "anna")
        let calendar = try store.createCalendar(EventCalendar(title: "Classes", timeZone: "Europe/Berlin"))
        let object = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:class@test",
            "DTSTAMP:20261101T000000Z",
            "DTSTART:20261201T180000", "DTEND:20261201T190000", "RRULE:FREQ=WEEKLY;COUNT=3", "SUMMARY:Spin",
            "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        _ = try store.putResource(
            Array(object.utf8), name: "class.ics", calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
        let server = AlmanacServer(backend: backend, configuration: ServerConfiguration(port: 0, accessLog: false))

        // No feed yet: any token is a bare 404.
        #expect(server.respond(to: HTTPRequest(method: "GET", path: "/feeds/nothing.ics")).status == 404)
        let token = DatabaseBackend.newFeedToken()
        _ = try store.setFeedToken(token, calendar: calendar.id)
        let feed = server.respond(to: HTTPRequest(method: "GET", path: "/feeds/\(token).ics"))
        #expect(feed.status == 200)
        #expect(feed.headers["Content-Type"] == "text/calendar; charset=utf-8")
        let text = String(decoding: feed.body, as: UTF8.self)
        // The floating times are given the calendar's zone, whose VTIMEZONE is included.
        #expect(text.contains("DTSTART;TZID=Europe/Berlin:20261201T180000"))
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin"))
        #expect(text.contains("X-WR-CALNAME:Classes"))
        // Revalidation: the same ETag gives 304; a change gives a new one.
        let etag = try #require(feed.headers["ETag"])
        #expect(
            server.respond(
                to: HTTPRequest(method: "GET", path: "/feeds/\(token).ics", headers: ["If-None-Match": etag])
            ).status == 304)
        _ = try store.putResource(
            Array(object.replacingOccurrences(of: "Spin", with: "Spin!").utf8), name: "class.ics",
            calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
        let changed = server.respond(
            to: HTTPRequest(method: "GET", path: "/feeds/\(token).ics", headers: ["If-None-Match": etag]))
        #expect(changed.status == 200 && changed.headers["ETag"] != etag)
        // Revoked: 404, and no sign-in is ever asked for.
        _ = try store.setFeedToken(nil, calendar: calendar.id)
        let revoked = server.respond(to: HTTPRequest(method: "GET", path: "/feeds/\(token).ics"))
        #expect(revoked.status == 404 && revoked.headers["WWW-Authenticate"] == nil)
    }

    @Test func davNeedsSignInAndRootDiscoveryWorks() throws {
        let directory = try TemporaryDirectory()
        let backend = try DatabaseBackend(directory: directory.path)
        try backend.createUser(
            named: "anna", displayName: nil,
            passwordHash: PasswordHash(password: "secret password", iterations: 1_000).description)
        let server = AlmanacServer(backend: backend, configuration: ServerConfiguration(port: 0, accessLog: false))
        let anonymous = server.respond(to: HTTPRequest(method: "PROPFIND", path: "/", headers: ["Depth": "0"]))
        #expect(
            anonymous.status == 401
                && anonymous.headers["WWW-Authenticate"]?.hasPrefix("Basic realm=\"Almanac\"") == true)
        let signedIn = server.respond(
            to: HTTPRequest(
                method: "PROPFIND", path: "/",
                headers: [
                    "Depth": "0",
                    "Authorization": BasicCredentials(user: "anna", password: "secret password").authorization,
                ],
                body: Array(
                    "<D:propfind xmlns:D=\"DAV:\"><D:prop><D:current-user-principal/></D:prop></D:propfind>".utf8)))
        #expect(signedIn.status == 207)
        #expect(String(decoding: signedIn.body, as: UTF8.self).contains("<D:href>/</D:href>"))
        #expect(String(decoding: signedIn.body, as: UTF8.self).contains("/dav/principals/anna/"))
        // Principal searches at the root, as on the principal collection.
        let authorization = BasicCredentials(user: "anna", password: "secret password").authorization
        let searchSet = server.respond(
            to: HTTPRequest(
                method: "REPORT", path: "/", headers: ["Authorization": authorization],
                body: Array("<D:principal-search-property-set xmlns:D=\"DAV:\"/>".utf8)))
        #expect(searchSet.status == 200)
        #expect(
            String(decoding: searchSet.body, as: UTF8.self).contains(
                "<D:principal-search-property><D:prop><D:displayname/>"))
        let search = server.respond(
            to: HTTPRequest(
                method: "REPORT", path: "/", headers: ["Authorization": authorization],
                body: Array(
                    "<D:principal-property-search xmlns:D=\"DAV:\"><D:property-search><D:prop><D:displayname/></D:prop><D:match>an</D:match></D:property-search></D:principal-property-search>"
                        .utf8)))
        #expect(search.status == 207)
        #expect(String(decoding: search.body, as: UTF8.self).contains("<D:href>/dav/principals/anna/</D:href>"))
    }
}
