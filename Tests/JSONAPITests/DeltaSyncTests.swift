import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import Testing

/// Delta sync over JSON (`GET /api/v1/calendars/{id}/changes`) beside CalDAV sync on the
/// same calendar: writes through both protocols, one change log, one token.
@Suite struct DeltaSyncTests {
    static func object(_ uid: String, _ summary: String) -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Test//EN\r
        BEGIN:VEVENT\r
        UID:\(uid)\r
        DTSTAMP:20261101T000000Z\r
        DTSTART:20261201T090000Z\r
        SUMMARY:\(summary)\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }

    /// `type name` for each change of an answer.
    static func listed(_ answer: APIAnswer) -> [String] {
        (answer["changes"]?.arrayValue ?? []).map {
            "\($0["type"]?.stringValue ?? "?") \($0["name"]?.stringValue ?? "?")"
        }
    }

    @Test(arguments: ServerSetup.all) func jsonAndCalDAVReadOneChangeLog(_ setup: ServerSetup) throws {
        let api = try APITests(setup)
        let dav = api.server.dav("anna")
        let collection = "/dav/calendars/anna/work/"
        #expect(try dav.mkcalendar(collection).status == 201)
        let calendars = try api.call("GET", "/api/v1/calendars")["calendars"]?.arrayValue ?? []
        let id = try #require(calendars.first?["id"]?.stringValue)
        let base = "/api/v1/calendars/\(id)/changes"

        // Writes through CalDAV and through the API.
        #expect(try dav.put(collection + "dav-one.ics", Self.object("dav-one", "From a phone")).status == 201)
        let made = try api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(id)", "title": "From the app", "start": "2026-12-02T10:00:00Z"}"#)
        #expect(made.status == 201)
        let madeID = try #require(made["id"]?.stringValue)
        #expect(try dav.put(collection + "dav-two.ics", Self.object("dav-two", "Second phone write")).status == 201)

        let initial = try api.call("GET", base)
        #expect(initial.status == 200)
        #expect(initial["changes"]?.arrayValue?.count == 3)
        #expect((initial["changes"]?.arrayValue ?? []).allSatisfy { $0["type"]?.stringValue == "created" })
        #expect(initial["more"]?.boolValue == false)
        let token = try #require(initial["token"]?.stringValue)
        // The same position as CalDAV's token.
        let propfind = try dav.propfind(collection, props: [.syncToken]).multistatus()
        #expect(propfind.responses.first?.property(.syncToken)?.text == token)
        let fromApp = try #require(
            initial["changes"]?.arrayValue?.first { $0["eventId"]?.stringValue == madeID })
        #expect(fromApp["href"]?.stringValue == "/api/v1/events/\(madeID)")
        #expect(fromApp["etag"]?.stringValue == (try api.call("GET", "/api/v1/events/\(madeID)")).headers["ETag"])

        // Changes after the token, again through both.
        #expect(try api.call("PATCH", "/api/v1/events/\(madeID)", #"{"title": "Renamed"}"#).status == 200)
        #expect(try dav.delete(collection + "dav-one.ics").status == 204)
        #expect(try dav.put(collection + "dav-three.ics", Self.object("dav-three", "Third")).status == 201)
        let appName = try #require(fromApp["name"]?.stringValue)

        let delta = try api.call("GET", base + "?since=" + PercentEncoded.query(token) + "&include=data")
        #expect(Self.listed(delta) == ["updated \(appName)", "deleted dav-one.ics", "created dav-three.ics"])
        let deleted = try #require(delta["changes"]?[1])
        #expect(deleted["uid"]?.stringValue == "dav-one" && deleted["etag"] == nil && deleted["data"] == nil)
        let third = try #require(delta["changes"]?[2])
        #expect(third["data"]?.stringValue == (try dav.get(collection + "dav-three.ics")).text)
        // CalDAV from the API's token says the same.
        let davDelta = try dav.syncCollection(collection, token: token).multistatus()
        #expect(
            Set(davDelta.hrefs) == [collection + appName, collection + "dav-one.ics", collection + "dav-three.ics"])
        #expect(davDelta.response(collection + "dav-one.ics")?.status == 404)
        #expect(davDelta.syncToken == delta["token"]?.stringValue)

        // Page by page with limit=1, following next: the same changes, then nothing new.
        var pages: [String] = []
        var next = base + "?since=" + PercentEncoded.query(token) + "&limit=1"
        while true {
            let page = try api.call("GET", next)
            #expect(page.status == 200)
            pages += Self.listed(page)
            next = try #require(page["next"]?.stringValue)
            if page["more"]?.boolValue != true { break }
            #expect(pages.count < 10)
        }
        #expect(pages == Self.listed(delta))
        #expect(Self.listed(try api.call("GET", next)).isEmpty)
    }

    @Test func badTokensAndParametersAreRefused() throws {
        let api = try APITests()
        let id = try api.makeCalendar()
        let other = try api.makeCalendar("Other")
        let otherToken = try #require(try api.call("GET", "/api/v1/calendars/\(other)/changes")["token"]?.stringValue)
        let base = "/api/v1/calendars/\(id)/changes"
        for since in ["garbage", PercentEncoded.query(otherToken), PercentEncoded.query("almanac-sync:\(id):99")] {
            let refused = try api.call("GET", base + "?since=" + since)
            #expect(refused.status == 410, "\(since)")
            #expect(refused["type"]?.stringValue == "urn:almanac:problem:resync-required")
        }
        for query in ["limit=0", "limit=10001", "limit=-1", "limit=9223372036854775808", "include=bodies", "cursor=1"] {
            #expect(try api.call("GET", base + "?" + query).status == 400, "\(query)")
        }
        #expect(try api.call("GET", "/api/v1/calendars/nope/changes").status == 404)
        // Read scopes may sync; an add-only token may not.
        #expect(try api.call("GET", base, scope: .read).status == 200)
        #expect(try api.call("GET", base, scope: .addOnly).status == 403)
    }
}

/// Query values percent-encoded as a client sends them.
enum PercentEncoded {
    static func query(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}
