import AlmanacTestSupport
import ICalendar
import Testing

@Suite struct SerializerTests {
    @Test func canonicalInputRoundTripsByteForByte() throws {
        // RFC 5545 §4's first example, written canonically (upper case, CRLF, minimal quoting, folded at 75).
        let bytes = Support.ics([
            "BEGIN:VCALENDAR", "PRODID:-//xyz Corp//NONSGML PDA Calendar Version 1.0//EN", "VERSION:2.0",
            "BEGIN:VEVENT", "DTSTAMP:19960704T120000Z", "UID:uid1@example.com", "ORGANIZER:mailto:jsmith@example.com",
            "DTSTART:19960918T143000Z", "DTEND:19960920T220000Z", "STATUS:CONFIRMED", "CATEGORIES:CONFERENCE",
            "SUMMARY:Networld+Interop Conference",
            "DESCRIPTION:Networld+Interop Conference and Exhibit\\nAtlanta World Congress",
            "  Center\\nAtlanta\\, Georgia",
            "END:VEVENT", "END:VCALENDAR",
        ])
        // Joining the fold: the DESCRIPTION line above is 75 octets, then a continuation.
        let document = try ICalendarParser.parse(bytes)
        #expect(String(decoding: document.serialized(), as: UTF8.self) == String(decoding: bytes, as: UTF8.self))
        let description = try #require(document.components.first?.components.first?.property("DESCRIPTION"))
        #expect(
            description.textValue()
                == "Networld+Interop Conference and Exhibit\nAtlanta World Congress Center\nAtlanta, Georgia")
    }

    @Test func foldingNeverSplitsUTF8AndKeepsEveryOctet() throws {
        var generator = SplitMix64(seed: 7)
        let alphabet: [Character] = ["a", "ß", "€", "😀", " ", "\u{301}", "字", ",", "x"]
        for length in [0, 1, 60, 74, 75, 76, 150, 400] {
            for _ in 0..<20 {
                let text = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
                let property = Property(name: "DESCRIPTION", text: text)
                var serializer = ICalendarSerializer()
                serializer.write(property)
                #expect(LineChecks.problems(in: serializer.bytes).isEmpty)
                let event = try Support.event([String(decoding: serializer.bytes.dropLast(2), as: UTF8.self)])
                #expect(event.property("DESCRIPTION")?.textValue() == text)
            }
        }
    }

    @Test(arguments: [
        ("plain", "X;P=plain:v"),
        ("with space", "X;P=with space:v"),
        ("a,b", #"X;P="a,b":v"#),
        ("c:d", #"X;P="c:d":v"#),
        ("e;f", #"X;P="e;f":v"#),
        ("say \"hi\"", #"X;P=say ^'hi^':v"#),
        ("two\nlines", "X;P=two^nlines:v"),
        ("caret^", "X;P=caret^^:v"),
    ])
    func parameterQuotingOnlyWhereNeeded(value: String, line: String) {
        let property = Property(name: "X", parameters: [Parameter(name: "P", value: value)], value: "v")
        #expect(String(decoding: property.serializedLine, as: UTF8.self) == line)
    }

    @Test func namesAreWrittenInUpperCase() {
        let component = Component(
            name: "vevent",
            properties: [Property(name: "x-lower", parameters: [Parameter(name: "x-p", value: "v")], value: "V")])
        #expect(component.icalendarText == "BEGIN:VEVENT\r\nX-LOWER;X-P=v:V\r\nEND:VEVENT\r\n")
    }
}
