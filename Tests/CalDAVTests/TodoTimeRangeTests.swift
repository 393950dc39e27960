import AlmanacTesting
import CalDAV
import Foundation
import Testing

/// VTODO time ranges by RFC 4791 §9.9's table. Each row is one line of the table (and a
/// few variants of its edges), with a range that must match and one that must not,
/// worked out by hand from the line's formula:
///
///     | DTSTART | DURATION | DUE | COMPLETED | CREATED | Condition to evaluate
///     | Y | Y | N | * | * | (start <= DTSTART+DURATION) AND ((end > DTSTART) OR (end >= DTSTART+DURATION))
///     | Y | N | Y | * | * | ((start < DUE) OR (start <= DTSTART)) AND ((end > DTSTART) OR (end >= DUE))
///     | Y | N | N | * | * | (start <= DTSTART) AND (end > DTSTART)
///     | N | N | Y | * | * | (start < DUE) AND (end >= DUE)
///     | N | N | N | Y | Y | ((start <= CREATED) OR (start <= COMPLETED)) AND ((end >= CREATED) OR (end >= COMPLETED))
///     | N | N | N | Y | N | (start <= COMPLETED) AND (end >= COMPLETED)
///     | N | N | N | N | Y | (end > CREATED)
///     | N | N | N | N | N | TRUE
extension CalDAVTests {
    struct TodoRow: Sendable, CustomStringConvertible {
        var line: String
        /// The to-do's timing properties.
        var properties: [String]
        var matching: (start: String, end: String)
        /// nil for the TRUE line, which no range fails.
        var failing: (start: String, end: String)?
        var description: String { line }
    }

    static let todoRows: [TodoRow] = [
        // S = 10:00, S+D = 11:00: start 11:00 <= 11:00 and end 12:00 > 10:00; start 11:00:01 > 11:00.
        TodoRow(
            line: "Y Y N: DTSTART+DURATION", properties: ["DTSTART:20261210T100000Z", "DURATION:PT1H"],
            matching: ("20261210T110000Z", "20261210T120000Z"), failing: ("20261210T110001Z", "20261210T120000Z")),
        // S = 10:00, DUE = 11:00: start 09:00 < DUE and end 10:00:01 > S; start 11:00 is neither < DUE nor <= S.
        TodoRow(
            line: "Y N Y: DTSTART and DUE", properties: ["DTSTART:20261210T100000Z", "DUE:20261210T110000Z"],
            matching: ("20261210T090000Z", "20261210T100001Z"), failing: ("20261210T110000Z", "20261210T120000Z")),
        // S = DUE = 10:00: start 09:00 < DUE and end 10:00 >= DUE; start 10:00:01 is neither < DUE nor <= S.
        TodoRow(
            line: "Y N Y: DTSTART equal to DUE", properties: ["DTSTART:20261210T100000Z", "DUE:20261210T100000Z"],
            matching: ("20261210T090000Z", "20261210T100000Z"), failing: ("20261210T100001Z", "20261210T110000Z")),
        // S = 10:00: start 10:00 <= S and end 10:00:01 > S; end 10:00 is not > S.
        TodoRow(
            line: "Y N N: DTSTART only", properties: ["DTSTART:20261210T100000Z"],
            matching: ("20261210T100000Z", "20261210T100001Z"), failing: ("20261210T090000Z", "20261210T100000Z")),
        // S = 2026-12-10T00:00Z (a date, in the calendar's UTC): no day-long extent as an event would have.
        TodoRow(
            line: "Y N N: DTSTART a date", properties: ["DTSTART;VALUE=DATE:20261210"],
            matching: ("20261209T000000Z", "20261210T000001Z"), failing: ("20261210T000001Z", "20261211T000000Z")),
        // DUE = 11:00: start 10:00 < DUE and end 11:00 >= DUE; start 11:00 is not < DUE.
        TodoRow(
            line: "N N Y: DUE only", properties: ["DUE:20261210T110000Z"],
            matching: ("20261210T100000Z", "20261210T110000Z"), failing: ("20261210T110000Z", "20261210T120000Z")),
        // CREATED = Dec 1, COMPLETED = Dec 12: Dec 5–6 has start <= COMPLETED and end >= CREATED;
        // Dec 13–14 starts after both.
        TodoRow(
            line: "N N N Y Y: COMPLETED and CREATED",
            properties: ["COMPLETED:20261212T100000Z", "CREATED:20261201T100000Z"],
            matching: ("20261205T000000Z", "20261206T000000Z"), failing: ("20261213T000000Z", "20261214T000000Z")),
        // COMPLETED = 10:00: start 09:00 <= C and end 10:00 >= C; start 10:00:01 > C.
        TodoRow(
            line: "N N N Y N: COMPLETED only", properties: ["COMPLETED:20261212T100000Z"],
            matching: ("20261212T090000Z", "20261212T100000Z"), failing: ("20261212T100001Z", "20261213T000000Z")),
        // CREATED = Dec 1 10:00: end 10:00:01 > CREATED; end 10:00 is not.
        TodoRow(
            line: "N N N N Y: CREATED only", properties: ["CREATED:20261201T100000Z"],
            matching: ("20260101T000000Z", "20261201T100001Z"), failing: ("20260101T000000Z", "20261201T100000Z")),
        // TRUE: any range, however far.
        TodoRow(
            line: "N N N N N: none of them", properties: [], matching: ("20300101T000000Z", "20300102T000000Z"),
            failing: nil),
    ]

