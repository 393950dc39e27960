import AlmanacTesting
import CalDAV
import Foundation
import HTTPTypes
import Testing

/// Reports beyond the basics: sync in pages, alarm time ranges, limit-recurrence-set,
/// and the errors for malformed ranges.
extension CalDAVTests {
    static let calDAV = DAVClient.namespaces

    /// Whether a response is the collection's 507 with number-of-matches-within-limits
    /// (RFC 6578 §3.6, RFC 4791 §7.8).
    static func isTruncation(_ response: DAVResponse?) -> Bool {
        response?.status == 507 && response?.errors == [.dav("number-of-matches-within-limits")]
            && response?.propstats.isEmpty == true
    }

    @Test(arguments: ServerSetup.all) func syncWithLimitAnswersInPagesWithCheckpoints(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        let work = "/dav/calendars/anna/work/"
        #expect(try dav.makeCalendar() == 201)
        for number in 0..<5 {
            let body = Self.event.replacingOccurrences(of: "lunch@test", with: "e\(number)@test")
            #expect(try dav.put(work + "e\(number).ics", body).status == 201)
        }
        var seen: Set<String> = []
        var token = ""
        var pages = 0
        while true {
            let page = try dav.syncCollection(work, token: token, limit: 2).multistatus()
            pages += 1
            token = try #require(page.syncToken)
            let truncated = page.responses.contains { $0.status == 507 }
            if truncated {
                // RFC 6578 §3.6: the collection itself answers 507 with number-of-matches-within-limits.
                #expect(Self.isTruncation(page.response(work)))
            }
            seen.formUnion(page.hrefs.filter { $0.hasSuffix(".ics") })
            if !truncated { break }
            #expect(pages < 10)
        }
        #expect(pages == 3)
        #expect(seen == Set((0..<5).map { "\(work)e\($0).ics" }))
        // Nothing changed since the last page: the next sync is empty.
        #expect(try dav.syncCollection(work, token: token).multistatus().allHrefs.isEmpty)
        #expect(try dav.syncCollection(work, token: "", limit: 0).status == 400)
    }

    @Test(arguments: ServerSetup.all) func alarmTimeRangeSelectsEventsWhoseAlarmFiresThere(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // Lunch is 11:00Z on 2026-12-01 (12:00 Berlin); its alarm fires 15 minutes before.
        let withAlarm = Self.event.replacingOccurrences(
            of: "END:VEVENT",
            with: "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Lunch\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VEVENT")
        #expect(try dav.put("/dav/calendars/anna/work/lunch.ics", withAlarm).status == 201)
        #expect(try dav.put("/dav/calendars/anna/work/weekly.ics", Self.weekly).status == 201)
        func alarmQuery(_ start: String, _ end: String) throws -> [String] {
            try dav.calendarQuery(
                "/dav/calendars/anna/work/",
                filter: "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\">"
                    + "<C:comp-filter name=\"VALARM\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:comp-filter></C:comp-filter></C:comp-filter>"
            ).multistatus().hrefs
        }
        #expect(try alarmQuery("20261201T104000Z", "20261201T105000Z") == ["/dav/calendars/anna/work/lunch.ics"])
        // The event itself is in this range, but its alarm is not.
        #expect(try alarmQuery("20261201T110000Z", "20261201T120000Z").isEmpty)
    }

