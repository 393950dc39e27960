import ICalendar
import Testing

@Suite struct SyntaxTests {
    @Test func unfoldingWithSpaceTabAndInsideAUTF8Sequence() throws {
        // "Grüße" with the fold between the two bytes of "ü" (C3 BC): valid once unfolded.
        var bytes = Support.calendar(event: ["SUMMARY:Gr\u{FC}\u{DF}e", "DESCRIPTION:one two"])
        let summary = Array("SUMMARY:Gr".utf8)
        let at = try #require(bytes.firstRange(of: summary)).upperBound
        bytes.insert(contentsOf: [0x0D, 0x0A, 0x20], at: at + 1)  // after 0xC3
        let description = try #require(bytes.firstRange(of: Array("one ".utf8))).upperBound
        bytes.insert(contentsOf: [0x0D, 0x0A, 0x09], at: description)
        let event = try #require(try ICalendarParser.parse(bytes).components.first?.components.first)
        #expect(event.property("SUMMARY")?.textValue() == "Grüße")
        #expect(event.property("DESCRIPTION")?.textValue() == "one two")
    }

    @Test func namesAreCaseInsensitive() throws {
        let bytes = Array(
            "begin:vcalendar\r\nversion:2.0\r\nprodid:x\r\nbegin:vevent\r\nuid:1\r\ndtstamp:20261101T120000Z\r\ndtstart;tzid=Europe/Berlin;value=date-time:20261201T090000\r\nx-Custom;x-Param=v:kept\r\nend:vevent\r\nend:vcalendar\r\n"
                .utf8)
        let calendar = try #require(try ICalendarParser.parse(bytes).components.first)
        #expect(calendar.name == "VCALENDAR")
        let event = try #require(calendar.components.first)
        #expect(event.name == "VEVENT")
        #expect(event.property("DTSTART")?.tzid == "Europe/Berlin")
        #expect(event.property("x-custom")?.parameter("X-PARAM")?.values == ["v"])
        #expect(try event.property("DTSTART")?.dateTimeValue().form == .zoned(tzid: "Europe/Berlin"))
    }

    @Test func quotedParameterValuesHoldSeparators() throws {
        let event = try Support.event([
            #"X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-TITLE="Main St. 1, Berlin; Room: 4":geo:52.5,13.4"#,
            #"ATTENDEE;MEMBER="mailto:a@example.com","mailto:b@example.com";CN=Ann:mailto:ann@example.com"#,
            "X-EMPTY;X-P=:value",
        ])
        let location = try #require(event.property("X-APPLE-STRUCTURED-LOCATION"))
        #expect(location[parameter: "X-TITLE"] == "Main St. 1, Berlin; Room: 4")
        #expect(location.value == "geo:52.5,13.4")
        let attendee = try #require(event.property("ATTENDEE"))
        #expect(attendee.parameter("MEMBER")?.values == ["mailto:a@example.com", "mailto:b@example.com"])
        #expect(attendee[parameter: "CN"] == "Ann")
        #expect(event.property("X-EMPTY")?.parameter("X-P")?.values == [""])
    }

    /// RFC 6868 §3: ^n is a newline, ^^ a caret, ^' a double quote; any other ^ stays.
    @Test(arguments: [
        (#"George Herman ^'Babe^' Ruth"#, "George Herman \"Babe\" Ruth"),
        ("Pittsfield Township^nMI 48103", "Pittsfield Township\nMI 48103"),
        ("caret ^^ here", "caret ^ here"),
        ("unknown ^x stays", "unknown ^x stays"),
        ("trailing ^", "trailing ^"),
    ])
    func caretEscaping(written: String, decoded: String) throws {
        let event = try Support.event(["ATTENDEE;CN=\"\(written)\":mailto:babe@example.com"])
        let attendee = try #require(event.property("ATTENDEE"))
        #expect(attendee[parameter: "CN"] == decoded)
        // And back: the serializer caret-escapes what needs it, and re-reading gives the same value.
        let reparsed = try Support.event([String(decoding: attendee.serializedLine, as: UTF8.self)])
        #expect(reparsed.property("ATTENDEE")?[parameter: "CN"] == decoded)
    }

    @Test func repeatedParameterValuesAreEachChecked() throws {
        // The same long parameter value on several lines: each is read, and each bad one is reported.
        var bytes = Support.calendar(event: [
            "ATTENDEE;CN=Someone With A Long Name:mailto:a@example.com",
            "ATTENDEE;CN=Someone With A Long Name:mailto:b@example.com",
            "ATTENDEE;CN=Broken Long Name XX:mailto:c@example.com",
            "ATTENDEE;CN=Broken Long Name XX:mailto:d@example.com",
        ])
        // Make "XX" an invalid UTF-8 byte pair on both lines.
        for index in bytes.indices.dropLast()
        where bytes[index] == UInt8(ascii: "X") && bytes[index + 1] == UInt8(ascii: "X") {
            bytes[index] = 0xC3
            bytes[index + 1] = 0x28
        }
        let result = ICalendarParser.check(bytes, options: .lenient)
        #expect(result.warnings.filter { $0.code == .invalidUTF8 }.map(\.line) == [10, 11])
        let attendees = try #require(result.document?.components.first?.components.first?.properties(named: "ATTENDEE"))
        #expect(
            attendees.map { $0[parameter: "CN"] } == [
                "Someone With A Long Name", "Someone With A Long Name", "Broken Long Name \u{FFFD}(",
                "Broken Long Name \u{FFFD}(",
            ])
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let document = try ICalendarParser.parse([0xEF, 0xBB, 0xBF] + Support.calendar(event: []))
        #expect(document.components.count == 1)
    }

