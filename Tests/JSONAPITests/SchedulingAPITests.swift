import AlmanacTesting
import CalendarStore
import CivilTime
import HTTPTypes
import Testing

/// Scheduling through the JSON API: an event with attendees is an invitation from the
/// signed-in user, delivered like a CalDAV client's; RSVP answers it, for the series
/// or one instance; uninviting cancels.
@Suite struct SchedulingAPITests {
    /// Anna, Bob and Carol; those named have their `@example.com` address; Anna has a Work calendar.
    static func studio(_ setup: ServerSetup, addressed: [String]) throws -> (
        server: TestServer, anna: APIClient, bob: APIClient, work: String
    ) {
        let server = try TestServer(setup, users: ["anna", "bob", "carol"])
        for user in addressed { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let anna = server.api("anna")
        let work = try #require(try anna.call("POST", "/api/v1/calendars", #"{"title": "Work"}"#)["id"]?.stringValue)
        return (server, anna, server.api("bob"), work)
    }

    @Test(arguments: ServerSetup.everyStore) func inviteAnswerAndUninvite(_ setup: ServerSetup) throws {
        let (server, anna, bob, work) = try Self.studio(setup, addressed: ["anna", "bob"])
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
        // Bob answers it, so his copy stays cancelled when Anna uninvites everyone.
        let bobsLunchID = try #require(
            try server.eventStore(for: "bob").events(withExternalIdentifier: lunchUID).first?.localIdentifier)
        #expect(try bob.call("POST", "/api/v1/events/\(bobsLunchID)/rsvp", #"{"status": "tentative"}"#).status == 200)
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

    /// COUNTER through the API: an attendee proposes another time for one week or the
    /// series; the organizer lists the proposals and accepts one (the week moves for
    /// everyone, who are asked again) or declines one (the proposer hears, nothing moves).
    @Test(arguments: ServerSetup.everyStore) func proposalsAreAcceptedOrDeclined(_ setup: ServerSetup) throws {
        let (server, anna, bob, work) = try Self.studio(setup, addressed: ["anna", "bob", "carol"])
        let created = try anna.call(
            "POST", "/api/v1/events",
            #"""
            {"calendarId": "\#(work)", "title": "Planning", "start": "2026-12-07T09:00:00Z", "end": "2026-12-07T10:00:00Z",
             "rrule": "FREQ=WEEKLY;COUNT=3", "attendees": [{"email": "bob@example.com"}, {"email": "carol@example.com"}]}
            """#)
        let id = try #require(created["id"]?.stringValue)
        let uid = try #require(created["uid"]?.stringValue)
        let bobsCalendar = try #require(try bob.get("/api/v1/calendars")["calendars"]?[0]?["id"]?.stringValue)
        let bobsEvent = try #require(
            try bob.get("/api/v1/calendars/\(bobsCalendar)/events")["events"]?[0]?["id"]?.stringValue)
        let bobsBefore = try #require(try server.eventStore(for: "bob").ownResource(withUID: uid)).resource.data

        // Bob proposes 11:00 for the second week.
        let proposed = try bob.call(
            "POST", "/api/v1/events/\(bobsEvent)/proposals",
            #"{"recurrenceId": "2026-12-14T09:00:00Z", "start": "2026-12-14T11:00:00Z", "end": "2026-12-14T12:00:00Z", "comment": "Mornings are full"}"#
        )
        #expect(proposed.status == 202, "\(proposed.text)")
        #expect(
            try server.eventStore(for: "bob").ownResource(withUID: uid)?.resource.data == bobsBefore,
            "proposing changes nothing of Bob's copy")
        let listed = try anna.get("/api/v1/events/\(id)/proposals")["proposals"]?.arrayValue ?? []
        #expect(listed.count == 1)
        let first = try #require(listed.first)
        #expect(first["from"]?.stringValue == "mailto:bob@example.com")
        #expect(first["recurrenceId"]?.stringValue == "20261214T090000Z")
        #expect(first["start"]?.stringValue == "2026-12-14T11:00:00Z")
        #expect(first["end"]?.stringValue == "2026-12-14T12:00:00Z")
        #expect(first["comment"]?.stringValue == "Mornings are full")
        let proposalID = try #require(first["id"]?.stringValue)

        // Refusals change nothing.
        for (who, target, body) in [
            (anna, id, #"{"start": "2026-12-07T11:00:00Z", "end": "2026-12-07T12:00:00Z"}"#),
            (bob, bobsEvent, #"{"start": "2026-12-07T11:00:00Z", "end": "2026-12-07T10:00:00Z"}"#),
            (bob, bobsEvent, #"{"start": "2026-12-07T11:00:00Z"}"#),
            (bob, bobsEvent, #"{"start": "2026-12-07", "end": "2026-12-07T10:00:00Z"}"#),
            (
                bob, bobsEvent,
                #"{"recurrenceId": "2030-01-06T09:00:00Z", "start": "2030-01-06T11:00:00Z", "end": "2030-01-06T12:00:00Z"}"#
            ),
            (bob, bobsEvent, #"{"start": "2026-12-07T11:00:00Z", "end": "2026-12-07T12:00:00Z", "x": 1}"#),
            (bob, bobsEvent, #"{"start": "0000-01-01T00:00:00Z", "end": "0000-01-01T01:00:00Z"}"#),
            (bob, bobsEvent, #"{"start": "9999-12-31T23:00:00Z", "end": "99999-12-31T23:59:59Z"}"#),
            (
                bob, bobsEvent,
                #"{"start": "2026-12-07T11:00:00Z", "end": "2026-12-07T12:00:00Z", "comment": "a\u0000b"}"#
            ),
            (
                bob, bobsEvent,
                #"{"start": "2026-12-07T11:00:00", "end": "2026-12-07T12:00:00", "timeZone": "Mars/Base"}"#
            ),
        ] {
            let refused = try who.call("POST", "/api/v1/events/\(target)/proposals", body)
            #expect(refused.status == 400, "\(body): \(refused.text)")
        }
        #expect(try server.api("carol").call("GET", "/api/v1/events/\(id)/proposals").status == 404)
        #expect(
            try anna.call("POST", "/api/v1/events/\(id)/proposals/\(proposalID)", #"{"answer": "maybe"}"#).status
                == 400)
        #expect(
            try anna.call("POST", "/api/v1/events/\(id)/proposals/none.ics", #"{"answer": "accept"}"#).status == 404)
        #expect(
            try bob.call("POST", "/api/v1/events/\(bobsEvent)/proposals/\(proposalID)", #"{"answer": "accept"}"#)
                .status == 404, "only the organizer's inbox holds it")
        #expect(try anna.get("/api/v1/events/\(id)/proposals")["proposals"]?.arrayValue?.count == 1)

        // Anna accepts: the week moves in her copy and in everyone's.
        let accepted = try anna.call(
            "POST", "/api/v1/events/\(id)/proposals/\(proposalID)", #"{"answer": "accept"}"#)
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect(try anna.get("/api/v1/events/\(id)/proposals")["proposals"]?.arrayValue?.isEmpty == true)
        for user in ["anna", "bob", "carol"] {
            let store = try server.eventStore(for: user)
            let copy = try #require(try store.ownResource(withUID: uid), "\(user)")
            let starts = try store.occurrences(
                in: TimeRange(start: 1_796_601_600, end: 1_798_416_000), calendars: [copy.calendar.id],
                matching: .all, timeZone: "UTC", limit: 100
            ).occurrences.map { $0.start.instant(in: .utc) }
            // 2026-12-07 09:00, 2026-12-14 11:00 (moved), 2026-12-21 09:00.
            #expect(starts == [1_796_634_000, 1_797_246_000, 1_797_843_600], "\(user): \(starts)")
        }
        let annas = String(
            decoding: try #require(try server.eventStore(for: "anna").ownResource(withUID: uid)).resource.data,
            as: UTF8.self
        ).replacingOccurrences(of: "\r\n ", with: "")
        let week = try #require(annas.components(separatedBy: "BEGIN:VEVENT").first { $0.contains("RECURRENCE-ID") })
        let carolInWeek = try #require(
            week.components(separatedBy: "\r\n").first { $0.hasSuffix(":mailto:carol@example.com") })
        #expect(carolInWeek.contains("PARTSTAT=NEEDS-ACTION") && carolInWeek.contains("RSVP=TRUE"), "\(carolInWeek)")
        #expect(try server.backend.scheduling.inbox(of: "carol").last?.method == "REQUEST", "Carol is asked again")

        // Bob proposes another hour for the series; Anna declines it with a word.
        #expect(
            try bob.call(
                "POST", "/api/v1/events/\(bobsEvent)/proposals",
                #"{"start": "2026-12-07T15:00:00", "end": "2026-12-07T16:00:00", "timeZone": "Europe/Berlin"}"#
            ).status == 202)
        let second = try #require(
            try anna.get("/api/v1/events/\(id)/proposals")["proposals"]?[0])
        #expect(second["recurrenceId"] == .null && second["timeZone"]?.stringValue == "Europe/Berlin")
        #expect(second["start"]?.stringValue == "2026-12-07T15:00:00")
        let annasBefore = try #require(try server.eventStore(for: "anna").ownResource(withUID: uid)).resource.data
        let declined = try anna.call(
            "POST", "/api/v1/events/\(id)/proposals/\(try #require(second["id"]?.stringValue))",
            #"{"answer": "decline", "comment": "Afternoons are the gym's"}"#)
        #expect(declined.status == 200, "\(declined.text)")
        #expect(try server.eventStore(for: "anna").ownResource(withUID: uid)?.resource.data == annasBefore)
        let note = try #require(try server.backend.scheduling.inbox(of: "bob").last)
        #expect(note.method == "DECLINECOUNTER")
        #expect(String(decoding: note.data, as: UTF8.self).contains("COMMENT:Afternoons are the gym's"))
    }
}
