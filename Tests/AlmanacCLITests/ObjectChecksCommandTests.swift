import AlmanacCLI
import Testing

/// The object checks under each reading policy, as `ics check` and `ics expand` apply
/// them: two versions of one event are an error unless `--lenient` (which expands the
/// highest SEQUENCE), an end before its start is an error only with `--strict`.
@Suite struct ObjectChecksCommandTests {
    /// An export that kept an old (10:00) and a new (12:00, SEQUENCE:1) version of one
    /// event, the new one first; a to-do sharing the UID; and an event ending before it starts.
    static let file = Array(
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x",
            "BEGIN:VEVENT", "UID:a", "DTSTAMP:20260101T000000Z", "SEQUENCE:1", "DTSTART:20270105T120000Z",
            "DURATION:PT1H", "SUMMARY:new", "END:VEVENT",
            "BEGIN:VTODO", "UID:a", "DTSTAMP:20260101T000000Z", "DTSTART:20270107T100000Z", "SUMMARY:task",
            "END:VTODO",
            "BEGIN:VEVENT", "UID:a", "DTSTAMP:20260101T000000Z", "DTSTART:20270105T100000Z", "DURATION:PT1H",
            "SUMMARY:old", "END:VEVENT",
            "BEGIN:VEVENT", "UID:b", "DTSTAMP:20260101T000000Z", "DTSTART:20270106T100000Z",
            "DTEND:20270106T090000Z", "SUMMARY:backwards", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")).utf8)

    func run(_ arguments: [String]) -> (Int32, CapturedIO) {
        let io = CapturedIO(files: ["export.ics": Self.file])
        return (Almanac.run(arguments, io: io), io)
    }

    @Test(arguments: [[], ["--strict"]])
    func twoVersionsAreAnErrorUnlessLenient(_ policy: [String]) {
        for command in [["ics", "check"], ["ics", "expand", "--from", "2027-01-01", "--to", "2027-02-01"]] {
            let (status, io) = run(command + policy + ["export.ics"])
            #expect(status == 1, "\(command + policy)")
            #expect(
                io.errors.contains { $0.contains("a second VEVENT for UID a") && $0.hasSuffix("[duplicateComponent]") })
            #expect(io.output.isEmpty || command[1] == "check")
        }
    }

    @Test func theEndBeforeTheStartIsAnErrorOnlyWhenStrict() {
        let (_, strict) = run(["ics", "check", "--strict", "export.ics"])
        #expect(
            strict.errors.contains {
                $0.contains("DTEND 20270106T090000Z is before DTSTART") && !$0.contains("warning:")
            })
        let (_, lenient) = run(["ics", "check", "--lenient", "export.ics"])
        #expect(lenient.errors.contains { $0.contains("warning: UID b: DTEND") })
    }

    @Test func lenientExpandsTheLatestVersionAndTheToDo() {
        let (status, io) = run([
            "ics", "expand", "--lenient", "--from", "2027-01-01", "--to", "2027-02-01", "export.ics",
        ])
        #expect(status == 0)
        let lines = io.text.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        // The new version at 12:00 (not the old at 10:00), the backwards event, the to-do.
        #expect(
            lines.map { "\($0[0]) \($0[2])" } == [
                "2027-01-05T12:00:00Z new", "2027-01-06T10:00:00Z backwards",
                "2027-01-07T10:00:00Z task",
            ])
        #expect(io.errors.contains { $0.contains("the one with the highest SEQUENCE is used") })
    }
}
