import AlmanacTestSupport
import CalendarStore
import CivilTime
import ICalendar
import Recurrence
import Testing

@Suite("Events") struct EventTests {
    /// Story 2: find or create a custom calendar, add an event with notes, a length and an alarm.
    @Test(arguments: Backend.allCases) func addEventToCustomCalendar(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let calendar = try #require(try store.calendar(titled: "Trainings", createIfMissing: true))
        var event = Event(
            title: "Leg day", start: zoned("Europe/Berlin", 2026, 12, 1, 18), calendarIdentifier: calendar.id)
        event.duration = CalendarDuration(minutes: 90)
        event.notes = "Bring shoes; water, towel"
        event.alarms = [.minutesBefore(15)]
        event.categories = ["Sport", "Gym"]
        let saved = try store.save(event)
        let identifier = try #require(saved.localIdentifier)
        #expect(saved.externalIdentifier == event.externalIdentifier)
        #expect(saved.resourceName == event.externalIdentifier + ".ics")

        for key in [identifier, event.externalIdentifier] {
            let read = try store.event(withIdentifier: key)
            #expect(read.title == "Leg day")
            #expect(read.notes == "Bring shoes; water, towel")
            #expect(read.duration == CalendarDuration(minutes: 90))
            #expect(read.categories == ["Sport", "Gym"])
            #expect(
                read.alarms.first?.trigger
                    == .relative(CalendarDuration(isNegative: true, minutes: 15), relatedToEnd: false))
            #expect(read.start == zoned("Europe/Berlin", 2026, 12, 1, 18))
        }
        // The stored object carries a VTIMEZONE for its TZID, so any client can read it.
        let stored = try store.resource(named: try #require(saved.resourceName), calendar: calendar.id)
        let text = String(decoding: stored.data, as: UTF8.self)
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin"))

        // 18:00 in Berlin in December is 17:00 UTC.
        let week = try store.events(in: firstDecemberWeek)
        #expect(week.count == 1)
        #expect(week.first?.startInstant == utc(2026, 12, 1, 17))
        #expect(week.first?.endInstant == utc(2026, 12, 1, 18, 30))
        #expect(week.first?.eventIdentifier == identifier)
        #expect(week.first?.isDetached == false)
    }

