import Accounts
import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import CivilTime
import Foundation
import HTTPTypes
import ICalendar
import JSONAPI
import Testing

/// The JSON API through the server's routes (authentication included), on a
/// ``TestServer``: in process by default; scenarios that take a ``ServerSetup`` run over
/// loopback and on PostgreSQL too.
@Suite struct APITests {
    let server: TestServer
    var backend: DatabaseBackend { server.backend }
    /// Bearer tokens by scope.
    var tokens: [AccessToken.Scope: String] = [:]

    init() throws { try self.init(.inProcess) }

    init(_ setup: ServerSetup) throws {
        // The clock is fixed at the start of 2026-12-01 (UTC), the day these scenarios book in.
        server = try TestServer(
            setup, users: ["anna", "bob"], allowedOrigins: ["https://app.example.com"], now: { 1_796_083_200 })
        for scope in AccessToken.Scope.allCases {
            tokens[scope] = try server.createAPIToken(for: "anna", scope: scope)
        }
    }

    @discardableResult
    func call(
        _ method: String, _ target: String, _ body: String? = nil, scope: AccessToken.Scope = .readWrite,
        headers: HTTPHeaders = [:]
    ) throws -> APIAnswer {
        let token = try #require(tokens[scope])
        let answer = try server.api(bearer: token).call(method, target, body, headers: headers)
        if method != "GET" { expectStoredObjectsParse(after: "\(method) \(target)") }
        return answer
    }

    /// After every write of the suite: each stored object still parses strictly, with one
    /// UID, so nothing a request sent could add a line of its own.
    func expectStoredObjectsParse(after request: String) {
        do {
            for user in ["anna", "bob"] {
                let store = try backend.eventStore(for: user)
                for calendar in try store.calendars() {
                    for info in try store.resources(calendar: calendar.id) {
                        let data = try store.resource(named: info.name, calendar: calendar.id).data
                        let root = try ICalendarParser.parse(data).components[0]
                        let uids = Set(
                            root.components.filter { $0.name != "VTIMEZONE" }.compactMap { $0.property("UID")?.value })
                        #expect(uids.count == 1, "after \(request): \(info.name) has UIDs \(uids)")
                    }
                }
            }
        } catch {
            Issue.record("after \(request), a stored object does not parse: \(error)")
        }
    }

