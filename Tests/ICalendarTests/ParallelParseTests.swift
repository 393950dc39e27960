import AlmanacTestSupport
import Foundation
import Testing

@testable import ICalendar

/// A large calendar read in runs on every core gives exactly the one-pass document,
/// and is refused (so the caller reads it in one pass) whenever it could differ.
@Suite struct ParallelParseTests {
    /// The parser run once over the whole input: the reference.
    static func onePass(_ bytes: [UInt8], _ options: ParseOptions) -> (
        roots: [Component], diagnostics: [ICalendarError]
    ) {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = ContentParser(input: buffer, options: options)
            parser.run()
            return (parser.roots, parser.diagnostics)
        }
    }

    static func inRuns(_ bytes: [UInt8], _ options: ParseOptions, parts: Int) -> ICalendarDocument? {
        bytes.withUnsafeBufferPointer { ParallelParse.document($0, options: options, parts: parts) }
    }

    @Test(arguments: [1, 2])
    func generatedCalendarsReadInRunsAsInOnePass(seed: Int) throws {
        let bytes = try Support.generatedCorpus(events: 3_000, seed: seed)
        for options in [ParseOptions.strict, .lenient] {
            let reference = Self.onePass(bytes, options)
            try #require(reference.diagnostics.isEmpty)
            for parts in [2, 3, 7, 16] {
                let document = try #require(Self.inRuns(bytes, options, parts: parts), "\(parts) runs")
                #expect(document.components == reference.roots, "\(parts) runs")
                #expect(document.warnings.isEmpty)
            }
        }
        // With LF line ends too (strict refuses them; lenient warns, so one pass reads it).
        let unixLines = bytes.filter { $0 != 0x0D }
        #expect(Self.inRuns(unixLines, .lenient, parts: 4) == nil)
    }

    /// Written in runs and joined, a calendar is the bytes one pass writes.
    @Test func largeCalendarsAreWrittenInRunsAsInOnePass() throws {
        var calendars = [try ICalendarParser.parse(try Support.generatedCorpus(events: 1_500, seed: 4))]
        for name in ["google-calendar-export.ics", "outlook-desktop-calendar-export.ics"] {
            let file = Support.fixtures.appendingPathComponent("real-world").appendingPathComponent(name)
            calendars.append(try ICalendarParser.parse(try Support.read(file), options: .lenient))
        }
        for document in calendars {
            let calendar = try #require(document.components.first)
            var serializer = ICalendarSerializer()
            serializer.write(calendar)
            for parts in [2, 3, 16] {
                let bytes = ICalendarSerializer.serializeInParallel(calendar, estimate: 0, parts: parts)
                if calendar.components.count >= 2 {
                    #expect(bytes == serializer.bytes, "\(parts) runs")
                } else {
                    #expect(bytes == nil)
                }
            }
        }
    }

    /// The header goes with every run: a VEVENT without DTSTART is fine under METHOD in any run.
    @Test func theCalendarsOwnPropertiesHoldInEveryRun() throws {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "METHOD:CANCEL"]
        for index in 0..<40 {
            lines += [
                "BEGIN:VEVENT", "UID:\(index)@almanac.test", "DTSTAMP:20261101T120000Z", "SEQUENCE:1", "END:VEVENT",
            ]
        }
        lines.append("END:VCALENDAR")
        let bytes = Support.ics(lines)
        let reference = Self.onePass(bytes, .strict)
        try #require(reference.diagnostics.isEmpty)
        let document = try #require(Self.inRuns(bytes, .strict, parts: 5))
        #expect(document.components == reference.roots)
        #expect(document.components.first?.components.count == 40)
    }

    /// Shapes whose runs could read differently from the whole: each is refused, and
    /// `check` answers as one pass does, diagnostics and their lines included.
    @Test func anyOtherShapeIsReadInOnePass() throws {
        func calendar(_ body: [String], after: [String] = []) -> [UInt8] {
            var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN"]
            for index in 0..<12 {
                lines += [
                    "BEGIN:VEVENT", "UID:\(index)@almanac.test", "DTSTAMP:20261101T120000Z",
                    "DTSTART:20261201T090000Z", "END:VEVENT",
                ]
            }
            return Support.ics(lines + body + ["END:VCALENDAR"] + after)
        }
        let cases: [(String, [UInt8], ParseOptions)] = [
            ("a calendar property after its components", calendar(["X-WR-CALNAME:Late"]), .strict),
            ("a second calendar", calendar([], after: ["BEGIN:VCALENDAR", "END:VCALENDAR"]), .strict),
            ("a blank line at the end", calendar([], after: [""]), .lenient),
            (
                "a warning in one run",
                calendar(["BEGIN:VEVENT", "UID:x", "DTSTAMP:20261101T120000Z", "DTSTART:2026-12-01", "END:VEVENT"]),
                .lenient
            ),
            (
                "an error in one run",
                calendar(["BEGIN:VEVENT", "UID:x", "DTSTAMP:20261101T120000Z", "END:VEVENT"]), .strict
            ),
        ]
        for (name, bytes, options) in cases {
            #expect(Self.inRuns(bytes, options, parts: 4) == nil, "\(name)")
            let reference = Self.onePass(bytes, options)
            let checked = ICalendarParser.check(bytes, options: options)
            #expect(checked.diagnostics == reference.diagnostics, "\(name)")
        }
    }

    /// The runs' counts together stay inside the limits, or the whole is read in one
    /// pass, which reports the limit where it is crossed.
    @Test func limitsCountTheWholeCalendar() throws {
        let bytes = try Support.generatedCorpus(events: 300, seed: 3)
        var options = ParseOptions.strict
        let total = Self.onePass(bytes, options).roots.first?.components.count ?? 0
        options.limits.maxComponents = total  // fewer than the components at every depth
        #expect(Self.inRuns(bytes, options, parts: 4) == nil)
        #expect(Self.onePass(bytes, options).diagnostics.contains { $0.code == .limitExceeded })
    }

    /// Real exports: read in runs only when one pass reads them without a diagnostic,
    /// and then to the same document.
    @Test func realExportsReadInRunsOnlyWhenOnePassIsClean() throws {
        let folders = ["real-world", "lenient-exports"].map { Support.fixtures.appendingPathComponent($0) }
        for folder in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".ics") {
                let bytes = try Support.read(folder.appendingPathComponent(name))
                for options in [ParseOptions.strict, .lenient] {
                    let reference = Self.onePass(bytes, options)
                    let document = Self.inRuns(bytes, options, parts: 3)
                    if !reference.diagnostics.isEmpty {
                        #expect(document == nil, "\(name)")
                    } else if let document {
                        #expect(document.components == reference.roots, "\(name)")
                    }
                }
            }
        }
    }
}
