import AlmanacCLI
import Foundation
import Testing

@Suite struct ExpandCommandTests {
    static let calendar = Array(
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x",
            "BEGIN:VEVENT", "UID:standup", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Europe/Berlin:20261130T093000",
            "DURATION:PT15M", "RRULE:FREQ=WEEKLY;BYDAY=MO,WE", "SUMMARY:Stand-up", "END:VEVENT",
            "BEGIN:VEVENT", "UID:holiday", "DTSTAMP:20261101T000000Z", "DTSTART;VALUE=DATE:20261202", "SUMMARY:Holiday",
            "END:VEVENT",
            "END:VCALENDAR",
        ].joined(separator: "\r\n") + "\r\n").utf8)

    func run(_ arguments: [String]) -> (Int32, CapturedIO) {
        let io = CapturedIO(files: ["cal.ics": Self.calendar])
        return (Almanac.run(arguments, io: io), io)
    }

    @Test func jsonlListsInstancesInTheWindowSortedByStart() throws {
        let (status, io) = run([
            "ics", "expand", "cal.ics", "--from", "2026-11-30", "--to", "2026-12-03", "--format", "jsonl",
        ])
        #expect(status == 0)
        let lines = io.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        // Monday 09:30 Berlin (+01:00) = 08:30Z; the all-day holiday on Wednesday sorts at its midnight (UTC viewer).
        #expect(
            objects.map { $0["start"] as? String } == ["2026-11-30T08:30:00Z", "2026-12-02", "2026-12-02T08:30:00Z"])
        #expect(objects[0]["end"] as? String == "2026-11-30T08:45:00Z")
        #expect(objects[0]["tzid"] as? String == "Europe/Berlin")
        #expect(objects[0]["recurrenceId"] as? String == "2026-11-30T08:30:00Z")
        #expect(objects[1]["allDay"] as? Bool == true && objects[1]["recurrenceId"] is NSNull)
        #expect(objects[1]["end"] as? String == "2026-12-03")
    }

    @Test func theViewerZonePlacesAllDayInstances() throws {
        // For a viewer in Tokyo, December 2 starts at 2026-12-01T15:00Z, inside a window ending 16:00Z.
        let (status, io) = run([
            "ics", "expand", "cal.ics", "--from", "2026-12-01T12:00:00Z", "--to", "2026-12-01T16:00:00Z", "--tz",
            "Asia/Tokyo", "--format", "jsonl",
        ])
        #expect(status == 0)
        #expect(io.text.contains("\"uid\":\"holiday\""))
        let (_, utc) = run([
            "ics", "expand", "cal.ics", "--from", "2026-12-01T12:00:00Z", "--to", "2026-12-01T16:00:00Z", "--format",
            "jsonl",
        ])
        #expect(utc.text.isEmpty)
    }

    @Test func textFormat() {
        let (status, io) = run(["ics", "expand", "cal.ics", "--from", "2026-11-30", "--to", "2026-12-01"])
        #expect(status == 0)
        #expect(io.text == "2026-11-30T08:30:00Z  2026-11-30T08:45:00Z  Stand-up  (standup 2026-11-30T08:30:00Z)\n")
        // With --tz, instants are written in that zone with its offset (Berlin is UTC+1 in November).
        let (_, berlin) = run([
            "ics", "expand", "cal.ics", "--from", "2026-11-30", "--to", "2026-12-01", "--tz", "Europe/Berlin",
        ])
        #expect(
            berlin.text
                == "2026-11-30T09:30:00+01:00  2026-11-30T09:45:00+01:00  Stand-up  (standup 2026-11-30T09:30:00+01:00)\n"
        )
    }

    @Test(arguments: [
        ["ics", "expand", "cal.ics", "--format", "xml"], ["ics", "expand", "cal.ics", "--from", "yesterday"],
        ["ics", "expand", "cal.ics", "--tz", "Mars/Olympus"], ["ics", "expand", "cal.ics", "--from"],
        ["ics", "expand", "cal.ics", "--from", "2026-12-02", "--to", "2026-12-01"], ["ics", "expand"],
        ["ics", "expand", "cal.ics", "--what"],
    ])
    func usageErrors(arguments: [String]) {
        let (status, io) = run(arguments)
        #expect(status == 2)
        #expect(io.errors.count == 1 && io.output.isEmpty)
    }
}
