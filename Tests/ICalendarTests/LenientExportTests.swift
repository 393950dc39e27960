import Foundation
import ICalendar
import Testing

/// The export shapes under Fixtures/lenient-exports (samples written for these tests
/// in the shape each exporter writes): lenient mode recovers from each with the
/// listed warnings, keeps every line it did not recover from byte for byte, and
/// means what the producer meant; strict mode still refuses each file that breaks RFC 5545.
@Suite struct LenientExportTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var file: String
        /// The first strict error's code and line, or nil when the file is valid RFC 5545.
        var strictFirst: (code: ICalendarError.Code, line: Int)?
        /// Every lenient warning, in order, as code and line.
        var warnings: [(code: ICalendarError.Code, line: Int)]
        /// Physical lines of the input that a recovery rewrites or drops.
        var touched: Set<Int>
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        // A valid file: its floating times are a matter of reading (see RecurrenceTests).
        Case(file: "google-floating-x-wr-timezone.ics", strictFirst: nil, warnings: [], touched: []),
        Case(
            file: "holiday-empty-rrule.ics", strictFirst: (.invalidValue, 10),
            warnings: [(.droppedProperty, 10), (.repairedValue, 20)], touched: [10, 20]),
        Case(
            file: "mozilla-sunbird-old.ics", strictFirst: (.invalidLineEnding, 1),
            warnings: [
                (.invalidLineEnding, 1), (.emptyLine, 29), (.missingColon, 31), (.missingColon, 44), (.misspeltEnd, 47),
                (.unclosedComponent, 1),
            ],
            touched: [28, 29, 30, 31, 43, 44, 47]),
        Case(
            file: "outlook-whitespace-and-escapes.ics", strictFirst: (.invalidName, 6),
            warnings: [
                (.repairedLine, 6), (.repairedLine, 10), (.repairedValue, 11), (.repairedValue, 12),
                (.duplicateProperty, 14),
            ],
            touched: [6, 10, 11, 12]),
        Case(
            file: "bare-vevent-download.ics", strictFirst: (.notCalendar, 1),
            warnings: [(.notCalendar, 1), (.missingProperty, 1)], touched: []),
        Case(
            file: "school-feed-without-uids.ics", strictFirst: (.missingProperty, 5),
            warnings: [(.missingProperty, 5), (.missingProperty, 11), (.missingProperty, 17)], touched: []),
    ]

    static func bytes(_ file: String) throws -> [UInt8] {
        try Support.read(Support.fixtures.appendingPathComponent("lenient-exports").appendingPathComponent(file))
    }

    /// The logical lines of iCalendar bytes (folds joined), each with its first physical line.
    static func logicalLines(_ bytes: [UInt8]) -> [(line: Int, text: String)] {
        let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        var result: [(line: Int, text: String)] = []
        for (index, physical) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if let first = physical.first, first == " " || first == "\t", !result.isEmpty {
                result[result.count - 1].text += physical.dropFirst()
            } else {
                result.append((index + 1, String(physical)))
            }
        }
        return result.filter { !$0.text.isEmpty }
    }

    @Test func everyFixtureIsInTheTable() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: Support.fixtures.appendingPathComponent("lenient-exports").path
        ).filter { $0.hasSuffix(".ics") }
        #expect(Set(files) == Set(Self.cases.map(\.file)))
    }

    @Test(arguments: cases)
    func lenientRecoversAndKeepsTheRest(_ expected: Case) throws {
        let input = try Self.bytes(expected.file)
        let strict = ICalendarParser.check(input, options: .strict)
        if let first = expected.strictFirst {
            #expect(strict.document == nil)
            #expect(strict.errors.first?.code == first.code)
            #expect(strict.errors.first?.line == first.line)
        } else {
            #expect(strict.errors.isEmpty, "\(strict.errors)")
        }

        let lenient = ICalendarParser.check(input, options: .lenient)
        let document = try #require(lenient.document, "\(lenient.errors)")
        #expect(lenient.warnings.map(\.code) == expected.warnings.map(\.code), "\(lenient.warnings)")
        #expect(lenient.warnings.map(\.line) == expected.warnings.map(\.line), "\(lenient.warnings)")

        // Every line no recovery touched is in the recovered calendar exactly as it was written.
        let output = Set(Self.logicalLines(document.serialized()).map(\.text))
        for line in Self.logicalLines(input) where !expected.touched.contains(line.line) {
            #expect(output.contains(line.text), "line \(line.line) \(line.text) is kept byte for byte")
        }
        // What was recovered reads back the same, without further warnings about it.
        let again = try ICalendarParser.parse(document.serialized(), options: .lenient)
        #expect(again.components == document.components)
    }

    static func calendar(_ file: String) throws -> Component {
        let document = try ICalendarParser.parse(try bytes(file), options: .lenient)
        #expect(document.components.count == 1)
        return try #require(document.components.first { $0.name == "VCALENDAR" })
    }

    @Test func anEmptyRuleIsDroppedAndAnInvalidCountBesideUntilIsDropped() throws {
        let events = try Self.calendar("holiday-empty-rrule.ics").components(named: "VEVENT")
        #expect(events.count == 2)
        #expect(events[0].property("RRULE") == nil)
        #expect(events[0].property("SUMMARY")?.value == "Neujahr")
        #expect(events[1].properties(named: "RRULE").map(\.value) == ["FREQ=YEARLY;UNTIL=20301225"])
    }

    @Test func oldMozillaFoldsAreJoinedAndAPropertyWithoutValueIsDroppedNotGlued() throws {
        let calendar = try Self.calendar("mozilla-sunbird-old.ics")
        #expect(calendar.components.map(\.name) == ["VTIMEZONE", "VEVENT", "VTODO"])
        let event = try #require(calendar.components(named: "VEVENT").first)
        // The blank line between the property and its continuation is skipped, the fold kept.
        #expect(event.property("DESCRIPTION")?.textValue() == "Tagesordnung: Berichte des Vorstands, Kassenbericht")
        // ORGANIZER;CN=Acme SE has no value: dropped, and the description is not corrupted by it.
        #expect(event.property("ORGANIZER") == nil)
        #expect(event.property("LOCATION")?.value == "Vereinsheim")
        let task = try #require(calendar.components(named: "VTODO").first)
        // A continuation that lost its leading space is joined to the value it continues.
        #expect(task.property("DESCRIPTION")?.textValue() == "An alle Mitglieder mit E-Mail-Adresse")
        // END:VTOOD closed the VTODO: what came before it stays in it.
        #expect(task.property("STATUS")?.value == "NEEDS-ACTION")
    }

    @Test func outlookWhitespaceAndEscapesAreReadAsMeant() throws {
        let calendar = try Self.calendar("outlook-whitespace-and-escapes.ics")
        let refresh = try #require(calendar.property("REFRESH-INTERVAL"))
        #expect(refresh[parameter: "VALUE"] == "DURATION")
        #expect(try refresh.durationValue().exactSeconds == 48 * 3600)
        let event = try #require(calendar.components(named: "VEVENT").first)
        let organizer = try #require(event.property("ORGANIZER"))
        #expect(organizer[parameter: "CN"] == "Society; 2014")
        #expect(organizer.value == "mailto:board@society.example")
        #expect(event.property("DTSTART")?.value == "20180115T100000")
        #expect(event.property("DTSTART")?.tzid == "W. Europe Standard Time")
        #expect(event.property("DTEND")?.value == "20180115T113000")
        // Both rules are kept; expansion uses their union (RecurrenceTests).
        #expect(event.properties(named: "RRULE").count == 2)
    }

    @Test func aBareEventIsReadInsideACalendar() throws {
        let calendar = try Self.calendar("bare-vevent-download.ics")
        #expect(calendar.components.map(\.name) == ["VEVENT"])
        #expect(calendar.components[0].property("SUMMARY")?.value == "Stadtratssitzung")
    }

    @Test func eventsWithoutUIDGetDistinctStableDerivedUIDs() throws {
        let events = try Self.calendar("school-feed-without-uids.ics").components(named: "VEVENT")
        let uids = events.map(\.derivedUID)
        #expect(Set(uids).count == 3)
        #expect(uids.allSatisfy { $0.hasPrefix("derived-") && $0.count == "derived-".count + 32 })
        // The same content gives the same UID, read again from the same file.
        #expect(try Self.calendar("school-feed-without-uids.ics").components(named: "VEVENT").map(\.derivedUID) == uids)
    }

    // MARK: Single shapes, each beside what must not change

    @Test(arguments: [
        ("DTSTART:20180115T1000", "20180115T100000"),
        ("DTSTART:20180115T10", "20180115T100000"),
        ("DTSTART:2018-01-15T10:00:00Z", "20180115T100000Z"),
        ("DTSTART:20180115t100000z", "20180115T100000Z"),
        ("DTSTART:20180115T100000.000Z", "20180115T100000Z"),
        ("DTSTART;VALUE=DATE:2018-01-15", "20180115"),
    ])
    func nearMissDateTimesAreRepaired(_ line: String, _ repaired: String) throws {
        let bytes = Support.ics([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VEVENT", "UID:a@example.org",
            "DTSTAMP:20180101T000000Z", line, "END:VEVENT", "END:VCALENDAR",
        ])
        #expect(ICalendarParser.check(bytes, options: .strict).errors.first?.code == .invalidValue)
        let result = ICalendarParser.check(bytes, options: .lenient)
        #expect(result.warnings.map(\.code) == [.repairedValue])
        let event = try #require(result.document?.components.first?.components.first)
        #expect(event.property("DTSTART")?.value == repaired)
        #expect(try event.property("DTSTART")?.dateTimeValue() != nil)
    }

    @Test(arguments: [
        // Not near enough to tell what was meant: left an invalidValue warning, as before.
        "DTSTART:20180115T1", "DTSTART:2018011", "DTSTART:20181315T100000", "DTSTAMP:20180115T1000",
    ])
    func farMissesAreNotGuessed(_ line: String) throws {
        let bytes = Support.ics([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VEVENT", "UID:a@example.org",
            line.hasPrefix("DTSTAMP") ? "DTSTART:20180115T100000Z" : "DTSTAMP:20180101T000000Z", line, "END:VEVENT",
            "END:VCALENDAR",
        ])
        let result = ICalendarParser.check(bytes, options: .lenient)
        #expect(result.warnings.map(\.code).contains(.invalidValue))
        #expect(!result.warnings.map(\.code).contains(.repairedValue))
    }

    @Test(arguments: [
        ("FREQ=DAILY;COUNT=-1;UNTIL=20261231T000000Z", "FREQ=DAILY;UNTIL=20261231T000000Z"),
        ("FREQ=WEEKLY;INTERVAL=0;BYDAY=MO;COUNT=3", "FREQ=WEEKLY;BYDAY=MO;COUNT=3"),
        ("FREQ=WEEKLY;UNTIL=20261231T2359;BYDAY=MO", "FREQ=WEEKLY;UNTIL=20261231T235900;BYDAY=MO"),
    ])
    func invalidRulePartsBesideValidOnesAreDropped(_ rule: String, _ repaired: String) throws {
        let bytes = Support.calendar(event: ["RRULE:" + rule])
        #expect(ICalendarParser.check(bytes, options: .strict).errors.first?.code == .invalidValue)
        let result = ICalendarParser.check(bytes, options: .lenient)
        #expect(result.warnings.map(\.code) == [.repairedValue])
        #expect(result.document?.components.first?.components.first?.property("RRULE")?.value == repaired)
    }

    @Test(arguments: [
        // Dropping the only bound would make the series endless; COUNT with UNTIL is not a near-miss.
        "FREQ=DAILY;COUNT=-1", "FREQ=DAILY;UNTIL=2026", "FREQ=DAILY;COUNT=3;UNTIL=20261231T000000Z",
        "FREQ=SOMETIMES;COUNT=2",
    ])
    func rulesWhoseMeaningWouldChangeAreNotRepaired(_ rule: String) throws {
        let result = ICalendarParser.check(Support.calendar(event: ["RRULE:" + rule]), options: .lenient)
        #expect(result.warnings.map(\.code) == [.invalidValue])
        #expect(result.document?.components.first?.components.first?.property("RRULE")?.value == rule)
    }

    @Test func aPropertyWithoutColonIsDroppedButFreeTextIsAFold() throws {
        let bytes = Support.calendar(event: [
            "DESCRIPTION:Bring", "your laptop", " and charger.", "Meet at the door: 5 min early",
            "ORGANIZER;CN=Acme SE", "X-ACME-FLAG",
            "LOCATION:Hall",
        ])
        #expect(ICalendarParser.check(bytes, options: .strict).errors.first?.code == .missingColon)
        let result = ICalendarParser.check(bytes, options: .lenient)
        #expect(result.warnings.map(\.code) == [.missingColon, .repairedLine, .missingColon, .missingColon])
        let event = try #require(result.document?.components.first?.components.first)
        // Free text joins the value it continues (with or without a ':' after its words);
        // before, ORGANIZER;CN=Acme SE was appended to the description too.
        #expect(event.property("DESCRIPTION")?.value == "Bringyour laptopand charger.Meet at the door: 5 min early")
        #expect(event.property("ORGANIZER") == nil)
        #expect(event.property("LOCATION")?.value == "Hall")
    }

    @Test func aMisspeltEndClosesOnlyWhatItResembles() throws {
        let misspelt = Support.ics([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VTODO", "UID:t",
            "DTSTAMP:20260101T000000Z",
            "END:VTOOD", "BEGIN:VTODO", "UID:u", "DTSTAMP:20260101T000000Z", "END:VTODO", "END:VCALENDAR",
        ])
        #expect(ICalendarParser.check(misspelt, options: .strict).errors.first?.code == .mismatchedEnd)
        let result = ICalendarParser.check(misspelt, options: .lenient)
        #expect(result.warnings.map(\.code) == [.misspeltEnd])
        // Two sibling tasks, not one nested in the other.
        #expect(result.document?.components.first?.components.map(\.name) == ["VTODO", "VTODO"])
        // A stray END of another known component is not a misspelling: ignored as before.
        let stray = Support.calendar(event: ["END:VALARM"])
        #expect(ICalendarParser.check(stray, options: .lenient).warnings.map(\.code) == [.mismatchedEnd])
    }
}