    func makeCalendar(_ title: String = "Trainings", zone: String = "Europe/Berlin", color: String = "#FF0000") throws
        -> String
    {
        let created = try call(
            "POST", "/api/v1/calendars", #"{"title": "\#(title)", "timeZone": "\#(zone)", "color": "\#(color)"}"#)
        try #require(created.status == 201, "\(created.text)")
        return try #require(created["id"]?.stringValue)
    }

    /// Everything stored for both users, to show a refused request changed nothing.
    func snapshot() throws -> [String] {
        var lines: [String] = []
        for user in ["anna", "bob"] {
            let store = try backend.eventStore(for: user)
            for calendar in try store.calendars() {
                lines.append("\(user) \(calendar.id) \(calendar.syncToken) \(calendar.title) \(calendar.color ?? "")")
                lines += try store.resources(calendar: calendar.id).map { "  \($0.name) \($0.etag)" }
            }
        }
        return lines
    }

    @Test(arguments: ServerSetup.all) func calendarsFindOrCreateAndETags(_ setup: ServerSetup) throws {
        let api = try APITests(setup)
        let id = try api.makeCalendar()
        let listed = try api.call("GET", "/api/v1/calendars")
        #expect(listed.status == 200 && listed["calendars"]?.arrayValue?.count == 1)
        let found = try api.call("PUT", "/api/v1/calendars/by-title/Trainings")
        #expect(found.status == 200 && found["id"]?.stringValue == id)
        let made = try api.call("PUT", "/api/v1/calendars/by-title/Work%20%26%20more", ##"{"color": "#00FF0080"}"##)
        #expect(
            made.status == 201 && made["title"]?.stringValue == "Work & more"
                && made["color"]?.stringValue == "#00FF0080")
        #expect(try api.call("PUT", "/api/v1/calendars/by-title/Work%20%26%20more").status == 200)

        let etag = try #require(try api.call("GET", "/api/v1/calendars/\(id)").headers["ETag"])
        let stale = try api.call(
            "PATCH", "/api/v1/calendars/\(id)", ##"{"color": "#0000FF"}"##,
            headers: ["If-Match": "\"almanac-sync:x:0\""])
        #expect(stale.status == 412 && stale.headers["Content-Type"] == "application/problem+json")
        #expect(stale["type"]?.stringValue == "urn:almanac:problem:precondition-failed")
        let patched = try api.call(
            "PATCH", "/api/v1/calendars/\(id)", ##"{"color": "#0000FF"}"##, headers: ["If-Match": etag])
        #expect(patched.status == 200 && patched["color"]?.stringValue == "#0000FF" && patched.headers["ETag"] != etag)
        #expect(try api.call("DELETE", "/api/v1/calendars/\(id)", headers: ["If-Match": etag]).status == 412)
        #expect(try api.call("DELETE", "/api/v1/calendars/\(id)").status == 204)
        #expect(try api.call("GET", "/api/v1/calendars/\(id)").status == 404)
    }

    @Test(arguments: ServerSetup.all) func eventsLifecycleWithETagsAndUnknownFields(_ setup: ServerSetup) throws {
        let api = try APITests(setup)
        let calendar = try api.makeCalendar()
        let created = try api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Spin", "start": "2026-12-01T18:00:00", "timeZone": "Europe/Berlin", "duration": "PT45M", "location": "Studio 2", "alarms": [{"minutesBefore": 30}], "categories": ["cardio"]}"#
        )
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created["id"]?.stringValue)
        #expect(created.headers["Location"] == "/api/v1/events/\(id)")
        #expect(
            created["start"]?.stringValue == "2026-12-01T18:00:00"
                && created["end"]?.stringValue == "2026-12-01T18:45:00")
        #expect(created["alarms"]?.arrayValue?.first?["minutesBefore"] == .integer(30))
        #expect(created["jcal"]?.arrayValue?.first == .string("vevent"))
        let etag = try #require(created.headers["ETag"])
        #expect(created["etag"]?.stringValue == etag)

