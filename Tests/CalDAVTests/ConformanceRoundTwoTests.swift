import AlmanacTesting
import CalDAV
import Foundation
import HTTPTypes
import Testing

/// What a second reading of RFC 4918, RFC 4791 and RFC 3744 against real answers found,
/// each case with the section it follows.
extension CalDAVTests {
    static func object(uid: String, _ lines: [String]) -> String {
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:\(uid)",
            "DTSTAMP:20261101T000000Z",
        ]
            + lines + ["END:VEVENT", "END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    /// RFC 4791 §5.3.2.1: a PUT over a resource with another UID is no update of it:
    /// 403 `no-uid-conflict` naming the resource that holds the UID; nothing changes.
    @Test(arguments: ServerSetup.everyStore) func aPutCannotChangeAResourcesUID(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let path = "/dav/calendars/anna/work/1.ics"
        let first = Self.object(uid: "A", ["DTSTART:20261201T090000Z", "SUMMARY:A"])
        #expect(try dav.put(path, first).status == 201)
        let changed = try dav.put(path, Self.object(uid: "B", ["DTSTART:20261201T090000Z", "SUMMARY:B"]))
        #expect(changed.status == 403 && changed.precondition == .caldav("no-uid-conflict"), "\(changed.text)")
        #expect(changed.error?.condition.hrefs == [path])
        #expect(try dav.get(path).text == first)
    }

    /// RFC 5545 §3.3.10: `BYDAY=+1,3MO` is no weekday list; dropping it would make
    /// another series (every day), so the PUT is refused, not stored with a Warning.
    /// A repair that changes no instance (a repeated part) is still stored as sent.
    @Test func aRuleRepairThatWouldChangeTheInstancesIsRefused() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let refused = try dav.put(
            "/dav/calendars/anna/work/r.ics",
            Self.object(uid: "r", ["DTSTART:20261201T090000Z", "RRULE:FREQ=MONTHLY;BYDAY=+1,3MO"]))
        #expect(refused.status == 403 && refused.precondition == .caldav("valid-calendar-data"), "\(refused.text)")
        #expect(try dav.get("/dav/calendars/anna/work/r.ics").status == 404)
        let repeated = Self.object(uid: "s", ["DTSTART:20261201T090000Z", "RRULE:FREQ=WEEKLY;COUNT=3;COUNT=3"])
        let stored = try dav.put("/dav/calendars/anna/work/s.ics", repeated)
        #expect(stored.status == 201, "\(stored.text)")
        #expect(stored.headers["Warning"]?.contains("dropped COUNT=3") == true)
        #expect(try dav.get("/dav/calendars/anna/work/s.ics").text == repeated)
    }

