import AlmanacTesting
import Testing

/// Partial retrieval (RFC 4791 §9.6.1–§9.6.4): calendar-data's `comp`, `prop`,
/// `allcomp`, `allprop` and `novalue` return only what was asked, also with `expand`
/// and `limit-recurrence-set`, in every report that answers calendar data.
@Suite struct CalendarDataTests {
    static let calendar = FilterTests.calendar
    static let lunch = calendar + "lunch.ics"
    static let yoga = calendar + "yoga.ics"

    /// The calendar-data of each object a calendar-query for every event answers, split into lines.
    func data(_ dav: DAVClient, _ calendarData: String) throws -> [String: [String]] {
        let answer = try dav.calendarQuery(
            Self.calendar, prop: calendarData,
            filter: "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"/></C:comp-filter>")
        #expect(answer.status == 207)
        var result: [String: [String]] = [:]
        for href in try answer.multistatus().hrefs {
            let text = try answer.multistatus().response(href)?.property(.caldav("calendar-data"))?.text ?? ""
            // (XML reads line ends as LF, so lines are split on either.)
            result[href] = text.split(whereSeparator: \.isNewline).map(String.init)
        }
        return result
    }

    @Test(arguments: ServerSetup.everyStore) func theRFCsExampleReturnsOnlyWhatItNames(_ setup: ServerSetup) throws {
        let dav = try FilterTests().calendar(setup)
        // RFC 4791 §7.8.1's request: VERSION of the VCALENDAR, some VEVENT properties, and the VTIMEZONE.
        let objects = try data(
            dav,
            """
            <C:calendar-data><C:comp name="VCALENDAR"><C:prop name="VERSION"/>\
            <C:comp name="VEVENT"><C:prop name="SUMMARY"/><C:prop name="UID"/><C:prop name="DTSTART"/>\
            <C:prop name="DTEND"/><C:prop name="DURATION"/><C:prop name="RRULE"/><C:prop name="RDATE"/>\
            <C:prop name="EXRULE"/><C:prop name="EXDATE"/><C:prop name="RECURRENCE-ID"/></C:comp>\
            <C:comp name="VTIMEZONE"/></C:comp></C:calendar-data>
            """)
        let lunch = try #require(objects[Self.lunch])
        #expect(
            lunch == [
                "BEGIN:VCALENDAR", "VERSION:2.0",
                // An empty comp keeps its component whole (the example answers the whole VTIMEZONE).
                "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "BEGIN:STANDARD", "DTSTART:19701025T030000",
                "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE",
                // DTSTAMP and PRODID were not asked for.
                "BEGIN:VEVENT", "UID:lunch@test", "DTSTART;TZID=Europe/Berlin:20261208T120000", "DURATION:PT1H",
                "SUMMARY:Lunch", "END:VEVENT", "END:VCALENDAR",
            ])
        let yoga = try #require(objects[Self.yoga])
        // The master and its override, each with only the named properties it has.
        #expect(yoga.filter { $0 == "BEGIN:VEVENT" }.count == 2)
        #expect(yoga.contains("RRULE:FREQ=WEEKLY;COUNT=4"))
        #expect(yoga.contains("RECURRENCE-ID;TZID=Europe/Berlin:20261214T180000"))
        #expect(!yoga.contains { $0.hasPrefix("DTSTAMP") || $0.hasPrefix("PRODID") })
    }