        // Unknown members are named; wrong types and malformed JSON are problems too.
        let before = try api.snapshot()
        let unknown = try api.call("PATCH", "/api/v1/events/\(id)", #"{"title": "x", "colour": "red", "priority": 1}"#)
        #expect(unknown.status == 400 && unknown["type"]?.stringValue == "urn:almanac:problem:unknown-field")
        #expect(unknown["fields"] == .array([.string("colour"), .string("priority")]))
        #expect(try api.call("PATCH", "/api/v1/events/\(id)", #"{"title": 5}"#)["fields"] == .array([.string("title")]))
        #expect(
            try api.call("PATCH", "/api/v1/events/\(id)", #"{"title": "x""#)["type"]?.stringValue
                == "urn:almanac:problem:invalid-body")
        #expect(try api.call("PATCH", "/api/v1/events/\(id)", #"{"start": "tomorrow"}"#).status == 400)
        #expect(try api.call("PATCH", "/api/v1/events/\(id)", #"{"timeZone": "Mars/Olympus"}"#).status == 400)
        #expect(try api.call("PATCH", "/api/v1/events/\(id)", #"{"rrule": "FREQ=SOMETIMES"}"#).status == 400)
        #expect(
            try api.call("PATCH", "/api/v1/events/\(id)", #"{"title": "Late"}"#, headers: ["If-Match": "\"stale\""])
                .status
                == 412)
        #expect(try api.snapshot() == before)

        let patched = try api.call(
            "PATCH", "/api/v1/events/\(id)", #"{"title": "Spin & Stretch", "location": null}"#,
            headers: ["If-Match": etag])
        #expect(
            patched.status == 200 && patched["title"]?.stringValue == "Spin & Stretch" && patched["location"] == .null)
        #expect(patched["categories"] == .array([.string("cardio")]))
        // PUT replaces what the JSON models.
        let replaced = try api.call(
            "PUT", "/api/v1/events/\(id)", #"{"title": "Yoga", "start": "2026-12-02", "end": "2026-12-03"}"#)
        #expect(
            replaced.status == 200 && replaced["allDay"] == .bool(true) && replaced["categories"] == .array([])
                && replaced["alarms"] == .array([]))
        #expect(try api.call("DELETE", "/api/v1/events/\(id)").status == 204)
        #expect(try api.call("GET", "/api/v1/events/\(id)").status == 404)
    }

    @Test(arguments: ServerSetup.all) func occurrencesSpansRemoveMatchingAndAlarms(_ setup: ServerSetup) throws {
        let api = try APITests(setup)
        let calendar = try api.makeCalendar()
        let created = try api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Spin", "start": "2026-12-01T18:00:00", "timeZone": "Europe/Berlin", "end": "2026-12-01T19:00:00", "rrule": "FREQ=WEEKLY;COUNT=4", "alarms": [{"minutesBefore": 15}]}"#
        )
        let id = try #require(created["id"]?.stringValue)
        let month = try api.call(
            "GET", "/api/v1/calendars/\(calendar)/occurrences?from=2026-12-01&to=2027-01-01&tz=Europe/Berlin")
        let occurrences = try #require(month["occurrences"]?.arrayValue)
        #expect(occurrences.count == 4)
        // 18:00 in Berlin (UTC+1 in winter) is 17:00Z.
        #expect(occurrences.first?["start"]?.stringValue == "2026-12-01T17:00:00Z")
        let second = try #require(occurrences[1]["id"]?.stringValue)
        #expect(second == "\(id)/2026-12-08T17:00:00Z")

        // The second instance renamed alone; the third and later removed.
        let renamed = try api.call(
            "PATCH", "/api/v1/occurrences/\(id)/2026-12-08T17:00:00Z?span=this", #"{"title": "Spin (guest coach)"}"#)
        #expect(renamed.status == 200, "\(renamed.text)")
        #expect(try api.call("DELETE", "/api/v1/occurrences/\(id)/2026-12-15T17:00:00Z?span=future").status == 204)
        let after = try #require(
            try api.call("GET", "/api/v1/calendars/\(calendar)/occurrences?from=2026-12-01&to=2027-01-01")[
                "occurrences"]?
                .arrayValue)
        #expect(after.map { $0["title"]?.stringValue ?? "" } == ["Spin", "Spin (guest coach)"])
        #expect(try api.call("GET", "/api/v1/occurrences/\(id)/2026-12-22T17:00:00Z").status == 404)

        let alarms = try #require(
            try api.call("GET", "/api/v1/alarms?from=2026-12-01T16:00:00Z&to=2026-12-01T17:00:00Z")["alarms"]?
                .arrayValue)
        #expect(alarms.count == 1 && alarms.first?["fireTime"]?.stringValue == "2026-12-01T16:45:00Z")

        let removed = try api.call(
            "DELETE", "/api/v1/calendars/\(calendar)/events?from=2026-12-08&to=2026-12-09&title=spin%20(guest%20coach)")
        #expect(removed["removed"]?.arrayValue?.count == 1)
        #expect(
            try api.call("GET", "/api/v1/calendars/\(calendar)/occurrences?from=2026-12-01&to=2027-01-01")[
                "occurrences"]?
                .arrayValue?.count == 1)
        // Ranges beyond the limit are refused.
        let long = try api.call("GET", "/api/v1/calendars/\(calendar)/occurrences?from=2026-01-01&to=2028-01-01")
        #expect(long.status == 400 && long["type"]?.stringValue == "urn:almanac:problem:range-too-long")
    }

    @Test func monthSummaryFollowsTheZoneAndFirstWeekday() throws {
        let trainings = try makeCalendar()
        let meetings = try makeCalendar("Meetings", color: "#00FF00")
        func add(_ calendar: String, _ title: String, _ start: String, _ end: String) throws {
            let answer = try call(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(calendar)", "title": "\#(title)", "start": "\#(start)", "end": "\#(end)", "timeZone": "Europe/Berlin"}"#
            )
            #expect(answer.status == 201)
        }
        try add(trainings, "Spin", "2026-12-03T18:00:00", "2026-12-03T19:00:00")
        try add(meetings, "Board", "2026-12-03T18:30:00", "2026-12-03T20:00:00")
        // 00:30 Berlin on the 5th is still the 4th in New York.
        try add(trainings, "Late run", "2026-12-05T00:30:00", "2026-12-05T01:00:00")
        let berlin = try call("GET", "/api/v1/summary?month=2026-12&tz=Europe/Berlin&firstWeekday=monday")
        let days = try #require(berlin["days"]?.arrayValue)
        // December 2026 starts on a Tuesday: the grid runs Monday 30 November to Sunday 3 January.
        #expect(
            days.count == 35 && days.first?["date"]?.stringValue == "2026-11-30"
                && days.last?["date"]?.stringValue == "2027-01-03")
        #expect(days.first?["inMonth"] == .bool(false))
        let third = try #require(days.first { $0["date"]?.stringValue == "2026-12-03" })
        #expect(
            third["count"] == .integer(2) && third["conflict"] == .bool(true)
                && third["colors"] == .array([.string("#FF0000"), .string("#00FF00")]))
        #expect(days.first { $0["date"]?.stringValue == "2026-12-05" }?["count"] == .integer(1))
        let newYork = try #require(
            try call("GET", "/api/v1/summary?month=2026-12&tz=America/New_York&firstWeekday=sunday")["days"]?.arrayValue
        )
        #expect(newYork.first?["date"]?.stringValue == "2026-11-29")
        #expect(newYork.first { $0["date"]?.stringValue == "2026-12-04" }?["count"] == .integer(1))
        #expect(newYork.first { $0["date"]?.stringValue == "2026-12-05" }?["count"] == .integer(0))
        let week = try #require(try call("GET", "/api/v1/summary?week=2026-W49&tz=Europe/Berlin")["days"]?.arrayValue)
        #expect(week.map { $0["date"]?.stringValue ?? "" }.first == "2026-11-30" && week.count == 7)
        #expect(try call("GET", "/api/v1/summary?month=2026-13").status == 400)
    }

    /// The API takes a user's password (Basic) as it takes a token; a wrong one is a
    /// problem document with the challenge.
    @Test(arguments: ServerSetup.all) func basicSignInReadsTheAPILikeAToken(_ setup: ServerSetup) throws {
        let api = try APITests(setup)
        let id = try api.makeCalendar()
        let basic = try api.server.api("anna").get("/api/v1/calendars")
        #expect(basic.status == 200 && basic["calendars"]?[0]?["id"]?.stringValue == id)
        let wrong = APIClient(
            server: api.server, authorization: "Basic " + Data("anna:not the password".utf8).base64EncodedString())
        let refused = try wrong.get("/api/v1/calendars")
        #expect(
            refused.status == 401 && refused.headers["WWW-Authenticate"] != nil
                && refused["type"]?.stringValue == "urn:almanac:problem:unauthorized")
    }

    @Test(arguments: ServerSetup.all) func tokenScopes(_ setup: ServerSetup) throws {
        let api = try APITests(setup)
        let calendar = try api.makeCalendar()
        let mine = try api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Private", "start": "2026-12-01T09:00:00Z"}"#)
        let mineID = try #require(mine["id"]?.stringValue)
        // Read-only: reads, but may not write.
        #expect(try api.call("GET", "/api/v1/events/\(mineID)", scope: .read).status == 200)
        #expect(
            try api.call(
                "POST", "/api/v1/events", #"{"calendarId": "\#(calendar)", "title": "x", "start": "2026-12-01"}"#,
                scope: .read
            ).status == 403)
        // Add-only: creates, reads back what it made, sees nothing else.
        let added = try api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Class", "start": "2026-12-02T09:00:00Z"}"#, scope: .addOnly)
        let addedID = try #require(added["id"]?.stringValue)
        #expect(try api.call("GET", "/api/v1/events/\(addedID)", scope: .addOnly).status == 200)
        #expect(try api.call("GET", "/api/v1/events/\(addedID)/add-to-calendar", scope: .addOnly).status == 200)
        #expect(try api.call("GET", "/api/v1/events/\(mineID)", scope: .addOnly).status == 404)
        #expect(try api.call("GET", "/api/v1/calendars", scope: .addOnly).status == 403)
        #expect(
            try api.call(
                "GET", "/api/v1/calendars/\(calendar)/occurrences?from=2026-12-01&to=2026-12-31", scope: .addOnly
            )
            .status == 403)
        #expect(try api.call("DELETE", "/api/v1/events/\(addedID)", scope: .addOnly).status == 403)
        // A revoked token is refused.
        let token = try #require(try api.backend.appState.accessTokens(user: "anna").first { $0.scope == .read })
        try api.backend.appState.revokeAccessToken(id: token.id, user: "anna")
        let revoked = try api.call("GET", "/api/v1/calendars", scope: .read)
        #expect(
            revoked.status == 401 && revoked.headers["WWW-Authenticate"] != nil
                && revoked["type"]?.stringValue == "urn:almanac:problem:unauthorized")
    }

    @Test func otherUsersResourcesAreNotFound() throws {
        let bobStore = try backend.eventStore(for: "bob")
        let bobCalendar = try bobStore.createCalendar(EventCalendar(title: "Bob's"))
        let bobEvent = try bobStore.save(
            Event(
                title: "Secret",
                start: DateTimeValue(CivilDateTime(year: 2026, month: 12, day: 1, hour: 9)!, form: .utc),
                calendarIdentifier: bobCalendar.id))
        let before = try snapshot()
        let bobID = try #require(bobEvent.localIdentifier)
        #expect(try call("GET", "/api/v1/calendars/\(bobCalendar.id)").status == 404)
        #expect(try call("GET", "/api/v1/events/\(bobID)").status == 404)
        #expect(try call("PATCH", "/api/v1/events/\(bobID)", #"{"title": "mine now"}"#).status == 404)
        #expect(try call("DELETE", "/api/v1/events/\(bobID)").status == 404)
        #expect(
            try call(
                "POST", "/api/v1/events", #"{"calendarId": "\#(bobCalendar.id)", "title": "x", "start": "2026-12-01"}"#
            ).status == 404)
        #expect(
            try call("DELETE", "/api/v1/calendars/\(bobCalendar.id)/events?from=2026-12-01&to=2026-12-02").status == 404
        )
        #expect(try call("PUT", "/api/v1/events/\(bobID)/added").status == 404)
        #expect(try snapshot() == before)
    }

    @Test func addToCalendarAddedMarksAndTheICSFile() throws {
        let calendar = try makeCalendar()
        let created = try call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Spin", "start": "2026-12-01T18:00:00", "timeZone": "Europe/Berlin", "duration": "PT1H"}"#
        )
        let id = try #require(created["id"]?.stringValue)
        let targets = try call("GET", "/api/v1/events/\(id)/add-to-calendar")
        #expect(targets.status == 200)
        #expect(targets["bridge"]?["name"]?.stringValue == "Spin")
        #expect(
            targets["google"]?["url"]?.stringValue?.hasPrefix(
                "https://calendar.google.com/calendar/render?action=TEMPLATE") == true)
        #expect(targets["ics"]?["url"]?.stringValue == "/events/\(id).ics")
        let file = try call("GET", "/events/\(id).ics")
        #expect(
            file.status == 200 && file.headers["Content-Type"] == "text/calendar; charset=utf-8"
                && file.text.contains("METHOD:PUBLISH"))

        #expect(try call("GET", "/api/v1/events/\(id)/added").status == 404)
        let marked = try call(
            "PUT", "/api/v1/events/\(id)/added", #"{"platform": "ios", "nativeIdentifier": "EK-123"}"#)
        #expect(marked.status == 200 && marked["platform"]?.stringValue == "ios")
        #expect(
            try call("PUT", "/api/v1/events/\(id)/added", #"{"platform": "ios", "nativeIdentifier": "EK-123"}"#)[
                "nativeIdentifier"]?.stringValue == "EK-123")
        #expect(try call("PUT", "/api/v1/events/\(id)/added", #"{"platform": "blackberry"}"#).status == 400)
        #expect(try call("GET", "/api/v1/events/\(id)/added")["nativeIdentifier"]?.stringValue == "EK-123")
        #expect(try call("DELETE", "/api/v1/events/\(id)/added").status == 204)
        #expect(try call("GET", "/api/v1/events/\(id)/added").status == 404)
    }

    @Test func availabilityConflictsAndBusyImport() throws {
        let calendar = try makeCalendar()
        #expect(
            try call(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(calendar)", "title": "Board", "start": "2026-12-01T10:00:00", "end": "2026-12-01T11:00:00", "timeZone": "Europe/Berlin"}"#
            ).status == 201)
        let free = try call(
            "GET",
            "/api/v1/availability?from=2026-12-01&to=2026-12-02&tz=Europe/Berlin&duration=60&workingHours=Mon-Fri%2009:00-13:00&bufferAfter=15"
        )
        #expect(free.status == 200, "\(free.text)")
        // 09:00–13:00 Berlin with the 10:00–11:00 meeting: 09:00 would end at 10:00 but needs 15 minutes after;
        // 11:00 is too close to the meeting's end; 12:00 fits.
        #expect(
            free["slots"]
                == .array([
                    .object(["start": .string("2026-12-01T11:00:00Z"), "end": .string("2026-12-01T12:00:00Z")])
                ]))

        // Other hours on that date, and a booking window that leaves it out.
        let morning = try call(
            "GET",
            "/api/v1/availability?from=2026-12-01&to=2026-12-03&tz=Europe/Berlin&duration=60&workingHours=Mon-Fri%2009:00-13:00&dateHours=2026-12-01%2011:00-12:00,2026-12-02%2008:00-09:00"
        )
        #expect(
            morning["slots"]
                == .array([
                    .object(["start": .string("2026-12-01T10:00:00Z"), "end": .string("2026-12-01T11:00:00Z")]),
                    .object(["start": .string("2026-12-02T07:00:00Z"), "end": .string("2026-12-02T08:00:00Z")]),
                ]))
        let windowed = try call(
            "GET",
            "/api/v1/availability?from=2026-12-01&to=2026-12-03&tz=Europe/Berlin&duration=60&workingHours=Mon-Fri%2009:00-10:00&bookingWindow=2026-12-02/2026-12-02"
        )
        #expect(
            windowed["slots"]
                == .array([
                    .object(["start": .string("2026-12-02T08:00:00Z"), "end": .string("2026-12-02T09:00:00Z")])
                ]))
        #expect(
            try call("GET", "/api/v1/availability?from=2026-12-01&to=2026-12-03&duration=60&dateHours=tomorrow").status
                == 400)

        let conflicts = try call(
            "POST", "/api/v1/conflicts",
            #"{"start": "2026-11-24T10:30:00", "timeZone": "Europe/Berlin", "duration": "PT1H", "rrule": "FREQ=WEEKLY;COUNT=3"}"#
        )
        let found = try #require(conflicts["conflicts"]?.arrayValue)
        #expect(
            found.count == 1 && found.first?["reason"]?.stringValue == "overlap"
                && found.first?["with"]?["title"]?.stringValue == "Board")
        #expect(found.first?["occurrence"]?["start"]?.stringValue == "2026-12-01T09:30:00Z")

        let before = try snapshot()
        let refused = try call(
            "POST", "/api/v1/events?rejectConflicts=true",
            #"{"calendarId": "\#(calendar)", "title": "Clash", "start": "2026-12-01T10:15:00", "duration": "PT30M", "timeZone": "Europe/Berlin"}"#
        )
        #expect(
            refused.status == 409 && refused["conflicts"]?.arrayValue?.count == 1
                && refused["truncated"] == .bool(false))
        #expect(try snapshot() == before)
        // An hourly event has more occurrences than are checked: a save says so.
        let hourly = try call(
            "POST", "/api/v1/events?rejectConflicts=true",
            #"{"calendarId": "\#(calendar)", "title": "Beep", "start": "2027-01-04T00:00:00", "duration": "PT1M", "timeZone": "Europe/Berlin", "rrule": "FREQ=HOURLY"}"#
        )
        #expect(hourly.status == 201 && hourly.headers["Warning"]?.contains("only the first 1000 occurrences") == true)
        // A one-off event has nothing unchecked: its save carries no Warning.
        let once = try call(
            "POST", "/api/v1/events?rejectConflicts=true",
            #"{"calendarId": "\#(calendar)", "title": "Once", "start": "2027-03-01T08:30:00", "duration": "PT1M", "timeZone": "Europe/Berlin"}"#
        )
        #expect(once.status == 201 && once.headers["Warning"] == nil)

        let imported = try call(
            "POST", "/api/v1/busy",
            #"{"calendar": "Phone", "blocks": [{"start": "2026-12-01T12:00:00Z", "end": "2026-12-01T12:30:00Z"}]}"#)
        #expect(imported.status == 200 && imported["imported"] == .integer(1))
        let busyNow = try call(
            "GET",
            "/api/v1/availability?from=2026-12-01&to=2026-12-02&tz=Europe/Berlin&duration=60&workingHours=Mon-Fri%2009:00-13:00&bufferAfter=15"
        )
        #expect(busyNow["slots"] == .array([]))
        let replaced = try call(
            "POST", "/api/v1/busy",
            #"{"calendar": "Phone", "blocks": [], "from": "2026-12-01T00:00:00Z", "to": "2026-12-02T00:00:00Z"}"#)
        #expect(replaced["removed"] == .integer(1))
        #expect(
            try call(
                "POST", "/api/v1/busy",
                #"{"blocks": [{"start": "2026-12-01T12:00:00Z", "end": "2026-12-01T12:30:00Z", "title": "Dentist"}]}"#
            ).status == 400)
    }

    @Test(arguments: ServerSetup.all) func corsOnlyForConfiguredOrigins(_ setup: ServerSetup) throws {
        let api = try APITests(setup)
        let preflight = try api.server.send(
            "OPTIONS", "/api/v1/events",
            headers: ["Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"])
        #expect(
            preflight.status == 204 && preflight.headers["Access-Control-Allow-Origin"] == "https://app.example.com")
        let stranger = try api.server.send("OPTIONS", "/api/v1/events", headers: ["Origin": "https://evil.example"])
        #expect(stranger.status == 403 && stranger.headers["Access-Control-Allow-Origin"] == nil)
        let read = try api.call("GET", "/api/v1/calendars", headers: ["Origin": "https://app.example.com"])
        #expect(read.headers["Access-Control-Allow-Origin"] == "https://app.example.com")
        // A page may send an Idempotency-Key and read what the API says of retries and limits.
        let allowed = preflight.headers["Access-Control-Allow-Headers"] ?? ""
        #expect(allowed.contains("Idempotency-Key") && allowed.contains("If-Match"))
        let exposed = read.headers["Access-Control-Expose-Headers"] ?? ""
        #expect(exposed.contains("Idempotent-Replayed") && exposed.contains("RateLimit-Remaining"))
        #expect(
            try api.call("GET", "/api/v1/calendars", headers: ["Origin": "https://evil.example"]).headers[
                "Access-Control-Allow-Origin"] == nil)
    }

    /// The OpenAPI document lists exactly the routes the server answers, each with its methods.
    @Test func openAPIDocumentMatchesTheRoutes() throws {
        let document = try server.send("GET", "/api/v1/openapi.json")
        #expect(document.status == 200)
        let json = try JSON(parsing: document.body)
        #expect(json["openapi"]?.stringValue == "3.1.0")
        guard case .object(let paths)? = json["paths"] else {
            Issue.record("no paths")
            return
        }
        var documented: Set<String> = []
        for (path, item) in paths {
            guard case .object(let operations) = item else { continue }
            for (method, _) in operations { documented.insert(method.uppercased() + " " + path) }
        }
        var routed: Set<String> = []
        for route in JSONAPIHandler.routeTable { routed.insert(route.method + " " + route.template) }
        #expect(documented == routed)
        // One entry per method and path template.
        #expect(routed.count == JSONAPIHandler.routeTable.count)
        // And every documented operation answers (not 404 for a missing route, nor 405).
        for entry in documented.sorted() {
            let parts = entry.split(separator: " ")
            let path = parts[1].replacingOccurrences(of: "{id}", with: "x").replacingOccurrences(
                of: "{eventId}", with: "x"
            )
            .replacingOccurrences(of: "{recurrenceId}", with: "x").replacingOccurrences(of: "{title}", with: "x")
            let answer = try call(String(parts[0]), path)
            #expect(answer.status != 405, "\(entry)")
            if answer.status == 404 {
                #expect(answer["detail"]?.stringValue?.hasPrefix("no such resource") != true, "\(entry)")
            }
        }
    }
}

