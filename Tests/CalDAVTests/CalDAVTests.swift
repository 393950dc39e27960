import AlmanacTestSupport
import CalDAV
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// CalDAV as request → response, over a real SQLite store in a temporary directory.
@Suite struct CalDAVTests {
    let directory: TemporaryDirectory
    let backend: DatabaseBackend
    let handler: CalDAVHandler

    init() throws {
        directory = try TemporaryDirectory()
        backend = try DatabaseBackend(directory: directory.path)
        try backend.createUser(named: "anna")
        try backend.createUser(named: "bob")
        handler = CalDAVHandler(backend: backend)
    }

    func send(_ method: String, _ path: String, _ body: String = "", headers: HTTPHeaders = [:], user: String = "anna")
        -> (status: Int, headers: HTTPHeaders, text: String)
    {
        let response = handler.respond(
            to: HTTPRequest(method: method, path: path, headers: headers, body: Array(body.utf8)), user: user)
        return (response.status, response.headers, String(decoding: response.body, as: UTF8.self))
    }

    static let event = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:lunch@test",
        "DTSTAMP:20261101T000000Z",
        "DTSTART;TZID=Europe/Berlin:20261201T120000", "DURATION:PT1H", "SUMMARY:Lunch", "X-KEEP-ME;X-P=1:yes",
        "END:VEVENT", "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    func makeCalendar(_ name: String = "work") -> Int {
        send(
            "MKCALENDAR", "/dav/calendars/anna/\(name)/",
            """
            <?xml version="1.0" encoding="utf-8"?>
            <C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:A="http://apple.com/ns/ical/">
              <D:set><D:prop>
                <D:displayname>Work &amp; more</D:displayname>
                <A:calendar-color>#FF000080</A:calendar-color>
                <C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>
              </D:prop></D:set>
            </C:mkcalendar>
            """
        ).status
    }

    @Test func optionsAdvertiseCalendarAccess() {
        let response = send("OPTIONS", "/dav/")
        #expect(response.status == 200)
        #expect(response.headers["DAV"] == "1, 3, calendar-access, extended-mkcol")
        // Allow names what each resource answers: calendars are made at calendar paths.
        #expect(response.headers["Allow"]?.contains("MKCALENDAR") == false)
        #expect(send("OPTIONS", "/dav/calendars/anna/work/").headers["Allow"]?.contains("MKCALENDAR") == true)
    }

    @Test func discoveryFromTheRootToTheHome() {
        let root = send(
            "PROPFIND", "/dav/",
            "<D:propfind xmlns:D=\"DAV:\"><D:prop><D:current-user-principal/><D:nothing/></D:prop></D:propfind>",
            headers: ["Depth": "0"])
        #expect(root.status == 207)
        #expect(
            root.text.contains(
                "<D:current-user-principal><D:href>/dav/principals/anna/</D:href></D:current-user-principal>"))
        #expect(root.text.contains("<D:nothing/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status>"))
        let principal = send(
            "PROPFIND", "/dav/principals/anna/",
            "<D:propfind xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><C:calendar-home-set/><D:resourcetype/></D:prop></D:propfind>",
            headers: ["Depth": "0"])
        #expect(
            principal.text.contains("<C:calendar-home-set><D:href>/dav/calendars/anna/</D:href></C:calendar-home-set>"))
        #expect(principal.text.contains("<D:resourcetype><D:principal/></D:resourcetype>"))
        #expect(send("PROPFIND", "/dav/", "", headers: ["Depth": "infinity"]).status == 403)
    }

    @Test func makeCalendarThenListAndReadItsProperties() {
        #expect(makeCalendar() == 201)
        #expect(makeCalendar() == 405)
        let home = send("PROPFIND", "/dav/calendars/anna/", "", headers: ["Depth": "1"])
        #expect(home.status == 207)
        #expect(home.text.contains("<D:href>/dav/calendars/anna/work/</D:href>"))
        #expect(home.text.contains("<D:displayname>Work &amp; more</D:displayname>"))
        #expect(home.text.contains("<A:calendar-color>#FF000080</A:calendar-color>"))
        #expect(home.text.contains("<D:resourcetype><D:collection/><C:calendar/></D:resourcetype>"))
        #expect(
            home.text.contains(
                "<C:supported-calendar-component-set><C:comp name=\"VEVENT\"/></C:supported-calendar-component-set>"))
        #expect(home.text.contains("<CS:getctag>"))
        #expect(home.text.contains("<D:sync-token>almanac-sync:"))
    }

    @Test func putGetDeleteWithPreconditions() throws {
        #expect(makeCalendar() == 201)
        let path = "/dav/calendars/anna/work/lunch.ics"
        let created = send(
            "PUT", path, Self.event, headers: ["If-None-Match": "*", "Content-Type": "text/calendar; charset=utf-8"])
        #expect(created.status == 201)
        let etag = try #require(created.headers["ETag"])
        let read = send("GET", path)
        #expect(read.status == 200 && read.text == Self.event && read.headers["ETag"] == etag)
        let propfind = send(
            "PROPFIND", path, "<D:propfind xmlns:D=\"DAV:\"><D:prop><D:getetag/></D:prop></D:propfind>",
            headers: ["Depth": "0"])
        #expect(propfind.text.contains("<D:getetag>\(etag.replacingOccurrences(of: "\"", with: "&quot;"))</D:getetag>"))

        #expect(send("PUT", path, Self.event, headers: ["If-None-Match": "*"]).status == 412)
        #expect(send("PUT", path, Self.event, headers: ["If-Match": "\"stale\""]).status == 412)
        let conflict = send("PUT", "/dav/calendars/anna/work/copy.ics", Self.event)
        #expect(conflict.status == 403)
        #expect(
            conflict.text.contains(
                "<C:no-uid-conflict><D:href>/dav/calendars/anna/work/lunch.ics</D:href></C:no-uid-conflict>"))
        let invalid = send(
            "PUT", "/dav/calendars/anna/work/bad.ics", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VTODO\r\n")
        #expect(invalid.status == 403 && invalid.text.contains("<C:valid-calendar-data/>"))
        let task = send(
            "PUT", "/dav/calendars/anna/work/task.ics",
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VTODO\r\nUID:t\r\nDTSTAMP:20261101T000000Z\r\nEND:VTODO\r\nEND:VCALENDAR\r\n"
        )
        #expect(task.status == 403 && task.text.contains("<C:supported-calendar-component/>"))
        #expect(
            send("PUT", "/dav/calendars/anna/work/x.ics", "{}", headers: ["Content-Type": "application/json"]).status
                == 415)
        // Nothing above changed what is stored.
        #expect(send("GET", path).headers["ETag"] == etag)

        // Replacing with the current ETag answers 204 (RFC 4918 §9.7.1) with a new ETag.
        let replaced = send(
            "PUT", path, Self.event.replacingOccurrences(of: "SUMMARY:Lunch", with: "SUMMARY:Late lunch"),
            headers: ["If-Match": etag])
        #expect(replaced.status == 204)
        let newTag = try #require(replaced.headers["ETag"])
        #expect(newTag != etag)
        #expect(send("DELETE", path, headers: ["If-Match": etag]).status == 412)
        #expect(send("DELETE", path, headers: ["If-Match": newTag]).status == 204)
        #expect(send("GET", path).status == 404)
    }

    @Test func proppatchIsAllOrNothing() {
        #expect(makeCalendar() == 201)
        let patched = send(
            "PROPPATCH", "/dav/calendars/anna/work/",
            """
            <D:propertyupdate xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/" xmlns:X="http://example.com/ns">
              <D:set><D:prop><A:calendar-color>#00FF00</A:calendar-color><X:flavour>lemon</X:flavour></D:prop></D:set>
            </D:propertyupdate>
            """)
        #expect(patched.status == 207)
        #expect(!patched.text.contains("HTTP/1.1 4"))
        let read = send("PROPFIND", "/dav/calendars/anna/work/", "", headers: ["Depth": "0"])
        #expect(read.text.contains("<A:calendar-color>#00FF00</A:calendar-color>"))
        #expect(read.text.contains("<X:flavour xmlns:X=\"http://example.com/ns\">lemon</X:flavour>"))
        // A protected property fails the whole update; the other change reports 424 and is not made.
        let refused = send(
            "PROPPATCH", "/dav/calendars/anna/work/",
            """
            <D:propertyupdate xmlns:D="DAV:" xmlns:A="http://apple.com/ns/ical/" xmlns:CS="http://calendarserver.org/ns/">
              <D:set><D:prop><A:calendar-color>#0000FF</A:calendar-color><CS:getctag>x</CS:getctag></D:prop></D:set>
            </D:propertyupdate>
            """)
        #expect(refused.text.contains("HTTP/1.1 403") && refused.text.contains("HTTP/1.1 424"))
        #expect(send("PROPFIND", "/dav/calendars/anna/work/", "", headers: ["Depth": "0"]).text.contains("#00FF00"))
    }

    @Test(arguments: [
        "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">]><D:propfind xmlns:D=\"DAV:\">&lol2;</D:propfind>",
        "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><D:propfind xmlns:D=\"DAV:\"><D:prop>&xxe;</D:prop></D:propfind>",
        "<D:propfind xmlns:D=\"DAV:\"><D:prop>",
        String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200),
    ])
    func hostileXMLIsRefused(body: String) {
        #expect(send("PROPFIND", "/dav/", body, headers: ["Depth": "0"]).status == 400)
        #expect(send("MKCALENDAR", "/dav/calendars/anna/evil/", body).status == 400)
        #expect(send("PROPFIND", "/dav/calendars/anna/", "", headers: ["Depth": "1"]).text.contains("evil") == false)
    }

    static let weekly = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:weekly@test",
        "DTSTAMP:20261101T000000Z",
        "DTSTART:20261201T170000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=3", "SUMMARY:Yoga", "END:VEVENT",
        "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    @Test func reportsQueryMultigetAndSync() throws {
        #expect(makeCalendar() == 201)
        #expect(send("PUT", "/dav/calendars/anna/work/lunch.ics", Self.event).status == 201)
        #expect(send("PUT", "/dav/calendars/anna/work/weekly.ics", Self.weekly).status == 201)
        let calDAV = "xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\""
        // 2026-12-15 holds only the third yoga instance (17:00Z); lunch is on the 1st.
        let query = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<C:calendar-query \(calDAV)><D:prop><D:getetag/><C:calendar-data><C:expand start=\"20261215T000000Z\" end=\"20261216T000000Z\"/></C:calendar-data></D:prop>"
                + "<C:filter><C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"><C:time-range start=\"20261215T000000Z\" end=\"20261216T000000Z\"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>",
            headers: ["Depth": "1"])
        #expect(query.status == 207)
        #expect(query.text.contains("<D:href>/dav/calendars/anna/work/weekly.ics</D:href>"))
        #expect(!query.text.contains("lunch.ics"))
        // Expanded: one instance with its RECURRENCE-ID, in UTC, without the rule.
        #expect(query.text.contains("RECURRENCE-ID:20261215T170000Z"))
        #expect(query.text.contains("DTSTART:20261215T170000Z"))
        #expect(!query.text.contains("RRULE"))

        let multiget = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<C:calendar-multiget \(calDAV)><D:prop><D:getetag/><C:calendar-data/></D:prop><D:href>/dav/calendars/anna/work/lunch.ics</D:href><D:href>/dav/calendars/anna/work/none.ics</D:href></C:calendar-multiget>"
        )
        #expect(multiget.text.contains("X-KEEP-ME;X-P=1:yes"))
        #expect(
            multiget.text.contains(
                "<D:href>/dav/calendars/anna/work/none.ics</D:href><D:status>HTTP/1.1 404 Not Found</D:status>"))

        let initial = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>"
        )
        #expect(initial.text.components(separatedBy: "<D:response>").count == 3)
        let token = try #require(
            initial.text.firstRange(of: "<D:sync-token>").map { initial.text[$0.upperBound...].prefix { $0 != "<" } })
        #expect(send("DELETE", "/dav/calendars/anna/work/lunch.ics").status == 204)
        let delta = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token>\(token)</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>"
        )
        #expect(
            delta.text.contains(
                "<D:href>/dav/calendars/anna/work/lunch.ics</D:href><D:status>HTTP/1.1 404 Not Found</D:status>"))
        #expect(!delta.text.contains("weekly.ics"))
        let unknown = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token>almanac-sync:nope:1</D:sync-token><D:prop/></D:sync-collection>"
        )
        #expect(unknown.status == 403 && unknown.text.contains("<D:valid-sync-token/>"))
    }

    @Test func queryFiltersFreeBusyAndPrincipalSearch() throws {
        #expect(makeCalendar() == 201)
        #expect(send("PUT", "/dav/calendars/anna/work/lunch.ics", Self.event).status == 201)
        #expect(send("PUT", "/dav/calendars/anna/work/weekly.ics", Self.weekly).status == 201)
        let transparent = Self.event.replacingOccurrences(of: "lunch@test", with: "free@test").replacingOccurrences(
            of: "SUMMARY:Lunch", with: "SUMMARY:Optional\r\nTRANSP:TRANSPARENT")
        #expect(send("PUT", "/dav/calendars/anna/work/free.ics", transparent).status == 201)
        func query(_ filter: String) -> String {
            send(
                "REPORT", "/dav/calendars/anna/work/",
                "<C:calendar-query xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\">\(filter)</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>",
                headers: ["Depth": "1"]
            ).text
        }
        let yoga = query(
            "<C:prop-filter name=\"SUMMARY\"><C:text-match collation=\"i;ascii-casemap\">YOGA</C:text-match></C:prop-filter>"
        )
        #expect(yoga.contains("weekly.ics") && !yoga.contains("lunch.ics"))
        let notYoga = query(
            "<C:prop-filter name=\"SUMMARY\"><C:text-match negate-condition=\"yes\">yoga</C:text-match></C:prop-filter>"
        )
        #expect(!notYoga.contains("weekly.ics") && notYoga.contains("lunch.ics"))
        let noRule = query("<C:prop-filter name=\"RRULE\"><C:is-not-defined/></C:prop-filter>")
        #expect(!noRule.contains("weekly.ics") && noRule.contains("lunch.ics"))
        let parameter = query(
            "<C:prop-filter name=\"X-KEEP-ME\"><C:param-filter name=\"X-P\"><C:text-match>1</C:text-match></C:param-filter></C:prop-filter>"
        )
        #expect(parameter.contains("lunch.ics") && !parameter.contains("weekly.ics"))

        // Busy on 2026-12-01: lunch 11:00–12:00Z (12:00 Berlin) and yoga 17:00–18:00Z; the transparent event is free.
        let freeBusy = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<C:free-busy-query xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><C:time-range start=\"20261201T000000Z\" end=\"20261202T000000Z\"/></C:free-busy-query>"
        )
        #expect(freeBusy.status == 200)
        #expect(freeBusy.text.contains("FREEBUSY;FBTYPE=BUSY:20261201T110000Z/20261201T120000Z"))
        #expect(freeBusy.text.contains("FREEBUSY;FBTYPE=BUSY:20261201T170000Z/20261201T180000Z"))
        #expect(freeBusy.text.components(separatedBy: "FREEBUSY;").count == 3)

        let search = send(
            "REPORT", "/dav/",
            "<D:principal-property-search xmlns:D=\"DAV:\"><D:property-search><D:prop><D:displayname/></D:prop><D:match>ANN</D:match></D:property-search><D:prop><D:displayname/></D:prop></D:principal-property-search>"
        )
        #expect(search.text.contains("<D:href>/dav/principals/anna/</D:href>"))
        let others = send(
            "REPORT", "/dav/",
            "<D:principal-property-search xmlns:D=\"DAV:\"><D:property-search><D:prop><D:displayname/></D:prop><D:match>bob</D:match></D:property-search></D:principal-property-search>"
        )
        #expect(!others.text.contains("bob"))
    }

    @Test func otherUsersTreesAndBadPathsAreNotFound() {
        #expect(makeCalendar() == 201)
        #expect(send("PROPFIND", "/dav/calendars/anna/work/", "", headers: ["Depth": "0"], user: "bob").status == 404)
        #expect(send("PUT", "/dav/calendars/anna/work/x.ics", Self.event, user: "bob").status == 404)
        #expect(send("GET", "/dav/calendars/anna/../bob/x.ics").status == 404)
        #expect(send("GET", "/dav/calendars/anna/%zz/").status == 404)
    }
}
