import AlmanacCLI
import AlmanacTestSupport
import CivilTime
import Foundation
import ICalendar
import JSON
import Recurrence
import Testing

/// `ics expand` writes its lines straight into bytes, what a series' instances share
/// once, in start order, and for a large calendar expands the series on every core.
/// Its lines must be exactly what one JSON value per instance says, with the instances
/// sorted by start, then UID, then as the series lists them: derived here from the
/// library's one-pass expansion and `JSONValue`, the way the command wrote them before.
@Suite struct ExpandOutputTests {
    static func expected(_ bytes: [UInt8], from: Int, to: Int, zone: ZoneRules = .utc) throws -> [String] {
        var lines: [String] = []
        for calendar in try ICalendarParser.parse(bytes).components {
            let expansion = CalendarObjectExpansion(
                resolver: ZoneResolver(calendar: calendar, mode: .strict), viewerZone: zone)
            let all = try expansion.expandSeries(calendar, from: from, to: to).flatMap(\.occurrences)
            let sorted = all.enumerated().sorted { left, right in
                let (a, b) = (left.element.start.instant(in: zone), right.element.start.instant(in: zone))
                if a != b { return a < b }
                if left.element.uid != right.element.uid { return left.element.uid < right.element.uid }
                return left.offset < right.offset
            }
            for occurrence in sorted.map(\.element) {
                // Instants in the viewer's zone with its offset, as `ics expand --tz` writes them.
                func text(_ time: OccurrenceTime) -> String {
                    guard zone != .utc, case .instant(let seconds) = time else { return time.text }
                    let offset = zone.offset(at: seconds).seconds
                    let local = CivilDateTime(secondsSinceEpoch: seconds + offset).description
                    guard offset != 0 else { return local + "Z" }
                    let hours = abs(offset) / 3600
                    let minutes = abs(offset) % 3600 / 60
                    return local + (offset < 0 ? "-" : "+") + (hours < 10 ? "0" : "") + "\(hours):"
                        + (minutes < 10 ? "0" : "") + "\(minutes)"
                }
                var members: [(key: String, value: JSONValue)] = [
                    ("uid", .string(occurrence.uid)),
                    ("recurrenceId", occurrence.recurrenceID.map { .string(text($0)) } ?? .null),
                    ("start", .string(text(occurrence.start))), ("end", .string(text(occurrence.end))),
                    ("allDay", .bool(occurrence.isAllDay)), ("tzid", occurrence.tzid.map(JSONValue.string) ?? .null),
                    ("override", .bool(occurrence.isOverride)),
                    ("status", occurrence.component.property("STATUS").map { .string($0.textValue()) } ?? .null),
                ]
                if let summary = occurrence.component.property("SUMMARY") {
                    members.append(("summary", .string(summary.textValue())))
                }
                lines.append(JSONValue.object(members).jsonText)
            }
        }
        return lines
    }

    static func day(_ year: Int, _ month: Int, _ day: Int) throws -> CivilDate {
        try #require(CivilDate(year: year, month: month, day: day))
    }

    func expand(_ bytes: [UInt8], _ arguments: [String]) -> (Int32, [String]) {
        let io = CapturedIO(files: ["cal.ics": bytes])
        let status = Almanac.run(["ics", "expand", "cal.ics", "--format", "jsonl"] + arguments, io: io)
        return (status, io.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))
    }

    @Test func everyKindOfInstanceIsWrittenAsItsJSONValueSays() throws {
        let bytes = Array(
            ([
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x",
                // A weekly series in Berlin with an override that moves and renames one instance.
                "BEGIN:VEVENT", "UID:b-weekly", "DTSTAMP:20261101T000000Z",
                "DTSTART;TZID=Europe/Berlin:20261130T093000",
                "DURATION:PT15M", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Quote \" and \\\\ backslash\\, comma",
                "STATUS:CONFIRMED", "END:VEVENT",
                "BEGIN:VEVENT", "UID:b-weekly", "DTSTAMP:20261101T000000Z",
                "RECURRENCE-ID;TZID=Europe/Berlin:20261207T093000", "DTSTART;TZID=Europe/Berlin:20261207T110000",
                "DURATION:PT15M", "SUMMARY:Moved\\nwith a line break", "END:VEVENT",
                // All day, no summary, cancelled; floating; the same start as another UID.
                "BEGIN:VEVENT", "UID:a-day", "DTSTAMP:20261101T000000Z", "DTSTART;VALUE=DATE:20261202",
                "STATUS:CANCELLED", "END:VEVENT",
                "BEGIN:VEVENT", "UID:c-floating", "DTSTAMP:20261101T000000Z", "DTSTART:20261130T083000",
                "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=3", "SUMMARY:会議 ☕ tab\there", "END:VEVENT",
                "BEGIN:VEVENT", "UID:a-same", "DTSTAMP:20261101T000000Z", "DTSTART:20261130T083000Z",
                "DURATION:PT1H", "SUMMARY:Same start as the Berlin stand-up", "END:VEVENT",
                "END:VCALENDAR",
            ].joined(separator: "\r\n") + "\r\n").utf8)
        let (status, lines) = expand(bytes, ["--from", "2026-11-01", "--to", "2027-01-01"])
        #expect(status == 0)
        let from = CivilDateTime(date: try Self.day(2026, 11, 1), time: .midnight).secondsSinceEpoch
        let to = CivilDateTime(date: try Self.day(2027, 1, 1), time: .midnight).secondsSinceEpoch
        #expect(lines == (try Self.expected(bytes, from: from, to: to)))
        #expect(lines.count == 9)
    }

    @Test(arguments: ["UTC", "Europe/Berlin"])
    func aLargeCalendarExpandedOnEveryCoreWritesWhatOnePassWould(_ zoneName: String) throws {
        // More than 1,000 components: the series are expanded in parts, on every core.
        let bytes = try Corpus.generate(events: 1_500, seed: 11)
        let zone = try #require(zoneName == "UTC" ? ZoneRules.utc : TimeZoneDatabase.zone(named: zoneName))
        let (status, lines) = expand(bytes, ["--from", "2024-01-01", "--to", "2028-01-01", "--tz", zoneName])
        #expect(status == 0)
        let from = zone.instant(for: CivilDateTime(date: try Self.day(2024, 1, 1), time: .midnight))
        let to = zone.instant(for: CivilDateTime(date: try Self.day(2028, 1, 1), time: .midnight))
        let expected = try Self.expected(bytes, from: from, to: to, zone: zone)
        #expect(lines.count == expected.count && lines.count > 1_500)
        #expect(lines == expected)
    }
}