/// The route table: a token outside a route's access, and a known path with another method.
extension APITests {
    @Test func aTokenOutsideItsScopeGetsTheRoutesProblem() throws {
        let calendar = try makeCalendar()
        let event = try call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Lesson", "start": "2026-12-01T09:00:00Z"}"#, scope: .addOnly)
        let eventID = try #require(event["id"]?.stringValue)
        let refusals: [(method: String, target: String, body: String?, scope: AccessToken.Scope, detail: String)] = [
            (
                "GET", "/api/v1/calendars", nil, .addOnly,
                "an add-only token may only create events and read back its own"
            ),
            (
                "GET", "/api/v1/occurrences/\(eventID)", nil, .addOnly,
                "an add-only token may only create events and read back its own"
            ),
            (
                "POST", "/api/v1/conflicts", #"{"start": "2026-12-01T09:00:00Z"}"#, .addOnly,
                "an add-only token may only create events and read back its own"
            ),
            (
                "POST", "/api/v1/calendars", #"{"title": "x"}"#, .read,
                "this token may not change the calendar (scope read)"
            ),
            (
                "PATCH", "/api/v1/events/\(eventID)", #"{"title": "x"}"#, .addOnly,
                "this token may not change the calendar (scope add-only)"
            ),
            ("DELETE", "/api/v1/events/\(eventID)", nil, .read, "this token may not change the calendar (scope read)"),
            (
                "POST", "/api/v1/events", #"{"calendarId": "\#(calendar)", "start": "2026-12-01"}"#, .read,
                "a read-only token may not create events"
            ),
            ("PUT", "/api/v1/events/\(eventID)/added", nil, .read, "a read-only token may not mark events"),
            ("DELETE", "/api/v1/events/\(eventID)/added", nil, .read, "a read-only token may not mark events"),
        ]
        for refusal in refusals {
            let answer = try call(refusal.method, refusal.target, refusal.body, scope: refusal.scope)
            #expect(answer.status == 403, "\(refusal.method) \(refusal.target)")
            #expect(
                answer["type"]?.stringValue == "urn:almanac:problem:forbidden", "\(refusal.method) \(refusal.target)")
            #expect(answer["detail"]?.stringValue == refusal.detail, "\(refusal.method) \(refusal.target)")
        }
        // What the scope allows still answers: the add-only token reads back its event, the read-only one marks nothing.
        #expect(try call("GET", "/api/v1/events/\(eventID)", scope: .addOnly).status == 200)
        #expect(try call("GET", "/api/v1/events/\(eventID)/added", scope: .read).status == 404)
        #expect(try call("PUT", "/api/v1/events/\(eventID)/added", scope: .addOnly).status == 200)
    }

    @Test func aKnownPathWithAnotherMethodIs405WithAllow() throws {
        let calendar = try makeCalendar()
        let put = try call("PUT", "/api/v1/calendars/\(calendar)", #"{"title": "x"}"#)
        #expect(put.status == 405 && put.headers["Allow"] == "GET, PATCH, DELETE")
        #expect(put["type"]?.stringValue == "urn:almanac:problem:method-not-allowed")
        #expect(put["detail"]?.stringValue == "PUT is not allowed here; use GET, PATCH, DELETE")
        // A method is refused before the scope is looked at.
        let post = try call("POST", "/api/v1/alarms", "{}", scope: .addOnly)
        #expect(post.status == 405 && post.headers["Allow"] == "GET")
        // by-title comes before {id}: its path answers only PUT, even where {id}/occurrences would fit.
        let byTitle = try call("GET", "/api/v1/calendars/by-title/occurrences?from=2026-12-01&to=2026-12-02")
        #expect(byTitle.status == 405 && byTitle.headers["Allow"] == "PUT")
        // HEAD is answered as GET.
        #expect(try call("HEAD", "/api/v1/calendars").status == 200)
        let unknown = try call("GET", "/api/v1/calendars/\(calendar)/nothing")
        #expect(unknown.status == 404 && unknown["detail"]?.stringValue?.hasPrefix("no such resource") == true)
    }
}
