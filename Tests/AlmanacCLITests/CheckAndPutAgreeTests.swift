import AlmanacCLI
import AlmanacTestSupport
import AlmanacTesting
import Foundation
import Testing

/// `almanac ics check` (its default mode) and a CalDAV PUT apply one policy, RFC 5545
/// with documented repairs (docs/icalendar-diagnostics.md, "What the store and the
/// server accept"): over a table of inputs — valid, each repair, each refusal — both
/// give the same verdict, the same warnings, and for a refusal the same error.
@Suite struct CheckAndPutAgreeTests {
    enum Verdict: Sendable {
        /// Valid RFC 5545: no diagnostic at all.
        case valid
        /// Accepted, stored as sent, with these warnings (codes, in order).
        case repaired([String])
        /// Refused with this code.
        case refused(String)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// The RFC 5545 rule the input keeps or breaks.
        var rule: String
        /// Lines of the VEVENT between UID and END:VEVENT.
        var lines: [String]
        var lineEnding = "\r\n"
        var withDTSTAMP = true
        var verdict: Verdict
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "valid event", rule: "§3.6.1: UID, DTSTAMP, DTSTART",
            lines: ["DTSTART:20261201T120000Z", "SUMMARY:Lunch"], verdict: .valid),
        Case(
            name: "P1DT0H",
            rule: "§3.3.6: dur-date = dur-day [dur-time]; dur-time = \"T\" (dur-hour / ...), 0H is a dur-hour",
            lines: ["DTSTART:20261201T120000Z", "DURATION:P1DT0H"], verdict: .valid),
        Case(
            name: "P1DT",
            rule: "§3.3.6: dur-time = \"T\" (dur-hour / dur-minute / dur-second), so a T needs a unit after it",
            lines: ["DTSTART:20261201T120000Z", "DURATION:P1DT"], verdict: .repaired(["repairedValue"])),
        Case(
            name: "DATE-TIME without seconds", rule: "§3.3.5: time = time-hour time-minute time-second",
            lines: ["DTSTART:20261201T1200"], verdict: .repaired(["repairedValue"])),
        Case(
            name: "bare LF", rule: "§3.1: a content line ends in CRLF",
            lines: ["DTSTART:20261201T120000Z"], lineEnding: "\n", verdict: .repaired(["invalidLineEnding"])),
        Case(
            name: "empty RRULE", rule: "§3.3.10: recur-rule-part FREQ is REQUIRED",
            lines: ["DTSTART:20261201T120000Z", "RRULE:"], verdict: .repaired(["droppedProperty"])),
        Case(
            name: "unescaped comma in SUMMARY", rule: "§3.3.11: COMMA in TEXT MUST be escaped",
            lines: ["DTSTART:20261201T120000Z", "SUMMARY:Lunch, dinner"], verdict: .repaired(["invalidValue"])),
        Case(
            name: "no DTSTAMP", rule: "§3.6.1: dtstamp is REQUIRED", lines: ["DTSTART:20261201T120000Z"],
            withDTSTAMP: false, verdict: .repaired(["missingProperty"])),
        Case(
            name: "BEL in SUMMARY", rule: "§3.1: VALUE-CHAR excludes CONTROL (all but HTAB)",
            lines: ["DTSTART:20261201T120000Z", "SUMMARY:Ring \u{07} the bell"], verdict: .refused("controlCharacter")),
        Case(
            name: "ESC in an X- property", rule: "§3.1: x-prop's value is VALUE-CHAR, which excludes CONTROL",
            lines: ["DTSTART:20261201T120000Z", "X-NOTE:a\u{1B}[31m"], verdict: .refused("controlCharacter")),
        Case(
            name: "\\\" in DESCRIPTION",
            rule: "§3.3.11: ESCAPED-CHAR = (\"\\\\\" / \"\\;\" / \"\\,\" / \"\\N\" / \"\\n\"); \\\" is none of them",
            lines: ["DTSTART:20261201T120000Z", "DESCRIPTION:Say \\\"hello\\\""], verdict: .refused("invalidEscape")),
        Case(
            name: "lone trailing backslash", rule: "§3.3.11: a BACKSLASH is written \\\\",
            lines: ["DTSTART:20261201T120000Z", "SUMMARY:C:\\"], verdict: .refused("invalidEscape")),
        Case(
            name: "unreadable DTSTART", rule: "§3.3.5: DATE-TIME is date \"T\" time; a bare ISO date is not",
            lines: ["DTSTART:2026-12-01"], verdict: .refused("invalidValue")),
        Case(
            name: "PT", rule: "§3.3.6: dur-time needs a unit; with nothing else there is no length to read",
            lines: ["DTSTART:20261201T120000Z", "DURATION:PT"], verdict: .refused("invalidValue")),
        Case(
            name: "mismatched END", rule: "§3.6: a component is BEGIN:name ... END:name",
            lines: ["DTSTART:20261201T120000Z", "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT5M", "END:VTODO"],
            verdict: .refused("mismatchedEnd")),
    ]

    static func body(_ input: Case) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:policy@test"]
        if input.withDTSTAMP { lines.append("DTSTAMP:20261101T000000Z") }
        lines += input.lines + ["END:VEVENT", "END:VCALENDAR", ""]
        return lines.joined(separator: input.lineEnding)
    }

    /// `[code]` at the end of a diagnostic line.
    static func code(_ line: String) -> String {
        guard let open = line.lastIndex(of: "["), line.hasSuffix("]") else { return line }
        return String(line[line.index(after: open)..<line.index(before: line.endIndex)])
    }

    /// The text of `199 almanac "..."` (RFC 7230 §3.2.6 quoted-string: `\\` quotes the next character).
    static func warningText(_ header: String) -> String {
        var text = ""
        var escaped = false
        for character in header.dropFirst("199 almanac \"".count).dropLast() {
            if !escaped && character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            text.append(character)
        }
        return text
    }

    @Test(arguments: cases)
    func checkAndPutAgree(_ input: Case) throws {
        let body = Self.body(input)
        let io = CapturedIO(files: ["object.ics": Array(body.utf8)])
        let status = Almanac.run(["ics", "check", "object.ics"], io: io)
        let printed = io.errors.map { String($0.dropFirst("object.ics:".count)) }

        let server = try TestServer()
        let dav = server.dav("anna")
        #expect(try dav.mkcalendar("/dav/calendars/anna/work/").status == 201)
        let put = try dav.put("/dav/calendars/anna/work/object.ics", body, contentType: "text/calendar")

        switch input.verdict {
        case .valid:
            #expect(status == 0, "\(input.rule): \(io.errors)")
            #expect(printed.isEmpty)
            #expect(put.status == 201, "\(input.rule): \(put.text)")
            #expect(put.headers.values("Warning").isEmpty)
        case .repaired(let codes):
            #expect(status == 0, "\(input.rule): \(io.errors)")
            #expect(printed.map(Self.code) == codes)
            #expect(printed.allSatisfy { $0.contains("warning: ") })
            #expect(put.status == 201, "\(input.rule): \(put.text)")
            // The same warnings, as the check prints them, in Warning headers (RFC 7234 §5.5).
            let warnings = put.headers.values("Warning").map(Self.warningText)
            #expect(warnings == printed)
            // Stored as sent: a repair is how the object is read, not a rewrite of it.
            #expect(try dav.get("/dav/calendars/anna/work/object.ics").body == Array(body.utf8))
        case .refused(let code):
            #expect(status == 1, "\(input.rule)")
            let error = try #require(printed.first { !$0.contains("warning: ") })
            #expect(Self.code(error) == code)
            // RFC 4791 §5.3.2.1: data that is not valid iCalendar breaks CALDAV:valid-calendar-data.
            #expect(put.status == 403, "\(input.rule): \(put.text)")
            #expect(put.precondition == .caldav("valid-calendar-data"))
            let description = try DAVElement.parse(put.body).children.first {
                $0.name == DAVName("urn:almanac:dav", "message")
            }
            #expect(description?.text == error, "the PUT names the problem as the check does")
            #expect(try dav.get("/dav/calendars/anna/work/object.ics").status == 404)
        }
    }

    /// `ics check` without a flag applies the policy; `--strict` is RFC 5545 alone, so a
    /// repair that passes by default is an error there.
    @Test func checkDefaultsToThePolicyAndStrictRefusesRepairs() {
        let body = Self.body(Self.cases.first { $0.name == "P1DT" }!)
        func check(_ flags: [String]) -> (Int32, CapturedIO) {
            let io = CapturedIO(files: ["object.ics": Array(body.utf8)])
            return (Almanac.run(["ics", "check"] + flags + ["object.ics"], io: io), io)
        }
        let (policy, accepted) = check([])
        #expect(policy == 0)
        #expect(accepted.text == "object.ics: ok, 2 components, 1 warning\n")
        let (strict, refused) = check(["--strict"])
        #expect(strict == 1)
        #expect(refused.errors.count == 1 && refused.errors[0].hasPrefix("object.ics:8:10: expected a DURATION"))
        let (both, usage) = check(["--strict", "--lenient"])
        #expect(both == 2, "\(usage.errors)")
    }

    /// `almanac import` applies the policy to each component of the file: the one with a
    /// BEL (RFC 5545 §3.1) is rejected with its line and not written; the others are
    /// imported and the exit status says something was refused.
    @Test func importRejectsARefusedComponentWithItsLine() throws {
        let directory = try TemporaryDirectory()
        let file = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN",
            "BEGIN:VEVENT", "UID:good@test", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T120000Z",
            "DURATION:P1DT", "SUMMARY:Good", "END:VEVENT",
            "BEGIN:VEVENT", "UID:bell@test", "DTSTAMP:20261101T000000Z", "DTSTART:20261202T120000Z",
            "SUMMARY:Ring \u{07}", "END:VEVENT",
            "BEGIN:VEVENT", "UID:quote@test", "DTSTAMP:20261101T000000Z", "DTSTART:20261203T120000Z",
            "DESCRIPTION:Say \\\"hi\\\"", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        func io() -> CapturedIO {
            let io = CapturedIO(files: ["mixed.ics": Array(file.utf8)])
            io.environment["ALMANAC_DATA"] = directory.path
            io.environment["USER"] = "tester"
            io.environment["TZ"] = "UTC"
            return io
        }
        let imported = io()
        let status = Almanac.run(["import", "mixed.ics", "--calendar", "Mixed"], io: imported)
        #expect(status == 1)
        #expect(imported.text == "Imported 1 object into Mixed (1 event); rejected 2; 1 warning.\n")
        #expect(
            imported.errors.contains { $0.hasPrefix("mixed.ics:8:10: warning: ") && $0.hasSuffix("[repairedValue]") },
            "\(imported.errors)")
        #expect(
            imported.errors.contains {
                $0.hasPrefix("mixed.ics:15: UID bell@test: control character 0x7") && $0.contains("(property SUMMARY)")
            }, "\(imported.errors)")
        #expect(
            imported.errors.contains { $0.hasPrefix("mixed.ics:21: UID quote@test: invalid TEXT escape") },
            "\(imported.errors)")
        // Only the good event is in the calendar, read as lasting one day (P1DT is P1D).
        let listed = io()
        #expect(
            Almanac.run(["list", "--from", "2026-12-01", "--to", "2026-12-05", "--calendar", "Mixed"], io: listed) == 0)
        #expect(listed.text.split(separator: "\n").count == 2, "the zone's line and one: \(listed.text)")
        #expect(listed.text.contains("Good"))
    }
}