    @Test func limitRecurrenceSetKeepsOnlyTheOverridesThatMatter() throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // Weekly on Tuesdays at 17:00Z from 2026-12-01; the second instance moves a day later,
        // the third is renamed, and the fourth moves into the second week.
        let series = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN",
            "BEGIN:VEVENT", "UID:yoga@test", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T170000Z", "DURATION:PT1H",
            "RRULE:FREQ=WEEKLY;COUNT=6", "SUMMARY:Yoga", "END:VEVENT",
            "BEGIN:VEVENT", "UID:yoga@test", "DTSTAMP:20261101T000000Z", "RECURRENCE-ID:20261208T170000Z",
            "DTSTART:20261209T170000Z",
            "DURATION:PT1H", "SUMMARY:Yoga moved", "END:VEVENT",
            "BEGIN:VEVENT", "UID:yoga@test", "DTSTAMP:20261101T000000Z", "RECURRENCE-ID:20261215T170000Z",
            "DTSTART:20261215T170000Z",
            "DURATION:PT1H", "SUMMARY:Yoga renamed", "END:VEVENT",
            "BEGIN:VEVENT", "UID:yoga@test", "DTSTAMP:20261101T000000Z", "RECURRENCE-ID:20261222T170000Z",
            "DTSTART:20261210T080000Z",
            "DURATION:PT1H", "SUMMARY:Yoga early", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let yoga = "/dav/calendars/anna/work/yoga.ics"
        #expect(try dav.put(yoga, series).status == 201)
        func limited(_ start: String, _ end: String) throws -> String {
            let answer = try dav.multiget(
                "/dav/calendars/anna/work/",
                prop:
                    "<C:calendar-data><C:limit-recurrence-set start=\"\(start)\" end=\"\(end)\"/></C:calendar-data>",
                hrefs: [yoga]
            ).multistatus()
            return try #require(answer.response(yoga)?.property(.calendarData)?.text)
        }
        let answer = try limited("20261207T000000Z", "20261214T000000Z")
        #expect(answer.contains("RRULE:FREQ=WEEKLY;COUNT=6"))
        // Moved within the range, and moved into it from the 22nd: kept. Renamed on the 15th: dropped.
        #expect(answer.contains("SUMMARY:Yoga moved"))
        #expect(answer.contains("SUMMARY:Yoga early"))
        #expect(!answer.contains("SUMMARY:Yoga renamed"))
        // The original time in range counts too: the week of the 14th keeps the renamed one only.
        let later = try limited("20261214T000000Z", "20261221T000000Z")
        #expect(later.contains("SUMMARY:Yoga renamed"))
        #expect(!later.contains("SUMMARY:Yoga moved") && !later.contains("SUMMARY:Yoga early"))
    }

    @Test(arguments: [
        "<C:time-range start=\"20261201\" end=\"20261202T000000Z\"/>",
        "<C:time-range start=\"20261201T000000\"/>",
        "<C:time-range/>",
    ])
    func malformedTimeRangesAreRefused(range: String) throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let answer = try dav.calendarQuery(
            "/dav/calendars/anna/work/",
            filter:
                "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\">\(range)</C:comp-filter></C:comp-filter>"
        )
        // RFC 4791 §7.8: a filter that is not valid breaks the CALDAV:valid-filter precondition (403).
        #expect(answer.status == 403)
        #expect(answer.precondition == .caldav("valid-filter"))
        let expandWithoutEnd = try dav.calendarQuery(
            "/dav/calendars/anna/work/",
            prop: "<C:calendar-data><C:expand start=\"20261201T000000Z\"/></C:calendar-data>",
            filter: "<C:comp-filter name=\"VCALENDAR\"/>")
        #expect(expandWithoutEnd.status == 400)
    }

    @Test(arguments: ServerSetup.everyStore) func objectsCarryLastModified(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let before = Int(Date().timeIntervalSince1970)
        #expect(try dav.put("/dav/calendars/anna/work/lunch.ics", Self.event).status == 201)
        let read = try dav.get("/dav/calendars/anna/work/lunch.ics")
        let after = Int(Date().timeIntervalSince1970)
        let header = try #require(read.headers["Last-Modified"])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let parsed = try #require(formatter.date(from: header))
        // HTTP dates have whole seconds: the write's second lies between the two readings.
        #expect((before...after).contains(Int(parsed.timeIntervalSince1970)))
        let propfind = try dav.propfind("/dav/calendars/anna/work/", depth: "1", props: [.dav("getlastmodified")])
            .multistatus()
        #expect(
            propfind.response("/dav/calendars/anna/work/lunch.ics")?.property(.dav("getlastmodified"))?.text == header)
    }
}

extension CalDAVTests {
    /// Not legal by RFC 4791 §9.7, but sent by some clients: answered as a range on any component.
    @Test(arguments: ServerSetup.all) func timeRangeRightUnderVCALENDARIsAnswered(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put("/dav/calendars/anna/work/lunch.ics", Self.event).status == 201)
        #expect(try dav.put("/dav/calendars/anna/work/weekly.ics", Self.weekly).status == 201)
        let answer = try dav.calendarQuery(
            "/dav/calendars/anna/work/",
            filter: "<C:comp-filter name=\"VCALENDAR\">"
                + "<C:time-range start=\"20261208T000000Z\" end=\"20261209T000000Z\"/></C:comp-filter>"
        ).multistatus()
        #expect(answer.allHrefs == ["/dav/calendars/anna/work/weekly.ics"])
    }

    /// Clients read the compliance classes from PROPFIND answers too (CLIENTS.md, Radicale issue 1338).
    @Test(arguments: ServerSetup.all) func everyAnswerCarriesTheDAVHeader(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(
            try dav.propfind("/dav/calendars/anna/", depth: "1").headers["DAV"]
                == "1, 3, calendar-access, extended-mkcol, calendarserver-sharing")
        #expect(
            try dav.get("/dav/calendars/anna/work/missing.ics").headers["DAV"]
                == "1, 3, calendar-access, extended-mkcol, calendarserver-sharing")
    }
}
