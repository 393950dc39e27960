import AlmanacTesting
import Testing

/// RFC 4791 §7: the calendaring reports are answered on calendar object resources as
/// well as on calendar collections, and the DAV:expand-property REPORT (§7.1, RFC 3253
/// §3.8) is answered too.
@Suite struct ObjectReportTests {
    static let lunch = FilterTests.calendar + "lunch.ics"

    func query(_ dav: DAVClient, _ path: String, depth: String?, range: (String, String)) throws -> DAVAnswer {
        try dav.calendarQuery(path, start: range.0, end: range.1, depth: depth)
    }

    @Test(arguments: ServerSetup.everyStore) func aCalendarQueryOnAnObjectAnswersForThatObject(_ setup: ServerSetup)
        throws
    {
        let dav = try FilterTests().calendar(setup)
        // Lunch is 8 Dec 11:00Z–12:00Z; yoga (the other object) is in the first week too.
        let week = ("20261130T000000Z", "20261214T000000Z")
        let onObject = try query(dav, Self.lunch, depth: "0", range: week)
        #expect(try onObject.status == 207 && onObject.multistatus().hrefs == [Self.lunch])
        // The object's own filter decides: a range it is not in answers no response.
        let elsewhere = try query(dav, Self.lunch, depth: "0", range: ("20270101T000000Z", "20270102T000000Z"))
        #expect(try elsewhere.status == 207 && elsewhere.multistatus().hrefs == [])
        // An object that is not there is 404.
        #expect(try query(dav, FilterTests.calendar + "gone.ics", depth: "0", range: week).status == 404)
        // §7.8: Depth 0 on the collection considers the collection alone, which is no calendar object.
        #expect(try query(dav, FilterTests.calendar, depth: "0", range: week).multistatus().hrefs == [])
        #expect(try query(dav, FilterTests.calendar, depth: "1", range: week).multistatus().hrefs.count == 2)
    }

    @Test func multigetOnAnObjectAndTheReportsThatAreNot() throws {
        let dav = try FilterTests().calendar(.inProcess)
        // §7.9: on an object, the one href is the object itself; another object's href is not answered there.
        let multiget = try dav.multiget(Self.lunch, hrefs: [Self.lunch, FilterTests.calendar + "yoga.ics"])
        #expect(multiget.status == 207)
        #expect(try multiget.multistatus().response(Self.lunch)?.property(.caldav("calendar-data")) != nil)
        #expect(try multiget.multistatus().response(FilterTests.calendar + "yoga.ics")?.status == 404)
        // §7.10: "An attempt to run the report on a calendar object resource MUST fail and return a 403".
        let busy = try dav.freeBusy(Self.lunch, start: "20261130T000000Z", end: "20261214T000000Z")
        #expect(busy.status == 403 && busy.precondition == .dav("supported-report"))
        // RFC 6578 §3: sync-collection is a collection's report.
        let sync = try dav.report(
            Self.lunch,
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token/><D:sync-level>1</D:sync-level></D:sync-collection>")
        #expect(sync.status == 403 && sync.precondition == .dav("supported-report"))
    }
}

@Suite struct ExpandPropertyTests {
    /// A PROPPATCH body setting the dead property `{urn:x-test}name` to `value` (XML).
    static func setDead(_ name: String, _ value: String) -> String {
        "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:T=\"urn:x-test\"><D:set><D:prop><T:\(name)>\(value)</T:\(name)>"
            + "</D:prop></D:set></D:propertyupdate>"
    }

    static func expandProperty(_ properties: String) -> String {
        "<D:expand-property xmlns:D=\"DAV:\">\(properties)</D:expand-property>"
    }

