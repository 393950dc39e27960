import AlmanacTesting
import CalDAV
import Foundation
import HTTPTypes
import Testing

/// CalDAV through the real server (Basic sign-in included) as a client sees it: the
/// scenarios run in process and over a loopback socket, on SQLite and, when a test
/// cluster runs, on PostgreSQL.
@Suite struct CalDAVTests {
    static let event =
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"] + TestZones.berlin + [
            "BEGIN:VEVENT", "UID:lunch@test",
            "DTSTAMP:20261101T000000Z",
            "DTSTART;TZID=Europe/Berlin:20261201T120000", "DURATION:PT1H", "SUMMARY:Lunch", "X-KEEP-ME;X-P=1:yes",
            "END:VEVENT", "END:VCALENDAR", "",
        ]).joined(separator: "\r\n")

    @Test(arguments: ServerSetup.all) func optionsAdvertiseCalendarAccess(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        let response = try dav.send("OPTIONS", "/dav/")
        #expect(response.status == 200)
        #expect(response.headers["DAV"] == "1, 3, calendar-access, extended-mkcol, calendarserver-sharing")
        // Allow names what each resource answers: MKCOL makes a calendar only at an unmapped
        // calendar path; MKCALENDAR is answered everywhere, with its RFC 4791 §5.3.1.1
        // preconditions (403) where no calendar can be made.
        #expect(response.headers["Allow"] == "OPTIONS, GET, HEAD, PROPFIND, MKCALENDAR, REPORT")
        #expect(try dav.send("OPTIONS", "/dav/calendars/anna/work/").headers["Allow"] == "OPTIONS, MKCALENDAR, MKCOL")
    }

    @Test(arguments: ServerSetup.all) func discoveryFromTheRootToTheHome(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        let root = try dav.propfind("/dav/", props: [.currentUserPrincipal, .dav("nothing")]).multistatus()
        let rootResponse = try #require(root.response("/dav/"))
        #expect(rootResponse.property(.currentUserPrincipal)?.hrefs == ["/dav/principals/anna/"])
        #expect(rootResponse.status(of: .dav("nothing")) == 404)
        let principal = try dav.propfind("/dav/principals/anna/", props: [.calendarHomeSet, .resourceType])
            .multistatus()
        let principalResponse = try #require(principal.response("/dav/principals/anna/"))
        #expect(principalResponse.property(.calendarHomeSet)?.hrefs == ["/dav/calendars/anna/"])
        #expect(principalResponse.property(.resourceType)?.childNames == [.dav("principal")])
        #expect(try dav.send("PROPFIND", "/dav/", headers: ["Depth": "infinity"]).status == 403)
    }

    @Test(arguments: ServerSetup.all) func makeCalendarThenListAndReadItsProperties(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // RFC 4791 §5.3.1.1 (DAV:resource-must-be-null): a resource MUST NOT exist at the Request-URI.
        #expect(try dav.makeCalendar() == 403)
        let home = try dav.propfind("/dav/calendars/anna/", depth: "1").multistatus()
        let work = try #require(home.response("/dav/calendars/anna/work/"))
        #expect(work.property(.displayName)?.text == "Work & more")
        #expect(work.property(.calendarColor)?.text == "#FF000080")
        #expect(work.property(.resourceType)?.childNames == [.dav("collection"), .caldav("calendar")])
        let components = try #require(work.property(.caldav("supported-calendar-component-set")))
        #expect(components.childNames == [.caldav("comp")])
        #expect(components.children.first?.attributes == ["name": "VEVENT"])
        #expect(work.property(.getCTag) != nil)
        #expect(work.property(.syncToken)?.text.hasPrefix("almanac-sync:") == true)
    }

    @Test(arguments: ServerSetup.all) func putGetDeleteWithPreconditions(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let path = "/dav/calendars/anna/work/lunch.ics"
        let created = try dav.put(path, Self.event, ifNoneMatch: "*", contentType: "text/calendar; charset=utf-8")
        #expect(created.status == 201)
        let etag = try #require(created.headers["ETag"])
        // The stored object is the bytes sent.
        let read = try dav.get(path)
        #expect(read.status == 200 && read.body == Array(Self.event.utf8) && read.headers["ETag"] == etag)
        let propfind = try dav.propfind(path, props: [.getETag]).multistatus()
        #expect(propfind.response(path)?.property(.getETag)?.text == etag)

        #expect(try dav.put(path, Self.event, ifNoneMatch: "*").status == 412)
        #expect(try dav.put(path, Self.event, ifMatch: "\"stale\"").status == 412)
        let conflict = try dav.put("/dav/calendars/anna/work/copy.ics", Self.event)
        #expect(conflict.status == 403)
        #expect(conflict.precondition == .caldav("no-uid-conflict"))
        #expect(conflict.error?.condition.hrefs == ["/dav/calendars/anna/work/lunch.ics"])
        let invalid = try dav.put(
            "/dav/calendars/anna/work/bad.ics", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VTODO\r\n")
        #expect(invalid.status == 403 && invalid.precondition == .caldav("valid-calendar-data"))
        // RFC 4791 §5.3.2.1: valid iCalendar that breaks §4.1's rules (two UIDs, METHOD) is
        // CALDAV:valid-calendar-object-resource, not valid-calendar-data.
        for rule in ["UID:other@test", "METHOD:PUBLISH"] {
            let body =
                rule.hasPrefix("METHOD")
                ? Self.event.replacingOccurrences(of: "PRODID:-//Test//EN", with: "PRODID:-//Test//EN\r\n" + rule)
                : Self.event.replacingOccurrences(
                    of: "END:VCALENDAR",
                    with:
                        "BEGIN:VEVENT\r\n\(rule)\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261202T120000Z\r\nEND:VEVENT\r\nEND:VCALENDAR"
                )
            let broken = try dav.put("/dav/calendars/anna/work/rule.ics", body)
            #expect(broken.status == 403 && broken.precondition == .caldav("valid-calendar-object-resource"), "\(rule)")
        }
        let task = try dav.put(
            "/dav/calendars/anna/work/task.ics",
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VTODO\r\nUID:t\r\nDTSTAMP:20261101T000000Z\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        )
        #expect(task.status == 403 && task.precondition == .caldav("supported-calendar-component"))
        // RFC 4791 §5.3.2.1 (CALDAV:supported-calendar-data): a precondition, so 403.
        let json = try dav.put("/dav/calendars/anna/work/x.ics", "{}", contentType: "application/json")
        #expect(json.status == 403 && json.precondition == .caldav("supported-calendar-data"))
        // Nothing above changed what is stored.
        #expect(try dav.get(path).headers["ETag"] == etag)

        // Replacing with the current ETag answers 204 (RFC 4918 §9.7.1) with a new ETag.
        let replaced = try dav.put(
            path, Self.event.replacingOccurrences(of: "SUMMARY:Lunch", with: "SUMMARY:Late lunch"), ifMatch: etag)
        #expect(replaced.status == 204)
        let newTag = try #require(replaced.headers["ETag"])
        #expect(newTag != etag)
        #expect(try dav.delete(path, ifMatch: etag).status == 412)
        #expect(try dav.delete(path, ifMatch: newTag).status == 204)
        #expect(try dav.get(path).status == 404)
    }

    @Test(arguments: ServerSetup.all) func proppatchIsAllOrNothing(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let flavour = DAVName("http://example.com/ns", "flavour")
        let patched = try dav.send(
            "PROPPATCH", "/dav/calendars/anna/work/",
            """
            <D:propertyupdate xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/" xmlns:X="http://example.com/ns">
              <D:set><D:prop><A:calendar-color>#00FF00</A:calendar-color><X:flavour>lemon</X:flavour></D:prop></D:set>
            </D:propertyupdate>
            """
        ).multistatus()
        // Both set, nothing refused.
        #expect(patched.responses.map(\.propertyNamesByStatus) == [[200: [.calendarColor, flavour]]])
        #expect(patched.responses.allSatisfy { $0.status == nil })
        let read = try #require(
            try dav.propfind("/dav/calendars/anna/work/").multistatus().response("/dav/calendars/anna/work/"))
        #expect(read.property(.calendarColor)?.text == "#00FF00")
        #expect(read.property(flavour)?.text == "lemon")
        // A protected property fails the whole update; the other change reports 424 and is not made.
        let refused = try dav.send(
            "PROPPATCH", "/dav/calendars/anna/work/",
            """
            <D:propertyupdate xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/" xmlns:CS="http://calendarserver.org/ns/">
              <D:set><D:prop><A:calendar-color>#0000FF</A:calendar-color><CS:getctag>x</CS:getctag></D:prop></D:set>
            </D:propertyupdate>
            """
        ).multistatus()
        let refusal = try #require(refused.response("/dav/calendars/anna/work/"))
        #expect(refusal.status(of: .getCTag) == 403 && refusal.status(of: .calendarColor) == 424)
        let after = try dav.propfind("/dav/calendars/anna/work/").multistatus().response("/dav/calendars/anna/work/")
        #expect(after?.property(.calendarColor)?.text == "#00FF00")
    }

    @Test(
        arguments: ServerSetup.everyTransport,
        [
            "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">]><D:propfind xmlns:D=\"DAV:\">&lol2;</D:propfind>",
            "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><D:propfind xmlns:D=\"DAV:\"><D:prop>&xxe;</D:prop></D:propfind>",
            "<D:propfind xmlns:D=\"DAV:\"><D:prop>",
            String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200),
        ])
    func hostileXMLIsRefused(_ setup: ServerSetup, body: String) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.send("PROPFIND", "/dav/", body, headers: ["Depth": "0"]).status == 400)
        #expect(try dav.send("MKCALENDAR", "/dav/calendars/anna/evil/", body).status == 400)
        let home = try dav.propfind("/dav/calendars/anna/", depth: "1").multistatus()
        #expect(!home.allHrefs.contains { $0.contains("evil") })
    }

    static let weekly = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:weekly@test",
        "DTSTAMP:20261101T000000Z",
        "DTSTART:20261201T170000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=3", "SUMMARY:Yoga", "END:VEVENT",
        "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    @Test(arguments: ServerSetup.all) func reportsQueryMultigetAndSync(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        let work = "/dav/calendars/anna/work/"
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put(work + "lunch.ics", Self.event).status == 201)
        #expect(try dav.put(work + "weekly.ics", Self.weekly).status == 201)
        // 2026-12-15 holds only the third yoga instance (17:00Z); lunch is on the 1st.
        let query = try dav.calendarQuery(
            work,
            prop:
                "<D:getetag/><C:calendar-data><C:expand start=\"20261215T000000Z\" end=\"20261216T000000Z\"/></C:calendar-data>",
            start: "20261215T000000Z", end: "20261216T000000Z"
        ).multistatus()
        #expect(query.hrefs == [work + "weekly.ics"])
        // Expanded: one instance with its RECURRENCE-ID, in UTC, without the rule.
        let expanded = try #require(query.response(work + "weekly.ics")?.property(.calendarData)?.text)
        #expect(expanded.contains("RECURRENCE-ID:20261215T170000Z"))
        #expect(expanded.contains("DTSTART:20261215T170000Z"))
        #expect(!expanded.contains("RRULE"))

        let multiget = try dav.multiget(work, hrefs: [work + "lunch.ics", work + "none.ics"]).multistatus()
        #expect(
            multiget.response(work + "lunch.ics")?.property(.calendarData)?.text.contains("X-KEEP-ME;X-P=1:yes") == true
        )
        #expect(multiget.response(work + "none.ics")?.status == 404)

        let initial = try dav.syncCollection(work).multistatus()
        #expect(initial.responses.count == 2)
        let token = try #require(initial.syncToken)
        #expect(try dav.delete(work + "lunch.ics").status == 204)
        let delta = try dav.syncCollection(work, token: token).multistatus()
        #expect(delta.hrefs == [work + "lunch.ics"])
        #expect(delta.response(work + "lunch.ics")?.status == 404)
        let unknown = try dav.syncCollection(work, token: "almanac-sync:nope:1", props: [])
        #expect(unknown.status == 403 && unknown.precondition == .dav("valid-sync-token"))
    }

    @Test(arguments: ServerSetup.all) func queryFiltersFreeBusyAndPrincipalSearch(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        let work = "/dav/calendars/anna/work/"
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put(work + "lunch.ics", Self.event).status == 201)
        #expect(try dav.put(work + "weekly.ics", Self.weekly).status == 201)
        let transparent = Self.event.replacingOccurrences(of: "lunch@test", with: "free@test").replacingOccurrences(
            of: "SUMMARY:Lunch", with: "SUMMARY:Optional\r\nTRANSP:TRANSPARENT")
        #expect(try dav.put(work + "free.ics", transparent).status == 201)
        func query(_ filter: String) throws -> [String] {
            try dav.calendarQuery(
                work,
                filter:
                    "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\">\(filter)</C:comp-filter></C:comp-filter>"
            ).multistatus().hrefs
        }
        let yoga = try query(
            "<C:prop-filter name=\"SUMMARY\"><C:text-match collation=\"i;ascii-casemap\">YOGA</C:text-match></C:prop-filter>"
        )
        #expect(yoga.contains(work + "weekly.ics") && !yoga.contains(work + "lunch.ics"))
        let notYoga = try query(
            "<C:prop-filter name=\"SUMMARY\"><C:text-match negate-condition=\"yes\">yoga</C:text-match></C:prop-filter>"
        )
        #expect(!notYoga.contains(work + "weekly.ics") && notYoga.contains(work + "lunch.ics"))
        let noRule = try query("<C:prop-filter name=\"RRULE\"><C:is-not-defined/></C:prop-filter>")
        #expect(!noRule.contains(work + "weekly.ics") && noRule.contains(work + "lunch.ics"))
        let parameter = try query(
            "<C:prop-filter name=\"X-KEEP-ME\"><C:param-filter name=\"X-P\"><C:text-match>1</C:text-match></C:param-filter></C:prop-filter>"
        )
        #expect(parameter.contains(work + "lunch.ics") && !parameter.contains(work + "weekly.ics"))

        // Busy on 2026-12-01: lunch 11:00–12:00Z (12:00 Berlin) and yoga 17:00–18:00Z; the transparent event is free.
        let freeBusy = try dav.freeBusy(work, start: "20261201T000000Z", end: "20261202T000000Z")
        #expect(freeBusy.status == 200)
        #expect(freeBusy.text.contains("FREEBUSY;FBTYPE=BUSY:20261201T110000Z/20261201T120000Z"))
        #expect(freeBusy.text.contains("FREEBUSY;FBTYPE=BUSY:20261201T170000Z/20261201T180000Z"))
        #expect(freeBusy.text.components(separatedBy: "FREEBUSY;").count == 3)

        let search = try dav.report(
            "/dav/",
            "<D:principal-property-search xmlns:D=\"DAV:\"><D:property-search><D:prop><D:displayname/></D:prop><D:match>ANN</D:match></D:property-search><D:prop><D:displayname/></D:prop></D:principal-property-search>"
        ).multistatus()
        #expect(search.hrefs.contains("/dav/principals/anna/"))
        let others = try dav.report(
            "/dav/",
            "<D:principal-property-search xmlns:D=\"DAV:\"><D:property-search><D:prop><D:displayname/></D:prop><D:match>bob</D:match></D:property-search></D:principal-property-search>"
        )
        // Nothing of bob's is found, not even his name.
        #expect(try others.multistatus().allHrefs.allSatisfy { !$0.contains("bob") })
        #expect(!others.text.contains("bob"))
    }

    @Test(arguments: ServerSetup.all) func otherUsersTreesAndBadPathsAreNotFound(_ setup: ServerSetup) throws {
        let server = try TestServer(setup)
        let dav = server.dav("anna")
        let bob = server.dav("bob")
        #expect(try dav.makeCalendar() == 201)
        #expect(try bob.propfind("/dav/calendars/anna/work/").status == 404)
        #expect(try bob.put("/dav/calendars/anna/work/x.ics", Self.event).status == 404)
        #expect(try dav.get("/dav/calendars/anna/../bob/x.ics").status == 404)
        #expect(try dav.get("/dav/calendars/anna/%zz/").status == 404)
    }
}

extension DAVClient {
    /// anna's calendar `name`, made as clients make one: a display name with an
    /// ampersand, a color with alpha, events only. The MKCALENDAR's status.
    func makeCalendar(_ name: String = "work") throws -> Int {
        try mkcalendar(
            "/dav/calendars/anna/\(name)/", displayName: "Work & more", color: "#FF000080", components: ["VEVENT"]
        ).status
    }
}
