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

    // MARK: COUNTER, DECLINECOUNTER, REFRESH (RFC 5546 §3.2.6–§3.2.8)

    static let bob = "mailto:bob@example.com"

    static func berlin(_ value: String) -> Property {
        Property(name: "DTSTART", parameters: [Parameter(name: "TZID", values: ["Europe/Berlin"])], value: value)
    }

    static func ending(_ value: String, tzid: String = "Europe/Berlin") -> Property {
        Property(name: "DTEND", parameters: [Parameter(name: "TZID", values: [tzid])], value: value)
    }

    @Test func aCounterProposesATimeForOneOccurrence() throws {
        let object = try Self.calendar(Self.meeting)
        let counter = try #require(
            ITIP.counter(
                object, instance: "20261221T100000", start: Self.berlin("20261221T120000"),
                end: Self.ending("20261221T130000"), comment: "Mornings are full", attendee: Self.bob,
                stamp: 1_796_212_800))
        #expect(counter.property("METHOD")?.value == "COUNTER")
        #expect(counter.components.map(\.name) == ["VTIMEZONE", "VEVENT"])
        let event = counter.components[1]
        // The week asked about, as an instance of the series: no rule, the new times, the comment.
        #expect(event.property("RECURRENCE-ID")?.value == "20261221T100000")
        #expect(event.property("RECURRENCE-ID")?[parameter: "TZID"] == "Europe/Berlin")
        #expect(event.property("DTSTART")?.value == "20261221T120000")
        #expect(event.property("DTEND")?.value == "20261221T130000")
        #expect(event.property("RRULE") == nil && event.property("DURATION") == nil)
        #expect(event.property("COMMENT")?.textValue() == "Mornings are full")
        #expect(event.property("SUMMARY")?.value == "Team" && event.property("ORGANIZER") != nil)
        #expect(event.components(named: "VALARM").isEmpty)
        #expect(event.properties(named: "ATTENDEE").allSatisfy { $0[parameter: "SCHEDULE-STATUS"] == nil })
        #expect(event.property("DTSTAMP")?.value == "20261202T120000Z")
        // Read back as the organizer's side reads it.
        let proposal = try #require(ITIP.proposal(in: counter))
        #expect(proposal.uid == "team@example.com" && proposal.instance == "20261221T100000")
        #expect(proposal.start.value == "20261221T120000" && proposal.end?.value == "20261221T130000")
        #expect(proposal.comment == "Mornings are full")
        // A proposal outside the years the server keeps is no proposal (it could not be stored).
        for (start, end) in [("00000101T100000", "00000101T110000"), ("20261221T120000", "00000101T110000")] {
            let far = try #require(
                ITIP.counter(
                    object, instance: "20261221T100000", start: Self.berlin(start), end: Self.ending(end),
                    comment: nil, attendee: Self.bob, stamp: 0))
            #expect(ITIP.proposal(in: far) == nil, "\(start)–\(end)")
        }
        // The moved week is countered from its override; nobody else can counter, nor for no occurrence.
        let moved = try #require(
            ITIP.counter(
                object, instance: "20261214T100000", start: Self.berlin("20261214T160000"),
                end: Self.ending("20261214T170000"), comment: nil, attendee: Self.bob, stamp: 0))
        #expect(moved.components[1].property("SUMMARY")?.value == "Team (moved)")
        #expect(moved.components[1].property("COMMENT") == nil)
        #expect(
            ITIP.counter(
                object, instance: nil, start: Self.berlin("20261207T120000"), end: Self.ending("20261207T130000"),
                comment: nil, attendee: "mailto:dave@example.com", stamp: 0) == nil)
        #expect(
            ITIP.counter(
                object, instance: "20261221", start: Self.berlin("20261221T120000"),
                end: Self.ending("20261221T130000"), comment: nil, attendee: Self.bob, stamp: 0) == nil,
            "a date is no instance of a timed series")
    }

    @Test func anAcceptedCounterMovesTheOccurrenceAndAsksEveryoneAgain() throws {
        let object = try Self.calendar(Self.meeting)
        let counter = try #require(
            ITIP.counter(
                object, instance: "20261221T100000", start: Self.berlin("20261221T120000"),
                end: Self.ending("20261221T130000"), comment: nil, attendee: Self.bob, stamp: 0))
        let proposal = try #require(ITIP.proposal(in: counter))
        let moved = try #require(
            ITIP.accepting(proposal, of: counter, from: Self.bob, partstat: "ACCEPTED", into: object))
        let events = moved.components(named: "VEVENT")
        #expect(events.count == 3, "the week is overridden")
        #expect(events[0] == object.components(named: "VEVENT")[0], "the series is as it was")
        let week = events[2]
        #expect(week.property("RECURRENCE-ID")?.value == "20261221T100000")
        #expect(week.property("DTSTART")?.value == "20261221T120000")
        #expect(week.property("DTEND")?.value == "20261221T130000" && week.property("DURATION") == nil)
        #expect(week.property("SEQUENCE")?.value == "3")
        let answers = Dictionary(
            uniqueKeysWithValues: week.properties(named: "ATTENDEE").map {
                (ITIP.address($0.value), [$0[parameter: "PARTSTAT"] ?? "", $0[parameter: "RSVP"] ?? ""])
            })
        #expect(
            answers == [
                "mailto:anna@example.com": ["ACCEPTED", ""], Self.bob: ["ACCEPTED", ""],
                "mailto:carol@example.com": ["NEEDS-ACTION", "TRUE"],
            ], "\(answers)")

        // The series moved to another zone's hour: the zone comes from the COUNTER.
        let newYork = [
            "BEGIN:VTIMEZONE", "TZID:America/New_York", "BEGIN:STANDARD", "DTSTART:19701101T020000",
            "TZOFFSETFROM:-0400", "TZOFFSETTO:-0500", "END:STANDARD", "END:VTIMEZONE",
        ]
        let seriesCounter = try Self.calendar(
            ["METHOD:COUNTER"] + newYork + [
                "BEGIN:VEVENT", "UID:team@example.com", "DTSTAMP:20261102T000000Z",
                "DTSTART;TZID=America/New_York:20261207T080000", "DURATION:PT30M", "LOCATION:Call",
                "ORGANIZER:mailto:anna@example.com", "ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:bob@example.com",
                "END:VEVENT",
            ])
        let series = try #require(ITIP.proposal(in: seriesCounter))
        #expect(series.instance == nil && series.end?.name == "DURATION")
        let rezoned = try #require(
            ITIP.accepting(series, of: seriesCounter, from: Self.bob, partstat: nil, into: object))
        #expect(
            rezoned.components(named: "VTIMEZONE").compactMap { $0.property("TZID")?.value }.sorted() == [
                "America/New_York", "Europe/Berlin",
            ])
        let master = rezoned.components(named: "VEVENT")[0]
        #expect(master.property("DTSTART")?[parameter: "TZID"] == "America/New_York")
        #expect(master.property("DURATION")?.value == "PT30M" && master.property("DTEND") == nil)
        #expect(master.property("LOCATION")?.textValue() == "Call" && master.property("RRULE") != nil)
        #expect(ITIP.participation(of: Self.bob, in: rezoned)[nil] == "NEEDS-ACTION")
        // The series an hour later in its own zone: the moved week's override follows its
        // instance (its RECURRENCE-ID), keeping the time it was moved to.
        let later = try #require(
            ITIP.counter(
                object, instance: nil, start: Self.berlin("20261207T110000"), end: Self.ending("20261207T120000"),
                comment: nil, attendee: Self.bob, stamp: 0))
        let laterProposal = try #require(ITIP.proposal(in: later))
        let shifted = try #require(
            ITIP.accepting(laterProposal, of: later, from: Self.bob, partstat: nil, into: object))
        let override = shifted.components(named: "VEVENT")[1]
        #expect(override.property("RECURRENCE-ID")?.value == "20261214T110000")
        #expect(override.property("RECURRENCE-ID")?[parameter: "TZID"] == "Europe/Berlin")
        #expect(override.property("DTSTART")?.value == "20261214T140000", "it had been moved: it stays")
        let acceptedWeek = try #require(
            ITIP.accepting(proposal, of: counter, from: Self.bob, partstat: nil, into: object))
        let shiftedAgain = try #require(
            ITIP.accepting(laterProposal, of: later, from: Self.bob, partstat: nil, into: acceptedWeek))
        let third = shiftedAgain.components(named: "VEVENT")[2]
        #expect(third.property("RECURRENCE-ID")?.value == "20261221T110000")
        #expect(third.property("DTSTART")?.value == "20261221T120000", "the week accepted at 12:00 stays there")
        // A week only answered (its override at the series' time) moves with the series.
        let declinedWeek = ITIP.applying(["20261221T100000": "DECLINED"], from: Self.bob, to: object)
        let withSeries = try #require(
            ITIP.accepting(laterProposal, of: later, from: Self.bob, partstat: nil, into: declinedWeek))
        let answered = withSeries.components(named: "VEVENT")[2]
        #expect(answered.property("RECURRENCE-ID")?.value == "20261221T110000")
        #expect(answered.property("DTSTART")?.value == "20261221T110000")

        // A proposal for an occurrence the series does not have is not applied.
        var stray = series
        stray.instance = "20261207"
        #expect(ITIP.accepting(stray, of: seriesCounter, from: Self.bob, partstat: nil, into: object) == nil)
    }

    @Test func aDeclineCounterAndARefreshCarryOnlyWhoAndWhich() throws {
        let object = try Self.calendar(Self.meeting)
        let proposal = try #require(
            ITIP.counter(
                object, instance: "20261221T100000", start: Self.berlin("20261221T120000"),
                end: Self.ending("20261221T130000"), comment: nil, attendee: Self.bob, stamp: 0
            ).flatMap(ITIP.proposal(in:)))
        let declined = try #require(
            ITIP.declineCounter(proposal, in: object, to: Self.bob, comment: "The room is taken", stamp: 1_796_212_800))
        #expect(declined.property("METHOD")?.value == "DECLINECOUNTER")
        let events = declined.components(named: "VEVENT")
        #expect(events.count == 1)
        let event = try #require(events.first)
        #expect(event.property("RECURRENCE-ID")?.value == "20261221T100000")
        #expect(event.property("SEQUENCE")?.value == "2" && event.property("ORGANIZER") != nil)
        #expect(event.property("DTSTART") == nil && event.property("SUMMARY") == nil)
        #expect(event.properties(named: "ATTENDEE").map { ITIP.address($0.value) } == [Self.bob])
        #expect(event.property("COMMENT")?.textValue() == "The room is taken")
        #expect(
            ITIP.declineCounter(proposal, in: object, to: "mailto:dave@example.com", comment: nil, stamp: 0) == nil)

        let refresh = ITIP.message(.refresh, object, attendee: Self.bob, stamp: 0)
        #expect(refresh.property("METHOD")?.value == "REFRESH")
        for event in refresh.components(named: "VEVENT") {
            #expect(event.property("DTSTART") == nil && event.property("SEQUENCE") == nil)
            #expect(event.property("UID") != nil && event.property("ORGANIZER") != nil)
        }
    }
}
