import CivilTime
import ICalendar
import Testing

/// RFC 5545 §3.3 value types; each example is the RFC's own where it gives one.
@Suite struct ValueTests {
    static func property(_ line: String) throws -> Property {
        let document = try ICalendarParser.parse(
            Support.calendar(event: [line]).replacingFirstDTSTART(when: line.hasPrefix("DTSTART")))
        let event = try #require(document.components.first?.components.first)
        let name = String(line.prefix { $0 != ":" && $0 != ";" }).uppercased()
        return try #require(event.properties(named: name).last)
    }

    // §3.3.5 DATE-TIME, §3.3.4 DATE
    @Test(arguments: [
        ("DTSTART:19980118T230000", 1998, 1, 18, 23, 0, DateTimeForm.floating),
        ("DTSTART:19980119T070000Z", 1998, 1, 19, 7, 0, DateTimeForm.utc),
        (
            "DTSTART;TZID=America/New_York:19980119T020000", 1998, 1, 19, 2, 0,
            DateTimeForm.zoned(tzid: "America/New_York")
        ),
        ("DTSTART;VALUE=DATE:19970714", 1997, 7, 14, -1, -1, DateTimeForm.floating),
    ])
    func dateTimes(line: String, year: Int, month: Int, day: Int, hour: Int, minute: Int, form: DateTimeForm) throws {
        let value = try Self.property(line).dateTimeValue()
        #expect(value.date == CivilDate(year: year, month: month, day: day))
        #expect(value.time == (hour < 0 ? nil : TimeOfDay(hour: hour, minute: minute)))
        #expect(value.form == form)
        let rebuilt = Property(name: "DTSTART", dateTime: value)
        #expect(try rebuilt.dateTimeValue() == value)
    }

    @Test(arguments: [
        "DTSTART:19980119T230000-0800",  // §3.3.5: "the following is NOT valid"
        "DTSTART:20261301T000000", "DTSTART:2026-11-29", "DTSTART:20260230T100000",
        "DTSTART;VALUE=DATE:20261129T100000",
        "DTSTART:20261129T246000",
    ])
    func invalidDateTimes(line: String) {
        let result = ICalendarParser.check(Support.calendar(event: [line]).replacingFirstDTSTART())
        #expect(result.errors.first?.code == .invalidValue, "\(line)")
    }

    // §3.3.6 DURATION
    @Test(arguments: [
        ("P15DT5H0M20S", CalendarDuration(days: 15, hours: 5, minutes: 0, seconds: 20)),
        ("P7W", CalendarDuration(weeks: 7)),
        ("-PT15M", CalendarDuration(isNegative: true, minutes: 15)),
        ("+PT1H30M", CalendarDuration(hours: 1, minutes: 30)),
        ("PT0S", CalendarDuration.zero),
        ("P1D", CalendarDuration(days: 1)),
    ])
    func durations(text: String, expected: CalendarDuration) throws {
        #expect(try Property(name: "DURATION", value: text).durationValue() == expected)
    }

    @Test(arguments: ["P", "PT", "P1H", "PT1D", "P1W2D", "P-1D", "PT1M1H", "1D", "P1DT"])
    func invalidDurations(text: String) {
        #expect(throws: ICalendarError.self) { try Property(name: "DURATION", value: text).durationValue() }
    }

