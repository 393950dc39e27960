import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import Testing

/// RFC 7953 over CalDAV: the calendar home's `calendar-availability` is the user's default
/// schedule (the one the API, `almanac hours` and booking types use), read with PROPFIND,
/// changed with PROPPATCH (all or nothing), and the time outside it is BUSY-UNAVAILABLE
/// in free-busy-query, checked against Foundation's reading of the hours.
@Suite struct CalendarAvailabilityTests {
    static let home = "/dav/calendars/anna/"
    static let property = DAVName.caldav("calendar-availability")

    /// Weekdays 09:00-17:00 in Berlin, Christmas Eve off, as a client would write it.
    static let availability = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Client//EN\r
        BEGIN:VAVAILABILITY\r
        UID:work-hours\r
        DTSTAMP:20261101T000000Z\r
        BEGIN:AVAILABLE\r
        UID:weekdays\r
        DTSTAMP:20261101T000000Z\r
        DTSTART;TZID=Europe/Berlin:20261102T090000\r
        DTEND;TZID=Europe/Berlin:20261102T170000\r
        RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR\r
        EXDATE;TZID=Europe/Berlin:20261224T090000\r
        END:AVAILABLE\r
        END:VAVAILABILITY\r
        END:VCALENDAR\r

        """

    @Test func theHomesAvailabilityIsTheDefaultScheduleAndDrivesFreeBusy() throws {
        let server = try TestServer(users: ["anna", "bob"])
        let dav = server.dav("anna")
        // None yet: the property is not found; allprop never lists it.
        #expect(
            try dav.propfind(Self.home, props: [Self.property]).multistatus().responses.first?.status(of: Self.property)
                == 404)
        let set = try dav.proppatch(Self.home, set: [(Self.property, Self.availability)])
        #expect(set.status == 207 && set.text.contains("200"), "\(set.text)")
        // The API sees it as the default schedule.
        let api = server.api("anna")
        let schedule = try api.get("/api/v1/availability-schedules/default")
        #expect(schedule["hours"]?.stringValue == "Mon-Fri 09:00-17:00", "\(schedule.text)")
        #expect(schedule["exceptions"]?["2026-12-24"]?.stringValue == "off")
        #expect(schedule["timeZone"]?.stringValue == "Europe/Berlin")
        let read = try dav.propfind(Self.home, props: [Self.property]).multistatus().responses.first
        #expect(read?.property(Self.property)?.text.contains("BEGIN:VAVAILABILITY") == true)
        let all = try dav.propfind(Self.home).text
        #expect(!all.contains("calendar-availability"), "not in allprop")
        // The schedule inbox has it too (RFC 7953 §7.2.4), the same schedule.
        let inbox = "/dav/inbox/anna/"
        #expect(
            try dav.propfind(inbox, props: [Self.property]).multistatus().responses.first?.property(Self.property)?.text
                == read?.property(Self.property)?.text)
        #expect(!(try dav.propfind(inbox).text.contains("calendar-availability")), "not in the inbox's allprop")
        #expect(
            try server.dav("bob").proppatch(inbox, set: [(Self.property, Self.availability)]).status == 404,
            "another user's inbox is not there for Bob")
        let again = try dav.proppatch(inbox, set: [(Self.property, Self.availability)])
        #expect(again.status == 207 && again.text.contains("200"), "set through the inbox: \(again.text)")
        #expect(try api.get("/api/v1/availability-schedules/default")["hours"]?.stringValue == "Mon-Fri 09:00-17:00")

        // free-busy-query over 2026-12-21..28: outside the hours is BUSY-UNAVAILABLE (the
        // 24th all day), besides a busy event.
        #expect(try dav.mkcalendar("/dav/calendars/anna/work/").status == 201)
        _ = try dav.put(
            "/dav/calendars/anna/work/meeting.ics",
            FreeBusyQueryTests.event("meeting", "20261222T100000Z", "20261222T110000Z"))
        let answer = try dav.freeBusy("/dav/calendars/anna/work/", start: "20261221T000000Z", end: "20261228T000000Z")
        let lines = answer.text.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("FREEBUSY") }
        let unavailable = lines.filter { $0.contains("BUSY-UNAVAILABLE") }.map { String($0.split(separator: ":")[1]) }
        #expect(lines.contains("FREEBUSY;FBTYPE=BUSY:20261222T100000Z/20261222T110000Z"))
        // The oracle: Foundation's Berlin, weekday hours but the 24th.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        func instant(_ day: Int, _ hour: Int) -> Int {
            Int(calendar.date(from: DateComponents(year: 2026, month: 12, day: day, hour: hour))!.timeIntervalSince1970)
        }
        var open: [(Int, Int)] = []
        for day in 21...27 where ![24, 26, 27].contains(day) { open.append((instant(day, 9), instant(day, 17))) }
        var expected: [String] = []
        var cursor = 1_797_811_200  // 2026-12-21T00:00:00Z
        func text(_ seconds: Int) -> String {
            let formatter = DateFormatter()
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        for span in open {
            if span.0 > cursor { expected.append(text(cursor) + "/" + text(span.0)) }
            cursor = span.1
        }
        expected.append(text(cursor) + "/" + text(1_798_416_000))  // to 2026-12-28T00:00:00Z
        #expect(unavailable == expected)

        // A value that is not availability is refused with everything else (409, 424), and nothing changes.
        let bad = try dav.send(
            "PROPPATCH", Self.home,
            """
            <D:propertyupdate xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:set><D:prop>
            <C:calendar-availability>BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n</C:calendar-availability>
            </D:prop></D:set></D:propertyupdate>
            """)
        #expect(bad.status == 207 && bad.text.contains("409"), "\(bad.text)")
        let other = try dav.proppatch(
            Self.home, set: [(.dav("displayname"), "Mine"), (Self.property, Self.availability)])
        #expect(other.text.contains("403") && other.text.contains("424"), "\(other.text)")
        #expect(try api.get("/api/v1/availability-schedules/default")["hours"]?.stringValue == "Mon-Fri 09:00-17:00")
        // Another user's home cannot be changed; removing deletes the default schedule.
        #expect(try server.dav("bob").proppatch(Self.home, set: [(Self.property, Self.availability)]).status != 207)
        let removed = try dav.send(
            "PROPPATCH", Self.home,
            """
            <D:propertyupdate xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:remove><D:prop>
            <C:calendar-availability/></D:prop></D:remove></D:propertyupdate>
            """)
        #expect(removed.status == 207, "\(removed.text)")
        #expect(try api.get("/api/v1/availability-schedules/default").status == 404)
        let after = try dav.freeBusy("/dav/calendars/anna/work/", start: "20261221T000000Z", end: "20261228T000000Z")
        #expect(!after.text.contains("BUSY-UNAVAILABLE"))
    }
}
