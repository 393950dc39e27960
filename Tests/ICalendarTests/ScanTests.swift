import AlmanacTestSupport
import ICalendar
import Testing

/// The parser's byte-level scans checked against independent oracles: UTF-8
/// validity and control characters against the standard library's decoder
/// and a plain search, and names written in mixed case against their canonical
/// spelling.
@Suite struct ScanTests {
    /// Pieces a value is built from: ASCII, well-formed characters of every
    /// length, and the ill-formed sequences validators get wrong.
    static let pieces: [[UInt8]] = [
        Array("plain words 123".utf8), Array("x".utf8), [0x09],
        Array("é".utf8), Array("ß".utf8), Array("会議".utf8), Array("Встреча".utf8), Array("€".utf8),
        Array("\u{FFFD}".utf8), Array("\u{D7FF}".utf8), Array("\u{E000}".utf8), Array("😀".utf8),
        Array("\u{10FFFF}".utf8), Array("\u{10000}".utf8),
        [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0x81], [0xC2], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xE2, 0x82],
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xEF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x9F, 0x98],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xFE],
        [0x01], [0x1F], [0x7F], [0x00],
    ]

    /// The offset of the first ill-formed sequence, by the standard library's UTF-8 decoder.
    static func firstInvalid(_ bytes: [UInt8]) -> Int? {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .error: return offset
            case .emptyInput: return nil
            }
        }
    }

    @Test func valuesAreCheckedAsTheStandardLibraryDecodes() throws {
        var random = SplitMix64(seed: 20_261_130)
        var checked = (invalid: 0, control: 0, clean: 0)
        for _ in 0..<3000 {
            var value: [UInt8] = []
            // Mostly well-formed, so ill-formed bytes land at every offset of a word.
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                let piece =
                    Int.random(in: 0..<100, using: &random) < 85
                    ? Self.pieces[Int.random(in: 0..<14, using: &random)]
                    : Self.pieces.randomElement(using: &random)!
                value += piece
            }
            let before = Support.ics([
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VEVENT",
                "UID:scan@almanac.test",
                "DTSTAMP:20261101T120000Z", "DTSTART:20261201T090000Z",
            ])
            let line = 8
            let input = before + Array("X-SCAN:".utf8) + value + Support.ics(["", "END:VEVENT", "END:VCALENDAR"])
            let result = ICalendarParser.check(input)
            let invalid = result.errors.filter { $0.code == .invalidUTF8 }
            let controls = result.errors.filter { $0.code == .controlCharacter }
            let expectedInvalid = Self.firstInvalid(value)
            let expectedControl = value.firstIndex { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
            #expect(
                invalid.map { [$0.line, $0.column] } == (expectedInvalid.map { [[line, 8 + $0]] } ?? []), "\(value)")
            #expect(controls.count == (expectedControl == nil ? 0 : 1), "\(value)")
            #expect(result.errors.count == invalid.count + controls.count, "\(result.errors)")
            if expectedInvalid != nil {
                checked.invalid += 1
            } else if expectedControl != nil {
                checked.control += 1
            } else {
                checked.clean += 1
                #expect(
                    result.document?.components.first?.components.first?.property("X-SCAN")?.value
                        == String(decoding: value, as: UTF8.self))
            }
        }
        // The sample reaches all three outcomes often.
        #expect(checked.invalid > 300 && checked.control > 100 && checked.clean > 300, "\(checked)")
    }

    @Test func knownNamesAreFoundInAnyCase() throws {
        var random = SplitMix64(seed: 7)
        let properties = ["LOCATION", "COMMENT", "X-Y", "X-UNKNOWN-PROPERTY-WITH-A-LONG-NAME", "DESCRIPTION"]
        let parameters = ["TZID", "SCHEDULE-FORCE-SEND", "X-SOMETHING", "CN", "DELEGATED-FROM"]
        func mixed(_ name: String) -> String {
            String(name.map { Bool.random(using: &random) ? Character($0.lowercased()) : $0 })
        }
        for property in properties {
            for parameter in parameters {
                let written = mixed(property)
                // Short lines too, so a name near the end of the input is read without loading past it.
                for value in ["v", "a longer value that runs well past sixteen bytes"] {
                    let event = try Support.event(["\(written);\(mixed(parameter))=p:\(value)"])
                    let found = try #require(event.properties.first { $0.name == property }, "\(written)")
                    #expect(found.parameters.map(\.name) == [parameter])
                    #expect(found.value == value)
                }
            }
        }
        // END's name is read in any case too, and one with a byte no name has is not looked up.
        let lower = Support.ics([
            "begin:vcalendar", "version:2.0", "prodid:x", "begin:vevent", "uid:u", "dtstamp:20261101T120000Z",
            "dtstart:20261201T090000Z", "end:vevent", "end:vcalendar",
        ])
        let document = try ICalendarParser.parse(lower)
        #expect(document.components.map(\.name) == ["VCALENDAR"])
        #expect(document.components.first?.components.map(\.name) == ["VEVENT"])
        let aliased = Support.calendar(event: []).replacing(
            Array("END:VEVENT".utf8), with: Array("END:VEVENT\u{01}".utf8))
        #expect(ICalendarParser.check(aliased).errors.map(\.code).contains(.mismatchedEnd))
    }
}

/// Bytes written are bytes meant: a raw value set by any caller cannot start a content line.
@Suite struct LineBreakTests {
    @Test(arguments: ["https://x\r\nRRULE:FREQ=DAILY", "https://x\nRRULE:FREQ=DAILY", "https://x\rRRULE:FREQ=DAILY"])
    func aRawValueWithALineBreakStaysOneProperty(_ value: String) throws {
        var event = Component(
            name: "VEVENT",
            properties: [
                Property(name: "UID", value: "u"), Property(name: "DTSTAMP", value: "20261201T000000Z"),
                Property(name: "DTSTART", value: "20261201T090000Z"), Property(name: "URL", value: value),
            ])
        event.properties[3].value = value
        let calendar = Component(
            name: "VCALENDAR",
            properties: [Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//T//EN")],
            components: [event])
        let parsed = try ICalendarParser.parse(calendar.serialized()).components[0].components[0]
        #expect(parsed.properties.map(\.name) == ["UID", "DTSTAMP", "DTSTART", "URL"])
        #expect(parsed.property("URL")?.value == "https://x\\nRRULE:FREQ=DAILY")
    }

    @Test func controlCharactersAreNamed() {
        #expect(ValueCharacters.forbidden(in: "tab\tok", allowingLineBreaks: false) == nil)
        #expect(ValueCharacters.forbidden(in: "line\nbreak", allowingLineBreaks: true) == nil)
        #expect(ValueCharacters.forbidden(in: "line\nbreak", allowingLineBreaks: false) == "\n")
        #expect(ValueCharacters.forbidden(in: "del\u{7F}", allowingLineBreaks: true) == "\u{7F}")
        #expect(ValueCharacters.name(of: "\u{7}") == "U+0007")
    }
}
