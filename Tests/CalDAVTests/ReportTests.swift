import CalDAV
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// Reports beyond the basics: sync in pages, alarm time ranges, limit-recurrence-set,
/// and the errors for malformed ranges.
extension CalDAVTests {
    static let calDAV = "xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\""

    func sync(_ token: String, limit: Int? = nil) -> (status: Int, headers: HTTPHeaders, text: String) {
        let limitElement = limit.map { "<D:limit><D:nresults>\($0)</D:nresults></D:limit>" } ?? ""
        return send(
            "REPORT", "/dav/calendars/anna/work/",
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token>\(token)</D:sync-token><D:sync-level>1</D:sync-level>\(limitElement)<D:prop><D:getetag/></D:prop></D:sync-collection>"
        )
    }

    static func token(in text: String) -> String {
        text.firstRange(of: "<D:sync-token>").map { String(text[$0.upperBound...].prefix { $0 != "<" }) } ?? ""
    }

    static func hrefs(in text: String) -> [String] {
        text.components(separatedBy: "<D:href>").dropFirst().map { String($0.prefix { $0 != "<" }) }
    }

    @Test func syncWithLimitAnswersInPagesWithCheckpoints() throws {
        #expect(makeCalendar() == 201)
        for number in 0..<5 {
            let body = Self.event.replacingOccurrences(of: "lunch@test", with: "e\(number)@test")
            #expect(send("PUT", "/dav/calendars/anna/work/e\(number).ics", body).status == 201)
        }
        var seen: Set<String> = []
        var token = ""
        var pages = 0
        while true {
            let page = sync(token, limit: 2)
            #expect(page.status == 207)
            pages += 1
            token = Self.token(in: page.text)
            let truncated = page.text.contains("HTTP/1.1 507 Insufficient Storage")
            if truncated {
                // RFC 6578 §3.6: the collection itself answers 507 with number-of-matches-within-limits.
                #expect(
                    page.text.contains(
                        "<D:href>/dav/calendars/anna/work/</D:href><D:status>HTTP/1.1 507 Insufficient Storage</D:status><D:error><D:number-of-matches-within-limits/></D:error>"
                    ))
            }
            seen.formUnion(Self.hrefs(in: page.text).filter { $0.hasSuffix(".ics") })
            if !truncated { break }
            #expect(pages < 10)
        }
        #expect(pages == 3)
        #expect(seen == Set((0..<5).map { "/dav/calendars/anna/work/e\($0).ics" }))
        // Nothing changed since the last page: the next sync is empty.
        #expect(Self.hrefs(in: sync(token).text).isEmpty)
        #expect(sync("", limit: 0).status == 400)
    }

    @Test func alarmTimeRangeSelectsEventsWhoseAlarmFiresThere() {
        #expect(makeCalendar() == 201)
        // Lunch is 11:00Z on 2026-12-01 (12:00 Berlin); its alarm fires 15 minutes before.
        let withAlarm = Self.event.replacingOccurrences(
            of: "END:VEVENT",
            with: "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Lunch\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\nEND:VEVENT")
        #expect(send("PUT", "/dav/calendars/anna/work/lunch.ics", withAlarm).status == 201)
        #expect(send("PUT", "/dav/calendars/anna/work/weekly.ics", Self.weekly).status == 201)
        func alarmQuery(_ start: String, _ end: String) -> [String] {
            Self.hrefs(
                in: send(
                    "REPORT", "/dav/calendars/anna/work/",
                    "<C:calendar-query \(Self.calDAV)><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\">"
                        + "<C:comp-filter name=\"VALARM\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:comp-filter></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>",
                    headers: ["Depth": "1"]
                ).text)
        }
        #expect(alarmQuery("20261201T104000Z", "20261201T105000Z") == ["/dav/calendars/anna/work/lunch.ics"])
        // The event itself is in this range, but its alarm is not.
        #expect(alarmQuery("20261201T110000Z", "20261201T120000Z").isEmpty)
    }

    @Test func limitRecurrenceSetKeepsOnlyTheOverridesThatMatter() throws {
        #expect(makeCalendar() == 201)
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
        #expect(send("PUT", "/dav/calendars/anna/work/yoga.ics", series).status == 201)
        let answer = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<C:calendar-multiget \(Self.calDAV)><D:prop><C:calendar-data><C:limit-recurrence-set start=\"20261207T000000Z\" end=\"20261214T000000Z\"/></C:calendar-data></D:prop>"
                + "<D:href>/dav/calendars/anna/work/yoga.ics</D:href></C:calendar-multiget>")
        #expect(answer.status == 207)
        #expect(answer.text.contains("RRULE:FREQ=WEEKLY;COUNT=6"))
        // Moved within the range, and moved into it from the 22nd: kept. Renamed on the 15th: dropped.
        #expect(answer.text.contains("SUMMARY:Yoga moved"))
        #expect(answer.text.contains("SUMMARY:Yoga early"))
        #expect(!answer.text.contains("SUMMARY:Yoga renamed"))
        // The original time in range counts too: the week of the 14th keeps the renamed one only.
        let later = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<C:calendar-multiget \(Self.calDAV)><D:prop><C:calendar-data><C:limit-recurrence-set start=\"20261214T000000Z\" end=\"20261221T000000Z\"/></C:calendar-data></D:prop>"
                + "<D:href>/dav/calendars/anna/work/yoga.ics</D:href></C:calendar-multiget>")
        #expect(later.text.contains("SUMMARY:Yoga renamed"))
        #expect(!later.text.contains("SUMMARY:Yoga moved") && !later.text.contains("SUMMARY:Yoga early"))
    }

    @Test(arguments: [
        "<C:time-range start=\"20261201\" end=\"20261202T000000Z\"/>",
        "<C:time-range start=\"20261201T000000\"/>",
        "<C:time-range/>",
    ])
    func malformedTimeRangesAreRefused(range: String) {
        #expect(makeCalendar() == 201)
        let answer = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<C:calendar-query \(Self.calDAV)><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\">\(range)</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>",
            headers: ["Depth": "1"])
        #expect(answer.status == 400)
        #expect(answer.text.contains("<C:valid-filter/>"))
        let expandWithoutEnd = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<C:calendar-query \(Self.calDAV)><D:prop><C:calendar-data><C:expand start=\"20261201T000000Z\"/></C:calendar-data></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\"/></C:filter></C:calendar-query>",
            headers: ["Depth": "1"])
        #expect(expandWithoutEnd.status == 400)
    }

    @Test func objectsCarryLastModified() throws {
        #expect(makeCalendar() == 201)
        let before = Int(Date().timeIntervalSince1970)
        #expect(send("PUT", "/dav/calendars/anna/work/lunch.ics", Self.event).status == 201)
        let read = send("GET", "/dav/calendars/anna/work/lunch.ics")
        let after = Int(Date().timeIntervalSince1970)
        let header = try #require(read.headers["Last-Modified"])
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let parsed = try #require(formatter.date(from: header))
        // HTTP dates have whole seconds: the write's second lies between the two readings.
        #expect((before...after).contains(Int(parsed.timeIntervalSince1970)))
        let propfind = send(
            "PROPFIND", "/dav/calendars/anna/work/",
            "<D:propfind xmlns:D=\"DAV:\"><D:prop><D:getlastmodified/></D:prop></D:propfind>", headers: ["Depth": "1"])
        #expect(propfind.text.contains("<D:getlastmodified>\(header)</D:getlastmodified>"))
    }
}

