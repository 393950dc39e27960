import CivilTime
import Foundation
import ICalendar
import Testing

@testable import Recurrence

/// RFC 5545 §3.8.5.3's examples, transcribed with the instances the RFC text
/// itself lists (Fixtures/rfc5545-examples.json), in America/New_York.
@Suite struct RFCExampleTests {
    struct Example: Decodable, Sendable, CustomTestStringConvertible {
        struct Window: Decodable, Sendable {
            var from: String
            var to: String
        }
        var name: String
        var dtstart: String
        var rrule: [String]
        var rdate: [String]
        var exdate: [String]
        var expected: [String]
        var expectedIsComplete: Bool
        var window: Window
        var testDescription: String { name }
    }

    struct Fixture: Decodable {
        var timeZone: String
        var examples: [Example]
    }

    static let fixture: Fixture? = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "Fixtures/rfc5545-examples.json")
        return try? JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    @Test func fixtureLoads() throws {
        let fixture = try #require(Self.fixture)
        #expect(fixture.examples.count >= 40)
    }

    @Test(arguments: fixture?.examples ?? [])
    func example(_ example: Example) throws {
        let zoneName = try #require(Self.fixture?.timeZone)
        var lines = ["DTSTART;\(example.dtstart)"]
        lines += example.rrule.map { "RRULE:\($0)" }
        // Values are local times in the fixture's zone, or carry their own parameters ("TZID=…:…").
        lines += example.rdate.map { $0.contains(":") ? "RDATE;\($0)" : "RDATE;TZID=\(zoneName):\($0)" }
        lines += example.exdate.map { $0.contains(":") ? "EXDATE;\($0)" : "EXDATE;TZID=\(zoneName):\($0)" }
        let calendar = try ExpansionTests.calendar(ExpansionTests.event(lines))
        let zone = try #require(TimeZoneDatabase.zone(named: zoneName))
        func instant(_ text: String) throws -> Int {
            let value = try Property(
                name: "DTSTART", parameters: [Parameter(name: "TZID", value: zoneName)], value: text
            ).dateTimeValue()
            return zone.instant(for: value.civil)
        }
        let expansion = CalendarObjectExpansion(resolver: ZoneResolver(calendar: calendar, mode: .strict))
        let occurrences = try expansion.expand(
            calendar, from: try instant(example.window.from), to: try instant(example.window.to)
        ).occurrences
        let locals = occurrences.map { occurrence -> String in
            guard case .instant(let seconds) = occurrence.start else { return occurrence.start.text }
            return DateTimeValue(zone.localTime(at: seconds), form: .floating).icalendarText
        }
        if example.expectedIsComplete {
            #expect(locals == example.expected)
        } else {
            #expect(Array(locals.prefix(example.expected.count)) == example.expected)
        }
    }
}
