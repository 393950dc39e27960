import AlmanacTesting
import Testing

/// calendar-query filters as RFC 4791 §9.7 defines them: sibling filters are ANDed, the
/// conditions on one component hold on the same instance, and a filter that is not valid
/// is refused (§7.8).
@Suite struct FilterTests {
    static let calendar = "/dav/calendars/anna/work/"

    /// A weekly yoga class on Mondays at 18:00 Berlin from 2026-11-30, four times; the
    /// 2026-12-14 instance is renamed and moved to 19:00.
    static let yoga =
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"] + TestZones.berlin + [
            "BEGIN:VEVENT", "UID:yoga@test", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Europe/Berlin:20261130T180000",
            "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Yoga", "END:VEVENT",
            "BEGIN:VEVENT", "UID:yoga@test", "DTSTAMP:20261101T000000Z",
            "RECURRENCE-ID;TZID=Europe/Berlin:20261214T180000",
            "DTSTART;TZID=Europe/Berlin:20261214T190000", "DURATION:PT1H", "SUMMARY:Yoga moved", "END:VEVENT",
            "END:VCALENDAR", "",
        ]).joined(separator: "\r\n")

    /// A one-off lunch with its VTIMEZONE.
    static let lunch = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN",
        "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0200",
        "TZOFFSETTO:+0100", "END:STANDARD", "END:VTIMEZONE",
        "BEGIN:VEVENT", "UID:lunch@test", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Europe/Berlin:20261208T120000",
        "DURATION:PT1H", "SUMMARY:Lunch", "END:VEVENT", "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    func calendar(_ setup: ServerSetup) throws -> DAVClient {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put(Self.calendar + "yoga.ics", Self.yoga).status == 201)
        #expect(try dav.put(Self.calendar + "lunch.ics", Self.lunch).status == 201)
        return dav
    }

    func hrefs(_ dav: DAVClient, _ members: String) throws -> [String] {
        let answer = try dav.calendarQuery(
            Self.calendar, filter: "<C:comp-filter name=\"VCALENDAR\">\(members)</C:comp-filter>")
        #expect(answer.status == 207)
        return try answer.multistatus().hrefs.sorted()
    }

    static func week(_ start: String, _ end: String, _ conditions: String = "") -> String {
        "<C:comp-filter name=\"VEVENT\"><C:time-range start=\"\(start)\" end=\"\(end)\"/>\(conditions)</C:comp-filter>"
    }

    static func summary(_ text: String) -> String {
        "<C:prop-filter name=\"SUMMARY\"><C:text-match collation=\"i;octet\">\(text)</C:text-match></C:prop-filter>"
    }

    @Test(arguments: ServerSetup.everyStore) func siblingComponentFiltersAreAnded(_ setup: ServerSetup) throws {
        let dav = try calendar(setup)
        // An event in UTC needs no VTIMEZONE.
        let utc = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:utc@test",
            "DTSTAMP:20261101T000000Z", "DTSTART:20261209T120000Z", "DURATION:PT1H", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        #expect(try dav.put(Self.calendar + "utc.ics", utc).status == 201)
        // RFC 4791 §9.7.1: a comp-filter matches when all its child filters match.
        #expect(
            try hrefs(dav, "<C:comp-filter name=\"VEVENT\"/><C:comp-filter name=\"VTIMEZONE\"/>") == [
                Self.calendar + "lunch.ics", Self.calendar + "yoga.ics",
            ])
        #expect(
            try hrefs(dav, "<C:comp-filter name=\"VEVENT\"/>") == [
                Self.calendar + "lunch.ics", Self.calendar + "utc.ics", Self.calendar + "yoga.ics",
            ])
        #expect(
            try hrefs(
                dav,
                "<C:comp-filter name=\"VEVENT\"/><C:comp-filter name=\"VTIMEZONE\"><C:is-not-defined/></C:comp-filter>")
                == [Self.calendar + "utc.ics"])
    }

    @Test(arguments: ServerSetup.everyStore) func aTimeRangeAndAPropertyFilterHoldOnTheSameInstance(
        _ setup: ServerSetup
    ) throws {
        let dav = try calendar(setup)
        let yoga = Self.calendar + "yoga.ics"
        // The week of 2026-12-14 holds only the renamed instance: its own SUMMARY counts.
        #expect(try hrefs(dav, Self.week("20261214T000000Z", "20261221T000000Z", Self.summary("Yoga moved"))) == [yoga])
        let notMoved =
            "<C:prop-filter name=\"SUMMARY\"><C:text-match negate-condition=\"yes\">moved</C:text-match></C:prop-filter>"
        #expect(try hrefs(dav, Self.week("20261214T000000Z", "20261221T000000Z", notMoved)) == [])
        // (The lunch on 2026-12-08 is in that week too, and is not "moved" either.)
        #expect(
            try hrefs(dav, Self.week("20261207T000000Z", "20261214T000000Z", notMoved)) == [
                Self.calendar + "lunch.ics", yoga,
            ])
        // Another week holds only the master's instances: the renamed one is not there.
        #expect(try hrefs(dav, Self.week("20261207T000000Z", "20261214T000000Z", Self.summary("moved"))) == [])
        #expect(
            try hrefs(dav, Self.week("20261207T000000Z", "20261214T000000Z", Self.summary("Yoga"))) == [
                yoga
            ])
        // A time range on DTSTART reads the instance's start (18:00 Berlin is 17:00Z on
        // 2026-12-07; the moved one is 18:00Z on 2026-12-14), not the master's first one.
        let dtstart = { (start: String, end: String) in
            "<C:prop-filter name=\"DTSTART\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:prop-filter>"
        }
        #expect(
            try hrefs(
                dav,
                Self.week("20261207T000000Z", "20261214T000000Z", dtstart("20261207T170000Z", "20261207T170001Z")))
                == [yoga])
        #expect(
            try hrefs(
                dav,
                Self.week("20261214T000000Z", "20261221T000000Z", dtstart("20261214T180000Z", "20261214T180001Z")))
                == [yoga])
        #expect(
            try hrefs(
                dav,
                Self.week("20261214T000000Z", "20261221T000000Z", dtstart("20261214T170000Z", "20261214T170001Z")))
                == [])
    }

    @Test(arguments: ServerSetup.everyStore) func propertyTimeRangesConsiderEveryInstance(_ setup: ServerSetup) throws {
        let dav = try calendar(setup)
        let yoga = Self.calendar + "yoga.ics"
        func property(_ name: String, _ start: String, _ end: String) -> String {
            "<C:comp-filter name=\"VEVENT\"><C:prop-filter name=\"\(name)\"><C:time-range start=\"\(start)\" end=\"\(end)\"/>"
                + "</C:prop-filter></C:comp-filter>"
        }
        // RFC 4791 §9.9: "Time range tests MUST consider every recurrence instance", also on a
        // property with no time range on its component: the second instance starts 17:00Z on 7 Dec.
        #expect(try hrefs(dav, property("DTSTART", "20261207T165900Z", "20261207T170100Z")) == [yoga])
        // The moved instance starts at 18:00Z on 14 Dec; at its original 17:00Z nothing starts.
        #expect(try hrefs(dav, property("DTSTART", "20261214T175900Z", "20261214T180100Z")) == [yoga])
        #expect(try hrefs(dav, property("DTSTART", "20261214T165900Z", "20261214T170100Z")) == [])
        // No DTEND, but DURATION: the "effective" DTEND (DTSTART+DURATION) is tested, 18:00Z on 30 Nov.
        #expect(try hrefs(dav, property("DTEND", "20261130T175900Z", "20261130T180100Z")) == [yoga])
        #expect(try hrefs(dav, property("DTEND", "20261130T180100Z", "20261130T190000Z")) == [])
    }

    @Test(arguments: [
        // is-not-defined stands alone (RFC 4791 §9.7.1).
        "<C:comp-filter name=\"VEVENT\"><C:is-not-defined/><C:time-range start=\"20261201T000000Z\"/></C:comp-filter>",
        "<C:comp-filter name=\"VEVENT\"><C:prop-filter name=\"SUMMARY\"><C:is-not-defined/><C:text-match>x</C:text-match></C:prop-filter></C:comp-filter>",
        // A component inside one that cannot hold it (RFC 4791 §7.8's own example).
        "<C:comp-filter name=\"VEVENT\"><C:comp-filter name=\"VEVENT\"/></C:comp-filter>",
        "<C:comp-filter name=\"VTODO\"><C:comp-filter name=\"STANDARD\"/></C:comp-filter>",
        // Filters name what they filter.
        "<C:comp-filter name=\"VEVENT\"><C:prop-filter/></C:comp-filter>",
        "<C:comp-filter/>",
        // A time range has a start or an end (RFC 4791 §9.9), and "end MUST be greater than start".
        "<C:comp-filter name=\"VEVENT\"><C:prop-filter name=\"DTSTAMP\"><C:time-range/></C:prop-filter></C:comp-filter>",
        "<C:comp-filter name=\"VEVENT\"><C:time-range start=\"20261201T000000Z\" end=\"20261201T000000Z\"/></C:comp-filter>",
        // §7.8's own example: a time range cannot be nested in a SUMMARY prop-filter (§9.9 lists the date properties).
        "<C:comp-filter name=\"VEVENT\"><C:prop-filter name=\"SUMMARY\"><C:time-range start=\"20261201T000000Z\"/></C:prop-filter></C:comp-filter>",
    ])
    func filtersThatAreNotValidAre403ValidFilter(members: String) throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let answer = try dav.calendarQuery(
            Self.calendar, filter: "<C:comp-filter name=\"VCALENDAR\">\(members)</C:comp-filter>")
        // RFC 4791 §7.8: (CALDAV:valid-filter): The CALDAV:filter XML element (see Section 9.7)
        // specified in the REPORT request MUST be valid.
        #expect(answer.status == 403)
        #expect(answer.precondition == .caldav("valid-filter"))
    }

    @Test func aFilterIsOneVCalendarCompFilter() throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        for filter in [
            "<C:comp-filter name=\"VCALENDAR\"/><C:comp-filter name=\"VCALENDAR\"/>",
            "<C:comp-filter name=\"VEVENT\"/>",
            "",
        ] {
            let answer = try dav.calendarQuery(Self.calendar, filter: filter)
            #expect(answer.status == 403 && answer.precondition == .caldav("valid-filter"), "\(filter)")
        }
    }
}

