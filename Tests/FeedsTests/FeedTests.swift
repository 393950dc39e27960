import AlmanacTesting
import CalendarStore
import HTTPTypes
import ICalendar
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

    /// The free-busy feed: the calendar's busy time as opaque blocks (no titles, places or
    /// notes), from a month back to a year ahead, each block the union of the instances
    /// that meet. Checked against the union of the occurrences the store lists, which
    /// reads every series, override and status its own way.
    @Test(arguments: ServerSetup.everyStore) func theBusyFeedShowsBusyBlocksAndNothingElse(_ setup: ServerSetup)
        throws
    {
        let now = 1_796_212_800  // 2026-12-02 12:00 UTC
        let server = try TestServer(setup, users: ["anna"], now: { now })
        let store = try server.eventStore(for: "anna")
        let calendar = try store.createCalendar(EventCalendar(title: "Studio", timeZone: "Europe/Berlin"))
        func put(_ name: String, _ lines: [String]) throws {
            let text =
                (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"] + lines + ["END:VCALENDAR", ""]).joined(
                    separator: "\r\n")
            _ = try store.putResource(
                Array(text.utf8), name: name, calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
        }
        func event(_ uid: String, _ lines: [String]) -> [String] {
            ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20261101T000000Z"] + lines + ["END:VEVENT"]
        }
        // A weekly series across the spring change, one instance moved into the next, one excluded.
        try put(
            "series.ics",
            event(
                "series",
                [
                    "DTSTART;TZID=Europe/Berlin:20261203T180000", "DURATION:PT1H30M", "RRULE:FREQ=WEEKLY;COUNT=30",
                    "EXDATE;TZID=Europe/Berlin:20261217T180000", "SUMMARY:Secret client", "LOCATION:Room 4",
                    "DESCRIPTION:do not show",
                ])
                + event(
                    "series",
                    [
                        "RECURRENCE-ID;TZID=Europe/Berlin:20261210T180000",
                        "DTSTART;TZID=Europe/Berlin:20261210T190000",
                        "DTEND;TZID=Europe/Berlin:20261210T210000", "SUMMARY:Secret client (late)",
                    ]))
        // Meets the moved instance: one block with it.
        try put("meets.ics", event("meets", ["DTSTART:20261210T200000Z", "DTEND:20261210T203000Z", "SUMMARY:Other"]))
        try put(
            "free.ics", event("free", ["DTSTART:20261204T090000Z", "DTEND:20261204T100000Z", "TRANSP:TRANSPARENT"]))
        try put("gone.ics", event("gone", ["DTSTART:20261205T090000Z", "DTEND:20261205T100000Z", "STATUS:CANCELLED"]))
        try put(
            "maybe.ics", event("maybe", ["DTSTART:20261206T090000Z", "DTEND:20261206T100000Z", "STATUS:TENTATIVE"]))
        try put("day.ics", event("day", ["DTSTART;VALUE=DATE:20261224", "DTEND;VALUE=DATE:20261227"]))
        try put("past.ics", event("past", ["DTSTART:20261001T090000Z", "DTEND:20261001T100000Z"]))
        try put("ahead.ics", event("ahead", ["DTSTART:20280101T090000Z", "DTEND:20280101T100000Z"]))

        let token = DatabaseBackend.newFeedToken()
        _ = try store.setFeedToken(token, for: .freeBusy, calendar: calendar.id)
        // The events feed's token does not open the busy feed, nor the other way round.
        #expect(try server.send("GET", "/feeds/\(token).ics").status == 404)
        let feed = try server.send("GET", "/feeds/\(token)-busy.ics")
        #expect(feed.status == 200 && feed.headers["Content-Type"] == "text/calendar; charset=utf-8")
        for secret in ["Secret", "Room 4", "do not show", "Other"] {
            #expect(!feed.text.contains(secret), "the busy feed shows no \(secret)")
        }
        let blocks = try ICalendarParser.parse(feed.body).components.flatMap(\.components).map { block in
            (
                start: try #require(try block.property("DTSTART")?.dateTimeValue()).civil.secondsSinceEpoch,
                end: try #require(try block.property("DTEND")?.dateTimeValue()).civil.secondsSinceEpoch,
                summary: block.property("SUMMARY")?.value ?? ""
            )
        }
        // The oracle: the store's occurrences in the window, busy ones joined where they meet.
        let window = TimeRange(
            start: (now / 86_400) * 86_400 - 30 * 86_400, end: (now / 86_400) * 86_400 + 366 * 86_400)
        var expected: [(start: Int, end: Int, summary: String)] = []
        let occurrences = try store.occurrences(
            in: window, calendars: [calendar.id], matching: .all, timeZone: nil, limit: 1_000
        ).occurrences.filter { !$0.isTransparent && !$0.isCancelled }
        for occurrence in occurrences.sorted(by: { $0.startInstant < $1.startInstant }) {
            let summary = occurrence.status == .tentative ? "Tentative" : "Busy"
            let start = max(window.start, occurrence.startInstant)
            let end = min(window.end, occurrence.endInstant)
            if let last = expected.last, last.summary == summary, start <= last.end {
                expected[expected.count - 1].end = max(last.end, end)
            } else {
                expected.append((start, end, summary))
            }
        }
        // 29 instances (30 less the excluded one; the moved one joined by the event it meets,
        // the one on Christmas Eve inside the holiday), the holiday, the tentative one.
        #expect(expected.count == 30, "\(expected)")
        #expect(
            blocks.map { "\($0.start)-\($0.end) \($0.summary)" }
                == expected.map { "\($0.start)-\($0.end) \($0.summary)" })
        // The ETag moves with the calendar; 304 until then.
        let etag = try #require(feed.headers["ETag"])
        #expect(try server.send("GET", "/feeds/\(token)-busy.ics", headers: ["If-None-Match": etag]).status == 304)
        try put("new.ics", event("new", ["DTSTART:20261207T090000Z", "DTEND:20261207T100000Z"]))
        #expect(try server.send("GET", "/feeds/\(token)-busy.ics", headers: ["If-None-Match": etag]).status == 200)
        _ = try store.setFeedToken(nil, for: .freeBusy, calendar: calendar.id)
        #expect(try server.send("GET", "/feeds/\(token)-busy.ics").status == 404)
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
