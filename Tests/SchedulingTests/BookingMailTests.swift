import CalendarStore
import Foundation
import ICalendar
import Testing

@testable import Scheduling

/// A booking's mail: who gets which message for each change, the booker's times in their
/// zone and the host's in the schedule's, and the invitation read back as iCalendar.
/// (Tests/Interop/booking_mail.py sends them through a real SMTP sink.)
@Suite struct BookingMailTests {
    // 2026-12-08 11:00 UTC: 06:00 in New York (EST, UTC-5), 12:00 in Berlin (CET, UTC+1).
    static let start = 1_796_727_600

    static func booking(status: Booking.Status = .confirmed, sequence: Int = 0) -> Booking {
        Booking(
            id: "bk_1", type: "bt_1", owner: "anna", calendar: "cal", eventIdentifier: "ev", recurrenceID: nil,
            start: start, end: start + 3_600, name: "Lena Berg", email: "lena@example.com", note: "First session",
            status: status, created: 0, modified: 0, timeZone: "America/New_York", sequence: sequence)
    }

    static let host = BookingMail.Host(
        address: "anna@example.com", name: "Anna Weber", notified: ["anna@example.com"], zoneName: "Europe/Berlin")
    static let links = BookingMail.Links(
        manage: "https://cal.example/book/manage/bkc_1", reschedule: "https://cal.example/book/reschedule/bkr_1")

    static func messages(
        _ change: BookingMail.Change, status: Booking.Status = .confirmed, byBooker: Bool = true, notify: Bool = true
    ) -> [IMIP.Outgoing] {
        var type = BookingType(owner: "anna", title: "Personal training", durations: [60], calendar: "cal")
        type.location = "Studio 1"
        type.notifyHost = notify
        return BookingMail.messages(
            change, booking: booking(status: status, sequence: change == .booked ? 0 : 1), type: type, host: host,
            links: links, byBooker: byBooker, now: start - 86_400)
    }

    /// (change, status, by the booker, notice on) → the booker's iTIP method ("text": a
    /// message without one) and whether the host is told.
    @Test(
        arguments: [
            (BookingMail.Change.booked, Booking.Status.confirmed, true, true, "REQUEST", true),
            (.moved, .confirmed, true, true, "REQUEST", true),
            (.cancelled, .cancelled, true, true, "CANCEL", true),
            (.booked, .confirmed, false, true, "REQUEST", false),
            (.cancelled, .cancelled, false, true, "CANCEL", false),
            (.booked, .confirmed, true, false, "REQUEST", false),
            (.booked, .waitlisted, true, true, "text", true),
        ] as [(BookingMail.Change, Booking.Status, Bool, Bool, String, Bool)])
    func whoIsMailed(
        change: BookingMail.Change, status: Booking.Status, byBooker: Bool, notify: Bool, method: String,
        hostTold: Bool
    ) throws {
        let sent = Self.messages(change, status: status, byBooker: byBooker, notify: notify)
        let toBooker = sent.filter { $0.recipients == ["lena@example.com"] }
        let toHost = sent.filter { $0.recipients == ["anna@example.com"] }
        #expect(toBooker.count == 1)
        #expect(toHost.count == (hostTold ? 1 : 0))
        #expect(sent.allSatisfy { $0.sender == "anna@example.com" })
        if method == "text" {
            #expect(toBooker.allSatisfy { IMIP.read($0.data).calendar == nil }, "a waiting list is no invitation")
        } else if let message = toBooker.first {
            let calendar = try #require(IMIP.read(message.data).calendar)
            let parsed = try #require(try ICalendarParser.parse(calendar).components.first)
            #expect(parsed.property("METHOD")?.value == method)
        }
        // The host's notice is text only: nothing of it goes into a calendar.
        #expect(toHost.allSatisfy { IMIP.read($0.data).calendar == nil })
    }

    @Test func theBookerReadsTheirZoneAndTheHostTheirs() throws {
        let sent = Self.messages(.booked)
        let booker = String(decoding: try #require(sent.first).data, as: UTF8.self)
        let host = String(decoding: try #require(sent.last).data, as: UTF8.self)
        let bookerText = Self.decodedText(booker)
        #expect(bookerText.contains("Tuesday, 8 December 2026, 06:00–07:00 (America/New_York)"), "\(bookerText)")
        #expect(bookerText.contains("Manage or cancel: https://cal.example/book/manage/bkc_1"))
        #expect(bookerText.contains("Reschedule: https://cal.example/book/reschedule/bkr_1"))
        let hostText = Self.decodedText(host)
        #expect(hostText.contains("12:00–13:00 (Europe/Berlin)") && hostText.contains("Lena Berg"), "\(hostText)")
        #expect(hostText.contains("Note: First session"))
    }

    @Test func theInvitationIsTheBookingWithTheBookerAttending() throws {
        let message = try #require(Self.messages(.moved).first)
        let calendar = try #require(IMIP.read(message.data).calendar)
        let event = try #require(try ICalendarParser.parse(calendar).components.first?.components.first)
        #expect(event.property("UID")?.value == "bk_1@almanac")
        #expect(event.property("SEQUENCE")?.value == "1")
        #expect(event.property("DTSTART")?.value == "20261208T110000Z")
        #expect(event.property("DTEND")?.value == "20261208T120000Z")
        #expect(event.property("ORGANIZER")?.value == "mailto:anna@example.com")
        let attendee = try #require(event.property("ATTENDEE"))
        #expect(attendee.value == "mailto:lena@example.com" && attendee[parameter: "PARTSTAT"] == "ACCEPTED")
        #expect(event.property("URL")?.value == "https://cal.example/book/manage/bkc_1")
        #expect(event.property("STATUS")?.value == "CONFIRMED")
    }

    /// The base64 text/plain part of a composed message, decoded.
    static func decodedText(_ message: String) -> String {
        guard
            let range = message.range(
                of: "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n")
        else { return "" }
        let body = message[range.upperBound...].prefix { $0 != "-" }
        let joined = body.split(separator: "\r\n").prefix { !$0.isEmpty }.joined()
        return Data(base64Encoded: String(joined)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