/// Time zones set on a calendar (RFC 4791 §5.2.2).
@Suite struct CalendarTimezoneTests {
    static let berlin = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
        "BEGIN:STANDARD", "DTSTART:19701025T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "END:STANDARD",
        "END:VTIMEZONE", "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    @Test(arguments: ServerSetup.everyTransport) func anInvalidCalendarTimezoneIsRefusedAndNothingChanges(
        _ setup: ServerSetup
    ) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let calendar = FilterTests.calendar
        let timezone = DAVName.caldav("calendar-timezone")
        // RFC 4791 §5.2.2 (CALDAV:valid-calendar-data): the time zone MUST be a valid iCalendar
        // object containing a single valid VTIMEZONE component.
        for invalid in ["not iCalendar", "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n"] {
            let answer = try dav.proppatch(
                calendar, set: [(timezone, invalid), (.dav("displayname"), "Renamed")]
            ).multistatus()
            let statuses = try #require(answer.response(calendar)).propstats.map(\.status).sorted()
            // Atomic: the good change fails with it (424 Failed Dependency).
            #expect(statuses == [403, 424])
        }
        let unchanged = try dav.propfind(calendar, props: [timezone, .dav("displayname")]).multistatus()
        #expect(unchanged.response(calendar)?.property(.dav("displayname"))?.text != "Renamed")
        // A valid one is taken.
        let valid = try dav.proppatch(calendar, set: [(timezone, Self.berlin)]).multistatus()
        #expect(try #require(valid.response(calendar)).propstats.map(\.status) == [200])
    }
}

