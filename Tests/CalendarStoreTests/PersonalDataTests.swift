import ICalendar
import Testing

@testable import CalendarStore

/// ``PersonalData``: which parts of a shared object are a user's own, per component.
@Suite struct PersonalDataTests {
    static func parse(_ lines: [String]) throws -> Component {
        try #require(
            try ICalendarParser.parse(Array((lines.joined(separator: "\r\n") + "\r\n").utf8), options: .lenient)
                .components.first)
    }

    static let series = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Tests//EN",
        "BEGIN:VEVENT", "UID:s", "DTSTAMP:20261101T000000Z", "DTSTART:20270104T090000Z", "RRULE:FREQ=DAILY;COUNT=3",
        "TRANSP:OPAQUE", "X-MOZ-LASTACK:20270104T085000Z",
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:master", "TRIGGER:-PT10M", "END:VALARM", "END:VEVENT",
        "BEGIN:VEVENT", "UID:s", "DTSTAMP:20261101T000000Z", "RECURRENCE-ID:20270105T090000Z",
        "DTSTART:20270105T110000Z", "X-MOZ-SNOOZE-TIME-1799139000000000:20270105T105500Z",
        "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:moved", "TRIGGER:-PT5M", "END:VALARM", "END:VEVENT",
        "END:VCALENDAR",
    ]

    /// Each component's VALARMs, TRANSP and Thunderbird's alarm state leave the shared part
    /// and come back to the component they were taken from (master or override).
    @Test func partsSplitAndMergeBackPerComponent() throws {
        let root = try Self.parse(Self.series)
        let (shared, personal) = PersonalData.split(root)
        let stubs = try #require(personal).components
        #expect(stubs.map { $0.property("RECURRENCE-ID")?.value } == [nil, "20270105T090000Z"])
        #expect(stubs[0].properties.map(\.name) == ["UID", "TRANSP", "X-MOZ-LASTACK"])
        #expect(stubs[1].components.map { $0.property("DESCRIPTION")?.value } == ["moved"])
        for member in shared.components {
            #expect(member.components.isEmpty)
            #expect(!member.properties.contains { $0.name == "TRANSP" || $0.name.hasPrefix("X-MOZ-") })
        }
        #expect(PersonalData.split(shared).personal == nil)
        let merged = PersonalData.merge(shared, personal)
        #expect(PersonalData.split(merged).shared == shared)
        #expect(PersonalData.split(merged).personal == personal)
        // Another user's parts go where theirs belong; a stub whose instance is gone is dropped.
        let other = try Self.parse([
            "BEGIN:VCALENDAR", "BEGIN:VEVENT", "UID:s", "RECURRENCE-ID:20270106T090000Z", "TRANSP:TRANSPARENT",
            "END:VEVENT", "BEGIN:VEVENT", "UID:s", "RECURRENCE-ID:20270105T090000Z", "TRANSP:TRANSPARENT",
            "END:VEVENT", "END:VCALENDAR",
        ])
        let theirs = PersonalData.merge(shared, other)
        #expect(theirs.components.map { $0.property("TRANSP")?.value } == [nil, "TRANSPARENT"])
    }

    /// Bytes with nothing personal, read by a user with nothing of their own, are returned as
    /// they are (no re-serialization).
    @Test func bytesWithoutPartsAreReadAsTheyAre() {
        let bytes = Array(
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20270104T090000Z\r\nSUMMARY:folded\r\n  text\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
                .utf8)
        #expect(!PersonalData.mayHoldParts(bytes))
        #expect(PersonalData.view(of: bytes, personal: nil) == bytes)
    }
}
