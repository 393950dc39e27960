import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// Bookings hold against bookers and other users (issue 33, instance 8): the waiting
/// list follows the same rules as a seat, the public page's answers do not depend on
/// who else booked, and a listing's cursor is bound to its user.
@Suite struct TrustBookingTests {
    /// A weekly Yoga class (Thursdays 18:00 Berlin) of one seat with a waiting list.
    static func yoga(_ test: BookingTests, extra: String = "") throws -> (type: String, event: String) {
        let (calendar, _, _) = try test.studio()
        let yoga = try test.api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Yoga", "start": "2026-11-19T18:00:00", "end": "2026-11-19T19:00:00", "timeZone": "Europe/Berlin", "rrule": "FREQ=WEEKLY"}"#
        )
        let event = try #require(yoga["id"]?.stringValue)
        let type = try test.api.call(
            "POST", "/api/v1/booking-types",
            #"{"title": "Yoga", "slug": "yoga", "durations": [60], "calendar": "\#(calendar)", "classEvent": "\#(event)", "capacity": 1, "waitlist": true\#(extra)}"#
        )
        #expect(type.status == 201, "\(type.text)")
        return (try #require(type["id"]?.stringValue), event)
    }

    /// A full class that has begun takes nobody on its waiting list (it used to, with
    /// `waitlisted`), through the API and the public form; a full class to come does.
    @Test(arguments: ServerSetup.everyStore) func theWaitingListFollowsTheSlotRules(_ setup: ServerSetup) throws {
        let test = try BookingTests(setup)
        let (type, _) = try Self.yoga(test)
        // Thursday 2026-11-19 17:00Z; the clock is Wednesday the 18th.
        #expect(try test.book(type, "2026-11-19T17:00:00Z", email: "first@example.com").status == 201)
        let waiting = try test.book(type, "2026-11-19T17:00:00Z", email: "second@example.com")
        #expect(waiting.status == 201 && waiting["booking"]?["status"]?.stringValue == "waitlisted", "\(waiting.text)")
        // Friday: the class is over.
        test.clock.advance(2 * 86_400)
        let late = try test.book(type, "2026-11-19T17:00:00Z", email: "late@example.com")
        #expect(late.status == 409 && late["type"]?.stringValue == "urn:almanac:problem:slot-taken", "\(late.text)")
        let pages = BookingPageTests(test: test)
        // The form's token (one per visitor, for every type) from a time still on offer.
        let token = try pages.formToken(
            try pages.page("GET", "/book/personal/slot?start=2026-11-23T08:00:00Z&duration=60&tz=UTC"))
        let posted = try pages.page(
            "POST", "/book/yoga",
            form: "start=2026-11-19T17%3A00%3A00Z&duration=60&tz=UTC&name=Late&email=late%40example.com&csrf=" + token,
            cookie: token)
        #expect(posted.status == 409, "\(posted.text)")
        let bookings = try test.api.get("/api/v1/bookings")["bookings"]?.arrayValue ?? []
        #expect(
            bookings.compactMap { $0["email"]?.stringValue }.sorted() == ["first@example.com", "second@example.com"])
    }

    /// A seat freed within the type's notice goes to nobody on the waiting list: the
    /// promotion follows the rules of a booking.
    @Test func aPromotionFollowsTheSlotRules() throws {
        let test = try BookingTests()
        let (type, _) = try Self.yoga(test, extra: #", "notice": 1440"#)
        // Thursday the 26th, more than a day ahead.
        let first = try test.book(type, "2026-11-26T17:00:00Z", email: "first@example.com")
        let second = try test.book(type, "2026-11-26T17:00:00Z", email: "second@example.com")
        #expect(second["booking"]?["status"]?.stringValue == "waitlisted", "\(second.text)")
        // Thursday morning: within the day's notice, the first cancels.
        test.clock.advance(8 * 86_400 - 6 * 3_600)
        let firstID = try #require(first["booking"]?["id"]?.stringValue)
        let token = try #require(first["cancelToken"]?.stringValue)
        #expect(try test.asBooker("/api/v1/bookings/\(firstID)/cancel", #"{"token": "\#(token)"}"#).status == 200)
        let secondID = try #require(second["booking"]?["id"]?.stringValue)
        #expect(try test.api.get("/api/v1/bookings/\(secondID)")["status"]?.stringValue == "waitlisted")
    }

    /// The public page answers a taken time the same whoever's address is typed: the real
    /// booker's address from another visitor gets the same 409 as any other; only the
    /// booker's own second submit (their own form token) hears "already booked".
    @Test func thePublicPageTellsNoOneWhoBooked() throws {
        let pages = try BookingPageTests()
        let form = try pages.page("GET", "/book/personal/slot?start=2026-11-23T08:00:00Z&duration=60&tz=UTC")
        let lenas = try pages.formToken(form)
        let fields = "start=2026-11-23T08%3A00%3A00Z&duration=60&tz=UTC&name=Lena&email=lena%40example.com&csrf="
        let booked = try pages.page("POST", "/book/personal", form: fields + lenas, cookie: lenas)
        #expect(booked.status == 200 && booked.text.contains("You are booked"), "\(booked.text)")
        #expect(
            try pages.page("POST", "/book/personal", form: fields + lenas, cookie: lenas).text.contains(
                "already booked"))
        let strangers = try pages.formToken(
            try pages.page(
                "GET", "/book/personal/slot?start=2026-11-23T10:00:00Z&duration=60&tz=UTC", address: "203.0.113.9"))
        func answer(_ email: String) throws -> (Int, String) {
            let response = try pages.page(
                "POST", "/book/personal",
                form: fields.replacingOccurrences(of: "lena%40example.com", with: email) + strangers,
                cookie: strangers, address: "203.0.113.9")
            // The page's script nonce is new on every answer; the rest is the answer.
            let text = response.text.replacingOccurrences(
                of: #"nonce="[A-Za-z0-9]+""#, with: "nonce", options: .regularExpression)
            return (response.status, text)
        }
        let withHers = try answer("lena%40example.com")
        let withAnother = try answer("max%40example.com")
        #expect(withHers.0 == 409 && withAnother.0 == 409, "\(withHers.1)")
        #expect(!withHers.1.contains("already booked"))
        #expect(withHers.1 == withAnother.1, "the two answers are the same page")
    }

    /// A bookings cursor names a booking of the user who was given it: another user's
    /// cursor, or one built by hand around another user's booking, is 400.
    @Test(arguments: ServerSetup.everyStore) func cursorsAreBoundToTheirUser(_ setup: ServerSetup) throws {
        let test = try BookingTests(setup)
        let (_, _, type) = try test.studio()
        for (start, email) in [("2026-11-23T08:00:00Z", "a@example.com"), ("2026-11-23T10:00:00Z", "b@example.com")] {
            #expect(try test.book(type, start, email: email).status == 201)
        }
        let first = try test.api.get("/api/v1/bookings?limit=1")
        let next = try #require(first["next"]?.stringValue)
        let annas = try test.api.get(next)
        #expect(annas.status == 200 && annas["bookings"]?.arrayValue?.count == 1, "\(annas.text)")
        let bob = test.server.api("bob")
        let stolen = try bob.get(next)
        #expect(stolen.status == 400 && stolen["type"]?.stringValue == "urn:almanac:problem:invalid-query")
        // The old form (base64 of the listing and the key) no longer passes.
        let bookingID = try #require(first["bookings"]?[0]?["id"]?.stringValue)
        let forged = Data("bookings\n\(bookingID)".utf8).base64EncodedString()
            .replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        for user in ["anna", "bob"] {
            let answer = try test.server.api(user).get("/api/v1/bookings?cursor=\(forged)")
            #expect(answer.status == 400, "\(user): \(answer.text)")
        }
    }
}