/// The request's time zone (RFC 4791 §9.8): floating and all-day times of a
/// calendar-query are read in `CALDAV:timezone`, else in the calendar's
/// `calendar-timezone`, else in UTC.
@Suite struct QueryTimeZoneTests {
    /// Breakfast at 09:00 floating time on 2026-12-10: 08:00Z in Berlin, 09:00Z in UTC.
    static let breakfast = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:breakfast@test",
        "DTSTAMP:20261101T000000Z", "DTSTART:20261210T090000", "DURATION:PT30M", "SUMMARY:Breakfast", "END:VEVENT",
        "END:VCALENDAR", "",
    ].joined(separator: "\r\n")

    func query(_ dav: DAVClient, timezone: String?, prop: String = "<D:getetag/>") throws -> DAVAnswer {
        try dav.calendarQuery(
            FilterTests.calendar, prop: prop,
            filter: "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\">"
                + "<C:time-range start=\"20261210T073000Z\" end=\"20261210T083000Z\"/></C:comp-filter></C:comp-filter>",
            timezone: timezone)
    }

    @Test(arguments: ServerSetup.everyStore) func floatingTimesAreReadInTheRequestsZone(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put(FilterTests.calendar + "breakfast.ics", Self.breakfast).status == 201)
        let breakfast = FilterTests.calendar + "breakfast.ics"
        // Without a zone anywhere, floating 09:00 is 09:00Z: outside 07:30Z–08:30Z.
        #expect(try query(dav, timezone: nil).multistatus().hrefs == [])
        // In the request's Berlin, it is 08:00Z: inside, and expanded to that instant.
        #expect(try query(dav, timezone: CalendarTimezoneTests.berlin).multistatus().hrefs == [breakfast])
        let expanded = try query(
            dav, timezone: CalendarTimezoneTests.berlin,
            prop: "<C:calendar-data><C:expand start=\"20261210T000000Z\" end=\"20261211T000000Z\"/></C:calendar-data>")
        let data = try #require(expanded.multistatus().response(breakfast)?.property(.caldav("calendar-data"))?.text)
        #expect(data.contains("DTSTART:20261210T080000Z"))
        // The calendar's own calendar-timezone serves when the request names none.
        #expect(
            try dav.proppatch(FilterTests.calendar, set: [(.caldav("calendar-timezone"), CalendarTimezoneTests.berlin)])
                .status == 207)
        #expect(try query(dav, timezone: nil).multistatus().hrefs == [breakfast])
        // RFC 4791 §7.8 (CALDAV:valid-calendar-data): the time zone must be one VTIMEZONE.
        let invalid = try query(dav, timezone: "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n")
        #expect(invalid.status == 403 && invalid.precondition == .caldav("valid-calendar-data"))
    }
}