    /// RFC 4791 §4.1: a VTIMEZONE "MUST be specified for each unique TZID"; the server does
    /// not advertise RFC 7809, so a TZID without one is 403 `valid-calendar-object-resource`.
    @Test func aTZIDWithoutItsVTimezoneIsRefused() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try !dav.send("OPTIONS", "/dav/").headers["DAV"]!.contains("calendar-no-timezone"))
        let refused = try dav.put(
            "/dav/calendars/anna/work/t.ics", Self.object(uid: "t", ["DTSTART;TZID=US/Eastern:20261201T090000"]))
        #expect(refused.status == 403, "\(refused.text)")
        #expect(refused.precondition == .caldav("valid-calendar-object-resource"))
        #expect(refused.text.contains("US/Eastern"))
        #expect(try dav.get("/dav/calendars/anna/work/t.ics").status == 404)
        let zone = [
            "BEGIN:VTIMEZONE", "TZID:US/Eastern", "BEGIN:STANDARD", "DTSTART:19701101T020000", "TZOFFSETFROM:-0400",
            "TZOFFSETTO:-0500", "RRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU", "END:STANDARD", "BEGIN:DAYLIGHT",
            "DTSTART:19700308T020000", "TZOFFSETFROM:-0500", "TZOFFSETTO:-0400",
            "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU",
            "END:DAYLIGHT", "END:VTIMEZONE",
        ]
        let withZone = Self.object(uid: "t", ["DTSTART;TZID=US/Eastern:20261201T090000"]).replacingOccurrences(
            of: "BEGIN:VEVENT", with: zone.joined(separator: "\r\n") + "\r\nBEGIN:VEVENT")
        #expect(try dav.put("/dav/calendars/anna/work/t.ics", withZone).status == 201)
    }

    /// RFC 4791 §9.8: a query's time zone is an iCalendar object, which has VERSION and
    /// PRODID (RFC 5545 §3.6): without them, 403 `valid-calendar-data`.
    @Test func aQueryTimeZoneMustBeAnICalendarObject() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let zone =
            "BEGIN:VTIMEZONE\r\nTZID:UTC\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0000\r\nTZOFFSETTO:+0000\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n"
        let filter =
            "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"><C:time-range start=\"20261201T000000Z\" end=\"20261202T000000Z\"/></C:comp-filter></C:comp-filter>"
        let bare = try dav.calendarQuery(
            "/dav/calendars/anna/work/", filter: filter, timezone: "BEGIN:VCALENDAR\r\n" + zone + "END:VCALENDAR\r\n")
        #expect(bare.status == 403 && bare.precondition == .caldav("valid-calendar-data"), "\(bare.text)")
        let whole = try dav.calendarQuery(
            "/dav/calendars/anna/work/", filter: filter,
            timezone: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//EN\r\n" + zone + "END:VCALENDAR\r\n")
        #expect(whole.status == 207, "\(whole.text)")
    }

    /// RFC 4791 §7.10 (periods of one FBTYPE coalesced): two busy hours back to back are
    /// one period even with a tentative hour across them, which stays a period of its own.
    @Test(arguments: ServerSetup.everyStore) func freeBusyJoinsEachKindOnItsOwn(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        for (uid, start, end, status) in [
            ("a", "090000", "100000", "CONFIRMED"), ("b", "100000", "110000", "CONFIRMED"),
            ("c", "093000", "103000", "TENTATIVE"),
        ] {
            let body = Self.object(
                uid: uid, ["DTSTART:20261201T\(start)Z", "DTEND:20261201T\(end)Z", "STATUS:\(status)"])
            #expect(try dav.put("/dav/calendars/anna/work/\(uid).ics", body).status == 201)
        }
        let answer = try dav.freeBusy(
            "/dav/calendars/anna/work/", start: "20261201T000000Z", end: "20261202T000000Z", depth: "1")
        let periods = answer.text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("FREEBUSY") }
        #expect(
            periods == [
                "FREEBUSY;FBTYPE=BUSY:20261201T090000Z/20261201T110000Z",
                "FREEBUSY;FBTYPE=BUSY-TENTATIVE:20261201T093000Z/20261201T103000Z",
            ], "\(answer.text)")
    }

    /// RFC 9110 §15.5.5: GET of an unmapped URL under one's home is 404, as PROPFIND says.
    /// A collection's GET answers a line of text, and its `getcontenttype` and
    /// `getcontentlength` say so (RFC 4918 §15.4–§15.5).
    @Test(arguments: ServerSetup.all) func getAnswersWhatIsThere(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        for missing in [
            "/dav/calendars/anna/nosuch/", "/dav/calendars/anna/work/x.ics", "/dav/calendars/anna/nosuch/x.ics",
        ] {
            #expect(try dav.get(missing).status == 404, "\(missing)")
            #expect(try dav.propfind(missing).status == 404, "\(missing)")
        }
        for collection in ["/dav/", "/dav/calendars/anna/", "/dav/calendars/anna/work/", "/dav/principals/anna/"] {
            let got = try dav.get(collection)
            #expect(got.status == 200, "\(collection)")
            let found = try #require(
                try dav.propfind(collection, props: [.dav("getcontenttype"), .dav("getcontentlength")])
                    .multistatus().responses.first)
            #expect(found.property(.dav("getcontentlength"))?.text == String(got.body.count), "\(collection)")
            #expect(found.property(.dav("getcontenttype"))?.text == got.headers["Content-Type"], "\(collection)")
        }
    }

    /// RFC 4918 §14.20: a propfind holds one of prop, propname and allprop; both is 400.
    @Test func propfindWithAllpropAndPropnameIs400() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        let both = try dav.send(
            "PROPFIND", "/dav/calendars/anna/", "<D:propfind xmlns:D=\"DAV:\"><D:allprop/><D:propname/></D:propfind>",
            headers: ["Depth": "0"])
        #expect(both.status == 400, "\(both.text)")
    }

    /// RFC 4791 §5.3.1.1: MKCALENDAR on a mapped URL fails `resource-must-be-null` (403)
    /// before its properties are looked at. RFC 4918 §9.3.1: MKCOL on a mapped URL is
    /// 405; on an unmapped one where no collection may be made (inside a calendar) 403.
    @Test func makingCollectionsWhereTheyCannotBe() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let body =
            "<C:mkcalendar \(DAVClient.namespaces)><D:set><D:prop><D:displayname>Again</D:displayname><C:calendar-timezone>not a zone</C:calendar-timezone></D:prop></D:set></C:mkcalendar>"
        let again = try dav.send("MKCALENDAR", "/dav/calendars/anna/work/", body)
        #expect(again.status == 403 && again.precondition == .dav("resource-must-be-null"), "\(again.text)")
        let inside = try dav.send("MKCOL", "/dav/calendars/anna/work/sub/")
        #expect(inside.status == 403, "\(inside.text)")
        #expect(
            try dav.put("/dav/calendars/anna/work/a.ics", Self.object(uid: "a", ["DTSTART:20261201T090000Z"])).status
                == 201)
        #expect(try dav.send("MKCOL", "/dav/calendars/anna/work/a.ics").status == 405)
        #expect(try dav.send("MKCOL", "/dav/calendars/anna/").status == 405)
    }

    /// RFC 3744 §9.2–§9.5: the principal reports are defined at Depth 0 only (400
    /// otherwise), and acl-principal-prop-set answers the principals a resource's access
    /// names: a calendar's owner and, to the owner, its sharees.
    @Test func principalReportsAndACLPrincipals() throws {
        let server = try TestServer(.inProcess, users: [])
        try server.createUser("anna", displayName: "Anna Berg")
        try server.createUser("bob", displayName: "Bob Stone")
        let anna = server.dav("anna")
        #expect(try anna.makeCalendar() == 201)
        let search =
            "<D:principal-property-search \(DAVClient.namespaces)><D:property-search><D:prop><D:displayname/></D:prop><D:match>Anna</D:match></D:property-search><D:prop><D:displayname/></D:prop></D:principal-property-search>"
        let set = "<D:principal-search-property-set xmlns:D=\"DAV:\"/>"
        let acl =
            "<D:acl-principal-prop-set xmlns:D=\"DAV:\"><D:prop><D:displayname/></D:prop></D:acl-principal-prop-set>"
        for body in [search, set, acl] {
            for depth in ["1", "infinity"] {
                #expect(try anna.report("/dav/calendars/anna/", depth: depth, body).status == 400, "\(body) \(depth)")
            }
            #expect(try anna.report("/dav/calendars/anna/", depth: "0", body).status < 300, "\(body)")
        }
        let reports = try anna.propfind("/dav/calendars/anna/work/", props: [.dav("supported-report-set")])
        #expect(reports.text.contains("acl-principal-prop-set"))

        let annas = try server.backend.eventStore(for: "anna")
        let work = try #require(try annas.calendar(titled: "Work & more", createIfMissing: false))
        try annas.share(calendar: work.id, with: "bob", access: .read, invite: false, summary: nil)
        let answered = try anna.report("/dav/calendars/anna/work/", depth: "0", acl).multistatus()
        #expect(answered.hrefs.sorted() == ["/dav/principals/anna/", "/dav/principals/bob/"])
        #expect(answered.response("/dav/principals/bob/")?.property(.displayName)?.text == "Bob Stone")
    }

    /// RFC 4918 reserves the DAV: namespace and gives `DAV:error` no message: the
    /// condition stands alone, and the message is Almanac's own element.
    @Test func errorBodiesKeepToTheirConditions() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let refused = try dav.put(
            "/dav/calendars/anna/work/bad.ics", Self.object(uid: "bad", ["DTSTART:2026-13-45"]))
        #expect(refused.status == 403)
        let root = try DAVElement.parse(refused.body)
        #expect(root.children.allSatisfy { $0.name.namespace != "DAV:" || $0.name.name != "responsedescription" })
        #expect(root.children.map(\.name) == [.caldav("valid-calendar-data"), DAVName("urn:almanac:dav", "message")])
    }

    /// calcurse writes every alarm as `TRIGGER:-P300S`: stored as sent with a Warning,
    /// and read as five minutes before.
    @Test func calcurseAlarmsAreRepairedNotRefused() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let body = Self.object(
            uid: "cc", ["DTSTART:20261201T090000Z", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-P300S", "END:VALARM"])
        let put = try dav.put("/dav/calendars/anna/work/cc.ics", body)
        #expect(put.status == 201, "\(put.text)")
        #expect(put.headers["Warning"]?.contains("-PT300S") == true, "\(put.headers)")
        #expect(try dav.get("/dav/calendars/anna/work/cc.ics").text == body)
    }
}

