import AlmanacTesting
import CalDAV
import Foundation
import HTTPTypes
import Testing

/// What a conformance checker asks beyond the everyday paths: one spelling per href,
/// principal searches on every collection, and the RFC's error for what is not supported.
extension CalDAVTests {
    static let user = "user@example.com"

    @Test(arguments: ServerSetup.all) func everySpellingOfAPathIsOneResourceUnderOneHref(_ setup: ServerSetup) throws {
        let server = try TestServer(setup)
        try server.createUser(Self.user)
        let dav = server.dav(Self.user)
        // Made through %40, found through @ and every other spelling.
        let made = try dav.mkcalendar("/dav/calendars/user%40example.com/work/")
        #expect(made.status == 201)
        #expect(made.headers["Location"] == "/dav/calendars/user@example.com/work/")
        #expect(try dav.mkcalendar("/dav/calendars/user@example.com/work/").status == 403)
        #expect(
            try dav.mkcalendar("/dav/calendars/user%40example.com/a%7eb%2Bc/").headers["Location"]
                == "/dav/calendars/user@example.com/a~b+c/")
        for spelling in [
            "/dav/calendars/user@example.com/a~b+c/", "/dav/calendars/user%40example.com/a%7Eb+c",
            "/dav//calendars//user%40example.com/a%7eb%2bc/",
        ] {
            let found = try dav.propfind(spelling)
            #expect(found.status == 207, "\(spelling)")
            #expect(try found.multistatus().hrefs == ["/dav/calendars/user@example.com/a~b+c/"], "\(spelling)")
        }
        // Characters that need escapes keep them, in upper-case hex.
        #expect(
            try dav.mkcalendar("/dav/calendars/user@example.com/sp%20ce%c3%a9/").headers["Location"]
                == "/dav/calendars/user@example.com/sp%20ce%C3%A9/")

        // Objects: the PUT's spelling does not matter; every answer spells the href one way.
        let object = "/dav/calendars/user@example.com/work/a@b.ics"
        #expect(try dav.put("/dav/calendars/user%40example.com/work/a%40b.ics", Self.event).status == 201)
        let conflict = try dav.put("/dav/calendars/user%40example.com/work/other.ics", Self.event)
        #expect(conflict.status == 403)
        #expect(conflict.precondition == .caldav("no-uid-conflict") && conflict.error?.condition.hrefs == [object])
        let listing = try dav.propfind("/dav/calendars/user%40example.com/work/", depth: "1").multistatus()
        #expect(listing.hrefs.contains(object))
        let sync = try dav.syncCollection("/dav/calendars/user%40example.com/work/").multistatus()
        #expect(sync.hrefs == [object])
        // A multiget may name members by absolute URL, in any spelling.
        let multiget = try dav.multiget(
            "/dav/calendars/user@example.com/work/", prop: "<D:getetag/>",
            hrefs: ["http://localhost:8080/dav/calendars/user%40example.com/work/a%40b.ics"]
        ).multistatus()
        #expect(multiget.hrefs == [object])
        #expect(multiget.response(object)?.property(.getETag) != nil)

        // Discovery names the principal and the home one way, whichever way the root is spelt.
        for root in ["/dav/", "/dav", "/dav//"] {
            let answer = try dav.propfind(root, props: [.currentUserPrincipal]).multistatus()
            #expect(answer.hrefs == ["/dav/"], "\(root)")
            #expect(
                answer.responses.first?.property(.currentUserPrincipal)?.hrefs
                    == ["/dav/principals/user@example.com/"], "\(root)")
        }
        let principal = try dav.propfind(
            "/dav/principals/user%40example.com", props: [.calendarHomeSet, .dav("principal-URL")]
        ).multistatus()
        #expect(principal.hrefs == ["/dav/principals/user@example.com/"])
        let found = try #require(principal.responses.first)
        #expect(found.property(.calendarHomeSet)?.hrefs == ["/dav/calendars/user@example.com/"])
        #expect(found.property(.dav("principal-URL"))?.hrefs == ["/dav/principals/user@example.com/"])
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

    @Test(arguments: ServerSetup.all) func principalSearchesAreAnsweredOnThePrincipalCollection(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        let collection = try dav.propfind("/dav/principals/", depth: "1").multistatus()
        #expect(collection.hrefs.contains("/dav/principals/anna/"))
        #expect(!collection.allHrefs.contains("/dav/principals/bob/"))
        #expect(
            collection.responses.contains {
                $0.property(.dav("principal-collection-set"))?.hrefs == ["/dav/principals/"]
            })
        for path in ["/dav/principals/", "/dav/", "/dav/calendars/anna/"] {
            let search = try dav.report(path, Self.propertySearch)
            #expect(search.status == 207, "\(path)")
            #expect(try search.multistatus().allHrefs == ["/dav/principals/anna/"], "\(path)")
            // No criteria (as python caldav's search_principals sends): the user's own principal.
            let all = try dav.report(
                path,
                "<D:principal-property-search \(DAVClient.namespaces)><D:prop><C:calendar-home-set/></D:prop></D:principal-property-search>"
            ).multistatus()
            #expect(
                all.response("/dav/principals/anna/")?.property(.calendarHomeSet)?.hrefs == ["/dav/calendars/anna/"],
                "\(path)")
            let set = try dav.report(path, "<D:principal-search-property-set xmlns:D=\"DAV:\"/>")
            #expect(set.status == 200, "\(path)")
            let searchable = try DAVElement.parse(set.body)
            #expect(searchable.name == .dav("principal-search-property-set"), "\(path)")
            #expect(
                searchable.child(.dav("principal-search-property"))?.child(.dav("prop"))?.children.first?.name
                    == .displayName, "\(path)")
        }
    }

    @Test(arguments: ServerSetup.all) func unsupportedMethodsGetTheirRFCAnswer(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put("/dav/calendars/anna/work/lunch.ics", Self.event).status == 201)
        // Locking, ACL, POST on an object: 405 with what the resource does answer, and why.
        for method in ["LOCK", "UNLOCK", "ACL", "POST", "MKWORKSPACE", "SEARCH"] {
            let answer = try dav.send(method, "/dav/calendars/anna/work/lunch.ics")
            #expect(answer.status == 405, "\(method)")
            #expect(
                answer.headers["Allow"] == "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, MKCALENDAR, REPORT, COPY, MOVE",
                "\(method)")
            #expect(answer.text.contains(method == "POST" ? "is answered on" : "not supported"), "\(method)")
        }
        #expect(try dav.send("LOCK", "/dav/calendars/anna/work/").text.contains("locking (WebDAV class 2)"))
        #expect(try dav.send("POST", "/dav/calendars/anna/work/lunch.ics").text.contains("the schedule outbox"))
        // A method nobody defined: 501.
        let unknown = try dav.send("FROBNICATE", "/dav/calendars/anna/work/")
        #expect(unknown.status == 501 && unknown.headers["Allow"] != nil)
        // Known methods on the wrong kind of resource: 405 with Allow.
        let putOnCalendar = try dav.put("/dav/calendars/anna/work/", Self.event)
        #expect(putOnCalendar.status == 405)
        #expect(
            putOnCalendar.headers["Allow"]
                == "OPTIONS, GET, HEAD, POST, DELETE, PROPFIND, PROPPATCH, MKCALENDAR, REPORT")
        #expect(
            try dav.delete("/dav/calendars/anna/").headers["Allow"]
                == "OPTIONS, GET, HEAD, POST, PROPFIND, PROPPATCH, MKCALENDAR, REPORT")
        // MKCALENDAR's own preconditions (RFC 4791 §5.3.1.1), 403 with the element: inside a
        // calendar (CALDAV:calendar-collection-location-ok), on an existing calendar
        // (DAV:resource-must-be-null).
        let inside = try dav.mkcalendar("/dav/calendars/anna/work/lunch.ics")
        #expect(inside.status == 403 && inside.precondition == .caldav("calendar-collection-location-ok"))
        let existing = try dav.mkcalendar("/dav/calendars/anna/work/")
        #expect(existing.status == 403 && existing.precondition == .dav("resource-must-be-null"))
        // MKCOL on a mapped URL is 405 with Allow (RFC 4918 §9.3.1), which then does not name it.
        let mkcol = try dav.send(
            "MKCOL", "/dav/calendars/anna/work/",
            "<D:mkcol xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:set><D:prop>"
                + "<D:resourcetype><D:collection/><C:calendar/></D:resourcetype></D:prop></D:set></D:mkcol>")
        #expect(mkcol.status == 405 && mkcol.headers["Allow"]?.contains("MKCOL") == false)
        #expect(try dav.send("OPTIONS", "/dav/calendars/anna/work/").headers["Allow"]?.contains("MKCOL") == false)
        // A PUT into a calendar that does not exist: 409, the parent is missing (RFC 4918 §9.7.1).
        #expect(try dav.put("/dav/calendars/anna/nowhere/lunch.ics", Self.event).status == 409)
        // OPTIONS is truthful per resource, and never claims locking or scheduling.
        let options = try dav.send("OPTIONS", "/dav/calendars/anna/work/lunch.ics")
        #expect(
            options.headers["Allow"] == "OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, MKCALENDAR, REPORT, COPY, MOVE")
        #expect(options.headers["DAV"]?.contains("2") == false && options.headers["DAV"]?.contains("schedule") == false)
    }

    @Test(arguments: ServerSetup.all) func unsupportedReportsAndFiltersGetTheirPreconditions(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        let tasks = "/dav/calendars/anna/tasks/"
        #expect(try dav.mkcalendar(tasks).status == 201)
        #expect(try dav.put(tasks + "lunch.ics", Self.event).status == 201)
        #expect(try dav.put(tasks + "t.ics", Self.todo("t@test", ["DUE:20261210T110000Z"])).status == 201)
        func query(_ filter: String) throws -> DAVAnswer {
            try dav.calendarQuery(
                tasks, depth: nil, filter: "<C:comp-filter name=\"VCALENDAR\">\(filter)</C:comp-filter>")
        }
        // The home does not answer sync-collection, and no longer claims it does.
        let homeSync = try dav.syncCollection("/dav/calendars/anna/")
        #expect(homeSync.status == 403 && homeSync.precondition == .dav("supported-report"))
        let home = try dav.propfind("/dav/calendars/anna/", props: [.dav("supported-report-set")]).multistatus()
        let reports = try #require(home.response("/dav/calendars/anna/")?.property(.dav("supported-report-set")))
        #expect(!reports.descendants.contains { $0.name.name == "sync-collection" })
        // A report the server does not have (acl-principal-prop-set, RFC 3744 §9.2): 403 supported-report.
        let versionTree = try dav.report("/dav/principals/anna/", "<D:version-tree xmlns:D=\"DAV:\"/>")
        #expect(versionTree.status == 403 && versionTree.precondition == .dav("supported-report"))
        // An unknown collation: 403 supported-collation, not a silent case-insensitive match.
        let collation = try query(
            "<C:comp-filter name=\"VEVENT\"><C:prop-filter name=\"SUMMARY\"><C:text-match collation=\"i;klingon\">x</C:text-match></C:prop-filter></C:comp-filter>"
        )
        #expect(collation.status == 403 && collation.precondition == .caldav("supported-collation"))
        // A time range the server would ignore (on a VALARM's nested component): supported-filter.
        func unsupported(_ answer: DAVAnswer) -> String? {
            guard answer.status == 403, answer.precondition == .caldav("supported-filter") else { return nil }
            return answer.error?.condition.child(.caldav("comp-filter"))?.attributes["name"]
        }
        let nested = try query(
            "<C:comp-filter name=\"VEVENT\"><C:comp-filter name=\"VALARM\"><C:comp-filter name=\"X-NESTED\"><C:time-range start=\"20260101T000000Z\"/></C:comp-filter></C:comp-filter></C:comp-filter>"
        )
        #expect(unsupported(nested) == "X-NESTED")
        let beside = try query("<C:time-range start=\"20260101T000000Z\"/><C:comp-filter name=\"VEVENT\"/>")
        #expect(unsupported(beside) == "VCALENDAR")
        // Sibling comp-filters are ANDed (RFC 4791 §9.7.1): no object holds a VEVENT and a VTODO.
        let two = try query("<C:comp-filter name=\"VEVENT\"/><C:comp-filter name=\"VTODO\"/>")
        #expect(two.status == 207)
        #expect(try two.multistatus().hrefs == [])
        // A time range on a property is evaluated: DTSTART 2026-12-01 12:00 Berlin is 11:00Z.
        let onProperty = { (start: String, end: String) throws -> [String] in
            try query(
                "<C:comp-filter name=\"VEVENT\"><C:prop-filter name=\"DTSTART\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:prop-filter></C:comp-filter>"
            ).multistatus().hrefs
        }
        #expect(try onProperty("20261201T110000Z", "20261201T110001Z") == [tasks + "lunch.ics"])
        #expect(try onProperty("20261201T110001Z", "20261202T000000Z") == [])
        // is-not-defined on the member: the objects made of another component.
        #expect(
            try query("<C:comp-filter name=\"VEVENT\"><C:is-not-defined/></C:comp-filter>").multistatus().hrefs == [
                tasks + "t.ics"
            ])
        // Calendar data in another format than iCalendar 2.0: supported-calendar-data, not iCalendar anyway.
        let json = try dav.calendarQuery(
            tasks, prop: "<C:calendar-data content-type=\"application/calendar+json\"/>",
            depth: nil, filter: "<C:comp-filter name=\"VCALENDAR\"/>")
        #expect(json.status == 403 && json.precondition == .caldav("supported-calendar-data"))
        // An empty DAV:prop still answers each resource with a propstat (RFC 4918 §14.24).
        let empty = try dav.propfind(tasks, props: []).multistatus()
        let emptyPropstat = try #require(empty.response(tasks)?.propstats.first)
        #expect(emptyPropstat.status == 200 && emptyPropstat.properties.isEmpty)
        // A member no object is made of is looked for inside each object (here VTIMEZONE,
        // which the lunch has and the task has not).
        #expect(try query("<C:comp-filter name=\"VTIMEZONE\"/>").multistatus().hrefs == [tasks + "lunch.ics"])
        #expect(
            try query("<C:comp-filter name=\"VTIMEZONE\"><C:is-not-defined/></C:comp-filter>").multistatus().hrefs
                == [tasks + "t.ics"])
        // A PROPPATCH that fails names its statuses with their reasons.
        let patch = try dav.proppatch(tasks, set: [(.displayName, "New"), (.getETag, "x")]).multistatus()
        let statuses = try #require(patch.response(tasks)?.propstats)
        #expect(statuses.contains { $0.statusLine == "HTTP/1.1 424 Failed Dependency" })
        #expect(patch.response(tasks)?.status(of: .displayName) == 424)
    }

    /// COPY and MOVE (RFC 4918 §9.8, §9.9), which a class 1 server answers: objects between
    /// calendars, with Overwrite, the destination calendar's UID precondition, and a MOVE
    /// that loses nothing when it cannot finish.
    @Test(arguments: ServerSetup.all) func objectsAreCopiedAndMovedBetweenCalendars(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.mkcalendar("/dav/calendars/anna/home/").status == 201)
        #expect(try dav.mkcalendar("/dav/calendars/anna/work/").status == 201)
        #expect(try dav.put("/dav/calendars/anna/home/lunch.ics", Self.event).status == 201)
        let source = "/dav/calendars/anna/home/lunch.ics"
        let event = Array(Self.event.utf8)
        func transfer(_ method: String, _ destination: String, _ headers: HTTPHeaders = [:]) throws -> Int {
            var all = headers
            all.set("Destination", destination)
            return try dav.send(method, source, headers: all).status
        }
        // No Destination, another user's tree, a collection, the same calendar (UID twice).
        #expect(try dav.send("COPY", source).status == 400)
        #expect(try transfer("COPY", "/dav/calendars/bob/work/lunch.ics") == 403)
        #expect(try transfer("COPY", "/dav/calendars/anna/work/") == 403)
        let twice = try dav.send("COPY", source, headers: ["Destination": "/dav/calendars/anna/home/again.ics"])
        #expect(twice.status == 403 && twice.precondition == .caldav("no-uid-conflict"))
        #expect(try transfer("MOVE", "/dav/calendars/anna/home/renamed.ics") == 403)
        #expect(try transfer("COPY", "/dav/calendars/anna/nowhere/lunch.ics") == 409)
        // A copy by absolute URL; then Overwrite: F refuses, T replaces.
        let copied = try dav.send(
            "COPY", source, headers: ["Destination": "http://localhost:8080/dav/calendars/anna/work/lunch%40copy.ics"])
        #expect(copied.status == 201 && copied.headers["Location"] == "/dav/calendars/anna/work/lunch@copy.ics")
        #expect(try dav.get("/dav/calendars/anna/work/lunch@copy.ics").body == event)
        #expect(try transfer("COPY", "/dav/calendars/anna/work/lunch@copy.ics", ["Overwrite": "F"]) == 412)
        #expect(try transfer("COPY", "/dav/calendars/anna/work/lunch@copy.ics") == 204)
        #expect(try dav.delete("/dav/calendars/anna/work/lunch@copy.ics").status == 204)
        // MOVE: a stale If-Match changes nothing; a fresh one moves it.
        #expect(try transfer("MOVE", "/dav/calendars/anna/work/lunch.ics", ["If-Match": "\"stale\""]) == 412)
        #expect(try dav.get(source).status == 200 && dav.get("/dav/calendars/anna/work/lunch.ics").status == 404)
        #expect(try transfer("MOVE", "/dav/calendars/anna/work/lunch.ics") == 201)
        #expect(try dav.get(source).status == 404)
        #expect(try dav.get("/dav/calendars/anna/work/lunch.ics").body == event)
        // Collections are not copied: 405 with what a calendar does answer.
        let calendar = try dav.send(
            "COPY", "/dav/calendars/anna/work/", headers: ["Destination": "/dav/calendars/anna/other/"])
        #expect(calendar.status == 405 && calendar.headers["Allow"]?.contains("COPY") == false)
    }
}
