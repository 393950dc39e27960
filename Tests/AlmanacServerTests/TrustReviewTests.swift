import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// What a review of the trust work found: scheduling bound to where an object is kept
/// (not a UID the client names), a client's move between calendars, checks made before
/// the write. (Its booking findings are in BookingsTests' TrustAuditBookingTests.)
@Suite struct TrustReviewTests {
    typealias Trust = TrustSchedulingTests

    /// The methods of the messages in `user`'s scheduling inbox.
    static func inbox(_ server: TestServer, _ user: String) throws -> [String] {
        try Trust.inbox(server, user)
    }

    /// An add-only token cannot re-send someone's invitation by naming its UID for a new
    /// event in another calendar: 409, and the attendees hear nothing.
    @Test(arguments: ServerSetup.everyStore) func anAddOnlyTokenCannotReuseAHeldUID(_ setup: ServerSetup) throws {
        let server = try Trust.server(setup, ["anna", "bob"])
        let anna = server.api("anna")
        let work = try #require(try anna.call("POST", "/api/v1/calendars", #"{"title": "Work"}"#)["id"]?.stringValue)
        let personal = try #require(
            try anna.call("POST", "/api/v1/calendars", #"{"title": "Personal"}"#)["id"]?.stringValue)
        let meeting = try anna.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(work)", "title": "Review", "start": "2026-12-08T09:00:00Z", "attendees": [{"email": "bob@example.com"}]}"#
        )
        let uid = try #require(meeting["uid"]?.stringValue)
        #expect(try Self.inbox(server, "bob") == ["REQUEST"])
        let bobsCopy = try Trust.stored(server, "bob", uid)
        let annasCopy = try Trust.stored(server, "anna", uid)

        let addOnly = server.api(bearer: try server.createAPIToken(for: "anna", scope: .addOnly))
        let reused = try addOnly.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(personal)", "uid": "\#(uid)", "title": "x", "start": "2026-12-09T09:00:00Z"}"#)
        #expect(reused.status == 409, "\(reused.text)")
        #expect(try Self.inbox(server, "bob") == ["REQUEST"])
        #expect(try Trust.stored(server, "bob", uid) == bobsCopy)
        #expect(try Trust.stored(server, "anna", uid) == annasCopy)
        // A new UID is still the token's to add.
        let fresh = try addOnly.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(personal)", "title": "Mine", "start": "2026-12-09T09:00:00Z"}"#)
        #expect(fresh.status == 201, "\(fresh.text)")
    }

    /// A client moving a meeting between calendars writes the new copy and then deletes
    /// the old one (Thunderbird does): the attendees get neither a second invitation nor
    /// a cancellation, and keep their copies. Deleting the last copy cancels.
    @Test(arguments: ServerSetup.everyStore) func movingACopyBetweenCalendarsSchedulesNothing(_ setup: ServerSetup)
        throws
    {
        let server = try Trust.server(setup, ["anna", "bob"])
        let anna = server.dav("anna")
        #expect(try anna.mkcalendar("/dav/calendars/anna/work/").status == 201)
        #expect(try anna.mkcalendar("/dav/calendars/anna/home/").status == 201)
        let meeting = Trust.meeting(uid: "mv", organizer: "anna", attendees: ["bob"])
        #expect(try anna.put("/dav/calendars/anna/work/mv.ics", meeting).status == 201)
        #expect(try Self.inbox(server, "bob") == ["REQUEST"])
        let bobs = try #require(try Trust.stored(server, "bob", "mv"))

        #expect(try anna.put("/dav/calendars/anna/home/mv.ics", meeting).status == 201)
        #expect(try anna.delete("/dav/calendars/anna/work/mv.ics").status == 204)
        #expect(try Self.inbox(server, "bob") == ["REQUEST"])
        #expect(try Trust.stored(server, "bob", "mv") == bobs)

        #expect(try anna.delete("/dav/calendars/anna/home/mv.ics").status == 204)
        #expect(try Self.inbox(server, "bob") == ["REQUEST", "CANCEL"])
    }

    /// An attendee who writes a "copy" of the organizer's meeting into another of their
    /// calendars is judged against the copy they keep: a changed title or time is
    /// refused there too, by CalDAV and by the API.
    @Test(arguments: ServerSetup.everyStore) func anAttendeesSecondCopyIsTheirOwnPartToo(_ setup: ServerSetup) throws {
        let server = try Trust.server(setup, ["anna", "bob"])
        let anna = server.dav("anna")
        #expect(try anna.mkcalendar("/dav/calendars/anna/work/").status == 201)
        #expect(
            try anna.put(
                "/dav/calendars/anna/work/m.ics", Trust.meeting(uid: "m", organizer: "anna", attendees: ["bob"])
            ).status == 201)
        let bob = server.dav("bob")
        #expect(try bob.mkcalendar("/dav/calendars/bob/other/").status == 201)
        let faked = Trust.meeting(uid: "m", organizer: "anna", attendees: ["bob"], summary: "Cancelled, go home")
        let refused = try bob.put("/dav/calendars/bob/other/m.ics", faked)
        #expect(refused.status == 403, "\(refused.text)")
        #expect(refused.precondition?.name == "allowed-attendee-scheduling-object-change")

        let other = try #require(
            try server.api("bob").call("POST", "/api/v1/calendars", #"{"title": "Other"}"#)["id"]?.stringValue)
        let viaAPI = try server.api("bob").call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(other)", "uid": "m", "title": "Cancelled", "start": "2026-12-07T09:00:00Z", "end": "2026-12-07T10:00:00Z", "organizer": {"email": "anna@example.com"}, "attendees": [{"email": "bob@example.com"}]}"#
        )
        #expect(viaAPI.status == 403, "\(viaAPI.text)")
        #expect(try server.eventStore(for: "bob").events(withExternalIdentifier: "m").count == 1)
    }

    /// The attendee bound counts every occurrence: an occurrence edit that would take the
    /// object past it is refused before anything is written.
    @Test func anOccurrenceEditCannotPassTheAttendeeBound() throws {
        let server = try Trust.server(.inProcess, ["eve"])
        let eve = server.api("eve")
        let calendar = try #require(try eve.call("POST", "/api/v1/calendars", #"{"title": "E"}"#)["id"]?.stringValue)
        let many = (0..<200).map { #"{"email": "guest\#($0)@elsewhere.example"}"# }.joined(separator: ",")
        let created = try eve.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "x", "start": "2026-12-07T09:00:00Z", "rrule": "FREQ=DAILY;COUNT=3", "attendees": [\#(many)]}"#
        )
        #expect(created.status == 201, "\(created.text)")
        let id = try #require(created["id"]?.stringValue)
        let uid = try #require(created["uid"]?.stringValue)
        let before = try Trust.stored(server, "eve", uid)
        let one = try eve.call(
            "PATCH", "/api/v1/occurrences/\(id)/2026-12-08T09:00:00Z",
            #"{"attendees": [{"email": "one.more@elsewhere.example"}]}"#)
        #expect(one.status == 400, "\(one.text)")
        #expect(try Trust.stored(server, "eve", uid) == before)
    }
}