    @Test func allpropAllcompAndNovalue() throws {
        let dav = try FilterTests().calendar(.inProcess)
        // §9.6.2/§9.6.3: allprop keeps every VCALENDAR property; a comp with only props keeps no
        // subcomponent; no comp VTIMEZONE means no VTIMEZONE. §9.6.4: novalue="yes" keeps the name only.
        let objects = try data(
            dav,
            """
            <C:calendar-data><C:comp name="VCALENDAR"><C:allprop/>\
            <C:comp name="VEVENT"><C:prop name="UID"/><C:prop name="SUMMARY" novalue="yes"/></C:comp>\
            </C:comp></C:calendar-data>
            """)
        #expect(
            objects[Self.lunch] == [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:lunch@test", "SUMMARY:",
                "END:VEVENT", "END:VCALENDAR",
            ])
        // allcomp keeps every component whole when its own properties are named.
        let whole = try data(
            dav,
            "<C:calendar-data><C:comp name=\"VCALENDAR\"><C:prop name=\"VERSION\"/><C:allcomp/></C:comp></C:calendar-data>"
        )
        let lunch = try #require(whole[Self.lunch])
        #expect(lunch.prefix(3) == ["BEGIN:VCALENDAR", "VERSION:2.0", "BEGIN:VTIMEZONE"])
        #expect(lunch.contains("DTSTAMP:20261101T000000Z") && !lunch.contains { $0.hasPrefix("PRODID") })
    }

    @Test func partialDataAppliesToExpandedAndLimitedInstances() throws {
        let dav = try FilterTests().calendar(.inProcess)
        // §9.6.5 with §9.6.1: the instances of 30 Nov–21 Dec, each with only its SUMMARY, times and id.
        let expanded = try data(
            dav,
            """
            <C:calendar-data><C:comp name="VCALENDAR"><C:comp name="VEVENT"><C:prop name="SUMMARY"/>\
            <C:prop name="DTSTART"/><C:prop name="RECURRENCE-ID"/></C:comp></C:comp>\
            <C:expand start="20261130T000000Z" end="20261221T000000Z"/></C:calendar-data>
            """)
        let yoga = try #require(expanded[Self.yoga])
        #expect(yoga.filter { $0 == "BEGIN:VEVENT" }.count == 3)
        #expect(yoga.filter { $0.hasPrefix("RECURRENCE-ID:") }.count == 3)
        #expect(yoga.contains("SUMMARY:Yoga moved") && yoga.contains("DTSTART:20261214T180000Z"))
        #expect(!yoga.contains { $0.hasPrefix("DURATION") || $0.hasPrefix("UID") || $0.hasPrefix("VERSION") })
        // §9.6.6: limit-recurrence-set to the first week drops the 14 Dec override, then the
        // selection keeps each component's UID.
        let limited = try data(
            dav,
            """
            <C:calendar-data><C:comp name="VCALENDAR"><C:comp name="VEVENT"><C:prop name="UID"/>\
            <C:prop name="RECURRENCE-ID"/></C:comp></C:comp>\
            <C:limit-recurrence-set start="20261130T000000Z" end="20261207T000000Z"/></C:calendar-data>
            """)
        #expect(
            limited[Self.yoga] == ["BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:yoga@test", "END:VEVENT", "END:VCALENDAR"])
    }

    @Test func multigetAndSyncCollectionAnswerPartialDataToo() throws {
        let dav = try FilterTests().calendar(.inProcess)
        let uidOnly =
            "<C:calendar-data><C:comp name=\"VCALENDAR\"><C:comp name=\"VEVENT\"><C:prop name=\"UID\"/></C:comp></C:comp></C:calendar-data>"
        let expected = ["BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:lunch@test", "END:VEVENT", "END:VCALENDAR"]
        let multiget = try dav.multiget(Self.calendar, prop: uidOnly, hrefs: [Self.lunch]).multistatus()
        let fromMultiget = multiget.response(Self.lunch)?.property(.caldav("calendar-data"))?.text
        #expect(fromMultiget?.split(whereSeparator: \.isNewline).map(String.init) == expected)
        let sync = try dav.report(
            Self.calendar,
            "<D:sync-collection xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:sync-token/>"
                + "<D:sync-level>1</D:sync-level><D:prop>\(uidOnly)</D:prop></D:sync-collection>"
        ).multistatus()
        let fromSync = sync.response(Self.lunch)?.property(.caldav("calendar-data"))?.text
        #expect(fromSync?.split(whereSeparator: \.isNewline).map(String.init) == expected)
    }

    @Test(arguments: [
        // §9.6.1: comp needs a name; allprop and prop (allcomp and comp) exclude each other.
        "<C:comp><C:allprop/></C:comp>",
        "<C:comp name=\"VCALENDAR\"><C:allprop/><C:prop name=\"VERSION\"/></C:comp>",
        "<C:comp name=\"VCALENDAR\"><C:allcomp/><C:comp name=\"VEVENT\"/></C:comp>",
        // §9.6.4: prop needs a name, and novalue is yes or no.
        "<C:comp name=\"VCALENDAR\"><C:prop/></C:comp>",
        "<C:comp name=\"VCALENDAR\"><C:prop name=\"VERSION\" novalue=\"maybe\"/></C:comp>",
        // §9.6: calendar data is selected from the VCALENDAR.
        "<C:comp name=\"VEVENT\"/>",
        // §9.6: expand or limit-recurrence-set, not both; each limit has start and end.
        "<C:expand start=\"20261130T000000Z\" end=\"20261207T000000Z\"/><C:limit-recurrence-set start=\"20261130T000000Z\" end=\"20261207T000000Z\"/>",
        "<C:limit-freebusy-set start=\"20261130T000000Z\"/>",
        // §9.6.5: "end MUST be greater than start".
        "<C:expand start=\"20261207T000000Z\" end=\"20261130T000000Z\"/>",
    ])
    func malformedCalendarDataIsRefused(_ content: String) throws {
        let dav = try FilterTests().calendar(.inProcess)
        let answer = try dav.calendarQuery(
            Self.calendar, prop: "<C:calendar-data>\(content)</C:calendar-data>",
            filter: "<C:comp-filter name=\"VCALENDAR\"/>")
        #expect(answer.status == 400)
    }

    @Test func limitFreeBusySetIsAccepted() throws {
        let dav = try FilterTests().calendar(.inProcess)
        // §9.6.7: it limits FREEBUSY values; no stored object has a VFREEBUSY, so the data is whole.
        let objects = try data(
            dav,
            "<C:calendar-data><C:limit-freebusy-set start=\"20261130T000000Z\" end=\"20261207T000000Z\"/></C:calendar-data>"
        )
        #expect(objects[Self.lunch]?.contains("SUMMARY:Lunch") == true)
    }
}

