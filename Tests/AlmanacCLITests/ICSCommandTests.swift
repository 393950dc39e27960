import AlmanacCLI
import Foundation
import Testing

/// Runs commands in process with captured streams; files come from a map, else from disk.
final class CapturedIO: CommandIO {
    var files: [String: [UInt8]]
    var standardInput: [UInt8]
    var output: [UInt8] = []
    var errors: [String] = []

    init(files: [String: [UInt8]] = [:], standardInput: [UInt8] = []) {
        self.files = files
        self.standardInput = standardInput
    }

    func read(path: String) throws(CommandFailure) -> [UInt8] {
        if path == "-" { return standardInput }
        if let bytes = files[path] { return bytes }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(status: 1, "\(path): No such file or directory")
        }
        return [UInt8](data)
    }

    var environment: [String: String] = ["TZ": "Europe/Berlin"]
    /// 2026-11-29T12:00:00Z, a Sunday.
    var now = 1_795_953_600
    var isTerminal = false
    var isInputTerminal = false
    var secrets: [String] = []
    var progress = ""
    var written: [String: [UInt8]] = [:]

    func write(_ bytes: [UInt8]) { output += bytes }
    func writeError(_ line: String) { errors.append(line) }
    func writeProgress(_ text: String) { progress += text }
    func readSecret(prompt: String) -> String? {
        progress += prompt
        return secrets.isEmpty ? nil : secrets.removeFirst()
    }
    func writeFile(_ path: String, _ bytes: [UInt8]) throws(CommandFailure) { written[path] = bytes }
    var text: String { String(decoding: output, as: UTF8.self) }
}

@Suite struct ICSCommandTests {
    static let valid = Array(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20261101T120000Z\r\nDTSTART;VALUE=DATE:20261201\r\nsummary:Lunch\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            .utf8)
    static let sloppy = Array(
        "BEGIN:VCALENDAR\nPRODID:x\nBEGIN:VEVENT\nUID:1\nDTSTAMP:20261101T120000Z\nDTSTART:20261201T100000Z\nSUMMARY:a, b\nEND:VEVENT\nEND:VCALENDAR\n"
            .utf8)
    static let broken = Array(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20261101T120000Z\r\nDTSTART:2026-12-01\r\nSEQUENCE:x\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            .utf8)

    func run(
        _ arguments: [String],
        _ io: CapturedIO = CapturedIO(files: ["ok.ics": valid, "sloppy.ics": sloppy, "bad.ics": broken])
    ) -> (Int32, CapturedIO) {
        (Almanac.run(arguments, io: io), io)
    }

    @Test func checkValidFile() {
        let (status, io) = run(["ics", "check", "ok.ics"])
        #expect(status == 0)
        #expect(io.text == "ok.ics: ok, 2 components\n")
        #expect(io.errors.isEmpty)
    }

    @Test func checkReportsEveryProblemAsFileLineColumn() {
        let (status, io) = run(["ics", "check", "--strict", "ok.ics", "bad.ics"])
        #expect(status == 1)
        #expect(io.errors.count == 2)
        #expect(io.errors[0].hasPrefix("bad.ics:7:9: expected a DATE-TIME"))
        #expect(io.errors[1].hasPrefix("bad.ics:8:10: expected an INTEGER"))
        #expect(io.errors.allSatisfy { $0.hasSuffix("[invalidValue]") })
    }

