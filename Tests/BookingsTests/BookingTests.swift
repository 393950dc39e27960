import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Synchronization
import Testing
import Webhooks

/// Bookings through the API as an app's backend and a booker use them: booking types,
/// slots that follow the schedule and the busy time, holds, bookings that race, seats of
/// a class, and cancel and reschedule through the booker's tokens.
@Suite struct BookingTests {
    /// 2026-11-18T11:06:40Z, a Wednesday.
    static let start = 1_795_000_000
    let clock = Clock(start)
    let server: TestServer
    let api: APIClient

    final class Clock: Sendable {
        let now: Atomic<Int>
        init(_ start: Int) { now = Atomic(start) }
        func advance(_ seconds: Int) { now.add(seconds, ordering: .relaxed) }
        var value: Int { now.load(ordering: .relaxed) }
    }

    init(_ setup: ServerSetup = .inProcess, webhooks: WebhookDispatcher.Configuration? = nil) throws {
        let clock = clock
        server = try TestServer(setup, users: ["anna", "bob"], webhooks: webhooks, now: { clock.value })
        api = server.api("anna")
    }

    /// Anna's studio: hours Mon-Fri 09:00-12:00 in Berlin, a Trainings calendar, a Work
    /// calendar with a weekly Monday meeting 10:00-10:30, and a one-hour booking type.
    func studio(_ extra: String = "") throws -> (calendar: String, work: String, type: String) {
        let schedule = try api.call(
            "POST", "/api/v1/availability-schedules",
            #"{"title": "Studio", "timeZone": "Europe/Berlin", "hours": "Mon-Fri 09:00-12:00"}"#)
        #expect(schedule.status == 201, "\(schedule.text)")
        let calendar = try #require(
            try api.call("POST", "/api/v1/calendars", #"{"title": "Trainings", "timeZone": "Europe/Berlin"}"#)["id"]?
                .stringValue)
        let work = try #require(
            try api.call("POST", "/api/v1/calendars", #"{"title": "Work", "timeZone": "Europe/Berlin"}"#)["id"]?
                .stringValue)
        let meeting = try api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(work)", "title": "Team", "start": "2026-11-23T10:00:00", "end": "2026-11-23T10:30:00", "timeZone": "Europe/Berlin", "rrule": "FREQ=WEEKLY"}"#
        )
        #expect(meeting.status == 201, "\(meeting.text)")
        let type = try api.call(
            "POST", "/api/v1/booking-types",
            #"{"title": "Personal training", "slug": "personal", "durations": [60, 30], "calendar": "\#(calendar)", "location": "Studio 1"\#(extra)}"#
        )
        #expect(type.status == 201, "\(type.text)")
        return (calendar, work, try #require(type["id"]?.stringValue))
    }

    func slots(_ type: String, _ day: String = "2026-11-23", duration: Int? = nil) throws -> [String] {
        let answer = try api.get(
            "/api/v1/booking-types/\(type)/slots?from=\(day)&to=\(day)T23:59:59&tz=Europe/Berlin"
                + (duration.map { "&duration=\($0)" } ?? ""))
        #expect(answer.status == 200, "\(answer.text)")
        return answer["slots"]?.arrayValue?.compactMap { $0["start"]?.stringValue } ?? []
    }

    func book(_ type: String, _ start: String, email: String = "lena@example.com", extra: String = "") throws
        -> APIAnswer
    {
        try api.call(
            "POST", "/api/v1/bookings",
            #"{"bookingType": "\#(type)", "start": "\#(start)", "name": "Lena Berg", "email": "\#(email)"\#(extra)}"#)
    }

    /// A booker's request: no sign-in, the token in the body.
    func asBooker(_ path: String, _ body: String) throws -> APIAnswer {
        APIAnswer(try server.send("POST", path, headers: ["Content-Type": "application/json"], body: Array(body.utf8)))
    }

    @Test(arguments: ServerSetup.all) func aSlotIsBookedOnceCancelledByItsLinkAndFreeAgain(_ setup: ServerSetup)
        throws
    {
        let test = try BookingTests(setup)
        let (calendar, _, type) = try test.studio()
        // Monday 2026-11-23 in Berlin (UTC+1): 09:00, 10:00 and 11:00; the meeting at 10:00 takes the middle one.
        #expect(try test.slots(type) == ["2026-11-23T08:00:00Z", "2026-11-23T10:00:00Z"])
        #expect(
            try test.slots(type, duration: 30) == [
                "2026-11-23T08:00:00Z", "2026-11-23T08:30:00Z", "2026-11-23T09:30:00Z", "2026-11-23T10:00:00Z",
                "2026-11-23T10:30:00Z",
            ])
        let made = try test.book(type, "2026-11-23T08:00:00Z", extra: #", "note": "Knee injury, go easy""#)
        #expect(made.status == 201, "\(made.text)")
        let booking = try #require(made["booking"]?["id"]?.stringValue)
        let cancelToken = try #require(made["cancelToken"]?.stringValue)
        let rescheduleToken = try #require(made["rescheduleToken"]?.stringValue)
        #expect(made["booking"]?["status"]?.stringValue == "confirmed")
        let ics = try #require(made["ics"]?.stringValue)
        for line in ["METHOD:PUBLISH", "DTSTART:20261123T080000Z", "DTEND:20261123T090000Z", "LOCATION:Studio 1"] {
            #expect(ics.contains(line), "\(line) in \(ics)")
        }
        #expect(made["addToCalendar"]?["google"]?["url"]?.stringValue?.contains("calendar.google.com") == true)
        #expect(made["links"]?["manage"]?.stringValue == "/book/manage/" + cancelToken)
        // The slot is gone for everyone, the first booker's address included (nothing is
        // looked up by address: a retry is safe with an Idempotency-Key).
        #expect(try test.slots(type) == ["2026-11-23T10:00:00Z"])
        let again = try test.book(type, "2026-11-23T08:00:00Z")
        #expect(again.status == 409 && again["type"]?.stringValue == "urn:almanac:problem:slot-taken", "\(again.text)")
        let other = try test.book(type, "2026-11-23T08:00:00Z", email: "max@example.com")
        #expect(other.status == 409 && other["type"]?.stringValue == "urn:almanac:problem:slot-taken", "\(other.text)")
        // Not on offer: the meeting's hour, outside the hours, off the step, not a duration of the type.
        for (start, extra) in [
            ("2026-11-23T09:00:00Z", ""), ("2026-11-23T12:00:00Z", ""), ("2026-11-23T10:10:00Z", ""),
            ("2026-11-23T10:00:00Z", #", "duration": 45"#),
        ] {
            let refused = try test.book(type, start, email: "max@example.com", extra: extra)
            #expect([400, 409].contains(refused.status), "\(start)\(extra): \(refused.text)")
        }
        // The trainer's calendar has the event, with the booker as an accepted attendee.
        let eventID = try #require(made["booking"]?["eventId"]?.stringValue)
        let event = try test.server.eventStore(for: "anna").event(withIdentifier: eventID)
        #expect(event.calendarIdentifier == calendar && event.title == "Personal training: Lena Berg")
        #expect(event.attendees.map(\.address) == ["mailto:lena@example.com"])
        #expect(event.attendees.first?.participationStatus == "ACCEPTED")
        #expect(event.notes == "Knee injury, go easy")
        // The booker cancels through the link: no sign-in, the token is the key.
        #expect(try test.asBooker("/api/v1/bookings/\(booking)/cancel", "{}").status == 401)
        #expect(
            try test.asBooker("/api/v1/bookings/\(booking)/cancel", #"{"token": "\#(rescheduleToken)"}"#).status == 401)
        #expect(
            try test.asBooker(
                "/api/v1/bookings/\(booking)/cancel", #"{"token": "bkc_00000000000000000000000000000000"}"#
            ).status == 404)
        let cancelled = try test.asBooker("/api/v1/bookings/\(booking)/cancel", #"{"token": "\#(cancelToken)"}"#)
        #expect(cancelled.status == 200 && cancelled["status"]?.stringValue == "cancelled", "\(cancelled.text)")
        let after = try test.server.eventStore(for: "anna").event(withIdentifier: eventID)
        #expect(after.status == .cancelled && after.sequence == event.sequence + 1)
        // The booker who cancelled is no longer shown as coming.
        #expect(after.attendees.map(\.participationStatus) == ["DECLINED"])
        #expect(try test.slots(type) == ["2026-11-23T08:00:00Z", "2026-11-23T10:00:00Z"])
        // A reschedule token moves a booking to another free slot, and only to a free one.
        let second = try test.book(type, "2026-11-23T08:00:00Z", email: "max@example.com")
        let secondID = try #require(second["booking"]?["id"]?.stringValue)
        let secondToken = try #require(second["rescheduleToken"]?.stringValue)
        let blocked = try test.asBooker(
            "/api/v1/bookings/\(secondID)/reschedule", #"{"token": "\#(secondToken)", "start": "2026-11-23T09:00:00Z"}"#
        )
        #expect(blocked.status == 409, "\(blocked.text)")
        let moved = try test.asBooker(
            "/api/v1/bookings/\(secondID)/reschedule", #"{"token": "\#(secondToken)", "start": "2026-11-23T10:00:00Z"}"#
        )
        #expect(moved.status == 200 && moved["start"]?.stringValue == "2026-11-23T10:00:00Z", "\(moved.text)")
        #expect(try test.slots(type) == ["2026-11-23T08:00:00Z"])
        // Bob sees none of Anna's.
        #expect(try test.server.api("bob").get("/api/v1/bookings/\(secondID)").status == 404)
        #expect(
            try test.server.api("bob").get("/api/v1/booking-types/\(type)/slots?from=2026-11-23&to=2026-11-24").status
                == 404)
        let listed = try test.api.get("/api/v1/bookings?bookingType=\(type)")["bookings"]?.arrayValue ?? []
        #expect(listed.map { $0["status"]?.stringValue } == ["cancelled", "confirmed"])
    }

    @Test func holdsKeepASlotForTheirHolderUntilTheyRunOut() throws {
        let test = try BookingTests()
        let (_, _, type) = try test.studio(#", "holdMinutes": 5"#)
        let held = try test.api.call(
            "POST", "/api/v1/booking-types/\(type)/holds", #"{"start": "2026-11-23T08:00:00Z"}"#)
        #expect(held.status == 201, "\(held.text)")
        let hold = try #require(held["id"]?.stringValue)
        #expect(held["expiresAt"]?.stringValue == "2026-11-18T11:11:40Z")
        #expect(try test.slots(type) == ["2026-11-23T10:00:00Z"])
        // Others can neither hold nor book it; its holder books it with the hold.
        #expect(
            try test.api.call("POST", "/api/v1/booking-types/\(type)/holds", #"{"start": "2026-11-23T08:00:00Z"}"#)
                .status == 409)
        #expect(try test.book(type, "2026-11-23T08:00:00Z", email: "max@example.com").status == 409)
        // Four minutes on it still holds; past five it counts no more, and is swept.
        test.clock.advance(240)
        #expect(try test.slots(type) == ["2026-11-23T10:00:00Z"])
        test.clock.advance(61)
        #expect(try test.slots(type) == ["2026-11-23T08:00:00Z", "2026-11-23T10:00:00Z"])
        #expect(try test.server.backend.bookings.expireHolds(now: test.clock.value) == 1)
        let late = try test.book(type, "2026-11-23T08:00:00Z", extra: #", "hold": "\#(hold)""#)
        #expect(late.status == 409, "a hold that ran out is not honoured: \(late.text)")
        // A fresh hold, booked by its holder, is used up.
        let fresh = try #require(
            try test.api.call(
                "POST", "/api/v1/booking-types/\(type)/holds", #"{"start": "2026-11-23T10:00:00Z", "duration": 60}"#)[
                    "id"]?.stringValue)
        let booked = try test.book(type, "2026-11-23T10:00:00Z", extra: #", "hold": "\#(fresh)""#)
        #expect(booked.status == 201, "\(booked.text)")
        #expect(try test.api.call("DELETE", "/api/v1/booking-types/\(type)/holds/\(fresh)").status == 404)
    }

    /// Racing bookers through the API on threads: one slot has exactly one winner, a
    /// class of N seats exactly N, and everyone else gets 409.
    @Test(arguments: ServerSetup.all) func racingBookersGetExactlyTheSeatsThereAre(_ setup: ServerSetup) throws {
        let test = try BookingTests(setup)
        let (calendar, _, type) = try test.studio()
        func race(_ count: Int, _ request: @escaping @Sendable (Int) throws -> Int) throws -> [Int] {
            let statuses = Mutex<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: count) { index in
                let status = (try? request(index)) ?? -1
                statuses.withLock { $0.append(status) }
            }
            return statuses.withLock { $0 }.sorted()
        }
        let slot = try race(8) { index in
            try test.book(type, "2026-11-24T08:00:00Z", email: "racer\(index)@example.com").status
        }
        #expect(slot == [201] + Array(repeating: 409, count: 7))
        // A class: Thursdays 18:00 with three seats, one occurrence booked by ten at once.
        let yoga = try test.api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Yoga", "start": "2026-11-26T18:00:00", "end": "2026-11-26T19:00:00", "timeZone": "Europe/Berlin", "rrule": "FREQ=WEEKLY;COUNT=10"}"#
        )
        let yogaID = try #require(yoga["id"]?.stringValue)
        let classType = try #require(
            try test.api.call(
                "POST", "/api/v1/booking-types",
                #"{"title": "Yoga", "durations": [60], "calendar": "\#(calendar)", "classEvent": "\#(yogaID)", "capacity": 3}"#
            )["id"]?.stringValue)
        let seats = try race(10) { index in
            try test.book(classType, "2026-12-03T17:00:00Z", email: "yogi\(index)@example.com").status
        }
        #expect(seats == [201, 201, 201] + Array(repeating: 409, count: 7))
        let left = try test.api.get("/api/v1/booking-types/\(classType)/occurrences/2026-12-03T17:00:00Z/seats")
        #expect(left["capacity"]?.intValue == 3 && left["taken"]?.intValue == 3 && left["left"]?.intValue == 0)
        let occurrence = try test.server.eventStore(for: "anna").occurrence(
            ofEvent: yogaID, recurrenceID: "2026-12-03T17:00:00Z", timeZone: nil)
        #expect(occurrence.event.attendees.count == 3 && occurrence.isDetached)
        // Other occurrences keep all their seats.
        let offered =
            try test.api.get(
                "/api/v1/booking-types/\(classType)/slots?from=2026-11-26&to=2026-12-11")["slots"]?.arrayValue ?? []
        #expect(offered.map { $0["seatsLeft"]?.intValue } == [3, 0, 3])
    }

    @Test func aFullClassKeepsAWaitingListThatACancellationMovesUp() throws {
        let test = try BookingTests()
        let (calendar, _, _) = try test.studio()
        let yoga = try test.api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Yoga", "start": "2026-11-26T18:00:00", "end": "2026-11-26T19:00:00", "timeZone": "Europe/Berlin", "rrule": "FREQ=WEEKLY"}"#
        )
        let yogaID = try #require(yoga["id"]?.stringValue)
        let type = try #require(
            try test.api.call(
                "POST", "/api/v1/booking-types",
                #"{"title": "Yoga", "durations": [60], "calendar": "\#(calendar)", "classEvent": "\#(yogaID)", "capacity": 1, "waitlist": true}"#
            )["id"]?.stringValue)
        let first = try test.book(type, "2026-11-26T17:00:00Z", email: "first@example.com")
        let second = try test.book(type, "2026-11-26T17:00:00Z", email: "second@example.com")
        #expect(first["booking"]?["status"]?.stringValue == "confirmed")
        #expect(second.status == 201 && second["booking"]?["status"]?.stringValue == "waitlisted", "\(second.text)")
        let token = try #require(first["cancelToken"]?.stringValue)
        let firstID = try #require(first["booking"]?["id"]?.stringValue)
        #expect(try test.asBooker("/api/v1/bookings/\(firstID)/cancel", #"{"token": "\#(token)"}"#).status == 200)
        let secondID = try #require(second["booking"]?["id"]?.stringValue)
        #expect(try test.api.get("/api/v1/bookings/\(secondID)")["status"]?.stringValue == "confirmed")
        let occurrence = try test.server.eventStore(for: "anna").occurrence(
            ofEvent: yogaID, recurrenceID: "2026-11-26T17:00:00Z", timeZone: nil)
        #expect(occurrence.event.attendees.map(\.address) == ["mailto:second@example.com"])
    }

    @Test func badBookingTypesAndBookingsAreRefusedAndChangeNothing() throws {
        let test = try BookingTests()
        let (calendar, _, type) = try test.studio()
        for body in [
            #"{"durations": [60], "calendar": "\#(calendar)"}"#,
            #"{"title": "X", "durations": [], "calendar": "\#(calendar)"}"#,
            #"{"title": "X", "durations": [0], "calendar": "\#(calendar)"}"#,
            #"{"title": "X", "durations": [9223372036854775807], "calendar": "\#(calendar)"}"#,
            #"{"title": "X", "durations": [60], "calendar": "nope"}"#,
            #"{"title": "X", "durations": [60], "calendar": "\#(calendar)", "slug": "Bad Slug"}"#,
            #"{"title": "X", "durations": [60], "calendar": "\#(calendar)", "slug": "personal"}"#,
            #"{"title": "X", "durations": [60], "calendar": "\#(calendar)", "capacity": 5}"#,
            #"{"title": "X", "durations": [60], "calendar": "\#(calendar)", "bufferBefore": -5}"#,
            #"{"title": "X", "durations": [60], "calendar": "\#(calendar)", "holdMinutes": 100000}"#,
            #"{"title": "X", "durations": [60], "calendar": "\#(calendar)", "schedule": "av_nope"}"#,
        ] {
            let answer = try test.api.call("POST", "/api/v1/booking-types", body)
            #expect([400, 404, 409].contains(answer.status), "\(body): \(answer.status) \(answer.text)")
        }
        #expect(try test.api.get("/api/v1/booking-types")["bookingTypes"]?.arrayValue?.count == 1)
        for extra in [
            #", "name": "Bad\r\nATTENDEE:mailto:x@example.com""#, #", "email": "not an address""#,
            #", "email": "a@b.c\r\nX: y""#, #", "start": "2026-11-23""#, #", "start": "9999-12-31T23:00:00Z""#,
            #", "start": "0000-01-01T00:00:00Z""#, #", "hold": "hd_nope""#,
        ] {
            let body =
                #"{"bookingType": "\#(type)", "start": "2026-11-23T08:00:00Z", "name": "Lena", "email": "l@example.com""#
            let merged =
                extra.contains("\"start\"") || extra.contains("\"name\"") || extra.contains("\"email\"")
                ? body.replacingOccurrences(
                    of: extra.contains("\"start\"")
                        ? #""start": "2026-11-23T08:00:00Z""#
                        : extra.contains("\"name\"") ? #""name": "Lena""# : #""email": "l@example.com""#,
                    with: String(extra.dropFirst(2))) + "}"
                : body + extra + "}"
            let answer = try test.api.call("POST", "/api/v1/bookings", merged)
            #expect([400, 409].contains(answer.status), "\(merged): \(answer.status) \(answer.text)")
        }
        // Lengths past any bound are refused where they are read, never multiplied into a trap.
        for huge in ["9223372036854775807", "-9223372036854775808", "153722867280912931"] {
            #expect(
                try test.api.get("/api/v1/booking-types/\(type)/slots?from=2026-11-23&to=2026-11-24&duration=\(huge)")
                    .status == 400)
            let body =
                #"{"bookingType": "\#(type)", "start": "2026-11-23T08:00:00Z", "duration": \#(huge), "name": "L", "email": "l@example.com"}"#
            #expect(try test.api.call("POST", "/api/v1/bookings", body).status == 400)
        }
        #expect(try test.api.get("/api/v1/bookings")["bookings"]?.arrayValue?.isEmpty == true)
        #expect(try test.slots(type) == ["2026-11-23T08:00:00Z", "2026-11-23T10:00:00Z"])
    }

