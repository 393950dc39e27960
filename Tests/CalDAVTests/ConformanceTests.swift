import CalDAV
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// What a conformance checker asks beyond the everyday paths: one spelling per href,
/// principal searches on every collection, and the RFC's error for what is not supported.
extension CalDAVTests {
    static let user = "user@example.com"

    func sendAs(_ method: String, _ path: String, _ body: String = "", headers: HTTPHeaders = [:]) -> (
        status: Int, headers: HTTPHeaders, text: String
    ) {
        send(method, path, body, headers: headers, user: Self.user)
    }

    @Test func everySpellingOfAPathIsOneResourceUnderOneHref() throws {
        try backend.createUser(named: Self.user)
        // Made through %40, found through @ and every other spelling.
        let made = sendAs("MKCALENDAR", "/dav/calendars/user%40example.com/work/")
        #expect(made.status == 201)
        #expect(made.headers["Location"] == "/dav/calendars/user@example.com/work/")
        #expect(sendAs("MKCALENDAR", "/dav/calendars/user@example.com/work/").status == 405)
        #expect(
            sendAs("MKCALENDAR", "/dav/calendars/user%40example.com/a%7eb%2Bc/").headers["Location"]
                == "/dav/calendars/user@example.com/a~b+c/")
        for spelling in [
            "/dav/calendars/user@example.com/a~b+c/", "/dav/calendars/user%40example.com/a%7Eb+c",
            "/dav//calendars//user%40example.com/a%7eb%2bc/",
        ] {
            let found = sendAs("PROPFIND", spelling, "", headers: ["Depth": "0"])
            #expect(found.status == 207, "\(spelling)")
            #expect(Self.hrefs(in: found.text).first == "/dav/calendars/user@example.com/a~b+c/", "\(spelling)")
        }
        // Characters that need escapes keep them, in upper-case hex.
        #expect(
            sendAs("MKCALENDAR", "/dav/calendars/user@example.com/sp%20ce%c3%a9/").headers["Location"]
                == "/dav/calendars/user@example.com/sp%20ce%C3%A9/")

        // Objects: the PUT's spelling does not matter; every answer spells the href one way.
        let object = "/dav/calendars/user@example.com/work/a@b.ics"
        #expect(sendAs("PUT", "/dav/calendars/user%40example.com/work/a%40b.ics", Self.event).status == 201)
        let conflict = sendAs("PUT", "/dav/calendars/user%40example.com/work/other.ics", Self.event)
        #expect(conflict.status == 403)
        #expect(conflict.text.contains("<C:no-uid-conflict><D:href>\(object)</D:href></C:no-uid-conflict>"))
        let listing = sendAs("PROPFIND", "/dav/calendars/user%40example.com/work/", "", headers: ["Depth": "1"])
        #expect(Self.hrefs(in: listing.text).contains(object))
        let sync = send(
            "REPORT", "/dav/calendars/user%40example.com/work/",
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>",
            user: Self.user)
        #expect(Self.hrefs(in: sync.text) == [object])
        // A multiget may name members by absolute URL, in any spelling.
        let multiget = sendAs(
            "REPORT", "/dav/calendars/user@example.com/work/",
            "<C:calendar-multiget \(Self.calDAV)><D:prop><D:getetag/></D:prop>"
                + "<D:href>http://localhost:8080/dav/calendars/user%40example.com/work/a%40b.ics</D:href></C:calendar-multiget>"
        )
        #expect(multiget.text.contains("<D:href>\(object)</D:href><D:propstat>"))

        // Discovery names the principal and the home one way, whichever way the root is spelt.
        for root in ["/dav/", "/dav", "/dav//"] {
            let answer = sendAs(
                "PROPFIND", root,
                "<D:propfind xmlns:D=\"DAV:\"><D:prop><D:current-user-principal/></D:prop></D:propfind>",
                headers: ["Depth": "0"])
            #expect(Self.hrefs(in: answer.text) == ["/dav/", "/dav/principals/user@example.com/"], "\(root)")
        }
        let principal = sendAs(
            "PROPFIND", "/dav/principals/user%40example.com",
            "<D:propfind \(Self.calDAV)><D:prop><C:calendar-home-set/><D:principal-URL/></D:prop></D:propfind>",
            headers: ["Depth": "0"])
        #expect(
            Self.hrefs(in: principal.text)
                == [
                    "/dav/principals/user@example.com/", "/dav/calendars/user@example.com/",
                    "/dav/principals/user@example.com/",
                ])
    }

    /// Spellings of one object path and the href they all read as: RFC 3986's unreserved
    /// characters, sub-delimiters, `:` and `@` bare; everything else (`%`, space, non-ASCII)
    /// escaped, hex in upper case.
    @Test(arguments: [
        ("/dav/calendars/a@b/c/x%7ey.ics", "/dav/calendars/a@b/c/x~y.ics"),
        ("/dav/calendars/a%40b/c/x%7Ey.ics", "/dav/calendars/a@b/c/x~y.ics"),
        ("/dav/calendars/a/c/%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A.ics", "/dav/calendars/a/c/!$&'()*+,;=:.ics"),
        ("/dav/calendars/a/c/100%25 sure%c3%a9.ics", "/dav/calendars/a/c/100%25%20sure%C3%A9.ics"),
        ("/dav/calendars/a/c/%2d%2e%5f%41.ics", "/dav/calendars/a/c/-._A.ics"),
        ("https://example.com:8443/dav/calendars/a/c//x.ics", "/dav/calendars/a/c/x.ics"),
        ("/dav/calendars/a/c/x.ics/", "/dav/calendars/a/c/x.ics"),
    ])
    func pathSpellingsReadAsOneHref(_ spelling: String, _ href: String) throws {
        let path = try #require(DAVPath(requestPath: spelling))
        #expect(path.href == href)
        #expect(DAVPath(requestPath: href) == path)
    }

    static let propertySearch = """
        <D:principal-property-search xmlns:D="DAV:"><D:property-search><D:prop><D:displayname/></D:prop><D:match>ann</D:match></D:property-search>
        <D:prop><D:displayname/></D:prop></D:principal-property-search>
        """

    @Test func principalSearchesAreAnsweredOnThePrincipalCollection() {
        let collection = send("PROPFIND", "/dav/principals/", "", headers: ["Depth": "1"])
        #expect(collection.status == 207)
        #expect(Self.hrefs(in: collection.text).contains("/dav/principals/anna/"))
        #expect(!collection.text.contains("/dav/principals/bob/"))
        #expect(
            collection.text.contains(
                "<D:principal-collection-set><D:href>/dav/principals/</D:href></D:principal-collection-set>"))
        for path in ["/dav/principals/", "/dav/", "/dav/calendars/anna/"] {
            let search = send("REPORT", path, Self.propertySearch)
            #expect(search.status == 207, "\(path)")
            #expect(Self.hrefs(in: search.text) == ["/dav/principals/anna/"], "\(path)")
            // No criteria (as python caldav's search_principals sends): the user's own principal.
            let all = send(
                "REPORT", path,
                "<D:principal-property-search \(Self.calDAV)><D:prop><C:calendar-home-set/></D:prop></D:principal-property-search>"
            )
            #expect(
                all.text.contains("<C:calendar-home-set><D:href>/dav/calendars/anna/</D:href></C:calendar-home-set>"),
                "\(path)")
            let set = send("REPORT", path, "<D:principal-search-property-set xmlns:D=\"DAV:\"/>")
            #expect(
                set.status == 200 && set.text.contains("<D:principal-search-property><D:prop><D:displayname/>"),
                "\(path)")
        }
    }

    @Test func unsupportedMethodsGetTheirRFCAnswer() {
        #expect(makeCalendar() == 201)
        #expect(send("PUT", "/dav/calendars/anna/work/lunch.ics", Self.event).status == 201)
        // Locking, ACL, scheduling POST: 405 with what the resource does answer, and why.
        for method in ["LOCK", "UNLOCK", "ACL", "POST", "MKWORKSPACE", "SEARCH"] {
            let answer = send(method, "/dav/calendars/anna/work/lunch.ics")
            #expect(answer.status == 405, "\(method)")
            #expect(
                answer.headers["Allow"] == "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, REPORT, COPY, MOVE", "\(method)")
            #expect(answer.text.contains("not supported"), "\(method)")
        }
        #expect(send("LOCK", "/dav/calendars/anna/work/").text.contains("locking (WebDAV class 2)"))
        #expect(send("POST", "/dav/calendars/anna/work/").text.contains("scheduling (RFC 6638)"))
        // A method nobody defined: 501.
        let unknown = send("FROBNICATE", "/dav/calendars/anna/work/")
        #expect(unknown.status == 501 && unknown.headers["Allow"] != nil)
        // Known methods on the wrong kind of resource: 405 with Allow.
        let putOnCalendar = send("PUT", "/dav/calendars/anna/work/", Self.event)
        #expect(putOnCalendar.status == 405)
        #expect(
            putOnCalendar.headers["Allow"]
                == "OPTIONS, GET, HEAD, DELETE, PROPFIND, PROPPATCH, MKCALENDAR, MKCOL, REPORT")
        #expect(send("DELETE", "/dav/calendars/anna/").headers["Allow"] == "OPTIONS, GET, HEAD, PROPFIND, REPORT")
        #expect(send("MKCALENDAR", "/dav/calendars/anna/work/lunch.ics").status == 405)
        // An existing calendar: 405 too, with Allow.
        #expect(makeCalendar() == 405)
        #expect(send("MKCALENDAR", "/dav/calendars/anna/work/").headers["Allow"] != nil)
        // A PUT into a calendar that does not exist: 409, the parent is missing (RFC 4918 §9.7.1).
        #expect(send("PUT", "/dav/calendars/anna/nowhere/lunch.ics", Self.event).status == 409)
        // OPTIONS is truthful per resource, and never claims locking or scheduling.
        let options = send("OPTIONS", "/dav/calendars/anna/work/lunch.ics")
        #expect(options.headers["Allow"] == "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, REPORT, COPY, MOVE")
        #expect(options.headers["DAV"]?.contains("2") == false && options.headers["DAV"]?.contains("schedule") == false)
    }

    @Test func unsupportedReportsAndFiltersGetTheirPreconditions() {
        #expect(send("MKCALENDAR", "/dav/calendars/anna/tasks/").status == 201)
        #expect(send("PUT", "/dav/calendars/anna/tasks/lunch.ics", Self.event).status == 201)
        #expect(
            send("PUT", "/dav/calendars/anna/tasks/t.ics", Self.todo("t@test", ["DUE:20261210T110000Z"])).status == 201)
        func query(_ filter: String) -> (status: Int, headers: HTTPHeaders, text: String) {
            send(
                "REPORT", "/dav/calendars/anna/tasks/",
                "<C:calendar-query \(Self.calDAV)><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\">\(filter)</C:comp-filter></C:filter></C:calendar-query>"
            )
        }
        // The home does not answer sync-collection, and no longer claims it does.
        let homeSync = send(
            "REPORT", "/dav/calendars/anna/",
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>"
        )
        #expect(homeSync.status == 403 && homeSync.text.contains("<D:supported-report/>"))
        let home = send(
            "PROPFIND", "/dav/calendars/anna/",
            "<D:propfind xmlns:D=\"DAV:\"><D:prop><D:supported-report-set/></D:prop></D:propfind>",
            headers: ["Depth": "0"])
        #expect(!home.text.contains("sync-collection"))
        // A report the server does not have (expand-property, RFC 3253 §3.8): 403 supported-report.
        let expandProperty = send("REPORT", "/dav/principals/anna/", "<D:expand-property xmlns:D=\"DAV:\"/>")
        #expect(expandProperty.status == 403 && expandProperty.text.contains("<D:supported-report/>"))
        // An unknown collation: 403 supported-collation, not a silent case-insensitive match.
        let collation = query(
            "<C:comp-filter name=\"VEVENT\"><C:prop-filter name=\"SUMMARY\"><C:text-match collation=\"i;klingon\">x</C:text-match></C:prop-filter></C:comp-filter>"
        )
        #expect(collation.status == 403 && collation.text.contains("<C:supported-collation/>"))
        // A time range the server would ignore (on a VALARM's nested component): supported-filter.
        let nested = query(
            "<C:comp-filter name=\"VEVENT\"><C:comp-filter name=\"VALARM\"><C:comp-filter name=\"X-NESTED\"><C:time-range start=\"20260101T000000Z\"/></C:comp-filter></C:comp-filter></C:comp-filter>"
        )
        #expect(
            nested.status == 403
                && nested.text.contains("<C:supported-filter><C:comp-filter name=\"X-NESTED\"/></C:supported-filter>"))
        let beside = query("<C:time-range start=\"20260101T000000Z\"/><C:comp-filter name=\"VEVENT\"/>")
        #expect(
            beside.status == 403
                && beside.text.contains("<C:supported-filter><C:comp-filter name=\"VCALENDAR\"/></C:supported-filter>"))
        let two = query("<C:comp-filter name=\"VEVENT\"/><C:comp-filter name=\"VTODO\"/>")
        #expect(two.status == 403 && two.text.contains("<C:supported-filter>"))
        // A time range on a property is evaluated: DTSTART 2026-12-01 12:00 Berlin is 11:00Z.
        let onProperty = { (start: String, end: String) in
            Self.hrefs(
                in: query(
                    "<C:comp-filter name=\"VEVENT\"><C:prop-filter name=\"DTSTART\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:prop-filter></C:comp-filter>"
                ).text)
        }
        #expect(onProperty("20261201T110000Z", "20261201T110001Z") == ["/dav/calendars/anna/tasks/lunch.ics"])
        #expect(onProperty("20261201T110001Z", "20261202T000000Z") == [])
        // is-not-defined on the member: the objects made of another component.
        #expect(
            Self.hrefs(in: query("<C:comp-filter name=\"VEVENT\"><C:is-not-defined/></C:comp-filter>").text) == [
                "/dav/calendars/anna/tasks/t.ics"
            ])
        // Calendar data in another format than iCalendar 2.0: supported-calendar-data, not iCalendar anyway.
        let json = send(
            "REPORT", "/dav/calendars/anna/tasks/",
            "<C:calendar-query \(Self.calDAV)><D:prop><C:calendar-data content-type=\"application/calendar+json\"/></D:prop>"
                + "<C:filter><C:comp-filter name=\"VCALENDAR\"/></C:filter></C:calendar-query>")
        #expect(json.status == 403 && json.text.contains("<C:supported-calendar-data/>"))
        // An empty DAV:prop still answers each resource with a propstat (RFC 4918 §14.24).
        let empty = send(
            "PROPFIND", "/dav/calendars/anna/tasks/", "<D:propfind xmlns:D=\"DAV:\"><D:prop/></D:propfind>",
            headers: ["Depth": "0"])
        #expect(
            empty.text.contains(
                "<D:href>/dav/calendars/anna/tasks/</D:href><D:propstat><D:prop></D:prop><D:status>HTTP/1.1 200 OK</D:status>"
            ))
        // A member no object is made of is looked for inside each object (here VTIMEZONE).
        let zoned = Self.event.replacingOccurrences(of: "lunch@test", with: "zoned@test").replacingOccurrences(
            of: "BEGIN:VEVENT",
            with:
                "BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nTZOFFSETFROM:+0200\r\n"
                + "TZOFFSETTO:+0100\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT")
        #expect(send("PUT", "/dav/calendars/anna/tasks/zoned.ics", zoned).status == 201)
        #expect(
            Self.hrefs(in: query("<C:comp-filter name=\"VTIMEZONE\"/>").text) == ["/dav/calendars/anna/tasks/zoned.ics"]
        )
        #expect(
            Self.hrefs(in: query("<C:comp-filter name=\"VTIMEZONE\"><C:is-not-defined/></C:comp-filter>").text)
                == ["/dav/calendars/anna/tasks/lunch.ics", "/dav/calendars/anna/tasks/t.ics"])
        // A PROPPATCH that fails names its statuses with their reasons.
        let patch = send(
            "PROPPATCH", "/dav/calendars/anna/tasks/",
            "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><D:displayname>New</D:displayname><D:getetag>x</D:getetag></D:prop></D:set></D:propertyupdate>"
        )
        #expect(patch.text.contains("HTTP/1.1 424 Failed Dependency"))
    }

    /// COPY and MOVE (RFC 4918 §9.8, §9.9), which a class 1 server answers: objects between
    /// calendars, with Overwrite, the destination calendar's UID precondition, and a MOVE
    /// that loses nothing when it cannot finish.
    @Test func objectsAreCopiedAndMovedBetweenCalendars() {
        #expect(send("MKCALENDAR", "/dav/calendars/anna/home/").status == 201)
        #expect(send("MKCALENDAR", "/dav/calendars/anna/work/").status == 201)
        #expect(send("PUT", "/dav/calendars/anna/home/lunch.ics", Self.event).status == 201)
        let source = "/dav/calendars/anna/home/lunch.ics"
        func transfer(_ method: String, _ destination: String, _ headers: HTTPHeaders = [:]) -> Int {
            var all = headers
            all.set("Destination", destination)
            return send(method, source, headers: all).status
        }
        // No Destination, another user's tree, a collection, the same calendar (UID twice).
        #expect(send("COPY", source).status == 400)
        #expect(transfer("COPY", "/dav/calendars/bob/work/lunch.ics") == 403)
        #expect(transfer("COPY", "/dav/calendars/anna/work/") == 403)
        let twice = send("COPY", source, headers: ["Destination": "/dav/calendars/anna/home/again.ics"])
        #expect(twice.status == 403 && twice.text.contains("<C:no-uid-conflict>"))
        #expect(transfer("MOVE", "/dav/calendars/anna/home/renamed.ics") == 403)
        #expect(transfer("COPY", "/dav/calendars/anna/nowhere/lunch.ics") == 409)
        // A copy by absolute URL; then Overwrite: F refuses, T replaces.
        let copied = send(
            "COPY", source, headers: ["Destination": "http://localhost:8080/dav/calendars/anna/work/lunch%40copy.ics"])
        #expect(copied.status == 201 && copied.headers["Location"] == "/dav/calendars/anna/work/lunch@copy.ics")
        #expect(send("GET", "/dav/calendars/anna/work/lunch@copy.ics").text == Self.event)
        #expect(transfer("COPY", "/dav/calendars/anna/work/lunch@copy.ics", ["Overwrite": "F"]) == 412)
        #expect(transfer("COPY", "/dav/calendars/anna/work/lunch@copy.ics") == 204)
        #expect(send("DELETE", "/dav/calendars/anna/work/lunch@copy.ics").status == 204)
        // MOVE: a stale If-Match changes nothing; a fresh one moves it.
        #expect(transfer("MOVE", "/dav/calendars/anna/work/lunch.ics", ["If-Match": "\"stale\""]) == 412)
        #expect(send("GET", source).status == 200 && send("GET", "/dav/calendars/anna/work/lunch.ics").status == 404)
        #expect(transfer("MOVE", "/dav/calendars/anna/work/lunch.ics") == 201)
        #expect(send("GET", source).status == 404)
        #expect(send("GET", "/dav/calendars/anna/work/lunch.ics").text == Self.event)
        // Collections are not copied: 405 with what a calendar does answer.
        let calendar = send("COPY", "/dav/calendars/anna/work/", headers: ["Destination": "/dav/calendars/anna/other/"])
        #expect(calendar.status == 405 && calendar.headers["Allow"]?.contains("COPY") == false)
    }
}