extension CalDAVTests {
    /// Not legal by RFC 4791 §9.7, but sent by some clients: answered as a range on any component.
    @Test func timeRangeRightUnderVCALENDARIsAnswered() {
        #expect(makeCalendar() == 201)
        #expect(send("PUT", "/dav/calendars/anna/work/lunch.ics", Self.event).status == 201)
        #expect(send("PUT", "/dav/calendars/anna/work/weekly.ics", Self.weekly).status == 201)
        let answer = send(
            "REPORT", "/dav/calendars/anna/work/",
            "<C:calendar-query \(Self.calDAV)><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\">"
                + "<C:time-range start=\"20261208T000000Z\" end=\"20261209T000000Z\"/></C:comp-filter></C:filter></C:calendar-query>",
            headers: ["Depth": "1"])
        #expect(Self.hrefs(in: answer.text) == ["/dav/calendars/anna/work/weekly.ics"])
    }

    /// Clients read the compliance classes from PROPFIND answers too (CLIENTS.md, Radicale issue 1338).
    @Test func everyAnswerCarriesTheDAVHeader() {
        #expect(makeCalendar() == 201)
        #expect(
            send("PROPFIND", "/dav/calendars/anna/", "", headers: ["Depth": "1"]).headers["DAV"]
                == "1, 3, calendar-access, extended-mkcol")
        #expect(
            send("GET", "/dav/calendars/anna/work/missing.ics").headers["DAV"]
                == "1, 3, calendar-access, extended-mkcol")
    }
}
