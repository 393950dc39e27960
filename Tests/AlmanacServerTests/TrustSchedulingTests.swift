import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// Trust between users in scheduling (RFC 6638 §3.2.2, §4.2, §11.2): an object found by
/// UID in another user's calendars is updated only for the organizer who owns it, an
/// attendee changes only their own part of their copy, and answers and proposals count
/// only from attendees on the organizer's stored version. Every scenario is played by
/// the other user and by a stranger, and checks that nobody else's data changed.
@Suite struct TrustSchedulingTests {
    /// A server with `users`, each with their `@example.com` address.
    static func server(_ setup: ServerSetup, _ users: [String]) throws -> TestServer {
        let server = try TestServer(setup, users: users)
        for user in users { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        return server
    }

    /// What `user` keeps of `uid` in their own calendars (the bytes), or nil.
    static func stored(_ server: TestServer, _ user: String, _ uid: String) throws -> [UInt8]? {
        try server.eventStore(for: user).ownResource(withUID: uid)?.resource.data
    }

    /// The methods of the messages in `user`'s scheduling inbox, oldest first.
    static func inbox(_ server: TestServer, _ user: String) throws -> [String] {
        try server.backend.scheduling.inbox(of: user).map(\.method)
    }

    static func meeting(uid: String, organizer: String, attendees: [String], summary: String = "Planning") -> String {
        let lines =
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Trust tests//EN", "BEGIN:VEVENT", "UID:\(uid)",
                "DTSTAMP:20261101T000000Z", "DTSTART:20261207T090000Z", "DTEND:20261207T100000Z",
                "RRULE:FREQ=WEEKLY;COUNT=3", "SUMMARY:\(summary)", "ORGANIZER:mailto:\(organizer)@example.com",
                "ATTENDEE;PARTSTAT=ACCEPTED:mailto:\(organizer)@example.com",
            ] + attendees.map { "ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:\($0)@example.com" } + [
                "END:VEVENT", "END:VCALENDAR", "",
            ]
        return lines.joined(separator: "\r\n")
    }

