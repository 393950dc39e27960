import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// What the audit of the whole class found beyond issue 33's instances, each played by
/// the other user or a weaker token: a token that may only add events sends no
/// invitations. (The audit's booking findings are in BookingsTests' TrustAuditBookingTests.)
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
}
