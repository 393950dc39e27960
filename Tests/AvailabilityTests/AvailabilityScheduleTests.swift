import AlmanacTestSupport
import Availability
import CivilTime
import ICalendar
import Recurrence
import Testing

/// Stored availability (RFC 7953): the hours people write, and the VAVAILABILITY they
/// are kept as, checked against the recurrence engine's own expansion of it.
@Suite struct AvailabilityScheduleTests {
    @Test(arguments: [
        ("Mon-Fri 09:00-17:00, Sat 10:00-14:00", "Mon-Fri 09:00-17:00, Sat 10:00-14:00"),
        ("mon-fri 09:00-12:00 13:00-17:00", "Mon-Fri 09:00-12:00 13:00-17:00"),
        ("Mon+Wed+Fri 08:00-12:00", "Mon+Wed+Fri 08:00-12:00"),
        ("Sat-Sun 00:00-24:00", "Sat-Sun 00:00-24:00"),
        ("Tue 10:00-11:00, Mon 09:00-10:00, Wed 09:00-10:00", "Mon+Wed 09:00-10:00, Tue 10:00-11:00"),
        ("Mon 09:00-12:00 11:00-13:00", "Mon 09:00-13:00"),
    ])
    func hoursAreReadAndWrittenAsPeopleWriteThem(_ text: String, _ canonical: String) throws {
        let schedule = try #require(AvailabilitySchedule(hours: text, timeZone: "Europe/Berlin"))
        #expect(schedule.hoursText == canonical)
        #expect(AvailabilitySchedule(hours: canonical, timeZone: "Europe/Berlin") == schedule)
    }

    @Test(arguments: ["", "Mon", "Mon 17:00-09:00", "Funday 09:00-10:00", "Mon 09:00-25:00", "Mon 9-5"])
    func malformedHoursAreRefused(_ text: String) {
        #expect(AvailabilitySchedule(hours: text, timeZone: "UTC") == nil)
    }