    @Test(arguments: ServerSetup.everyTransport) func hrefsAreReplacedByTheResponsesTheyName(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        let principal = "/dav/principals/anna/"
        // RFC 3253 §3.8: calendar-home-set's href becomes the home's response with its
        // displayname; a property without nested ones is returned as it is.
        let answer = try dav.report(
            principal,
            Self.expandProperty(
                "<D:property name=\"calendar-home-set\" namespace=\"urn:ietf:params:xml:ns:caldav\">"
                    + "<D:property name=\"displayname\"/><D:property name=\"no-such-property\"/></D:property>"
                    + "<D:property name=\"principal-URL\"/><D:property name=\"getetag\"/>"))
        #expect(answer.status == 207)
        let text = answer.text
        #expect(text.contains("<D:href>/dav/calendars/anna/</D:href>"))
        #expect(text.contains("<D:displayname>anna</D:displayname>"))
        // The nested response says which nested property is not there; so does the outer one.
        let response = try #require(answer.multistatus().response(principal))
        #expect(response.propstats.map(\.status).sorted() == [200, 404])
        #expect(response.property(.dav("principal-URL"))?.text.contains(principal) == true)
        #expect(text.components(separatedBy: "HTTP/1.1 404 Not Found").count - 1 == 2)
    }

    @Test func anotherUsersResourceIsNeverExpanded() throws {
        let server = try TestServer(.inProcess)
        let bob = server.dav("bob")
        #expect(try bob.mkcalendar("/dav/calendars/bob/work/", displayName: "Bob's secret").status == 201)
        let anna = server.dav("anna")
        #expect(try anna.makeCalendar() == 201)
        // A dead property can hold any href; bob's calendar has the name of anna's, and
        // expanding it reads neither bob's calendar nor anna's in its place.
        #expect(
            try anna.send(
                "PROPPATCH", FilterTests.calendar, Self.setDead("pointer", "<D:href>/dav/calendars/bob/work/</D:href>")
            ).status == 207)
        let answer = try anna.report(
            FilterTests.calendar,
            Self.expandProperty(
                "<D:property name=\"pointer\" namespace=\"urn:x-test\"><D:property name=\"displayname\"/></D:property>")
        )
        #expect(answer.status == 207)
        #expect(!answer.text.contains("secret") && !answer.text.contains("Work &amp; more"))
        #expect(answer.text.contains("<D:href>/dav/calendars/bob/work/</D:href><D:status>HTTP/1.1 404 Not Found"))
    }

    @Test func aFanOutPastTheBoundIsRefusedNotComputed() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // 150 hrefs to the calendar itself, expanded three levels deep, would be 150³ responses.
        let hrefs = String(repeating: "<D:href>\(FilterTests.calendar)</D:href>", count: 150)
        #expect(try dav.send("PROPPATCH", FilterTests.calendar, Self.setDead("loop", hrefs)).status == 207)
        let nested = "<D:property name=\"loop\" namespace=\"urn:x-test\">"
        let answer = try dav.report(
            FilterTests.calendar,
            Self.expandProperty(nested + nested + nested + "</D:property></D:property></D:property>"))
        #expect(answer.status == 403 && answer.precondition == .dav("number-of-matches-within-limits"))
    }

    @Test func anAnswerPastItsSizeIsRefusedNotWritten() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // 9,000 hrefs (under the 10,000 resources) to the calendar itself, expanded one level:
        // each of the 9,000 answers would repeat the whole 400 KB value, some 3.6 GB.
        let hrefs = String(repeating: "<D:href>\(FilterTests.calendar)</D:href>", count: 9_000)
        #expect(try dav.send("PROPPATCH", FilterTests.calendar, Self.setDead("loop", hrefs)).status == 207)
        let answer = try dav.report(
            FilterTests.calendar,
            Self.expandProperty(
                "<D:property name=\"loop\" namespace=\"urn:x-test\"><D:property name=\"loop\" namespace=\"urn:x-test\"/>"
                    + "</D:property>"))
        #expect(answer.status == 403 && answer.precondition == .dav("number-of-matches-within-limits"))
    }

    @Test func aPropertyWithoutANameIsRefused() throws {
        let dav = try TestServer(.inProcess).dav("anna")
        #expect(try dav.report("/dav/principals/anna/", Self.expandProperty("<D:property/>")).status == 400)
    }
}
