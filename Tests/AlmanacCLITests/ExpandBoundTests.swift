import AlmanacCLI
import AlmanacTestSupport
import CalendarStore
import Foundation
import Testing

/// `ics expand` bounds each series, never the whole file, and says which series it cut.
@Suite struct ExpandBoundTests {
    /// Three weekly series of 10, 20 and 30 instances, all in 2026 (DTSTART on Mondays in January).
    static let threeSeries = Array(
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:x",
            "BEGIN:VEVENT", "UID:ten", "DTSTAMP:20260101T000000Z", "DTSTART:20260105T090000Z",
            "RRULE:FREQ=WEEKLY;COUNT=10", "SUMMARY:Ten", "END:VEVENT",
            "BEGIN:VEVENT", "UID:twenty", "DTSTAMP:20260101T000000Z", "DTSTART:20260105T100000Z",
            "RRULE:FREQ=WEEKLY;COUNT=20", "SUMMARY:Twenty",
            "END:VEVENT",
            "BEGIN:VEVENT", "UID:thirty", "DTSTAMP:20260101T000000Z", "DTSTART:20260105T110000Z",
            "RRULE:FREQ=WEEKLY;COUNT=30", "SUMMARY:Thirty",
            "END:VEVENT",
            "END:VCALENDAR",
        ].joined(separator: "\r\n") + "\r\n").utf8)

    func run(_ arguments: [String], files: [String: [UInt8]] = ["three.ics": threeSeries]) -> (Int32, CapturedIO) {
        let io = CapturedIO(files: files)
        return (Almanac.run(arguments, io: io), io)
    }

    static func lines(_ io: CapturedIO) -> [String] { io.text.split(separator: "\n").map(String.init) }

    @Test func aBoundAboveEverySeriesListsThemAll() {
        // 30 per series is enough for each, though the file holds 60 instances.
        let (status, io) = run([
            "ics", "expand", "three.ics", "--from", "2026-01-01", "--to", "2027-01-01", "--max-instances", "30",
        ])
        #expect(status == 0, "\(io.errors)")
        #expect(io.errors.isEmpty)
        let lines = Self.lines(io)
        #expect(lines.count == 60)
        #expect(lines.filter { $0.contains("(ten ") }.count == 10)
        #expect(lines.filter { $0.contains("(twenty ") }.count == 20)
        #expect(lines.filter { $0.contains("(thirty ") }.count == 30)
    }

    @Test func theSeriesPastTheBoundIsNamedAndTheExitSaysSo() {
        // 25 per series: the first two are whole, the third is cut after its 25th week.
        let (status, io) = run([
            "ics", "expand", "three.ics", "--from", "2026-01-01", "--to", "2027-01-01", "--max-instances", "25",
        ])
        #expect(status == 1)
        let lines = Self.lines(io)
        #expect(lines.filter { $0.contains("(ten ") }.count == 10)
        #expect(lines.filter { $0.contains("(twenty ") }.count == 20)
        #expect(lines.filter { $0.contains("(thirty ") }.count == 25)
        #expect(io.errors.count == 1)
        let notice = io.errors.first ?? ""
        // The 25th Monday from 2026-01-05 is 24 weeks later: 2026-06-22.
        #expect(
            notice.contains("series thirty \"Thirty\"") && notice.contains("25 instances")
                && notice.contains("2026-06-22T11:00:00Z"), "\(notice)")
        #expect(notice.contains("--max-instances"))
        #expect(!notice.contains("ten") && !notice.contains("twenty"))
    }

    @Test(arguments: ["0", "-1", "ten", "10000001", "9223372036854775808"])
    func maxInstancesOutOfRangeIsAUsageError(_ value: String) {
        let (status, io) = run(["ics", "expand", "three.ics", "--max-instances", value])
        #expect(status == 2)
        #expect(io.output.isEmpty && io.errors.count == 1)
    }

    /// A generated calendar holds far more instances than one series may have: expanding
    /// the file lists as many as expanding each of its objects on its own does.
    @Test func aWholeCorpusListsWhatItsObjectsListOneByOne() throws {
        let corpus = try Corpus.generate(events: 400, seed: 16)
        let window = ["--from", "2024-01-01", "--to", "2029-01-01", "--format", "jsonl"]
        // No generated series has 500 instances in these five years; the file has thousands.
        let bound = ["--max-instances", "500"]
        let (status, io) = run(["ics", "expand", "corpus.ics"] + window + bound, files: ["corpus.ics": corpus])
        #expect(status == 0, "\(io.errors.prefix(3))")
        var expected = 0
        for object in try CalendarFileSplitter.split(corpus).objects {
            let (one, oneIO) = run(["ics", "expand", "one.ics"] + window + bound, files: ["one.ics": object.data])
            #expect(one == 0)
            expected += Self.lines(oneIO).count
        }
        #expect(expected > 1_000)
        #expect(Self.lines(io).count == expected)
    }
}
