import ICalendar
import Scheduling
import Testing

/// iTIP on calendar objects (RFC 5546 as RFC 6638 uses it), each case written out from
/// the RFCs' rules: who is asked, what a REQUEST, CANCEL and REPLY carry, the attendee's
/// copy, and answers for a series or one of its instances applied to the organizer's copy.
@Suite struct ITIPTests {
    static func calendar(_ lines: [String]) throws -> Component {
        let text = (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"] + lines + ["END:VCALENDAR", ""])
            .joined(separator: "\r\n")
        return try #require(try ICalendarParser.parse(Array(text.utf8)).components.first)
    }

    /// A weekly team meeting organized by Anna with Bob and Carol, its second week moved.
    static let meeting = [
        "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE",
        "BEGIN:VEVENT", "UID:team@example.com", "DTSTAMP:20261101T000000Z", "SEQUENCE:2",
        "DTSTART;TZID=Europe/Berlin:20261207T100000", "DTEND;TZID=Europe/Berlin:20261207T110000",
        "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Team", "ORGANIZER;CN=Anna:mailto:anna@example.com",
        "ATTENDEE;PARTSTAT=ACCEPTED:mailto:anna@example.com",
        "ATTENDEE;CN=Bob;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;SCHEDULE-STATUS=1.2:MAILTO:Bob@Example.com",
        "ATTENDEE;PARTSTAT=TENTATIVE;SCHEDULE-AGENT=CLIENT:mailto:carol@example.com",
        "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "DESCRIPTION:Anna's alarm", "END:VALARM",
        "END:VEVENT",
        "BEGIN:VEVENT", "UID:team@example.com", "DTSTAMP:20261101T000000Z", "SEQUENCE:2",
        "RECURRENCE-ID;TZID=Europe/Berlin:20261214T100000",
        "DTSTART;TZID=Europe/Berlin:20261214T140000", "DTEND;TZID=Europe/Berlin:20261214T150000",
        "SUMMARY:Team (moved)", "ORGANIZER;CN=Anna:mailto:anna@example.com",
        "ATTENDEE;PARTSTAT=ACCEPTED:mailto:anna@example.com",
        "ATTENDEE;CN=Bob;PARTSTAT=NEEDS-ACTION:mailto:bob@example.com",
        "END:VEVENT",
    ]

    @Test func addressesAreComparedAsTheSchemeAndCaseDoNotMatter() {
        #expect(ITIP.address("MAILTO:Bob@Example.COM") == "mailto:bob@example.com")
        #expect(ITIP.address("  mailto:bob@example.com ") == "mailto:bob@example.com")
        #expect(ITIP.address("urn:uuid:ABC") == "urn:uuid:ABC")
    }

    @Test func theOrganizerAndEveryAttendeeOnce() throws {
        let object = try Self.calendar(Self.meeting)
        #expect(ITIP.organizer(of: object) == "mailto:anna@example.com")
        let attendees = ITIP.attendees(of: object)
        #expect(attendees.map(\.address) == ["mailto:bob@example.com", "mailto:carol@example.com"])
        #expect(attendees.map(\.scheduleAgent) == ["SERVER", "CLIENT"])
        #expect(attendees.first?.commonName == "Bob")
        // Bob is asked in the master and the moved week; Carol only in the master.
        #expect(
            ITIP.participation(of: "mailto:bob@example.com", in: object)
                == [nil: "NEEDS-ACTION", "20261214T100000": "NEEDS-ACTION"])
        #expect(ITIP.participation(of: "mailto:carol@example.com", in: object) == [nil: "TENTATIVE"])
        #expect(ITIP.participation(of: "mailto:dave@example.com", in: object).isEmpty)
    }

