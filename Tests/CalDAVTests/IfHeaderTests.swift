import AlmanacTesting
import Testing

/// The `If` header (RFC 4918 §10.4) with entity tags and, as RFC 6578 §5 requires, a
/// collection's sync token as its state token: a request whose header does not hold is
/// 412 and changes nothing.
@Suite struct IfHeaderTests {
    static let calendar = FilterTests.calendar
    static let lunch = calendar + "lunch.ics"

    func syncToken(_ dav: DAVClient) throws -> String {
        let found = try dav.propfind(Self.calendar, props: [.dav("sync-token")]).multistatus()
        return try #require(found.response(Self.calendar)?.property(.dav("sync-token"))?.text)
    }

    func put(_ dav: DAVClient, _ path: String, _ body: String, if value: String) throws -> DAVAnswer {
        try dav.send("PUT", path, body, headers: ["If": value, "Content-Type": "text/calendar"])
    }

    @Test(arguments: ServerSetup.everyTransport) func entityTagsAndSyncTokensGuardWrites(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let created = try dav.put(Self.lunch, FilterTests.lunch)
        let etag = try #require(created.headers["ETag"])
        let changed = FilterTests.lunch.replacingOccurrences(of: "SUMMARY:Lunch", with: "SUMMARY:Late lunch")
        // §10.4.8: an entity tag condition on the request's resource.
        #expect(try put(dav, Self.lunch, changed, if: "([\"stale\"])").status == 412)
        #expect(try dav.get(Self.lunch).text.contains("SUMMARY:Lunch\r\n"))
        let matched = try put(dav, Self.lunch, changed, if: "([\(etag)])")
        #expect(matched.status == 204, "\(matched.status) \(matched.text) \(etag)")
        // RFC 6578 §5: write only if the calendar is as last synced (a tagged list on the collection).
        let token = try syncToken(dav)
        let tagged = "<\(Self.calendar)> (<\(token)>)"
        let dinner = Self.calendar + "dinner.ics"
        let dinnerBody = FilterTests.lunch.replacingOccurrences(of: "lunch@test", with: "dinner@test")
        #expect(try put(dav, dinner, dinnerBody, if: tagged).status == 201)
        // The calendar moved on: the same condition no longer holds, and nothing is written.
        let supper = Self.calendar + "supper.ics"
        let supperBody = FilterTests.lunch.replacingOccurrences(of: "lunch@test", with: "supper@test")
        #expect(try put(dav, supper, supperBody, if: tagged).status == 412)
        #expect(try dav.get(supper).status == 404)
        // The header holds when one of its lists does (§10.4.2): a stale one, then a current one.
        let current = try syncToken(dav)
        #expect(try put(dav, supper, supperBody, if: "<\(Self.calendar)> (<\(token)>) (<\(current)>)").status == 201)
        // No locks here: DAV:no-lock is never a state, so only its negation holds.
        #expect(try dav.send("DELETE", supper, headers: ["If": "(<DAV:no-lock>)"]).status == 412)
        #expect(try dav.get(supper).status == 200)
        #expect(try dav.send("DELETE", supper, headers: ["If": "(Not <DAV:no-lock>)"]).status == 204)
    }

    @Test func anotherUsersResourceHasNoStateHere() throws {
        let server = try TestServer()
        let bob = server.dav("bob")
        #expect(try bob.mkcalendar("/dav/calendars/bob/work/").status == 201)
        let anna = server.dav("anna")
        #expect(try anna.makeCalendar() == 201)
        // bob's calendar has the name of anna's: a condition on it with anna's own token must
        // not be read as a condition on anna's calendar. bob's has no state for anna at all.
        let token = try syncToken(anna)
        let refused = try put(anna, Self.lunch, FilterTests.lunch, if: "</dav/calendars/bob/work/> (<\(token)>)")
        #expect(refused.status == 412)
        #expect(try anna.get(Self.lunch).status == 404)
        // With anna's own calendar tagged, the same token holds.
        #expect(try put(anna, Self.lunch, FilterTests.lunch, if: "<\(Self.calendar)> (<\(token)>)").status == 201)
    }

    @Test(arguments: ["(", "()", "([\"a\"]", "</dav/> ", "([\"a\"]) </dav/> ([\"a\"])", "x", "(<a> junk)"])
    func malformedHeadersAre400(_ value: String) throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try put(dav, Self.lunch, FilterTests.lunch, if: value).status == 400)
        #expect(try dav.get(Self.lunch).status == 404)
    }
}