/// `expand` (RFC 4791 §9.6.5): each instance with its times in UTC and its
/// RECURRENCE-ID, every other property as sent.
@Suite struct ExpandTests {
    func expanded(_ dav: DAVClient, _ name: String, _ start: String, _ end: String) throws -> String {
        let answer = try dav.calendarQuery(
            FilterTests.calendar,
            prop: "<C:calendar-data><C:expand start=\"\(start)\" end=\"\(end)\"/></C:calendar-data>",
            filter:
                "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:comp-filter></C:comp-filter>"
        )
        let response = try #require(answer.multistatus().response(FilterTests.calendar + name))
        return try #require(response.property(.caldav("calendar-data"))?.text)
    }

    @Test func durationIsKeptAsSentAndEveryInstanceHasItsRecurrenceID() throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put(FilterTests.calendar + "yoga.ics", FilterTests.yoga).status == 201)
        let data = try expanded(dav, "yoga.ics", "20261130T000000Z", "20261221T000000Z")
        // (XML reads line ends as LF, so lines are split on either.)
        let lines = data.split(whereSeparator: \.isNewline).map(String.init)
        // Three instances (30 Nov, 7 Dec, the moved 14 Dec), each with DURATION:PT1H and no DTEND.
        #expect(lines.filter { $0 == "BEGIN:VEVENT" }.count == 3)
        #expect(lines.filter { $0 == "DURATION:PT1H" }.count == 3)
        #expect(!lines.contains { $0.hasPrefix("DTEND") } && !lines.contains { $0.hasPrefix("RRULE") })
        #expect(lines.filter { $0.hasPrefix("RECURRENCE-ID:") }.count == 3)
        // 18:00 Berlin is 17:00Z; the moved instance starts at 19:00 Berlin, 18:00Z.
        #expect(lines.contains("DTSTART:20261130T170000Z") && lines.contains("DTSTART:20261214T180000Z"))
        #expect(lines.contains("RECURRENCE-ID:20261214T170000Z"))
    }

    @Test func aNominalDurationAcrossADSTChangeBecomesTheInstancesEnd() throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // P1D from 12:00 Berlin on 2026-10-24 ends at 12:00 on the 25th, after clocks went back:
        // 25 hours, which DURATION:P1D from a UTC start would not say.
        let body =
            (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"] + TestZones.berlin + [
                "BEGIN:VEVENT", "UID:retreat@test",
                "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Europe/Berlin:20261024T120000", "DURATION:P1D",
                "RRULE:FREQ=WEEKLY;COUNT=2", "END:VEVENT", "END:VCALENDAR", "",
            ]).joined(separator: "\r\n")
        #expect(try dav.put(FilterTests.calendar + "retreat.ics", body).status == 201)
        let lines = try expanded(dav, "retreat.ics", "20261020T000000Z", "20261105T000000Z")
            .split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.contains("DTSTART:20261024T100000Z") && lines.contains("DTEND:20261025T110000Z"))
        // The next week has no DST change: its 24 hours keep DURATION:P1D.
        #expect(lines.contains("DTSTART:20261031T110000Z") && lines.filter { $0 == "DURATION:P1D" }.count == 1)
    }
}