    /// Booking changes reach the owner's webhooks: booked, moved, cancelled, and a hold
    /// that ran out, each naming its booking (or hold).
    @Test func bookingsTellTheirWebhooks() throws {
        let test = try BookingTests(webhooks: WebhookReceiver.fastDispatch())
        let receiver = try WebhookReceiver()
        let (_, _, type) = try test.studio(#", "holdMinutes": 1"#)
        let subscribed = try test.api.call(
            "POST", "/api/v1/webhooks",
            #"{"url": "\#(receiver.url)", "events": ["booking.created", "booking.cancelled", "booking.rescheduled", "hold.expired"]}"#
        )
        #expect(subscribed.status == 201, "\(subscribed.text)")
        let made = try test.book(type, "2026-11-23T08:00:00Z")
        let booking = try #require(made["booking"]?["id"]?.stringValue)
        #expect(
            try test.api.call(
                "POST", "/api/v1/bookings/\(booking)/reschedule", #"{"start": "2026-11-23T10:00:00Z"}"#
            ).status == 200)
        #expect(try test.api.call("POST", "/api/v1/bookings/\(booking)/cancel", "{}").status == 200)
        let hold = try #require(
            try test.api.call("POST", "/api/v1/booking-types/\(type)/holds", #"{"start": "2026-11-24T08:00:00Z"}"#)[
                "id"]?
                .stringValue)
        test.clock.advance(61)
        #expect(try test.server.backend.bookings.expireHolds(now: test.clock.value) == 1)
        #expect(receiver.wait { $0.count >= 4 }, "\(receiver.received.map(\.type))")
        let received = receiver.received
        #expect(
            received.map(\.type) == ["booking.created", "booking.rescheduled", "booking.cancelled", "hold.expired"])
        #expect(received.prefix(3).allSatisfy { $0.json["bookingId"]?.stringValue == booking })
        #expect(received.first?.json["href"]?.stringValue == "/api/v1/bookings/" + booking)
        #expect(received.last?.json["holdId"]?.stringValue == hold && received.last?.json["href"] == .null)
    }

    /// The daily limit counts the type's bookings a day in the schedule's zone, and a
    /// class occurrence's own X-ALMANAC-CAPACITY overrides the series'.
    @Test func dailyLimitsAndAnOccurrencesOwnCapacity() throws {
        let test = try BookingTests()
        let (calendar, _, type) = try test.studio(#", "dailyLimit": 1"#)
        #expect(try test.book(type, "2026-11-23T08:00:00Z").status == 201)
        #expect(try test.slots(type).isEmpty, "one a day: Monday is full")
        #expect(
            try test.slots(type, "2026-11-24") == [
                "2026-11-24T08:00:00Z", "2026-11-24T09:00:00Z", "2026-11-24T10:00:00Z",
            ])
        #expect(try test.book(type, "2026-11-23T10:00:00Z", email: "max@example.com").status == 409)
        // An all-day event blocks its day unless the type takes all-day events as free.
        let dayOff = try test.api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Off", "start": "2026-11-24", "allDay": true}"#)
        #expect(dayOff.status == 201, "\(dayOff.text)")
        #expect(try test.slots(type, "2026-11-24").isEmpty)
        #expect(try test.api.call("PATCH", "/api/v1/booking-types/\(type)", #"{"allDay": "free"}"#).status == 200)
        #expect(try test.slots(type, "2026-11-24").count == 3)
        // A series of capacity 2 whose second occurrence has room for 1.
        let store = try test.server.eventStore(for: "anna")
        let text = """
            BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Test//EN\r\nBEGIN:VEVENT\r\nUID:spin\r\nDTSTAMP:20261101T000000Z\r
            DTSTART:20261125T170000Z\r\nDTEND:20261125T180000Z\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\nSUMMARY:Spin\r
            X-ALMANAC-CAPACITY:2\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:spin\r\nDTSTAMP:20261101T000000Z\r
            RECURRENCE-ID:20261202T170000Z\r\nDTSTART:20261202T170000Z\r\nDTEND:20261202T180000Z\r\nSUMMARY:Spin\r
            X-ALMANAC-CAPACITY:1\r\nEND:VEVENT\r\nEND:VCALENDAR\r

            """
        _ = try store.putResource(
            Array(text.utf8), name: "spin.ics", calendar: calendar, ifMatch: nil, ifNoneMatch: false)
        let spin = try #require(try store.events(withExternalIdentifier: "spin").first?.localIdentifier)
        let seated = try #require(
            try test.api.call(
                "POST", "/api/v1/booking-types",
                #"{"title": "Spin", "durations": [60], "calendar": "\#(calendar)", "classEvent": "\#(spin)", "capacity": 9}"#
            )["id"]?.stringValue)
        let offered =
            try test.api.get("/api/v1/booking-types/\(seated)/slots?from=2026-11-25&to=2026-12-10")["slots"]?
            .arrayValue ?? []
        #expect(offered.map { $0["capacity"]?.intValue } == [2, 1, 2], "the series' 2, the occurrence's 1")
        #expect(try test.book(seated, "2026-12-02T17:00:00Z").status == 201)
        #expect(try test.book(seated, "2026-12-02T17:00:00Z", email: "max@example.com").status == 409)
    }
}

