import ICalendar
import JSON
import Testing

@Suite struct JCalTests {
    /// RFC 7265 Appendix B.1: the same calendar in iCalendar and in jCal.
    static let example = Support.ics([
        "BEGIN:VCALENDAR", "CALSCALE:GREGORIAN", "PRODID:-//Example Inc.//Example Calendar//EN", "VERSION:2.0",
        "BEGIN:VEVENT", "DTSTAMP:20080205T191224Z", "DTSTART;VALUE=DATE:20081006", "SUMMARY:Planning meeting",
        "UID:4088E990AD89CB3DBB484909", "END:VEVENT", "END:VCALENDAR",
    ])
    static let exampleJSON = """
        ["vcalendar",[["calscale",{},"text","GREGORIAN"],["prodid",{},"text","-//Example Inc.//Example Calendar//EN"],["version",{},"text","2.0"]],[["vevent",[["dtstamp",{},"date-time","2008-02-05T19:12:24Z"],["dtstart",{},"date","2008-10-06"],["summary",{},"text","Planning meeting"],["uid",{},"text","4088E990AD89CB3DBB484909"]],[]]]]
        """

    @Test func rfc7265ExampleBothWays() throws {
        let document = try ICalendarParser.parse(Self.example)
        #expect(try JCal.json(for: document) == JSONValue(parsing: Self.exampleJSON))
        #expect(try JCal.json(for: document).jsonText == Self.exampleJSON)
        let back = try JCal.document(fromJSON: Array(Self.exampleJSON.utf8))
        #expect(back.serialized() == Self.example)
    }

    @Test func valueShapes() throws {
        let event = try Support.event(
            [
                "RRULE:FREQ=MONTHLY;COUNT=10;BYDAY=1FR,-1SU;BYMONTHDAY=1",
                "EXDATE;TZID=Europe/Berlin:20261201T090000,20261208T090000",
                "GEO:37.386013;-122.082932", "SEQUENCE:3", "X-ANSWER;VALUE=INTEGER:42", "X-FLAG;VALUE=BOOLEAN:TRUE",
                "X-OPAQUE:raw\\,text", "CATEGORIES:a,b\\,c", "REQUEST-STATUS:2.0;Success", "DURATION:PT1H",
                "ATTENDEE;CN=\"Doe, Jane\";ROLE=REQ-PARTICIPANT:mailto:jane@example.com",
            ].filter { $0 != "DURATION:PT1H" })
        func json(_ name: String) throws -> String { try JCal.json(for: try #require(event.property(name))).jsonText }
        #expect(
            try json("RRULE")
                == #"["rrule",{},"recur",{"freq":"MONTHLY","count":10,"byday":["1FR","-1SU"],"bymonthday":1}]"#)
        #expect(
            try json("EXDATE")
                == #"["exdate",{"tzid":"Europe/Berlin"},"date-time","2026-12-01T09:00:00","2026-12-08T09:00:00"]"#)
        #expect(try json("GEO") == #"["geo",{},"float",[37.386013,-122.082932]]"#)
        #expect(try json("SEQUENCE") == #"["sequence",{},"integer",3]"#)
        #expect(try json("X-ANSWER") == #"["x-answer",{},"integer",42]"#)
        #expect(try json("X-FLAG") == #"["x-flag",{},"boolean",true]"#)
        #expect(try json("X-OPAQUE") == #"["x-opaque",{},"unknown","raw\\,text"]"#)
        #expect(try json("CATEGORIES") == #"["categories",{},"text","a","b,c"]"#)
        #expect(try json("REQUEST-STATUS") == #"["request-status",{},"text",["2.0","Success"]]"#)
        #expect(
            try json("ATTENDEE")
                == #"["attendee",{"cn":"Doe, Jane","role":"REQ-PARTICIPANT"},"cal-address","mailto:jane@example.com"]"#)
        for property in event.properties {
            let back = try JCal.property(from: JCal.json(for: property))
            #expect(Self.normalized(back) == Self.normalized(property), "\(property.name)")
        }
    }

    @Test func utcOffsetTimeAndPeriod() throws {
        func roundTrip(_ property: Property) throws -> (String, Property) {
            let json = try JCal.json(for: property)
            return (json.jsonText, try JCal.property(from: json))
        }
        let (offset, offsetBack) = try roundTrip(Property(name: "TZOFFSETFROM", value: "-0530"))
        #expect(offset == #"["tzoffsetfrom",{},"utc-offset","-05:30"]"#)
        #expect(offsetBack.value == "-0530")
        let (period, periodBack) = try roundTrip(
            Property(name: "FREEBUSY", value: "19970308T160000Z/PT8H30M,19970308T230000Z/19970309T000000Z"))
        #expect(
            period
                == #"["freebusy",{},"period","1997-03-08T16:00:00Z/PT8H30M","1997-03-08T23:00:00Z/1997-03-09T00:00:00Z"]"#
        )
        #expect(periodBack.value == "19970308T160000Z/PT8H30M,19970308T230000Z/19970309T000000Z")
    }

    @Test(arguments: [
        "{}", "[]", #"["vcalendar"]"#, #"["vcalendar",[["summary",{},"text"]],[]]"#,
        #"["vcalendar",[["dtstart",{},"date","2026-13-01"]],[]]"#, #"["vcalendar",[["x",{},"nosuchtype","v"]],[]]"#,
        #"["vcalendar",[["bad name",{},"text","v"]],[]]"#,
        #"["vcalendar",[["rrule",{},"recur",{"freq":"SOMETIMES"}]],[]]"#,
        #"["vcalendar",[["sequence",{},"integer","3"]],[]]"#, "[1,2", #"["vcalendar",[],[]] trailing"#,
    ])
    func invalidJCalIsRejected(text: String) {
        #expect(throws: ICalendarError.self) { try JCal.document(fromJSON: Array(text.utf8)) }
    }

    /// A property with `VALUE=` parameters that merely restate the default type removed
    /// and parameters in name order: what survives a trip through jCal unchanged.
    static func normalized(_ property: Property) -> Property {
        var copy = property
        if let type = copy[parameter: "VALUE"],
            ValueType(parameterValue: type) == Property(name: copy.name, value: "").valueType
        {
            copy[parameter: "VALUE"] = nil
        }
        copy.parameters.sort { $0.name < $1.name }
        if copy.valueType == .recur, let rule = try? copy.recurrenceRule() { copy.value = rule.icalendarText }
        if copy.valueType == .text, !copy.name.hasPrefix("X-") {
            copy.value =
                copy.name == "CATEGORIES" || copy.name == "RESOURCES"
                ? copy.textValues().map(TextEscaping.escape).joined(separator: ",")
                : TextEscaping.escape(copy.textValue())
        }
        return copy
    }

    /// Where two trees first differ, as a path and the two properties; nil when equal.
    static func firstDifference(_ a: [Component], _ b: [Component], path: String = "") -> String? {
        guard a.count == b.count else { return "\(path): \(a.count) vs \(b.count) components" }
        for (x, y) in zip(a, b) {
            let here = path + "/" + x.name
            guard x.name == y.name else { return "\(here) vs \(y.name)" }
            guard x.properties.count == y.properties.count else {
                return "\(here): \(x.properties.count) vs \(y.properties.count) properties"
            }
            for (p, q) in zip(x.properties, y.properties) where p != q { return "\(here): \(p) vs \(q)" }
            if let difference = firstDifference(x.components, y.components, path: here) { return difference }
        }
        return nil
    }

    static func normalized(_ component: Component) -> Component {
        Component(
            name: component.name, properties: component.properties.map(normalized),
            components: component.components.map(normalized))
    }
}