    static func todo(_ uid: String, _ lines: [String]) -> String {
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VTODO", "UID:\(uid)",
            "DTSTAMP:20261101T000000Z", "SUMMARY:Task",
        ]
            + lines + ["END:VTODO", "END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    static func todoQuery(_ dav: DAVClient, _ calendar: String, _ range: (start: String, end: String)) throws
        -> [String]
    {
        let response = try dav.calendarQuery(
            "/dav/calendars/anna/\(calendar)/", component: "VTODO", start: range.start, end: range.end,
            depth: nil)
        #expect(response.status == 207)
        return try response.multistatus().allHrefs
    }

    @Test(arguments: todoRows) func todoTimeRangeFollowsTheTable(_ row: TodoRow) throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.mkcalendar("/dav/calendars/anna/tasks/").status == 201)
        #expect(try dav.put("/dav/calendars/anna/tasks/t.ics", Self.todo("t@test", row.properties)).status == 201)
        #expect(
            try Self.todoQuery(dav, "tasks", row.matching) == ["/dav/calendars/anna/tasks/t.ics"],
            "\(row.line) matching")
        if let failing = row.failing {
            #expect(try Self.todoQuery(dav, "tasks", failing) == [], "\(row.line) failing")
        }
    }

    /// A recurring to-do: each instance is judged by the table, overrides by their own times.
    /// Instances: Dec 10, 11 and 12, 10:00–11:00 (DTSTART+DURATION), the one of Dec 11 moved
    /// to 15:00–16:00.
    @Test(arguments: ServerSetup.all) func recurringTodoInstancesFollowTheTable(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.mkcalendar("/dav/calendars/anna/tasks/").status == 201)
        let series = Self.todo("r@test", ["DTSTART:20261210T100000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=3"])
            .replacingOccurrences(
                of: "END:VCALENDAR",
                with: "BEGIN:VTODO\r\nUID:r@test\r\nDTSTAMP:20261101T000000Z\r\nRECURRENCE-ID:20261211T100000Z\r\n"
                    + "DTSTART:20261211T150000Z\r\nDURATION:PT1H\r\nSUMMARY:Moved\r\nEND:VTODO\r\nEND:VCALENDAR")
        #expect(try dav.put("/dav/calendars/anna/tasks/r.ics", series).status == 201)
        let href = ["/dav/calendars/anna/tasks/r.ics"]
        func todoQuery(_ calendar: String, _ range: (start: String, end: String)) throws -> [String] {
            try Self.todoQuery(dav, calendar, range)
        }
        // The moved instance ends at 16:00: start 16:00 <= 16:00, end 17:00 > 15:00.
        #expect(try todoQuery("tasks", ("20261211T160000Z", "20261211T170000Z")) == href)
        // The third instance ends at 11:00 on Dec 12: start 11:00 <= 11:00.
        #expect(try todoQuery("tasks", ("20261212T110000Z", "20261212T120000Z")) == href)
        // Where the Dec 11 instance was before it moved: no instance.
        #expect(try todoQuery("tasks", ("20261211T103000Z", "20261211T104500Z")) == [])
        // Between the first instance's end and the moved one's start.
        #expect(try todoQuery("tasks", ("20261210T110001Z", "20261211T150000Z")) == [])
        // After the last instance.
        #expect(try todoQuery("tasks", ("20261212T110001Z", "20261213T000000Z")) == [])
    }
}

/// VJOURNAL time ranges (RFC 4791 §9.9's table): a DATE-TIME DTSTART is an instant
/// (start <= DTSTART < end), a DATE one lasts the day, and a journal without DTSTART
/// matches no range.
@Suite struct JournalTimeRangeTests {
    static func journal(_ uid: String, _ start: String?) -> String {
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VJOURNAL", "UID:\(uid)",
            "DTSTAMP:20261101T000000Z",
        ] + (start.map { [$0] } ?? []) + ["SUMMARY:Notes", "END:VJOURNAL", "END:VCALENDAR", ""])
        .joined(separator: "\r\n")
    }

    @Test(arguments: ServerSetup.everyStore) func journalsFollowTheTable(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        let notes = "/dav/calendars/anna/notes/"
        #expect(try dav.mkcalendar(notes, components: ["VJOURNAL"]).status == 201)
        let journals: [(String, String?)] = [
            ("at-start", "DTSTART:20261210T090000Z"), ("inside", "DTSTART:20261210T093000Z"),
            ("at-end", "DTSTART:20261210T100000Z"), ("day", "DTSTART;VALUE=DATE:20261210"),
            ("day-before", "DTSTART;VALUE=DATE:20261209"), ("undated", nil),
        ]
        for (uid, start) in journals {
            #expect(try dav.put(notes + "\(uid).ics", Self.journal(uid, start)).status == 201)
        }
        let answer = try dav.calendarQuery(
            notes, component: "VJOURNAL", start: "20261210T090000Z", end: "20261210T100000Z")
        #expect(
            try answer.multistatus().hrefs.sorted() == ["at-start", "day", "inside"].map { notes + "\($0).ics" })
    }
}
