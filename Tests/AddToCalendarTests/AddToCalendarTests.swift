import AddToCalendar
import AlmanacTestSupport
import CalendarStore
import Foundation
import ICalendar
import JSON
import Testing

/// Payload and link vectors. Expected instants come from Foundation's own calendar
/// and time zone code (an implementation independent of CivilTime), URLs are read
/// back with `URLComponents`, and the .ics is parsed again.
@Suite struct AddToCalendarTests {
    let directory: TemporaryDirectory
    let store: any EventStore
    let calendar: EventCalendar

    init() throws {
        directory = try TemporaryDirectory()
        let backend = try DatabaseBackend(directory: directory.path)
        try backend.createUser(named: "anna")
        store = try backend.eventStore(for: "anna")
        calendar = try store.createCalendar(EventCalendar(title: "Classes", timeZone: "America/Los_Angeles"))
    }

    /// Stores an object from its VEVENT lines (once per UID) and returns the targets of
    /// the event, or of its occurrence whose RECURRENCE-ID reads `occurrence`.
    func targets(_ lines: [String], occurrence: String? = nil, zone: String? = nil) throws -> AddToCalendarTargets {
        let uid = try #require(lines.first { $0.hasPrefix("UID:") }).dropFirst(4)
        if try store.events(withExternalIdentifier: String(uid)).isEmpty {
            let text = (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"] + lines + ["END:VCALENDAR", ""])
                .joined(separator: "\r\n")
            _ = try store.putResource(
                Array(text.utf8), name: "\(uid).ics", calendar: calendar.id, ifMatch: nil, ifNoneMatch: true)
        }
        let event = try #require(try store.events(withExternalIdentifier: String(uid)).first { $0.recurrenceID == nil })
        var found: EventOccurrence?
        if let occurrence {
            let all = try store.events(
                in: TimeRange(start: 1_700_000_000, end: 1_900_000_000), calendars: [calendar.id], matching: .all,
                timeZone: zone)
            found = try #require(all.first { $0.recurrenceID?.text == occurrence })
        }
        return try AddToCalendarTargets.targets(
            ofEvent: try #require(event.localIdentifier), occurrence: found, zoneName: zone, in: store)
    }

    /// Milliseconds of a wall clock in a zone, by Foundation.
    static func milliseconds(_ zone: String, _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0)
        -> Int64
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func query(_ url: String) -> [String: String] {
        let items = URLComponents(string: url)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
    }

    @Test func timedEventInBerlin() throws {
        let targets = try targets([
            "BEGIN:VEVENT", "UID:lunch", "DTSTAMP:20261101T000000Z", "SEQUENCE:3",
            "DTSTART;TZID=Europe/Berlin:20261201T120000",
            "DTEND;TZID=Europe/Berlin:20261201T130000", "SUMMARY:Lunch", "LOCATION:Kantine", "DESCRIPTION:Bring a fork",
            "URL:https://example.com/lunch", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:-PT15M",
            "END:VALARM", "END:VEVENT",
        ])
        let start = Self.milliseconds("Europe/Berlin", 2026, 12, 1, 12)
        let bridge = targets.bridge
        #expect(bridge.name == "Lunch")
        #expect(bridge.startsAtInMillisecondsSinceEpoch == start)
        #expect(bridge.endsAtInMillisecondsSinceEpoch == start + 3_600_000)
        #expect(!bridge.allDay)
        #expect(bridge.allDayStartAtInMillisecondsSinceEpoch == Self.milliseconds("UTC", 2026, 12, 1))
        #expect(bridge.allDayEndsAtInMillisecondsSinceEpoch == Self.milliseconds("UTC", 2026, 12, 2))
        #expect(bridge.timeZone == "Europe/Berlin" && bridge.location == "Kantine" && bridge.notes == "Bring a fork")
        #expect(bridge.alarmMinutesBefore == 15 && bridge.rrule == nil && targets.bridgeLost.isEmpty)
        // Every key is there, null or not.
        let keys = Set(bridge.json.objectKeys)
        #expect(
            keys == [
                "name", "startsAtInMillisecondsSinceEpoch", "endsAtInMillisecondsSinceEpoch", "allDay",
                "allDayStartAtInMillisecondsSinceEpoch",
                "allDayEndsAtInMillisecondsSinceEpoch", "location", "rrule", "notes", "url", "timeZone",
                "alarmMinutesBefore",
            ])

        let android = targets.android
        #expect(
            android.beginTime == start && android.endTime == start + 3_600_000
                && android.eventTimezone == "Europe/Berlin")
        #expect(android.availability == 0 && android.lost == [.alarms, .url])
        #expect(android.uri.hasPrefix("intent://com.android.calendar/events#Intent;") && android.uri.hasSuffix(";end"))
        #expect(android.uri.contains("l.beginTime=\(start);"))

        let google = Self.query(targets.google.url)
        #expect(google["dates"] == "20261201T120000/20261201T130000" && google["ctz"] == "Europe/Berlin")
        #expect(google["details"] == "Bring a fork\n\nhttps://example.com/lunch" && google["location"] == "Kantine")
        #expect(targets.google.lost == [.alarms])
        let outlook = Self.query(targets.outlook.url)
        #expect(
            outlook["startdt"] == "2026-12-01T11:00:00Z" && outlook["enddt"] == "2026-12-01T12:00:00Z"
                && outlook["allday"] == "false")
        #expect(targets.outlook.url.hasPrefix("https://outlook.live.com/calendar/0/deeplink/compose?"))
        #expect(targets.office365.url.hasPrefix("https://outlook.office.com/calendar/0/deeplink/compose?"))
        #expect(targets.outlook.lost == [.alarms, .timeZone])
        let yahoo = Self.query(targets.yahoo.url)
        #expect(
            yahoo["v"] == "60" && yahoo["st"] == "20261201T110000Z" && yahoo["et"] == "20261201T120000Z"
                && yahoo["in_loc"] == "Kantine")

        // The .ics: PUBLISH, the zone's VTIMEZONE, UID and SEQUENCE as stored.
        let document = try ICalendarParser.parse(targets.ics.bytes)
        let root = try #require(document.components.first)
        #expect(root.property("METHOD")?.value == "PUBLISH")
        #expect(root.components(named: "VTIMEZONE").first?.property("TZID")?.value == "Europe/Berlin")
        let event = try #require(root.components(named: "VEVENT").first)
        #expect(event.property("UID")?.value == "lunch" && event.property("SEQUENCE")?.value == "3")
    }

    @Test func multiDayAllDayEvent() throws {
        let targets = try targets([
            "BEGIN:VEVENT", "UID:holidays", "DTSTAMP:20261101T000000Z", "DTSTART;VALUE=DATE:20261224",
            "DTEND;VALUE=DATE:20261227",
            "SUMMARY:Closed", "TRANSP:TRANSPARENT", "END:VEVENT",
        ])
        let bridge = targets.bridge
        #expect(bridge.allDay)
        #expect(bridge.allDayStartAtInMillisecondsSinceEpoch == Self.milliseconds("UTC", 2026, 12, 24))
        #expect(bridge.allDayEndsAtInMillisecondsSinceEpoch == Self.milliseconds("UTC", 2026, 12, 27))
        // In the calendar's zone (Los Angeles): local midnights.
        #expect(bridge.startsAtInMillisecondsSinceEpoch == Self.milliseconds("America/Los_Angeles", 2026, 12, 24))
        #expect(bridge.endsAtInMillisecondsSinceEpoch == Self.milliseconds("America/Los_Angeles", 2026, 12, 27))
        #expect(
            targets.android.beginTime == Self.milliseconds("UTC", 2026, 12, 24)
                && targets.android.eventTimezone == "UTC")
        #expect(targets.android.allDay && targets.android.availability == 1)
        #expect(Self.query(targets.google.url)["dates"] == "20261224/20261227")
        #expect(targets.google.lost == [.availability])
        let outlook = Self.query(targets.outlook.url)
        #expect(outlook["startdt"] == "2026-12-24" && outlook["enddt"] == "2026-12-27" && outlook["allday"] == "true")
        let yahoo = Self.query(targets.yahoo.url)
        #expect(yahoo["st"] == "20261224" && yahoo["et"] == "20261226" && yahoo["dur"] == nil)
    }

    @Test func weeklySeriesAcrossTheAutumnChange() throws {
        // New York leaves daylight saving on 2026-11-01: 09:00 is 13:00Z before, 14:00Z after.
        let lines = [
            "BEGIN:VEVENT", "UID:yoga", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=America/New_York:20261028T090000",
            "DURATION:PT1H",
            "RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=America/New_York:20261111T090000", "SUMMARY:Yoga", "END:VEVENT",
        ]
        let series = try targets(lines)
        #expect(
            series.bridge.startsAtInMillisecondsSinceEpoch == Self.milliseconds("America/New_York", 2026, 10, 28, 9))
        #expect(series.bridge.rrule == "FREQ=WEEKLY;COUNT=4")
        #expect(series.bridgeLost == [.recurrenceExceptions])
        #expect(Self.query(series.google.url)["recur"] == "RRULE:FREQ=WEEKLY;COUNT=4")
        #expect(series.google.lost == [.recurrenceExceptions])
        #expect(series.outlook.lost == [.recurrence, .recurrenceExceptions, .timeZone])
        // Yahoo: every week, until the date of the fourth instance (18 November).
        let yahoo = Self.query(series.yahoo.url)
        #expect(yahoo["RPAT"] == "01Wk" && yahoo["REND"] == "20261118")
        #expect(series.yahoo.lost == [.recurrenceExceptions, .timeZone])
        #expect(series.android.rrule == "FREQ=WEEKLY;COUNT=4")

        // One occurrence after the change: its own times, no rule, nothing lost.
        let occurrence = try targets(lines, occurrence: "2026-11-04T14:00:00Z")
        #expect(
            occurrence.bridge.startsAtInMillisecondsSinceEpoch == Self.milliseconds("America/New_York", 2026, 11, 4, 9))
        #expect(occurrence.bridge.rrule == nil && occurrence.bridgeLost.isEmpty)
        #expect(Self.query(occurrence.google.url)["dates"] == "20261104T090000/20261104T100000")
        let ics = try ICalendarParser.parse(occurrence.ics.bytes).components[0].components(named: "VEVENT")
        #expect(ics.count == 1 && ics[0].property("RRULE") == nil && ics[0].property("RECURRENCE-ID") != nil)
    }

    /// Yahoo's link needs the date of the COUNT-th instance. A COUNT past the 100,000
    /// instances one series may expand has no such date to give: the link drops the rule
    /// and says so, instead of ending on the 100,000th day.
    @Test func aCountPastTheExpansionBoundIsNotGivenAWrongEndDate() throws {
        let series = try targets([
            "BEGIN:VEVENT", "UID:forever", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T090000Z", "DURATION:PT1H",
            "RRULE:FREQ=DAILY;COUNT=150000",
            "SUMMARY:Daily", "END:VEVENT",
        ])
        #expect(Self.query(series.yahoo.url)["RPAT"] == nil && Self.query(series.yahoo.url)["REND"] == nil)
        #expect(series.yahoo.lost.contains(.recurrence))
        // Within the bound the end date is the COUNT-th day: 2026-12-01 plus 99 days is 2027-03-10.
        let shorter = try targets([
            "BEGIN:VEVENT", "UID:hundred", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T090000Z", "DURATION:PT1H",
            "RRULE:FREQ=DAILY;COUNT=100",
            "SUMMARY:Daily", "END:VEVENT",
        ])
        #expect(Self.query(shorter.yahoo.url)["RPAT"] == "01Dy" && Self.query(shorter.yahoo.url)["REND"] == "20270310")
    }

    @Test func eastOfUTCAndNonASCIIText() throws {
        let title = "Café ☕ & Co"
        let targets = try targets([
            "BEGIN:VEVENT", "UID:chai", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Asia/Kolkata:20261201T090000",
            "DURATION:PT30M",
            "SUMMARY:\(title)", "LOCATION:Zürich\\, Bahnhofstraße", "END:VEVENT",
        ])
        #expect(targets.bridge.startsAtInMillisecondsSinceEpoch == Self.milliseconds("Asia/Kolkata", 2026, 12, 1, 9))
        #expect(Self.query(targets.outlook.url)["startdt"] == "2026-12-01T03:30:00Z")
        for url in [targets.google.url, targets.outlook.url, targets.office365.url] {
            let items = Self.query(url)
            #expect(items["text"] ?? items["subject"] == title)
            #expect(items["location"] == "Zürich, Bahnhofstraße")
        }
        #expect(Self.query(targets.yahoo.url)["title"] == title)
        // UTF-8, every reserved byte escaped (`&` too), no `+` for spaces.
        #expect(targets.google.url.contains("text=Caf%C3%A9%20%E2%98%95%20%26%20Co"))
        #expect(targets.android.uri.contains("S.title=Caf%C3%A9%20%E2%98%95%20%26%20Co;"))
    }
}

extension JSONValue {
    var objectKeys: [String] {
        if case .object(let members) = self { return members.map(\.key) }
        return []
    }
}