/// Collations (RFC 4791 §7.5): advertised on what calendar-query answers, `default`
/// read as `i;ascii-casemap`, and `i;octet` comparing octets.
@Suite struct CollationTests {
    @Test func collationsAreAdvertisedDefaultIsASCIICasemapAndOctetComparesBytes() throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // "Café" with a precomposed é (U+00E9).
        let body = FreeBusyQueryTests.event(
            "cafe", "20261210T090000Z", "20261210T100000Z", ["SUMMARY:Caf\u{00E9} with Anna"])
        let cafe = FilterTests.calendar + "cafe.ics"
        #expect(try dav.put(cafe, body).status == 201)
        // §7.5.1: the property is on every resource that answers calendar-query, and protected.
        for path in [FilterTests.calendar, cafe] {
            let found = try dav.propfind(path, props: [.caldav("supported-collation-set")]).multistatus()
            let set = try #require(found.response(path)?.property(.caldav("supported-collation-set")), "\(path)")
            #expect(
                set.children.map(\.text).sorted() == ["i;ascii-casemap", "i;octet", "i;unicode-casemap"], "\(path)")
        }
        let patch = try dav.proppatch(FilterTests.calendar, set: [(.caldav("supported-collation-set"), "")])
        #expect(try patch.multistatus().response(FilterTests.calendar)?.propstats.map(\.status) == [403])
        func matches(_ text: String, collation: String) throws -> Bool {
            let answer = try dav.calendarQuery(
                FilterTests.calendar,
                filter:
                    "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"><C:prop-filter name=\"SUMMARY\">"
                    + "<C:text-match collation=\"\(collation)\">\(text)</C:text-match></C:prop-filter></C:comp-filter></C:comp-filter>"
            )
            #expect(answer.status == 207, "\(collation)")
            return try answer.multistatus().hrefs == [cafe]
        }
        // RFC 4790 §3.1: "default" is the server's default, which §7.5 makes i;ascii-casemap.
        #expect(try matches("WITH ANNA", collation: "default"))
        #expect(try !matches("WITH ANNA", collation: "i;octet"))
        // i;octet compares octets: a decomposed é (e + U+0301) is other bytes than the stored one.
        #expect(try matches("Caf\u{00E9}", collation: "i;octet"))
        #expect(try !matches("Cafe\u{0301}", collation: "i;octet"))
    }
}
