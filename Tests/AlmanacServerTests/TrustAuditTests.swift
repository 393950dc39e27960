import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// What the audit of the whole class found beyond issue 33's instances, each played by
/// the other user or a weaker token: a token that may only add events sends no
/// invitations; a booking page publishes no read-only share; a waiting list ends.
@Suite struct TrustAuditTests {
    @Test func anAddOnlyTokenSendsNoInvitations() throws {
        let server = try TestServer(users: ["anna", "bob"])
        for user in ["anna", "bob"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let calendar = try #require(
            try server.api("anna").call("POST", "/api/v1/calendars", #"{"title": "A"}"#)["id"]?.stringValue)
        let adder = server.api(bearer: try server.createAPIToken(for: "anna", scope: .addOnly))
        let invitation = try adder.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "x", "start": "2026-12-07T09:00:00Z", "attendees": [{"email": "bob@example.com"}]}"#
        )
        #expect(invitation.status == 403, "\(invitation.text)")
        let jcal =
            #"["vevent", [["uid", {}, "text", "j1"], ["dtstart", {}, "date-time", "2026-12-07T09:00:00Z"], ["organizer", {}, "cal-address", "mailto:anna@example.com"], ["attendee", {}, "cal-address", "mailto:bob@example.com"]], []]"#
        let viaJCal = try adder.call(
            "POST", "/api/v1/events", #"{"calendarId": "\#(calendar)", "jcal": \#(jcal)}"#)
        #expect(viaJCal.status == 403, "\(viaJCal.text)")
        #expect(try server.backend.scheduling.inbox(of: "bob").isEmpty)
        #expect(try server.eventStore(for: "bob").calendars().isEmpty)
        let plain = try adder.call(
            "POST", "/api/v1/events", #"{"calendarId": "\#(calendar)", "title": "x", "start": "2026-12-07T09:00:00Z"}"#)
        #expect(plain.status == 201, "\(plain.text)")
    }

    /// Bob shares his calendar with Anna read-only: she cannot make it (its busy time) a
    /// public booking page's calendar; read-write, she can book into it.
    @Test func aBookingPagePublishesNoReadOnlyShare() throws {
        let test = try BookingTests()
        let bob = test.server.api("bob")
        let bobs = try #require(try bob.call("POST", "/api/v1/calendars", #"{"title": "Bob"}"#)["id"]?.stringValue)
        let owns = try #require(
            try test.api.call("POST", "/api/v1/calendars", #"{"title": "Mine"}"#)["id"]?.stringValue)
        #expect(try bob.call("PUT", "/api/v1/calendars/\(bobs)/shares/anna", #"{"access": "read"}"#).status == 200)
        #expect(try test.api.call("POST", "/api/v1/calendars/\(bobs)/answer", #"{"accept": true}"#).status == 200)
        for body in [
            #"{"title": "A", "durations": [60], "calendar": "\#(owns)", "busyCalendars": ["\#(bobs)"]}"#,
            #"{"title": "B", "durations": [60], "calendar": "\#(bobs)"}"#,
        ] {
            let refused = try test.api.call("POST", "/api/v1/booking-types", body)
            #expect(refused.status == 400, "\(body): \(refused.text)")
        }
        #expect(
            try bob.call("PUT", "/api/v1/calendars/\(bobs)/shares/anna", #"{"access": "read-write"}"#).status == 200)
        let allowed = try test.api.call(
            "POST", "/api/v1/booking-types", #"{"title": "C", "durations": [60], "calendar": "\#(bobs)"}"#)
        #expect(allowed.status == 201, "\(allowed.text)")
    }

    /// A full class's waiting list is as long as the class is big, at least ten.
    @Test func aWaitingListEnds() throws {
        let test = try BookingTests()
        let (type, _) = try TrustBookingTests.yoga(test)
        #expect(try test.book(type, "2026-11-26T17:00:00Z", email: "seat@example.com").status == 201)
        for index in 0..<10 {
            let waiting = try test.book(type, "2026-11-26T17:00:00Z", email: "w\(index)@example.com")
            #expect(waiting["booking"]?["status"]?.stringValue == "waitlisted", "\(waiting.text)")
        }
        let refused = try test.book(type, "2026-11-26T17:00:00Z", email: "late@example.com")
        #expect(refused.status == 409 && refused.text.contains("waiting list"), "\(refused.text)")
    }
}
