import AlmanacTestSupport
import Foundation
import ICalendar
import Testing

/// Test helpers: fixture paths and iCalendar text written readably.
enum Support {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Lines joined with CRLF, with a final CRLF: iCalendar as it goes on the wire.
    static func ics(_ lines: [String]) -> [UInt8] {
        Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    /// A minimal valid calendar around the given event lines.
    static func calendar(event lines: [String]) -> [UInt8] {
        ics(
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VEVENT",
                "UID:test@almanac.test", "DTSTAMP:20261101T120000Z", "DTSTART:20261201T090000Z",
            ]
                + lines + ["END:VEVENT", "END:VCALENDAR"])
    }

    /// The first VEVENT of a strictly parsed calendar.
    static func event(_ lines: [String]) throws -> Component {
        let document = try ICalendarParser.parse(calendar(event: lines))
        return try #require(document.components.first?.components.first { $0.name == "VEVENT" })
    }

    static func read(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    /// A generated corpus (AlmanacTestSupport's CorpusGenerator).
    static func generatedCorpus(events: Int, seed: Int) throws -> [UInt8] {
        try Corpus.generate(events: events, seed: seed)
    }
}