/// free-busy-query (RFC 4791 §7.10): periods sorted, one per stretch of one FBTYPE, with
/// floating times in the request's or the calendar's zone.
@Suite struct FreeBusyQueryTests {
    static func event(_ uid: String, _ start: String, _ end: String, _ extra: [String] = []) -> String {
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:\(uid)",
            "DTSTAMP:20261101T000000Z", "DTSTART:\(start)", "DTEND:\(end)",
        ] + extra + ["END:VEVENT", "END:VCALENDAR", ""])
        .joined(separator: "\r\n")
    }

    func periods(_ answer: DAVAnswer) -> [String] {
        answer.text.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("FREEBUSY") }
    }

    @Test(arguments: ServerSetup.everyStore) func periodsAreMergedDeduplicatedAndSorted(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup, now: { 1_800_000_000 }).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let events: [(String, String, String, [String])] = [
            // Put in an order that is neither by time nor by name.
            ("c", "20261201T140000Z", "20261201T150000Z", ["STATUS:TENTATIVE"]),
            ("a", "20261201T100000Z", "20261201T110000Z", []),
            ("b", "20261201T100000Z", "20261201T110000Z", []),  // the same period twice
            ("d", "20261201T103000Z", "20261201T113000Z", []),  // overlaps a and b
            ("e", "20261201T113000Z", "20261201T120000Z", []),  // touches d
            ("f", "20261201T080000Z", "20261201T090000Z", []),
            ("g", "20261201T143000Z", "20261201T160000Z", ["STATUS:TENTATIVE"]),
            ("h", "20261201T120000Z", "20261201T130000Z", ["TRANSP:TRANSPARENT"]),
            ("i", "20261201T130000Z", "20261201T133000Z", ["STATUS:CANCELLED"]),
        ]
        for (uid, start, end, extra) in events {
            #expect(try dav.put(FilterTests.calendar + "\(uid).ics", Self.event(uid, start, end, extra)).status == 201)
        }
        let answer = try dav.freeBusy(FilterTests.calendar, start: "20261201T000000Z", end: "20261202T000000Z")
        #expect(answer.status == 200)
        #expect(
            periods(answer) == [
                "FREEBUSY;FBTYPE=BUSY:20261201T080000Z/20261201T090000Z",
                "FREEBUSY;FBTYPE=BUSY:20261201T100000Z/20261201T120000Z",
                "FREEBUSY;FBTYPE=BUSY-TENTATIVE:20261201T140000Z/20261201T160000Z",
            ])
        // DTSTAMP says when the answer was made (RFC 5545 §3.8.7.2): the server's clock.
        #expect(answer.text.contains("DTSTAMP:20270115T080000Z"))
    }

    @Test(arguments: ServerSetup.everyStore) func floatingTimesAreReadInTheRequestsOrTheCalendarsZone(
        _ setup: ServerSetup
    ) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // 09:00–09:30 floating: 08:00Z in Berlin's winter, 09:00Z in UTC.
        #expect(
            try dav.put(
                FilterTests.calendar + "breakfast.ics", Self.event("breakfast", "20261210T090000", "20261210T093000")
            ).status == 201)
        func query(zone: String?) throws -> [String] {
            let timezone = zone.map { "<C:timezone>\($0)</C:timezone>" } ?? ""
            return periods(
                try dav.report(
                    FilterTests.calendar,
                    "<C:free-busy-query xmlns:C=\"urn:ietf:params:xml:ns:caldav\">"
                        + "<C:time-range start=\"20261210T000000Z\" end=\"20261211T000000Z\"/>\(timezone)</C:free-busy-query>"
                ))
        }
        #expect(try query(zone: nil) == ["FREEBUSY;FBTYPE=BUSY:20261210T090000Z/20261210T093000Z"])
        #expect(
            try query(zone: CalendarTimezoneTests.berlin) == ["FREEBUSY;FBTYPE=BUSY:20261210T080000Z/20261210T083000Z"])
        // §7.10: without one in the request, the calendar's calendar-timezone places floating times.
        #expect(
            try dav.proppatch(FilterTests.calendar, set: [(.caldav("calendar-timezone"), CalendarTimezoneTests.berlin)])
                .status == 207)
        #expect(try query(zone: nil) == ["FREEBUSY;FBTYPE=BUSY:20261210T080000Z/20261210T083000Z"])
    }
}