    @Test(arguments: Backend.allCases) func editingKeepsWhatTheViewDoesNotModel(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        _ = try store.putResource(
            resource(
                vevent(
                    uid: "keep@x",
                    [
                        "DTSTART:20261201T090000Z", "DTEND:20261201T100000Z", "SUMMARY:Before",
                        "X-CLIENT-THING;X-P=1:opaque",
                        "ATTENDEE;CN=Anna;PARTSTAT=ACCEPTED;X-EXTRA=y:mailto:anna@example.com",
                    ])),
            name: "keep.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        var event = try store.event(withIdentifier: "keep@x")
        #expect(event.attendees.first?.name == "Anna")
        #expect(event.attendees.first?.participationStatus == "ACCEPTED")
        event.title = "After"
        event.location = "Room 1"
        try store.save(event)
        let read = try store.event(withIdentifier: "keep@x")
        #expect(read.title == "After")
        #expect(read.location == "Room 1")
        #expect(read.component.property("X-CLIENT-THING")?.value == "opaque")
        #expect(read.component.property("X-CLIENT-THING")?[parameter: "X-P"] == "1")
        #expect(read.component.property("ATTENDEE")?[parameter: "X-EXTRA"] == "y")
        #expect(read.localIdentifier == event.localIdentifier)
    }

    @Test(arguments: Backend.allCases) func queriesFilterAndSort(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        let home = try fixture.calendar("Home")
        func add(_ uid: String, _ calendar: EventCalendar, _ lines: [String]) throws {
            _ = try store.putResource(
                resource(vevent(uid: uid, lines)), name: "\(uid).ics", calendar: calendar.id, ifMatch: nil,
                ifNoneMatch: false)
        }
        try add("late", work, ["DTSTART:20261203T150000Z", "DURATION:PT1H", "SUMMARY:Team sync", "CATEGORIES:Meeting"])
        try add("early", home, ["DTSTART:20261202T070000Z", "DURATION:PT1H", "SUMMARY:Dentist", "STATUS:TENTATIVE"])
        try add(
            "cancelled", work, ["DTSTART:20261204T150000Z", "DURATION:PT1H", "SUMMARY:Team lunch", "STATUS:CANCELLED"])
        try add("outside", work, ["DTSTART:20261210T150000Z", "DURATION:PT1H", "SUMMARY:Team sync"])
        // Starts before the week and ends inside it: it overlaps, so it is returned.
        try add("overnight", work, ["DTSTART:20261129T220000Z", "DTEND:20261130T020000Z", "SUMMARY:Night shift"])

        #expect(
            try store.events(in: firstDecemberWeek).map(\.title) == [
                "Night shift", "Dentist", "Team sync", "Team lunch",
            ])
        #expect(try store.events(in: firstDecemberWeek, calendars: [home.id]).map(\.title) == ["Dentist"])
        #expect(
            try store.events(in: firstDecemberWeek, matching: EventFilter(title: .contains("TEAM"))).map(\.title) == [
                "Team sync", "Team lunch",
            ])
        #expect(try store.events(in: firstDecemberWeek, matching: EventFilter(title: .equals("team sync"))).count == 1)
        #expect(
            try store.events(in: firstDecemberWeek, matching: EventFilter(category: "meeting")).map(\.title) == [
                "Team sync"
            ])
        #expect(
            try store.events(in: firstDecemberWeek, matching: EventFilter(status: .cancelled)).map(\.title) == [
                "Team lunch"
            ])
        #expect(
            try store.events(in: firstDecemberWeek, matching: EventFilter(status: .tentative)).map(\.title) == [
                "Dentist"
            ])
    }

    /// All-day and floating times are read in the asked zone, else the calendar's, else UTC.
    @Test(arguments: Backend.allCases) func floatingAndAllDayFollowTheViewerZone(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let tokyo = try store.createCalendar(EventCalendar(title: "Tokyo", timeZone: "Asia/Tokyo"))
        _ = try store.putResource(
            resource(vevent(uid: "day", ["DTSTART;VALUE=DATE:20261202", "SUMMARY:Holiday"])), name: "day.ics",
            calendar: tokyo.id, ifMatch: nil, ifNoneMatch: false)
        _ = try store.putResource(
            resource(vevent(uid: "float", ["DTSTART:20261203T090000", "DURATION:PT1H", "SUMMARY:Wake up"])),
            name: "float.ics", calendar: tokyo.id, ifMatch: nil, ifNoneMatch: false)
        // Tokyo is UTC+9: the day starts at 15:00 UTC the day before; 09:00 is 00:00 UTC.
        let inTokyo = try store.events(in: firstDecemberWeek)
        #expect(inTokyo.map(\.startInstant) == [utc(2026, 12, 1, 15), utc(2026, 12, 3, 0)])
        #expect(inTokyo.first?.isAllDay == true)
        // Auckland is UTC+13 in December.
        let inAuckland = try store.events(
            in: firstDecemberWeek, calendars: nil, matching: .all, timeZone: "Pacific/Auckland")
        #expect(inAuckland.map(\.startInstant) == [utc(2026, 12, 1, 11), utc(2026, 12, 2, 20)])
        let badZone = try #require(throws: StoreError.self) {
            try store.events(in: firstDecemberWeek, calendars: nil, matching: .all, timeZone: "Nowhere/Land")
        }
        #expect(badZone.code == .invalidArgument)
    }

    /// A series is expanded from a stored skeleton of its timing; a custom VTIMEZONE must
    /// survive into it, and an occurrence still hands out the whole component.
    @Test(arguments: Backend.allCases) func seriesWithACustomZoneKeepsEverything(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        _ = try store.putResource(
            resource(
                [
                    "BEGIN:VTIMEZONE", "TZID:Office Time", "BEGIN:STANDARD", "DTSTART:19700101T000000",
                    "TZOFFSETFROM:+0530",
                    "TZOFFSETTO:+0530", "END:STANDARD", "END:VTIMEZONE",
                ]
                    + vevent(
                        uid: "custom",
                        [
                            "DTSTART;TZID=Office Time:20261201T090000", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=3",
                            "SUMMARY:Check-in",
                            "DESCRIPTION:Bring the badge", "X-OFFICE-ROOM:4.12",
                        ])),
            name: "custom.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        // 09:00 at +05:30 is 03:30 UTC.
        let found = try store.events(in: firstDecemberWeek, matching: EventFilter(title: .equals("check-in")))
        #expect(
            found.map(\.startInstant) == [utc(2026, 12, 1, 3, 30), utc(2026, 12, 2, 3, 30), utc(2026, 12, 3, 3, 30)])
        #expect(found.first?.component.property("DESCRIPTION")?.textValue() == "Bring the badge")
        #expect(found.first?.component.property("X-OFFICE-ROOM")?.value == "4.12")
        #expect(found.first?.event.notes == "Bring the badge")
    }

    @Test(arguments: Backend.allCases) func movingAnEventToAnotherCalendar(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        let home = try fixture.calendar("Home")
        var event = try store.save(
            Event(title: "Move me", start: zoned("UTC", 2026, 12, 2, 9), calendarIdentifier: work.id))
        event.calendarIdentifier = home.id
        let moved = try store.save(event)
        #expect(moved.calendarIdentifier == home.id)
        #expect(try store.resources(calendar: work.id).isEmpty)
        #expect(try store.events(in: firstDecemberWeek, calendars: [home.id]).map(\.title) == ["Move me"])
    }
}