extension CalDAVTests {
    /// RFC 7529 through CalDAV: a Hebrew anniversary (8 Adar I; 8 Adar in years without
    /// Adar I) is stored as sent and found where the Hebrew calendar puts it (27 February
    /// 2015, worked out in RScaleTests); a scale the server cannot expand is refused by name
    /// with `valid-calendar-data`, never stored to be read as a Gregorian rule.
    @Test func rscaleRulesAreStoredAndExpandedOrRefusedByName() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let hebrew = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:h", "DTSTAMP:20261101T000000Z",
            "DTSTART;VALUE=DATE:20140208", "RRULE:RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=8;SKIP=FORWARD",
            "SUMMARY:Anniversary", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        #expect(try dav.put("/dav/calendars/anna/work/h.ics", hebrew).status == 201)
        #expect(try dav.get("/dav/calendars/anna/work/h.ics").text == hebrew)
        let found = try dav.calendarQuery(
            "/dav/calendars/anna/work/", start: "20150227T000000Z", end: "20150228T000000Z")
        #expect(try found.multistatus().hrefs == ["/dav/calendars/anna/work/h.ics"])
        let missed = try dav.calendarQuery(
            "/dav/calendars/anna/work/", start: "20150208T000000Z", end: "20150209T000000Z")
        #expect(try missed.multistatus().hrefs == [])
        let refused = try dav.put(
            "/dav/calendars/anna/work/m.ics",
            Self.object(uid: "m", ["DTSTART:20261201T090000Z", "RRULE:RSCALE=MAYAN;FREQ=YEARLY"]))
        #expect(refused.status == 403 && refused.precondition == .caldav("valid-calendar-data"), "\(refused.text)")
        #expect(refused.text.contains("RSCALE=MAYAN"))
        #expect(try dav.get("/dav/calendars/anna/work/m.ics").status == 404)
    }
}
