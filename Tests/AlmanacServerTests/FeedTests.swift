import AlmanacTesting
import CalendarStore
import HTTPTypes
import Testing

/// Subscription feeds and the DAV root through the server's routes, in process, over
/// loopback and on PostgreSQL when a cluster runs.
@Suite struct FeedTests {
    @Test(arguments: ServerSetup.all) func feedsServeTheCalendarWithZonesAndNoFloatingTimes(_ setup: ServerSetup)
        throws
    {
        let server = try TestServer(setup, users: ["anna"])
        let store = try server.eventStore(for: "anna")
        let calendar = try store.createCalendar(EventCalendar(title: "Classes", timeZone: "Europe/Berlin"))
        let object = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:class@test",
            "DTSTAMP:20261101T000000Z",
            "DTSTART:20261201T180000", "DTEND:20261201T190000", "RRULE:FREQ=WEEKLY;COUNT=3", "SUMMARY:Spin",
            "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        _ = try store.putResource(
            Array(object.utf8), name: "class.ics", calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)

        // No feed yet: any token is a bare 404.
        #expect(try server.send("GET", "/feeds/nothing.ics").status == 404)
        let token = DatabaseBackend.newFeedToken()
        _ = try store.setFeedToken(token, calendar: calendar.id)
        let feed = try server.send("GET", "/feeds/\(token).ics")
        #expect(feed.status == 200)
        #expect(feed.headers["Content-Type"] == "text/calendar; charset=utf-8")
        let text = feed.text
        // The floating times are given the calendar's zone, whose VTIMEZONE is included.
        #expect(text.contains("DTSTART;TZID=Europe/Berlin:20261201T180000"))
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin"))
        #expect(text.contains("X-WR-CALNAME:Classes"))
        // Revalidation: the same ETag gives 304; a change gives a new one.
        let etag = try #require(feed.headers["ETag"])
        #expect(try server.send("GET", "/feeds/\(token).ics", headers: ["If-None-Match": etag]).status == 304)
        _ = try store.putResource(
            Array(object.replacingOccurrences(of: "Spin", with: "Spin!").utf8), name: "class.ics",
            calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
        let changed = try server.send("GET", "/feeds/\(token).ics", headers: ["If-None-Match": etag])
        #expect(changed.status == 200 && changed.headers["ETag"] != etag)
        // Revoked: 404, and no sign-in is ever asked for.
        _ = try store.setFeedToken(nil, calendar: calendar.id)
        let revoked = try server.send("GET", "/feeds/\(token).ics")
        #expect(revoked.status == 404 && revoked.headers["WWW-Authenticate"] == nil)
    }

    @Test(arguments: ServerSetup.all) func davNeedsSignInAndRootDiscoveryWorks(_ setup: ServerSetup) throws {
        let server = try TestServer(setup, users: [])
        try server.createUser("anna", password: "secret password")
        let anonymous = try server.dav(nil).propfind("/")
        #expect(
            anonymous.status == 401
                && anonymous.headers["WWW-Authenticate"]?.hasPrefix("Basic realm=\"Almanac\"") == true)
        let dav = server.dav("anna")
        let signedIn = try dav.propfind("/", props: [.currentUserPrincipal]).multistatus()
        #expect(signedIn.hrefs == ["/"])
        #expect(signedIn.response("/")?.property(.currentUserPrincipal)?.hrefs == ["/dav/principals/anna/"])
        // Principal searches at the root, as on the principal collection.
        let searchSet = try dav.report("/", "<D:principal-search-property-set xmlns:D=\"DAV:\"/>")
        #expect(searchSet.status == 200)
        let searchable = try DAVElement.parse(searchSet.body)
        #expect(
            searchable.child(.dav("principal-search-property"))?.child(.dav("prop"))?.children.first?.name
                == .displayName)
        let search = try dav.report(
            "/",
            "<D:principal-property-search xmlns:D=\"DAV:\"><D:property-search><D:prop><D:displayname/></D:prop><D:match>an</D:match></D:property-search></D:principal-property-search>"
        ).multistatus()
        #expect(search.hrefs.contains("/dav/principals/anna/"))
    }
}