    // §3.3.9 PERIOD
    @Test func periods() throws {
        let freebusy = try Self.property("X-FB;VALUE=PERIOD:19970101T180000Z/19970102T070000Z,19970101T180000Z/PT5H30M")
        let periods = try freebusy.periodValues()
        #expect(periods.count == 2)
        #expect(periods[0].start == DateTimeValue(CivilDateTime(year: 1997, month: 1, day: 1, hour: 18)!, form: .utc))
        #expect(
            periods[0].end
                == .dateTime(DateTimeValue(CivilDateTime(year: 1997, month: 1, day: 2, hour: 7)!, form: .utc)))
        #expect(periods[1].end == .duration(CalendarDuration(hours: 5, minutes: 30)))
        #expect(periods.map(\.icalendarText) == ["19970101T180000Z/19970102T070000Z", "19970101T180000Z/PT5H30M"])
    }

    // §3.3.10 RECUR, with the §3.8.5.3 examples
    @Test func recurrenceRules() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1")
        #expect(rule.frequency == .monthly)
        #expect(rule.byDay.map(\.weekday) == [.monday, .tuesday, .wednesday, .thursday, .friday])
        #expect(rule.bySetPos == [-1])

        let yearly = try RecurrenceRule(parsing: "FREQ=YEARLY;INTERVAL=2;BYMONTH=1;BYDAY=SU;BYHOUR=8,9;BYMINUTE=30")
        #expect(yearly.interval == 2 && yearly.byMonth == [1] && yearly.byHour == [8, 9] && yearly.byMinute == [30])

        let until = try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=19971224T000000Z")
        #expect(until.until == DateTimeValue(CivilDateTime(year: 1997, month: 12, day: 24)!, form: .utc))

        let ordinals = try RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=1FR,-1SU,+2MO")
        #expect(
            ordinals.byDay == [.init(.friday, ordinal: 1), .init(.sunday, ordinal: -1), .init(.monday, ordinal: 2)])

        let weeks = try RecurrenceRule(parsing: "FREQ=YEARLY;BYWEEKNO=20,-1;BYDAY=MO;WKST=SU")
        #expect(weeks.byWeekNo == [20, -1] && weeks.weekStart == .sunday)

        // Google's trailing ';' and lower case are read in both modes.
        let google = try RecurrenceRule(parsing: "freq=weekly;byday=tu,th;")
        #expect(google.frequency == .weekly && google.byDay.map(\.weekday) == [.tuesday, .thursday])

        // Parts beyond RFC 5545 (RFC 7529) are kept.
        let rscale = try RecurrenceRule(parsing: "RSCALE=GREGORIAN;FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;SKIP=FORWARD")
        #expect(rscale.extensions.map(\.name) == ["RSCALE", "SKIP"])
        // Canonical order is RFC 5545's grammar order: BYMONTHDAY comes before BYMONTH.
        #expect(rscale.icalendarText == "FREQ=YEARLY;BYMONTHDAY=29;BYMONTH=2;RSCALE=GREGORIAN;SKIP=FORWARD")
    }

    @Test(arguments: [
        "FREQ=DAILY;COUNT=5;UNTIL=20261231T000000Z",  // COUNT with UNTIL (strict only)
        "FREQ=FORTNIGHTLY", "COUNT=3", "FREQ=DAILY;BYHOUR=24", "FREQ=MONTHLY;BYMONTHDAY=0",
        "FREQ=MONTHLY;BYMONTHDAY=32",
        "FREQ=YEARLY;BYMONTH=13", "FREQ=WEEKLY;BYDAY=XX", "FREQ=WEEKLY;INTERVAL=0", "FREQ=DAILY;COUNT=-1",
        "FREQ=DAILY;FREQ=WEEKLY", "FREQ=DAILY;BYWEEKNO=1", "FREQ=WEEKLY;BYDAY=1MO", "FREQ=WEEKLY;BYMONTHDAY=1",
        "FREQ=MONTHLY;BYYEARDAY=1", "FREQ=YEARLY;BYSETPOS=367",
    ])
    func invalidRulesInStrictMode(text: String) {
        #expect(throws: ICalendarError.self) { try RecurrenceRule(parsing: text, strict: true) }
    }

    @Test func countWithUntilIsAcceptedLeniently() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=DAILY;COUNT=5;UNTIL=20261231", strict: false)
        #expect(rule.count == 5 && rule.until?.isDate == true)
    }

    @Test func ruleRoundTrip() throws {
        let text =
            "FREQ=YEARLY;UNTIL=20301231T235959Z;INTERVAL=2;BYSECOND=0;BYMINUTE=30;BYHOUR=9;BYDAY=-1SU,2MO;BYMONTHDAY=-1,15;BYMONTH=3,10;BYSETPOS=1;WKST=SU"
        let rule = try RecurrenceRule(parsing: text)
        #expect(rule.icalendarText == text)
        #expect(try RecurrenceRule(parsing: rule.icalendarText) == rule)
    }

    // §3.3.11 TEXT
    @Test func text() throws {
        let summary = try Self.property(
            #"DESCRIPTION:Project XYZ Final Review\nConference Room - 3B\nCome Prepared\, please\; bring notes\\pens"#)
        #expect(
            summary.textValue()
                == "Project XYZ Final Review\nConference Room - 3B\nCome Prepared, please; bring notes\\pens")
        let built = Property(name: "SUMMARY", text: "a, b; c\\d\ne")
        #expect(built.value == #"a\, b\; c\\d\ne"#)
        #expect(built.textValue() == "a, b; c\\d\ne")
        let categories = try Self.property(#"CATEGORIES:APPOINTMENT,EDUCATION,comma\, inside"#)
        #expect(categories.textValues() == ["APPOINTMENT", "EDUCATION", "comma, inside"])
        #expect(Property(name: "CATEGORIES", texts: ["a,b", "c"]).textValues() == ["a,b", "c"])
    }

    // §3.3.14 UTC-OFFSET, §3.3.8 INTEGER, §3.3.7 FLOAT, §3.3.2 BOOLEAN, GEO
    @Test func scalarValues() throws {
        #expect(try Property(name: "TZOFFSETFROM", value: "-0500").utcOffsetValue() == UTCOffset(seconds: -18_000))
        #expect(try Property(name: "TZOFFSETTO", value: "+0100").utcOffsetValue() == UTCOffset(seconds: 3600))
        #expect(try Property(name: "TZOFFSETTO", value: "+053045").utcOffsetValue() == UTCOffset(seconds: 19_845))
        #expect(throws: ICalendarError.self) { try Property(name: "TZOFFSETTO", value: "-0000").utcOffsetValue() }
        #expect(throws: ICalendarError.self) { try Property(name: "TZOFFSETTO", value: "0100").utcOffsetValue() }
        #expect(try Property(name: "SEQUENCE", value: "1234567890").integerValue() == 1_234_567_890)
        #expect(try Property(name: "X", value: "-2147483648").integerValue() == -2_147_483_648)
        #expect(throws: ICalendarError.self) { try Property(name: "X", value: "2147483648").integerValue() }
        #expect(try Property(name: "X", value: "1000000.0000001").floatValue() == 1_000_000.000_000_1)
        #expect(try Property(name: "X", value: "-1.5").floatValue() == -1.5)
        #expect(throws: ICalendarError.self) { try Property(name: "X", value: "1.").floatValue() }
        #expect(try Property(name: "X", value: "TRUE").booleanValue() == true)
        #expect(try Property(name: "X", value: "false").booleanValue() == false)
        #expect(
            try Property(name: "GEO", value: "37.386013;-122.082932").geoValue()
                == GeoCoordinate(latitude: 37.386013, longitude: -122.082932))
        #expect(try Property(name: "X", value: "230000Z").timeValue().isUTC)
    }

    // §3.3.3 CAL-ADDRESS, §3.3.13 URI, §3.3.1 BINARY
    @Test func addressesURIsAndBinary() throws {
        #expect(try Self.property("ATTENDEE:mailto:jane_doe@example.com").uriValue() == "mailto:jane_doe@example.com")
        #expect(
            try Self.property("URL:http://example.com/pub/calendars/jsmith/mytime.ics").uriValue().hasPrefix("http:"))
        #expect(
            ICalendarParser.check(Support.calendar(event: ["ORGANIZER:jane at example.com"])).errors.first?.code
                == .invalidValue)
        // The RFC's example decodes to "The quick brown fox jumps over the lazy dog."
        let binary = try Self.property(
            "ATTACH;FMTTYPE=text/plain;ENCODING=BASE64;VALUE=BINARY:VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZy4="
        )
        #expect(
            String(decoding: try binary.binaryValue(), as: UTF8.self) == "The quick brown fox jumps over the lazy dog.")
        let bytes: [UInt8] = (0...255).map { UInt8($0) }
        #expect(try Property(name: "ATTACH", binary: bytes).binaryValue() == bytes)
        #expect(throws: ICalendarError.self) { try Property(name: "ATTACH", value: "abc").binaryValue() }
    }

    // Multi-valued properties
    @Test func exdateAndRdateLists() throws {
        let exdate = try Self.property("EXDATE;TZID=Europe/Berlin:20261201T090000,20261208T090000")
        let values = try exdate.dateTimeValues()
        #expect(values.map(\.form) == [.zoned(tzid: "Europe/Berlin"), .zoned(tzid: "Europe/Berlin")])
        #expect(values.map(\.date.day) == [1, 8])
        let rdate = try Self.property("RDATE;VALUE=DATE:19970101,19970120,19970217")
        #expect(try rdate.dateTimeValues().allSatisfy(\.isDate))
        let built = Property(name: "EXDATE", dateTimes: values)
        #expect(built.value == exdate.value && built.tzid == "Europe/Berlin")
    }

    // RFC 7986
    @Test func rfc7986Properties() throws {
        let bytes = Support.ics([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x", "NAME:Holidays", "COLOR:turquoise",
            "REFRESH-INTERVAL;VALUE=DURATION:P1W", "SOURCE;VALUE=URI:https://example.com/holidays.ics",
            "IMAGE;VALUE=URI;DISPLAY=BADGE;FMTTYPE=image/png:https://example.com/i.png",
            "BEGIN:VEVENT", "UID:1", "DTSTAMP:20261101T120000Z", "DTSTART:20261201T090000Z",
            "CONFERENCE;VALUE=URI;FEATURE=PHONE,MODERATOR;LABEL=Moderator dial-in:tel:+1-412-555-0123,,,654321",
            "END:VEVENT", "END:VCALENDAR",
        ])
        let calendar = try #require(try ICalendarParser.parse(bytes).components.first)
        #expect(try calendar.property("REFRESH-INTERVAL")?.durationValue() == CalendarDuration(weeks: 1))
        #expect(calendar.property("COLOR")?.textValue() == "turquoise")
        #expect(calendar.property("IMAGE")?[parameter: "DISPLAY"] == "BADGE")
        let conference = try #require(calendar.components.first?.property("CONFERENCE"))
        #expect(conference.parameter("FEATURE")?.values == ["PHONE", "MODERATOR"])
        #expect(try conference.uriValue() == "tel:+1-412-555-0123,,,654321")
        #expect(
            ICalendarParser.check(
                Support.ics([
                    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x", "REFRESH-INTERVAL;VALUE=DURATION:weekly",
                    "END:VCALENDAR",
                ])
            ).errors.first?.code == .invalidValue)
    }
}

extension [UInt8] {
    /// The calendar with its default DTSTART line removed, so a test's own DTSTART is the only one.
    func replacingFirstDTSTART(when condition: Bool = true) -> [UInt8] {
        guard condition else { return self }
        let line = Array("DTSTART:20261201T090000Z\r\n".utf8)
        guard let range = firstRange(of: line) else { return self }
        var copy = self
        copy.removeSubrange(range)
        return copy
    }
}