    /// Instance 1: Eve reuses the UID of Carol's event (which Carol shares with her, read
    /// only) for an invitation of her own to Carol, then deletes it. Carol's event never
    /// changes and Eve's copy says the delivery was refused (3.8); the same for Bob's copy
    /// of Carol's meeting, whose UID Eve reuses too.
    @Test(arguments: ServerSetup.everyStore) func uidOfAnotherUsersObjectIsNotTakenOver(_ setup: ServerSetup) throws {
        let server = try Self.server(setup, ["carol", "eve", "bob"])
        let carol = server.api("carol")
        let eve = server.api("eve")
        let carols = try #require(
            try carol.call("POST", "/api/v1/calendars", #"{"title": "Carol"}"#)["id"]?.stringValue)
        let dentist = try carol.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(carols)", "title": "Dentist", "start": "2026-12-08T08:00:00Z", "end": "2026-12-08T09:00:00Z"}"#
        )
        let dentistID = try #require(dentist["id"]?.stringValue)
        let dentistUID = try #require(dentist["uid"]?.stringValue)
        #expect(
            try carol.call("PUT", "/api/v1/calendars/\(carols)/shares/eve", #"{"access": "read"}"#).status == 200)
        #expect(try eve.call("POST", "/api/v1/calendars/\(carols)/answer", #"{"accept": true}"#).status == 200)
        #expect(
            try eve.call("PATCH", "/api/v1/events/\(dentistID)", #"{"title": "Eve's"}"#).status == 403,
            "the share is read-only")
        // Carol also invites Bob to a meeting.
        let planning = try carol.call(
            "POST", "/api/v1/events",
            #"""
            {"calendarId": "\#(carols)", "title": "Planning", "start": "2026-12-09T09:00:00Z", "end": "2026-12-09T10:00:00Z",
             "attendees": [{"email": "bob@example.com"}]}
            """#)
        let planningUID = try #require(planning["uid"]?.stringValue)
        let carolsDentist = try Self.stored(server, "carol", dentistUID)
        let carolsPlanning = try Self.stored(server, "carol", planningUID)
        let bobsPlanning = try #require(try Self.stored(server, "bob", planningUID))
        let carolsInbox = try Self.inbox(server, "carol")
        let bobsInbox = try Self.inbox(server, "bob")

        let eves = try #require(try eve.call("POST", "/api/v1/calendars", #"{"title": "Eve"}"#)["id"]?.stringValue)
        var created: [String] = []
        for (uid, invited) in [(dentistUID, "carol"), (planningUID, "bob")] {
            let hijack = try eve.call(
                "POST", "/api/v1/events",
                #"""
                {"calendarId": "\#(eves)", "uid": "\#(uid)", "title": "Eve's", "start": "2026-12-10T12:00:00Z",
                 "end": "2026-12-10T13:00:00Z", "attendees": [{"email": "\#(invited)@example.com"}]}
                """#)
            #expect(hijack.status == 201, "\(hijack.text)")
            let status = hijack["attendees"]?.arrayValue?.first {
                $0["email"]?.stringValue == "\(invited)@example.com"
            }?[
                "scheduleStatus"]?.stringValue
            #expect(status == "3.8", "the delivery to \(invited) is refused: \(hijack.text)")
            created.append(try #require(hijack["id"]?.stringValue))
        }
        func unchanged(_ moment: String) throws {
            #expect(try Self.stored(server, "carol", dentistUID) == carolsDentist, "Carol's event, \(moment)")
            #expect(try Self.stored(server, "carol", planningUID) == carolsPlanning, "Carol's meeting, \(moment)")
            #expect(try Self.stored(server, "bob", planningUID) == bobsPlanning, "Bob's copy, \(moment)")
            #expect(try Self.inbox(server, "carol") == carolsInbox, "Carol's inbox, \(moment)")
            #expect(try Self.inbox(server, "bob") == bobsInbox, "Bob's inbox, \(moment)")
        }
        try unchanged("after Eve's invitations")
        // Eve moves hers and then deletes it: nothing of Carol's or Bob's is cancelled.
        for id in created {
            let moved = try eve.call(
                "PATCH", "/api/v1/events/\(id)", #"{"start": "2026-12-11T12:00:00Z", "end": "2026-12-11T13:00:00Z"}"#)
            #expect(moved.status == 200, "\(moved.text)")
            #expect(try eve.call("DELETE", "/api/v1/events/\(id)").status == 204)
        }
        try unchanged("after Eve deleted hers")
        // The same through CalDAV.
        let dav = server.dav("eve")
        #expect(try dav.mkcalendar("/dav/calendars/eve/dav/").status == 201)
        let put = try dav.put(
            "/dav/calendars/eve/dav/x.ics", Self.meeting(uid: planningUID, organizer: "eve", attendees: ["bob"]))
        #expect(put.status == 201, "\(put.text)")
        #expect(try dav.get("/dav/calendars/eve/dav/x.ics").text.contains("SCHEDULE-STATUS=3.8"))
        #expect(try dav.delete("/dav/calendars/eve/dav/x.ics").status == 204)
        try unchanged("after Eve's CalDAV PUT and DELETE")
    }

    /// Instance 2: an attendee PUTs their own copy naming themselves organizer (403
    /// `allowed-attendee-scheduling-object-change`), or changing the summary (403); their
    /// answer, alarm and client properties are theirs (204) and reach the organizer. A
    /// stranger's object of the same UID updates nobody.
    @Test(arguments: ServerSetup.everyStore) func attendeeChangesOnlyTheirOwnPart(_ setup: ServerSetup) throws {
        let server = try Self.server(setup, ["user01", "user02", "user03", "user04"])
        let organizer = server.dav("user01")
        #expect(try organizer.mkcalendar("/dav/calendars/user01/work/").status == 201)
        let original = Self.meeting(uid: "m1", organizer: "user01", attendees: ["user02", "user03"])
        #expect(try organizer.put("/dav/calendars/user01/work/m1.ics", original).status == 201)
        let before = try #require(try Self.stored(server, "user01", "m1"))
        let user02s = try #require(try Self.stored(server, "user02", "m1"))
        let user03 = server.dav("user03")
        let copy = try #require(try server.eventStore(for: "user03").ownResource(withUID: "m1"))
        let href = "/dav/calendars/user03/\(copy.calendar.name)/\(copy.resource.name)"
        let mine = try user03.get(href).text
        #expect(mine.contains("ORGANIZER:mailto:user01@example.com"), "\(mine)")

        let takeover = mine.replacingOccurrences(
            of: "ORGANIZER:mailto:user01@example.com", with: "ORGANIZER:mailto:user03@example.com")
        let retitled = mine.replacingOccurrences(of: "SUMMARY:Planning", with: "SUMMARY:Mine now")
        let moved = mine.replacingOccurrences(of: "DTSTART:20261207T090000Z", with: "DTSTART:20261207T110000Z")
        for (name, text) in [("organizer", takeover), ("summary", retitled), ("start", moved)] {
            #expect(text != mine, "\(name)")
            let refused = try user03.put(href, text)
            #expect(refused.status == 403, "\(name): \(refused.text)")
            #expect(refused.precondition?.name == "allowed-attendee-scheduling-object-change", "\(name)")
        }
        #expect(try Self.stored(server, "user01", "m1") == before)
        #expect(try Self.stored(server, "user02", "m1") == user02s)
        #expect(try Self.inbox(server, "user01").isEmpty)

        // Their own part: the answer, an alarm, TRANSP, a client's X- property.
        var answered = mine.replacingOccurrences(
            of: "ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:user03@example.com",
            with: "ATTENDEE;PARTSTAT=ACCEPTED:mailto:user03@example.com")
        #expect(answered != mine)
        answered = answered.replacingOccurrences(
            of: "END:VEVENT",
            with: "TRANSP:TRANSPARENT\r\nX-MOZ-LASTACK:20261201T000000Z\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
                + "TRIGGER:-PT5M\r\nDESCRIPTION:Mine\r\nEND:VALARM\r\nEND:VEVENT")
        let accepted = try user03.put(href, answered)
        #expect(accepted.status == 204, "\(accepted.text)")
        let organizers = String(decoding: try #require(try Self.stored(server, "user01", "m1")), as: UTF8.self)
        #expect(organizers.contains("PARTSTAT=ACCEPTED"), "\(organizers)")
        #expect(organizers.contains("ORGANIZER:mailto:user01@example.com"))
        #expect(!organizers.contains("Mine"))
        #expect(try Self.inbox(server, "user01") == ["REPLY"])

        // A stranger's object of the same UID: as organizer it reaches nobody (3.8); as
        // an attendee of user01's meeting it answers nothing.
        let stranger = server.dav("user04")
        #expect(try stranger.mkcalendar("/dav/calendars/user04/s/").status == 201)
        let organizerNow = try Self.stored(server, "user01", "m1")
        let user02Now = try Self.stored(server, "user02", "m1")
        let claimed = try stranger.put(
            "/dav/calendars/user04/s/a.ics",
            Self.meeting(uid: "m1", organizer: "user04", attendees: ["user02", "user01"]))
        #expect(claimed.status == 201, "\(claimed.text)")
        let claimedText = try stranger.get("/dav/calendars/user04/s/a.ics").text
        #expect(claimedText.components(separatedBy: "SCHEDULE-STATUS=3.8").count == 3, "\(claimedText)")
        let answering = Self.meeting(uid: "m1", organizer: "user01", attendees: []).replacingOccurrences(
            of: "END:VEVENT", with: "ATTENDEE;PARTSTAT=ACCEPTED:mailto:user04@example.com\r\nEND:VEVENT")
        #expect(try stranger.delete("/dav/calendars/user04/s/a.ics").status == 204)
        #expect(try stranger.put("/dav/calendars/user04/s/b.ics", answering).status == 201)
        #expect(try stranger.delete("/dav/calendars/user04/s/b.ics").status == 204)
        #expect(try Self.stored(server, "user01", "m1") == organizerNow)
        #expect(try Self.stored(server, "user02", "m1") == user02Now)
        #expect(try Self.inbox(server, "user01") == ["REPLY"])
        #expect(try Self.inbox(server, "user02") == ["REQUEST"])
    }

    /// Instance 3: Eve writes herself a "copy" of Bob's meeting (his UID and ORGANIZER,
    /// herself as ATTENDEE) and proposes another time through the API: 403, Bob sees no
    /// proposal, and nothing of his moves. A real attendee's proposal still reaches him.
    @Test(arguments: ServerSetup.everyStore) func proposalsOnlyFromInvitedAttendees(_ setup: ServerSetup) throws {
        let server = try Self.server(setup, ["bob", "carol", "eve"])
        let bob = server.api("bob")
        let bobs = try #require(try bob.call("POST", "/api/v1/calendars", #"{"title": "Bob"}"#)["id"]?.stringValue)
        let created = try bob.call(
            "POST", "/api/v1/events",
            #"""
            {"calendarId": "\#(bobs)", "title": "Review", "start": "2026-12-07T09:00:00Z", "end": "2026-12-07T10:00:00Z",
             "attendees": [{"email": "carol@example.com"}]}
            """#)
        let id = try #require(created["id"]?.stringValue)
        let uid = try #require(created["uid"]?.stringValue)
        let bobsBefore = try Self.stored(server, "bob", uid)

        let eve = server.dav("eve")
        #expect(try eve.mkcalendar("/dav/calendars/eve/e/").status == 201)
        let fake = Self.meeting(uid: uid, organizer: "bob", attendees: ["eve"])
        #expect(try eve.put("/dav/calendars/eve/e/fake.ics", fake).status == 201)
        let evesCopy = try #require(
            try server.eventStore(for: "eve").events(withExternalIdentifier: uid).first?.localIdentifier)
        let proposal = try server.api("eve").call(
            "POST", "/api/v1/events/\(evesCopy)/proposals",
            #"{"start": "2026-12-07T15:00:00Z", "end": "2026-12-07T16:00:00Z"}"#)
        #expect(proposal.status == 403, "\(proposal.text)")
        #expect(try bob.get("/api/v1/events/\(id)/proposals")["proposals"]?.arrayValue?.isEmpty == true)
        #expect(try Self.inbox(server, "bob").isEmpty, "neither the proposal nor the fake copy's answer")
        #expect(try Self.stored(server, "bob", uid) == bobsBefore)

        // Carol, who was invited, proposes; Bob sees it.
        let carolsCopy = try #require(
            try server.eventStore(for: "carol").events(withExternalIdentifier: uid).first?.localIdentifier)
        let real = try server.api("carol").call(
            "POST", "/api/v1/events/\(carolsCopy)/proposals",
            #"{"start": "2026-12-07T15:00:00Z", "end": "2026-12-07T16:00:00Z"}"#)
        #expect(real.status == 202, "\(real.text)")
        #expect(try bob.get("/api/v1/events/\(id)/proposals")["proposals"]?.arrayValue?.count == 1)
    }

    /// A mailed REPLY is applied only to the object its ORGANIZER organizes: Carol's copy
    /// of Bob's meeting (which lists Eve too) is no event of Carol's to answer, so a REPLY
    /// "to Carol" from Eve is refused and the copy stays as it was.
    @Test(arguments: ServerSetup.everyStore) func mailedAnswersOnlyToTheOrganizersObject(_ setup: ServerSetup) throws {
        let server = try Self.server(setup, ["bob", "carol", "eve"])
        let bob = server.dav("bob")
        #expect(try bob.mkcalendar("/dav/calendars/bob/b/").status == 201)
        #expect(
            try bob.put(
                "/dav/calendars/bob/b/m.ics", Self.meeting(uid: "m2", organizer: "bob", attendees: ["carol", "eve"])
            )
            .status == 201)
        let carols = try #require(try Self.stored(server, "carol", "m2"))
        let bobs = try Self.stored(server, "bob", "m2")
        let reply = [
            "From: eve@example.com", "To: carol@example.com", "Subject: Declined", "MIME-Version: 1.0",
            "Content-Type: text/calendar; method=REPLY; charset=utf-8", "", "BEGIN:VCALENDAR", "VERSION:2.0",
            "PRODID:-//Mail//EN", "METHOD:REPLY", "BEGIN:VEVENT", "UID:m2", "DTSTAMP:20261201T000000Z",
            "DTSTART:20261207T090000Z", "ORGANIZER:mailto:carol@example.com",
            "ATTENDEE;PARTSTAT=DECLINED:mailto:eve@example.com", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let refused = try server.api("carol").call(
            "POST", "/api/v1/imip", reply, headers: ["Content-Type": "message/rfc822"])
        #expect(refused.status == 400, "\(refused.text)")
        #expect(refused.text.contains("does not organize"), "\(refused.text)")
        #expect(try Self.stored(server, "carol", "m2") == carols)
        #expect(try Self.stored(server, "bob", "m2") == bobs)
    }

    /// An attendee's PATCH through the API changes only their alarms; the rest is refused.
    @Test(arguments: ServerSetup.everyStore) func attendeeAPIEditsAreTheirOwnPart(_ setup: ServerSetup) throws {
        let server = try Self.server(setup, ["anna", "bob"])
        let anna = server.api("anna")
        let annas = try #require(try anna.call("POST", "/api/v1/calendars", #"{"title": "A"}"#)["id"]?.stringValue)
        let created = try anna.call(
            "POST", "/api/v1/events",
            #"""
            {"calendarId": "\#(annas)", "title": "Standup", "start": "2026-12-07T09:00:00Z", "end": "2026-12-07T09:15:00Z",
             "rrule": "FREQ=DAILY;COUNT=5", "attendees": [{"email": "bob@example.com"}]}
            """#)
        let uid = try #require(created["uid"]?.stringValue)
        let annasBefore = try Self.stored(server, "anna", uid)
        let bob = server.api("bob")
        let bobsEvent = try #require(
            try server.eventStore(for: "bob").events(withExternalIdentifier: uid).first?.localIdentifier)
        for body in [#"{"title": "Mine"}"#, #"{"start": "2026-12-07T10:00:00Z"}"#, #"{"attendees": []}"#] {
            let refused = try bob.call("PATCH", "/api/v1/events/\(bobsEvent)", body)
            #expect(refused.status == 403, "\(body): \(refused.text)")
        }
        let split = try bob.call(
            "PATCH", "/api/v1/occurrences/\(bobsEvent)/2026-12-09T09:00:00Z?span=future", #"{"alarms": []}"#)
        #expect(split.status == 403, "\(split.text)")
        let alarm = try bob.call("PATCH", "/api/v1/events/\(bobsEvent)", #"{"alarms": [{"minutesBefore": 5}]}"#)
        #expect(alarm.status == 200, "\(alarm.text)")
        #expect(try Self.stored(server, "anna", uid) == annasBefore)
    }

    /// Invitations made and cancelled again and again fill nobody's calendar: a copy the
    /// attendee never answered is removed with the cancellation (their quota stays theirs).
    @Test(arguments: ServerSetup.everyStore) func cancelledInvitationsLeaveNoCopies(_ setup: ServerSetup) throws {
        let server = try Self.server(setup, ["carol", "eve"])
        let eve = server.dav("eve")
        #expect(try eve.mkcalendar("/dav/calendars/eve/e/").status == 201)
        for index in 0..<5 {
            let path = "/dav/calendars/eve/e/spam\(index).ics"
            #expect(
                try eve.put(path, Self.meeting(uid: "spam-\(index)", organizer: "eve", attendees: ["carol"])).status
                    == 201)
            #expect(try Self.stored(server, "carol", "spam-\(index)") != nil, "delivered")
            #expect(try eve.delete(path).status == 204)
            #expect(try Self.stored(server, "carol", "spam-\(index)") == nil, "removed with its cancellation")
        }
        let objects = try server.eventStore(for: "carol").calendars().flatMap { calendar in
            try server.eventStore(for: "carol").resources(calendar: calendar.id)
        }
        #expect(objects.isEmpty)
    }

    /// One write schedules at most 200 attendees (each is a delivery, those outside a
    /// mail): more is refused before anything is stored, through CalDAV and the API.
    @Test func anEventSchedulesABoundedNumberOfAttendees() throws {
        let server = try Self.server(.inProcess, ["eve"])
        let eve = server.dav("eve")
        #expect(try eve.mkcalendar("/dav/calendars/eve/e/").status == 201)
        let many = Self.meeting(uid: "many", organizer: "eve", attendees: [])
            .replacingOccurrences(
                of: "END:VEVENT",
                with: (0...200).map { "ATTENDEE:mailto:guest\($0)@elsewhere.example\r\n" }.joined() + "END:VEVENT")
        let refused = try eve.put("/dav/calendars/eve/e/many.ics", many)
        #expect(refused.status == 403 && refused.precondition?.name == "max-attendees-per-instance", "\(refused.text)")
        #expect(try Self.stored(server, "eve", "many") == nil)
        let calendar = try #require(
            try server.api("eve").call("POST", "/api/v1/calendars", #"{"title": "E"}"#)["id"]?.stringValue)
        let attendees = (0...200).map { #"{"email": "guest\#($0)@elsewhere.example"}"# }.joined(separator: ",")
        let api = try server.api("eve").call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "x", "start": "2026-12-07T09:00:00Z", "attendees": [\#(attendees)]}"#
        )
        #expect(api.status == 400, "\(api.text)")
    }
}