/// A VALARM time range (RFC 4791 §9.9) reads a floating event's alarm in the request's zone.
@Suite struct AlarmTimeRangeZoneTests {
    @Test(arguments: ServerSetup.everyStore) func alarmsOfFloatingEventsFireInTheRequestsZone(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // Floating 09:00 with an alarm 15 minutes before: 08:45 floating, 07:45Z in Berlin, 08:45Z in UTC.
        let body = FreeBusyQueryTests.event(
            "standup", "20261210T090000", "20261210T091500",
            ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Standup", "TRIGGER:-PT15M", "END:VALARM"])
        #expect(try dav.put(FilterTests.calendar + "standup.ics", body).status == 201)
        func query(zone: String?) throws -> [String] {
            try dav.calendarQuery(
                FilterTests.calendar,
                filter:
                    "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"><C:comp-filter name=\"VALARM\">"
                    + "<C:time-range start=\"20261210T073000Z\" end=\"20261210T080000Z\"/>"
                    + "</C:comp-filter></C:comp-filter></C:comp-filter>",
                timezone: zone
            ).multistatus().hrefs
        }
        #expect(try query(zone: nil) == [])
        #expect(try query(zone: CalendarTimezoneTests.berlin) == [FilterTests.calendar + "standup.ics"])
    }
}

/// A report's body may ask `DAV:allprop` or `DAV:propname` instead of `DAV:prop`
/// (RFC 4791 §9.5, §9.10), as PROPFIND's does.
@Suite struct ReportPropertyTests {
    @Test func allpropAndPropnameAnswerEveryObjectProperty() throws {
        let dav = try FilterTests().calendar(.inProcess)
        func report(_ request: String) throws -> DAVAnswer {
            try dav.report(
                FilterTests.calendar, depth: "1",
                "<C:calendar-multiget xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\">\(request)"
                    + "<D:href>\(CalendarDataTests.lunch)</D:href></C:calendar-multiget>")
        }
        let all = try #require(report("<D:allprop/>").multistatus().response(CalendarDataTests.lunch))
        #expect(all.property(.dav("getetag"))?.text.isEmpty == false)
        #expect(all.property(.dav("getcontenttype"))?.text.hasPrefix("text/calendar") == true)
        #expect(all.propstats.map(\.status) == [200])
        let names = try #require(report("<D:propname/>").multistatus().response(CalendarDataTests.lunch))
        // The same names, each without its value (RFC 4918 §9.1's propname).
        #expect(names.property(.dav("getetag"))?.text == "")
        #expect(names.property(.dav("getcontenttype")) != nil && names.property(.dav("getcontenttype"))?.text == "")
    }
}