    @Test func aRequestCarriesTheEventWithoutTheOrganizersAlarmsOrServerParameters() throws {
        let request = ITIP.message(.request, try Self.calendar(Self.meeting), stamp: 1_796_212_800)
        #expect(request.property("METHOD")?.value == "REQUEST")
        #expect(request.components.map(\.name) == ["VTIMEZONE", "VEVENT", "VEVENT"])
        let text = String(decoding: request.serialized(), as: UTF8.self)
        #expect(!text.contains("VALARM") && !text.contains("SCHEDULE-STATUS"))
        #expect(
            text.contains("RRULE:FREQ=WEEKLY;COUNT=4")
                && text.contains("RECURRENCE-ID;TZID=Europe/Berlin:20261214T100000"))
    }

    @Test func aCancelMarksEveryComponentAndRaisesItsSequence() throws {
        let cancel = ITIP.message(.cancel, try Self.calendar(Self.meeting), stamp: 1_796_212_800)
        #expect(cancel.property("METHOD")?.value == "CANCEL")
        let events = cancel.components(named: "VEVENT")
        #expect(events.count == 2)
        #expect(
            events.allSatisfy { $0.property("STATUS")?.value == "CANCELLED" && $0.property("SEQUENCE")?.value == "3" })
        #expect(events.allSatisfy { $0.property("DTSTAMP")?.value == "20261202T120000Z" })
    }

    @Test func aReplyCarriesOnlyTheAnsweringAttendee() throws {
        var lines = Self.meeting
        lines = lines.map {
            $0.hasPrefix("ATTENDEE;CN=Bob;PARTSTAT=NEEDS-ACTION;RSVP")
                ? "ATTENDEE;CN=Bob;PARTSTAT=ACCEPTED;RSVP=TRUE:mailto:bob@example.com" : $0
        }
        let reply = ITIP.message(
            .reply, try Self.calendar(lines), attendee: "mailto:bob@example.com", stamp: 1_796_212_800)
        #expect(reply.property("METHOD")?.value == "REPLY")
        let events = reply.components(named: "VEVENT")
        #expect(events.count == 2, "the master and the moved week both list Bob")
        for event in events {
            let attendees = event.properties(named: "ATTENDEE")
            #expect(attendees.count == 1 && ITIP.address(attendees[0].value) == "mailto:bob@example.com")
            #expect(attendees[0][parameter: "RSVP"] == nil)
            #expect(event.property("UID")?.value == "team@example.com" && event.property("ORGANIZER") != nil)
            #expect(event.property("DTSTAMP")?.value == "20261202T120000Z" && event.property("SEQUENCE")?.value == "2")
            #expect(event.property("SUMMARY") == nil && event.property("RRULE") == nil)
        }
        #expect(events[0].properties(named: "ATTENDEE")[0][parameter: "PARTSTAT"] == "ACCEPTED")
        #expect(events[1].property("RECURRENCE-ID")?.value == "20261214T100000")
        // Someone not invited has nothing to reply.
        #expect(
            ITIP.message(.reply, try Self.calendar(lines), attendee: "mailto:x@example.com", stamp: 0)
                .components(named: "VEVENT").isEmpty)
    }

    @Test func theAttendeesCopyKeepsTheirAlarms() throws {
        let organizer = try Self.calendar(Self.meeting)
        let theirs = try Self.calendar([
            "BEGIN:VEVENT", "UID:team@example.com", "DTSTAMP:20261101T000000Z",
            "DTSTART;TZID=Europe/Berlin:20261207T100000", "SUMMARY:Team (old)",
            "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER:-PT5M", "END:VALARM", "END:VEVENT",
        ])
        let copy = ITIP.attendeeCopy(of: organizer, keeping: theirs)
        let master = try #require(copy.components.first { $0.name == "VEVENT" && $0.property("RECURRENCE-ID") == nil })
        #expect(master.property("SUMMARY")?.value == "Team", "the organizer's details")
        #expect(master.components.map { $0.property("ACTION")?.value } == ["AUDIO"], "their alarm, not Anna's")
        #expect(!String(decoding: copy.serialized(), as: UTF8.self).contains("SCHEDULE-STATUS"))
        let moved = try #require(copy.components.first { $0.property("RECURRENCE-ID") != nil })
        #expect(moved.components.isEmpty)
        // Cancelled: kept, every component marked.
        let cancelled = ITIP.cancelled(copy)
        #expect(cancelled.components(named: "VEVENT").allSatisfy { $0.property("STATUS")?.value == "CANCELLED" })
    }

    /// Bob accepts the series, declines the moved week and the third week (not
    /// overridden yet): the master and the override take his answers, and the third
    /// week becomes an override of its own, the master's event at that time with
    /// everyone else's answers as in the master.
    @Test func answersForTheSeriesAndForOneInstanceAreApplied() throws {
        let organizer = try Self.calendar(Self.meeting)
        let answers: [String?: String] = [
            nil: "ACCEPTED", "20261214T100000": "DECLINED", "20261221T100000": "DECLINED",
            "20261228": "DECLINED",  // not of DTSTART's form: ignored
        ]
        let updated = ITIP.applying(answers, from: "mailto:bob@example.com", to: organizer)
        let events = updated.components(named: "VEVENT")
        #expect(events.count == 3)
        #expect(
            ITIP.participation(of: "mailto:bob@example.com", in: updated) == [
                nil: "ACCEPTED", "20261214T100000": "DECLINED", "20261221T100000": "DECLINED",
            ])
        let third = try #require(events.first { $0.property("RECURRENCE-ID")?.value == "20261221T100000" })
        #expect(third.property("RECURRENCE-ID")?[parameter: "TZID"] == "Europe/Berlin")
        #expect(third.property("DTSTART")?.value == "20261221T100000")
        #expect(third.property("DTSTART")?[parameter: "TZID"] == "Europe/Berlin")
        #expect(third.property("DURATION")?.value == "PT3600S")
        #expect(third.property("RRULE") == nil && third.property("DTEND") == nil)
        #expect(third.property("SUMMARY")?.value == "Team")
        #expect(ITIP.participation(of: "mailto:carol@example.com", in: updated)["20261221T100000"] == "TENTATIVE")
        // Bob's RSVP request is answered.
        #expect(events[0].properties(named: "ATTENDEE").allSatisfy { $0[parameter: "RSVP"] == nil })
    }

    @Test func anAllDayInstanceOverrideLastsItsDays() throws {
        let organizer = try Self.calendar([
            "BEGIN:VEVENT", "UID:trip", "DTSTAMP:20261101T000000Z", "DTSTART;VALUE=DATE:20261207",
            "DTEND;VALUE=DATE:20261209", "RRULE:FREQ=MONTHLY;COUNT=3", "ORGANIZER:mailto:anna@example.com",
            "ATTENDEE:mailto:bob@example.com", "END:VEVENT",
        ])
        let updated = ITIP.applying(["20270107": "DECLINED"], from: "mailto:bob@example.com", to: organizer)
        let instance = try #require(updated.components.first { $0.property("RECURRENCE-ID") != nil })
        #expect(instance.property("DTSTART")?.value == "20270107" && instance.property("DURATION")?.value == "P2D")
        #expect(try instance.property("DTSTART")?.dateTimeValue().isDate == true)
        // A one-off event takes no instance answers.
        let single = try Self.calendar([
            "BEGIN:VEVENT", "UID:one", "DTSTAMP:20261101T000000Z", "DTSTART:20261207T100000Z",
            "ORGANIZER:mailto:anna@example.com", "ATTENDEE:mailto:bob@example.com", "END:VEVENT",
        ])
        #expect(ITIP.applying(["20261207T100000Z": "DECLINED"], from: "mailto:bob@example.com", to: single) == single)
    }

    @Test func scheduleStatusIsSetPerAttendee() throws {
        let updated = ITIP.settingScheduleStatus(
            ["mailto:bob@example.com": "1.2", "mailto:carol@example.com": "3.7"], in: try Self.calendar(Self.meeting))
        for event in updated.components(named: "VEVENT") {
            for attendee in event.properties(named: "ATTENDEE") {
                let expected: String? =
                    switch ITIP.address(attendee.value) {
                    case "mailto:bob@example.com": "1.2"
                    case "mailto:carol@example.com": "3.7"
                    default: nil
                    }
                #expect(attendee[parameter: "SCHEDULE-STATUS"] == expected)
            }
        }
    }
}