    /// A random schedule: some weekdays with one to three spans, some exceptions (other
    /// hours or off, on days with and without weekly hours).
    static func randomSchedule(_ generator: inout SplitMix64, zone: String) -> AvailabilitySchedule {
        func spans() -> [ClockRange] {
            var result: [ClockRange] = []
            var minute = Int.random(in: 0...600, using: &generator) / 15 * 15
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let end = min(1440, minute + Int.random(in: 1...16, using: &generator) * 30)
                guard minute < end else { break }
                result.append(ClockRange(start: minute, end: end))
                minute = end + Int.random(in: 1...8, using: &generator) * 15
                if minute >= 1440 { break }
            }
            return result
        }
        var weekly: [Weekday: [ClockRange]] = [:]
        let shared = spans()
        for day in Weekday.allCases where Bool.random(using: &generator) {
            weekly[day] = Bool.random(using: &generator) ? shared : spans()
        }
        var schedule = AvailabilitySchedule(timeZone: zone, weekly: weekly)
        let first = CivilDate(year: 2026, month: 1, day: 1)!
        for _ in 0..<Int.random(in: 0...12, using: &generator) {
            let date = first.adding(days: Int.random(in: 0..<365, using: &generator))
            schedule.setException(date, hours: Bool.random(using: &generator) ? [] : spans())
        }
        return schedule
    }

    static func calendar(_ availability: Component) -> Component {
        Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Tests//EN"),
            ],
            components: [availability])
    }

    @Test func aScheduleSurvivesItsVAVAILABILITY() throws {
        var generator = SplitMix64(seed: 7953)
        for round in 0..<200 {
            let schedule = Self.randomSchedule(
                &generator, zone: ["Europe/Berlin", "America/New_York", "UTC"][round % 3])
            let component = schedule.component(
                uid: "schedule-\(round)", stamp: CivilDateTime(year: 2026, month: 12, day: 2, hour: 6)!)
            // Through its text, as it is stored.
            let text = String(decoding: Self.calendar(component).serialized(), as: UTF8.self)
            let parsed = try #require(try ICalendarParser.parse(text).components.first?.components.first)
            #expect(try AvailabilitySchedule(availability: parsed) == schedule, "\(text)")
        }
    }

    /// The blocks written, expanded by the recurrence engine (which knows nothing of
    /// schedules), give each date of a year exactly the schedule's hours, across DST.
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Sydney"])
    func theRecurrenceEngineFindsTheSameHours(_ zoneName: String) throws {
        var generator = SplitMix64(seed: UInt64(zoneName.utf8.count))
        let zone = try #require(TimeZoneDatabase.zone(named: zoneName))
        for round in 0..<20 {
            let schedule = Self.randomSchedule(&generator, zone: zoneName)
            let availability = schedule.component(
                uid: "s\(round)", stamp: CivilDateTime(year: 2026, month: 12, day: 2, hour: 6)!)
            let expansion = CalendarObjectExpansion(resolver: ZoneResolver(calendar: nil), viewerZone: zone)
            let first = CivilDate(year: 2026, month: 1, day: 1)!
            let from = zone.instant(for: CivilDateTime(date: first, time: TimeOfDay(hour: 0, minute: 0)!))
            let to = zone.instant(
                for: CivilDateTime(date: first.adding(days: 365), time: TimeOfDay(hour: 0, minute: 0)!))
            var found: [CivilDate: [ClockRange]] = [:]
            for block in availability.components {
                let uid = block.property("UID")?.value ?? ""
                for occurrence in try expansion.occurrences(of: [block], uid: uid, from: from, to: to) {
                    let start = zone.localTime(at: occurrence.start.instant(in: zone))
                    let end = zone.localTime(at: occurrence.end.instant(in: zone))
                    let minutes = start.time.hour * 60 + start.time.minute
                    let endMinutes =
                        (end.date.daysSinceEpoch - start.date.daysSinceEpoch) * 1440 + end.time.hour * 60
                        + end.time.minute
                    found[start.date, default: []].append(ClockRange(start: minutes, end: endMinutes))
                }
            }
            for offset in 0..<365 {
                let date = first.adding(days: offset)
                let expected = schedule.hours(on: date)
                let got = ClockRange.joined(found[date] ?? [])
                // A span that starts in a spring-forward gap moves, as RFC 5545 says; skip those days.
                let shifted =
                    zone.localTime(
                        at: zone.instant(for: CivilDateTime(date: date, time: TimeOfDay(hour: 12, minute: 0)!))
                    ).time.hour != 12
                    || zone.offset(
                        at: zone.instant(for: CivilDateTime(date: date, time: TimeOfDay(hour: 0, minute: 0)!)))
                        != zone.offset(
                            at: zone.instant(
                                for: CivilDateTime(date: date.adding(days: 1), time: TimeOfDay(hour: 0, minute: 0)!)))
                if shifted { continue }
                #expect(got == expected, "\(zoneName) \(date): \(got) vs \(expected)")
            }
        }
    }

    @Test func otherShapesAreRefusedSayingWhy() throws {
        func availability(_ lines: [String]) throws -> Component {
            let text =
                ([
                    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VAVAILABILITY", "UID:x",
                    "DTSTAMP:20261202T000000Z", "BEGIN:AVAILABLE", "UID:y", "DTSTAMP:20261202T000000Z",
                ] + lines + ["END:AVAILABLE", "END:VAVAILABILITY", "END:VCALENDAR", ""])
                .joined(separator: "\r\n")
            return try #require(try ICalendarParser.parse(text).components.first?.components.first)
        }
        let cases: [[String]] = [
            [
                "DTSTART;TZID=Europe/Berlin:20260105T090000", "DTEND;TZID=Europe/Berlin:20260105T170000",
                "RRULE:FREQ=DAILY",
            ],
            [
                "DTSTART;TZID=Europe/Berlin:20260105T090000", "DTEND;TZID=Europe/Berlin:20260105T170000",
                "RRULE:FREQ=WEEKLY;COUNT=3",
            ],
            [
                "DTSTART;TZID=Europe/Berlin:20260105T220000", "DTEND;TZID=Europe/Berlin:20260106T020000",
                "RRULE:FREQ=WEEKLY",
            ],
            ["DTSTART:20260105T090000", "DTEND:20260105T170000", "RRULE:FREQ=WEEKLY"],
            ["DTSTART;VALUE=DATE:20260105", "DTEND;VALUE=DATE:20260106"],
        ]
        for lines in cases {
            #expect(throws: AvailabilitySchedule.Unsupported.self, "\(lines)") {
                try AvailabilitySchedule(availability: try availability(lines))
            }
        }
        // What a calendar app writes for working hours reads.
        let apple = try AvailabilitySchedule(
            availability: try availability([
                "DTSTART;TZID=America/New_York:20260105T090000", "DTEND;TZID=America/New_York:20260105T170000",
                "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
            ]))
        #expect(apple.timeZone == "America/New_York" && apple.hoursText == "Mon-Fri 09:00-17:00")
        // A date that only one of a weekday's blocks leaves out keeps the other block.
        let text = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VAVAILABILITY", "UID:x",
            "DTSTAMP:20261202T000000Z",
            "BEGIN:AVAILABLE", "UID:am", "DTSTAMP:20261202T000000Z", "DTSTART;TZID=UTC:20260105T090000",
            "DTEND;TZID=UTC:20260105T120000", "RRULE:FREQ=WEEKLY;BYDAY=MO", "END:AVAILABLE",
            "BEGIN:AVAILABLE", "UID:pm", "DTSTAMP:20261202T000000Z", "DTSTART;TZID=UTC:20260105T130000",
            "DTEND;TZID=UTC:20260105T170000", "RRULE:FREQ=WEEKLY;BYDAY=MO", "EXDATE;TZID=UTC:20261207T130000",
            "END:AVAILABLE", "END:VAVAILABILITY", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let partial = try AvailabilitySchedule(
            availability: try #require(try ICalendarParser.parse(text).components.first?.components.first))
        #expect(partial.hours(on: CivilDate(year: 2026, month: 12, day: 7)!) == [ClockRange(start: 540, end: 720)])
        #expect(partial.hours(on: CivilDate(year: 2026, month: 12, day: 14)!).count == 2)
    }
}