    @Test func lenientCheckPrintsWarnings() {
        let (strict, _) = run(["ics", "check", "--strict", "sloppy.ics"])
        #expect(strict == 1)
        let (status, io) = run(["ics", "check", "--lenient", "sloppy.ics"])
        #expect(status == 0)
        #expect(io.text == "sloppy.ics: ok, 2 components, 3 warnings\n")
        #expect(
            io.errors.map { $0.split(separator: " ").last! } == [
                "[invalidLineEnding]", "[invalidValue]", "[missingProperty]",
            ])  // lines 1, 7, then VCALENDAR at its close
        #expect(io.errors.allSatisfy { $0.contains("warning:") })
    }

    @Test func formatWritesCanonicalText() {
        let (status, io) = run(["ics", "format", "-"], CapturedIO(standardInput: Self.valid))
        #expect(status == 0)
        #expect(
            io.text == String(decoding: Self.valid, as: UTF8.self).replacingOccurrences(of: "summary", with: "SUMMARY"))
        // Lenient reading accepts the file; the formatter keeps what it says, and
        // changes content only when asked to repair.
        let (lenient, kept) = run(["ics", "format", "--lenient", "sloppy.ics"])
        #expect(lenient == 0)
        #expect(kept.text.contains("SUMMARY:a, b\r\n"))
        let (repairing, repaired) = run(["ics", "format", "--lenient", "--repair", "sloppy.ics"])
        #expect(repairing == 0)
        #expect(repaired.text.contains("SUMMARY:a\\, b\r\n"))
    }

    /// What the formatter read is what it prints: a bare VEVENT stays bare, a line the
    /// grammar does not describe stays as it came, RFC 7529 rule parts stay, and values
    /// keep their bytes; names and folding become canonical.
    @Test(arguments: [
        (
            "BEGIN:vevent\nuid:1\ndtstart:20261201T090000Z\nEND:VEVENT\n",
            "BEGIN:VEVENT\r\nUID:1\r\nDTSTART:20261201T090000Z\r\nEND:VEVENT\r\n"
        ),
        (
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20260101T000000Z\r\nORGANIZER;CN=\"Sixt SE\"\r\nX-NO-COLON\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20260101T000000Z\r\nORGANIZER;CN=\"Sixt SE\"\r\nX-NO-COLON\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        ),
        (
            "BEGIN:VEVENT\r\nRRULE:RSCALE=ETHIOPIC;FREQ=MONTHLY;BYMONTH=13\r\nRRULE:RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=8;SKIP=FORWARD\r\nDTSTART:20180115T1000\r\nEND:VEVENT\r\n",
            "BEGIN:VEVENT\r\nRRULE:RSCALE=ETHIOPIC;FREQ=MONTHLY;BYMONTH=13\r\nRRULE:RSCALE=HEBREW;FREQ=YEARLY;BYMONTH=5L;BYMONTHDAY=8;SKIP=FORWARD\r\nDTSTART:20180115T1000\r\nEND:VEVENT\r\n"
        ),
        (
            "BEGIN:VEVENT\r\nDESCRIPTION;lang=de;x-a=\"a:b\";x-b=\"plain\":lang\r\n  gefaltet\r\nEND:VEVENT\r\n",
            "BEGIN:VEVENT\r\nDESCRIPTION;LANG=de;X-A=\"a:b\";X-B=plain:lang gefaltet\r\nEND:VEVENT\r\n"
        ),
    ])
    func formatKeepsWhatItRead(_ input: String, _ expected: String) {
        let (status, io) = run(["ics", "format", "--lenient", "-"], CapturedIO(standardInput: Array(input.utf8)))
        #expect(status == 0, "\(io.errors)")
        #expect(io.text == expected)
    }

    /// Every reader reads as the server stores by default: a file with bare LF line
    /// endings, which `check` accepts with one warning, is expanded too; a diagnostic
    /// repeated line after line is printed once, with its count; a refusal says when
    /// --lenient would have read the file.
    @Test func everyReaderUsesOnePolicy() {
        let lines = String(decoding: Self.valid, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
        let input = CapturedIO(standardInput: Array(lines.utf8))
        let (expanded, io) = run(
            ["ics", "expand", "--from", "2026-01-01", "--to", "2028-01-01", "-"], input)
        #expect(expanded == 0, "\(io.errors)")
        #expect(io.errors.count == 1 && io.errors[0].contains("[invalidLineEnding]"), "\(io.errors)")
        let (strict, strictIO) = run(["ics", "expand", "--strict", "-"], CapturedIO(standardInput: Array(lines.utf8)))
        #expect(strict == 1)
        let repeated = strictIO.errors.filter { $0.contains("[invalidLineEnding]") }
        #expect(repeated.count == 1 && repeated[0].contains("more like it"), "\(strictIO.errors)")
        #expect(strictIO.errors.last?.contains("--lenient") == true, "\(strictIO.errors)")
        #expect(run(["ics", "format", "--strict", "--lenient", "ok.ics"]).0 == 2)
    }

    @Test func jsonRoundTrip() {
        let (status, json) = run(["ics", "to-json", "ok.ics"])
        #expect(status == 0)
        #expect(json.text.contains("\"dtstart\""))
        let (compactStatus, compact) = run(["ics", "to-json", "--compact", "ok.ics"])
        #expect(compactStatus == 0)
        #expect(compact.text.hasPrefix(#"["vcalendar",[["version",{},"text","2.0"]"#))
        let (back, io) = run(["ics", "from-json", "-"], CapturedIO(standardInput: json.output))
        #expect(back == 0)
        #expect(
            io.text == String(decoding: Self.valid, as: UTF8.self).replacingOccurrences(of: "summary", with: "SUMMARY"))
        let (badStatus, bad) = run(["ics", "from-json", "-"], CapturedIO(standardInput: Array("[1,".utf8)))
        #expect(badStatus == 1)
        #expect(bad.errors.first?.contains("invalid JSON") == true)
    }

    @Test(arguments: [
        ["ics", "check", "--nope", "ok.ics"], ["--frobnicate"], ["ics", "format"], ["ics", "format", "a", "b"],
        ["frobnicate"], ["ics", "frobnicate"], ["ics", "check"],
    ])
    func usageErrorsExitTwoWithOneLine(arguments: [String]) {
        let (status, io) = run(arguments)
        #expect(status == 2)
        #expect(io.errors.count == 1)
        #expect(io.errors[0].hasPrefix("almanac: "))
        #expect(io.output.isEmpty)
    }

    @Test func missingFileIsAnErrorNotAUsageError() {
        let (status, io) = run(["ics", "check", "/nonexistent/x.ics"])
        #expect(status == 1)
        #expect(io.errors == ["almanac: /nonexistent/x.ics: No such file or directory"])
    }

    @Test func helpListsEveryCommand() {
        let (status, io) = run(["--help"])
        #expect(status == 0)
        for command in ["ics check", "ics format", "ics to-json", "ics from-json"] {
            #expect(io.text.contains(command))
        }
        let (icsStatus, ics) = run(["ics", "--help"])
        #expect(icsStatus == 0)
        #expect(ics.text.contains("--lenient") && ics.text.contains("--compact"))
    }
}