extension BookingTests {
    /// Signs `user` in to the web pages; their session cookie and the page's CSRF token.
    func webSession(_ user: String) throws -> (cookie: String, csrf: String) {
        let form = Array("user=\(user)&password=\(user)%20password".utf8)
        let answer = try server.send(
            "POST", "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: form)
        let cookie = String(try #require(answer.headers["Set-Cookie"]).split(separator: ";")[0])
        let page = String(
            decoding: try server.send("GET", "/calendar", headers: ["Cookie": cookie]).body, as: UTF8.self)
        let csrf = try #require(page.firstRange(of: "name=\"csrf-token\" content=\"").map { page[$0.upperBound...] })
        return (cookie, String(csrf.prefix { $0 != "\"" }))
    }

    /// A booking's cancel without `Authorization` is the API's to tell apart, by what the
    /// request says and never by a byte search of the body: with the link's token it is the
    /// booker's, even from someone signed in to the pages as another user; without one it is
    /// the signed-in owner's, whose change needs the page's CSRF token.
    @Test func aCancelIsTheBookersByItsTokenAndTheOwnersBySession() throws {
        let test = try BookingTests()
        let (_, _, type) = try test.studio()
        func booking(_ start: String, _ email: String) throws -> (id: String, token: String) {
            let made = try test.book(type, start, email: email)
            return (
                try #require(made["booking"]?["id"]?.stringValue), try #require(made["cancelToken"]?.stringValue)
            )
        }
        let first = try booking("2026-11-23T08:00:00Z", "lena@example.com")
        let second = try booking("2026-11-23T10:00:00Z", "max@example.com")
        func cancel(_ id: String, _ body: String, cookie: String, csrf: String?) throws -> APIAnswer {
            var headers: HTTPHeaders = ["Content-Type": "application/json", "Cookie": cookie]
            if let csrf { headers.set("X-CSRF-Token", csrf) }
            return APIAnswer(
                try test.server.send("POST", "/api/v1/bookings/\(id)/cancel", headers: headers, body: Array(body.utf8)))
        }
        // Bob, signed in to the pages, cancels Lena's booking with her link's token: the booker's.
        let bob = try test.webSession("bob")
        let byLink = try cancel(first.id, #"{"token": "\#(first.token)"}"#, cookie: bob.cookie, csrf: nil)
        #expect(byLink.status == 200 && byLink["status"]?.stringValue == "cancelled", "\(byLink.text)")
        // Anna, the owner, cancels Max's from her session: only with the page's CSRF token.
        let anna = try test.webSession("anna")
        #expect(try cancel(second.id, "{}", cookie: anna.cookie, csrf: nil).status == 403)
        let byOwner = try cancel(second.id, "{}", cookie: anna.cookie, csrf: anna.csrf)
        #expect(byOwner.status == 200 && byOwner["status"]?.stringValue == "cancelled", "\(byOwner.text)")
        // Bob's session is no owner's: without a token he may not cancel Anna's booking.
        let third = try booking("2026-11-30T08:00:00Z", "kim@example.com")
        #expect(try cancel(third.id, "{}", cookie: bob.cookie, csrf: bob.csrf).status == 404)
    }
}