    @Test func componentsNestToAnyDepthAndUnknownPartsAreKeptExactly() throws {
        let bytes = Support.ics([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x", "X-WR-CALNAME:Work", "BEGIN:VAVAILABILITY",
            "UID:a", "DTSTAMP:20261101T120000Z", "BEGIN:AVAILABLE", "UID:b", "DTSTAMP:20261101T120000Z",
            "DTSTART:20261201T090000Z", "X-UNKNOWN-PROP;X-Q=\"a:b\";IANA-PARAM=z:any value, with commas; and more",
            "BEGIN:X-OUTER", "BEGIN:X-INNER", "X-DEEP:yes", "END:X-INNER", "END:X-OUTER",
            "END:AVAILABLE", "END:VAVAILABILITY", "END:VCALENDAR",
        ])
        let calendar = try #require(try ICalendarParser.parse(bytes).components.first)
        let available = try #require(calendar.components.first?.components.first)
        #expect(available.name == "AVAILABLE")
        let unknown = try #require(available.property("X-UNKNOWN-PROP"))
        #expect(unknown.value == "any value, with commas; and more")
        #expect(unknown.parameters.map(\.name) == ["X-Q", "IANA-PARAM"])
        #expect(available.components.first?.components.first?.property("X-DEEP")?.value == "yes")
        #expect(String(decoding: calendar.serialized(), as: UTF8.self) == String(decoding: bytes, as: UTF8.self))
    }

    @Test func severalCalendarsInOneStream() throws {
        let one = Support.calendar(event: [])
        let document = try ICalendarParser.parse(one + one)
        #expect(document.components.count == 2)
    }

    @Test func lenientModeRecoversAndWarns() throws {
        // Bare LF, a missing VERSION, an unescaped comma in SUMMARY, a fold without its space.
        let text =
            "BEGIN:VCALENDAR\nPRODID:x\nBEGIN:VEVENT\nUID:1\nDTSTAMP:20261101T120000Z\nDTSTART:20261201T090000Z\nSUMMARY:Lunch, then review\nDESCRIPTION:first half\nsecond half\nEND:VEVENT\nEND:VCALENDAR\n"
        #expect(throws: ICalendarError.self) { try ICalendarParser.parse(text) }
        let document = try ICalendarParser.parse(text, options: .lenient)
        let codes = Set(document.warnings.map(\.code))
        #expect(codes == [.invalidLineEnding, .missingProperty, .invalidValue, .missingColon])
        let event = try #require(document.components.first?.components.first)
        #expect(event.property("SUMMARY")?.textValue() == "Lunch, then review")
        #expect(event.property("SUMMARY")?.value == #"Lunch\, then review"#)  // repaired into valid TEXT
        #expect(event.property("DESCRIPTION")?.textValue() == "first halfsecond half")
        // What lenient mode produced is strictly valid once VERSION is added.
        var calendar = document.components[0]
        calendar.properties.insert(Property(name: "VERSION", value: "2.0"), at: 0)
        #expect(throws: Never.self) { try ICalendarParser.parse(calendar.serialized()) }
    }

    @Test func checkReportsEveryProblemWithItsPlace() {
        let bytes = Support.calendar(event: ["DTEND:2026-12-01", "SEQUENCE:two", "SUMMARY:a\\qb"])
        let result = ICalendarParser.check(bytes)
        #expect(result.document == nil)
        // Lines 8, 9, 10 hold the three bad values; columns are their first byte.
        #expect(result.errors.map { [$0.line, $0.column] } == [[8, 7], [9, 10], [10, 9]])
        #expect(result.errors.map(\.property) == ["DTEND", "SEQUENCE", "SUMMARY"])
        // RFC 5545 §3.3.11 names the escapes TEXT may hold; \q is none, and has its own code.
        #expect(result.errors.map(\.code) == [.invalidValue, .invalidValue, .invalidEscape])
        #expect(result.errors.allSatisfy { $0.component == "VEVENT" })
    }

    @Test func limitsStopHostileInput() {
        var limits = ParseOptions.Limits()
        limits.maxComponents = 2
        let three = ICalendarParser.check(
            Support.calendar(event: ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT5M", "END:VALARM"]),
            options: ParseOptions(limits: limits))
        #expect(three.errors.first?.code == .limitExceeded)

        limits = ParseOptions.Limits()
        limits.maxContentLineLength = 100
        let long = ICalendarParser.check(
            Support.calendar(event: ["DESCRIPTION:" + String(repeating: "x", count: 200)]),
            options: ParseOptions(limits: limits))
        #expect(long.errors.first?.code == .limitExceeded)
        #expect(long.errors.first?.line == 8)

        limits = ParseOptions.Limits()
        limits.maxParametersPerProperty = 3
        let parameters = ICalendarParser.check(
            Support.calendar(event: ["X-A;A=1;B=2;C=3;D=4:v"]), options: ParseOptions(limits: limits))
        #expect(parameters.errors.first?.code == .limitExceeded)

        limits = ParseOptions.Limits()
        limits.maxProperties = 4  // the calendar has five
        let properties = ICalendarParser.check(
            Support.calendar(event: []), options: ParseOptions(mode: .lenient, limits: limits))
        #expect(properties.errors.first?.code == .limitExceeded)

        // 10,000 nested components: refused at depth 65, no stack overflow.
        let deep = Support.ics(["BEGIN:VCALENDAR"] + Array(repeating: "BEGIN:X-A", count: 10_000))
        let nested = ICalendarParser.check(deep, options: .lenient)
        #expect(nested.errors.first?.code == .limitExceeded)
        #expect(nested.errors.first?.line == 65)
    }
}

extension Property {
    /// This property as one serialized content line, without its CRLF.
    var serializedLine: [UInt8] {
        var serializer = ICalendarSerializer()
        serializer.write(self)
        return Array(serializer.bytes.dropLast(2))
    }
}
