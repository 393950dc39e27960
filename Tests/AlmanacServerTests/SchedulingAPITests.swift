import AlmanacTesting
import CalendarStore
import HTTPTypes
import Testing

/// Scheduling through the JSON API: an event with attendees is an invitation from the
/// signed-in user, delivered like a CalDAV client's; RSVP answers it, for the series
/// or one instance; uninviting cancels.
@Suite struct SchedulingAPITests {
    @Test(arguments: ServerSetup.everyStore) func inviteAnswerAndUninvite(_ setup: ServerSetup) throws {
        let server = try TestServer(setup, users: ["anna", "bob", "carol"])
        for user in ["anna", "bob"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let anna = server.api("anna")
        let bob = server.api("bob")
        let work = try #require(try anna.call("POST", "/api/v1/calendars", #"{"title": "Work"}"#)["id"]?.stringValue)
        let created = try anna.call(
            "POST", "/api/v1/events",
            #"""
            {"calendarId": "\#(work)", "title": "Planning", "start": "2026-12-07T09:00:00Z", "end": "2026-12-07T10:00:00Z",
             "rrule": "FREQ=WEEKLY;COUNT=3",
             "attendees": [{"email": "Bob@Example.com", "name": "Bob"}, {"email": "ola@trainers.example"}]}
            """#)
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created["id"]?.stringValue)
        #expect(created["organizer"]?["email"]?.stringValue == "anna@example.com")
        let attendees = created["attendees"]?.arrayValue ?? []
        let statuses = Dictionary(
            uniqueKeysWithValues: attendees.compactMap { a in
                a["email"]?.stringValue.map { ($0, a["scheduleStatus"]?.stringValue ?? "-") }
            })
        #expect(
            statuses == ["anna@example.com": "-", "bob@example.com": "1.2", "ola@trainers.example": "5.1"],
            "\(statuses)")

        // Bob has it (in a calendar made for it) and answers.
        let bobsCalendars = try bob.get("/api/v1/calendars")["calendars"]?.arrayValue ?? []
        #expect(bobsCalendars.compactMap { $0["title"]?.stringValue } == ["Calendar"])
        let bobsCalendar = try #require(bobsCalendars.first?["id"]?.stringValue)
        let bobsEvent = try #require(
            try bob.get("/api/v1/calendars/\(bobsCalendar)/events")["events"]?[0]?["id"]?.stringValue)
        let answered = try bob.call("POST", "/api/v1/events/\(bobsEvent)/rsvp", #"{"status": "accepted"}"#)
        #expect(answered.status == 200, "\(answered.text)")
        let uid = try #require(created["uid"]?.stringValue)
        func annas() throws -> String {
            let copy = try #require(try server.eventStore(for: "anna").ownResource(withUID: uid))
            return String(decoding: copy.resource.data, as: UTF8.self).replacingOccurrences(of: "\r\n ", with: "")
        }
        #expect(
            try annas().components(separatedBy: "\r\n").contains {
                $0.hasSuffix(":mailto:bob@example.com") && $0.contains("PARTSTAT=ACCEPTED")
            })
        let bobInAnnas = try anna.get("/api/v1/events/\(id)")["attendees"]?.arrayValue?.first {
            $0["email"]?.stringValue == "bob@example.com"
        }
        #expect(bobInAnnas?["status"]?.stringValue == "accepted")
        // One week declined: an override in Anna's copy.
        let week = try bob.call(
            "POST", "/api/v1/events/\(bobsEvent)/rsvp",
            #"{"status": "declined", "recurrenceId": "2026-12-14T09:00:00Z"}"#)
        #expect(week.status == 200, "\(week.text)")
        #expect(try annas().contains("RECURRENCE-ID:20261214T090000Z"))
        // Refusals.
        #expect(try bob.call("POST", "/api/v1/events/\(bobsEvent)/rsvp", #"{"status": "maybe"}"#).status == 400)
        #expect(
            try bob.call(
                "POST", "/api/v1/events/\(bobsEvent)/rsvp",
                #"{"status": "declined", "recurrenceId": "2030-01-01T00:00:00Z"}"#
            )
            .status == 400)
        #expect(
            try anna.call("POST", "/api/v1/events/\(id)/rsvp", #"{"status": "declined"}"#).status == 400,
            "the organizer is no attendee")

        // A one-off invitation, then everyone uninvited: Bob's copy is cancelled.
        let lunch = try anna.call(
            "POST", "/api/v1/events",
            #"""
            {"calendarId": "\#(work)", "title": "Lunch", "start": "2026-12-09T12:00:00Z", "end": "2026-12-09T13:00:00Z",
             "attendees": [{"email": "bob@example.com"}]}
            """#)
        let lunchID = try #require(lunch["id"]?.stringValue)
        let lunchUID = try #require(lunch["uid"]?.stringValue)
        #expect(try anna.call("PATCH", "/api/v1/events/\(lunchID)", #"{"attendees": []}"#).status == 200)
        let bobsLunch = try #require(try server.eventStore(for: "bob").ownResource(withUID: lunchUID))
        #expect(String(decoding: bobsLunch.resource.data, as: UTF8.self).contains("STATUS:CANCELLED"))
        #expect(try anna.get("/api/v1/events/\(lunchID)")["organizer"] == .null)

        // Inviting needs one's own address; attendees are checked.
        let carol = server.api("carol")
        let carols = try #require(try carol.call("POST", "/api/v1/calendars", #"{"title": "C"}"#)["id"]?.stringValue)
        let bodies = [
            #"{"calendarId": "\#(carols)", "title": "X", "start": "2026-12-07T09:00:00Z", "attendees": [{"email": "bob@example.com"}]}"#,
            #"{"calendarId": "\#(carols)", "title": "X", "start": "2026-12-07T09:00:00Z", "attendees": [{"name": "Bob"}]}"#,
            #"{"calendarId": "\#(carols)", "title": "X", "start": "2026-12-07T09:00:00Z", "attendees": [{"email": "bob@example.com", "status": "maybe"}]}"#,
            #"{"calendarId": "\#(carols)", "title": "X", "start": "2026-12-07T09:00:00Z", "attendees": [{"email": "bob@example.com", "x": 1}]}"#,
            #"{"calendarId": "\#(carols)", "title": "X", "start": "2026-12-07T09:00:00Z", "attendees": "bob"}"#,
        ]
        for body in bodies {
            let refused = try carol.call("POST", "/api/v1/events", body)
            #expect(refused.status == 400, "\(body): \(refused.text)")
        }
        #expect(try carol.get("/api/v1/calendars/\(carols)/events")["events"]?.arrayValue?.isEmpty == true)
    }
}
