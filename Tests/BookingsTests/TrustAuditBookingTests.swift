import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// What the trust audit and its review (issue 33) found in bookings, each played by the
/// other user: a booking page publishes no read-only share and follows the share as it is
/// now; a waiting list ends; a retry after a cancellation books anew.
@Suite struct TrustAuditBookingTests {
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

    /// A busy calendar shared read-write, later made read-only, stops showing on the
    /// booking page: the share as it is now decides, not as it was when the type was saved.
    @Test func aBookingPageFollowsTheShareAsItIsNow() throws {
        let test = try BookingTests()
        let bob = test.server.api("bob")
        let bobs = try #require(try bob.call("POST", "/api/v1/calendars", #"{"title": "Bob"}"#)["id"]?.stringValue)
        #expect(
            try bob.call(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(bobs)", "title": "Private", "start": "2026-11-23T08:00:00Z", "end": "2026-11-23T09:00:00Z"}"#
            ).status == 201)
        #expect(
            try bob.call("PUT", "/api/v1/calendars/\(bobs)/shares/anna", #"{"access": "read-write"}"#).status == 200)
        #expect(try test.api.call("POST", "/api/v1/calendars/\(bobs)/answer", #"{"accept": true}"#).status == 200)
        let (calendar, _, _) = try test.studio()
        let type = try test.api.call(
            "POST", "/api/v1/booking-types",
            #"{"title": "Shared", "slug": "shared", "durations": [60], "calendar": "\#(calendar)", "busyCalendars": ["\#(bobs)"]}"#
        )
        #expect(type.status == 201, "\(type.text)")
        let id = try #require(type["id"]?.stringValue)
        #expect(try !test.slots(id).contains("2026-11-23T08:00:00Z"))
        #expect(try bob.call("PUT", "/api/v1/calendars/\(bobs)/shares/anna", #"{"access": "read"}"#).status == 200)
        #expect(try test.slots(id).contains("2026-11-23T08:00:00Z"))
    }

    /// A visitor who booked, was cancelled and sends the same form again books anew; while
    /// the booking stands, the same form is "already booked".
    @Test func aRetryAfterACancellationBooksAnew() throws {
        let pages = try BookingPageTests()
        let token = try pages.formToken(
            try pages.page("GET", "/book/personal/slot?start=2026-11-23T08:00:00Z&duration=60&tz=UTC"))
        let fields =
            "start=2026-11-23T08%3A00%3A00Z&duration=60&tz=UTC&name=Lena&email=lena%40example.com&csrf=" + token
        let booked = try pages.page("POST", "/book/personal", form: fields, cookie: token)
        #expect(booked.status == 200 && booked.text.contains("You are booked"), "\(booked.text)")
        #expect(try pages.page("POST", "/book/personal", form: fields, cookie: token).text.contains("already booked"))
        let bookings = try pages.test.api.get("/api/v1/bookings")["bookings"]?.arrayValue ?? []
        let id = try #require(bookings.first?["id"]?.stringValue)
        #expect(try pages.test.api.call("POST", "/api/v1/bookings/\(id)/cancel", "{}").status == 200)
        let again = try pages.page("POST", "/book/personal", form: fields, cookie: token)
        #expect(again.status == 200 && again.text.contains("You are booked"), "\(again.text)")
        let now = try pages.test.api.get("/api/v1/bookings")["bookings"]?.arrayValue ?? []
        #expect(now.filter { $0["status"]?.stringValue == "confirmed" }.count == 1)
    }
}
