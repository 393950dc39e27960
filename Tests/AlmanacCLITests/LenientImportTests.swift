import AlmanacCLI
import AlmanacTestSupport
import Foundation
import Testing

/// `ics check --lenient`, `ics expand --lenient` and `import` on files in the shape
/// real exporters write (Tests/ICalendarTests/Fixtures/lenient-exports).
@Suite struct LenientImportTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ICalendarTests/Fixtures/lenient-exports").appendingPathComponent(name)
        return [UInt8](try Data(contentsOf: url))
    }

    func io(_ names: [String], zone: String = "Europe/Berlin") throws -> CapturedIO {
        var files: [String: [UInt8]] = [:]
        for name in names { files[name] = try Self.fixture(name) }
        let io = CapturedIO(files: files)
        io.environment["ALMANAC_DATA"] = directory.path
        io.environment["USER"] = "tester"
        io.environment["TZ"] = zone
        return io
    }

    func run(_ arguments: [String], _ io: CapturedIO) -> (status: Int32, io: CapturedIO) {
        (Almanac.run(arguments, io: io), io)
    }

    @Test func checkRefusesStrictlyAndRecoversLeniently() throws {
        let name = "mozilla-sunbird-old.ics"
        let strict = run(["ics", "check", "--strict", name], try io([name]))
        #expect(strict.status == 1)
        #expect(strict.io.errors.first?.hasPrefix("\(name):1: ") == true)

        let lenient = run(["ics", "check", "--lenient", name], try io([name]))
        #expect(lenient.status == 0, "\(lenient.io.errors)")
        // VCALENDAR, VTIMEZONE, STANDARD, DAYLIGHT, VEVENT, VTODO; one warning per recovery.
        #expect(lenient.io.text == "\(name): ok, 6 components, 6 warnings\n")
        #expect(
            lenient.io.errors.contains {
                $0.hasPrefix("\(name):31: warning: ORGANIZER line without ':'") && $0.hasSuffix("[missingColon]")
            })
        #expect(lenient.io.errors.contains { $0.hasPrefix("\(name):47:") && $0.hasSuffix("[misspeltEnd]") })
    }

    @Test func expandReadsGoogleFloatingTimesInXWRTimeZone() throws {
        let name = "google-floating-x-wr-timezone.ics"
        let arguments = ["ics", "expand", name, "--from", "2026-03-01", "--to", "2026-05-01"]
        let lenient = run(arguments + ["--lenient"], try io([name]))
        #expect(lenient.status == 0, "\(lenient.io.errors)")
        // 09:00 in Berlin: 08:00Z before the switch on 2026-03-29, 07:00Z after.
        let starts = lenient.io.text.split(separator: "\n").map { String($0.prefix(20)) }
        #expect(
            starts == [
                "2026-03-16T08:00:00Z", "2026-03-20T17:00:00Z", "2026-03-23T08:00:00Z", "2026-03-30T07:00:00Z",
                "2026-04-06T07:00:00Z",
            ])
        #expect(lenient.io.errors.contains { $0.contains("[calendarTimeZone]") })
        // Strict mode keeps RFC 5545's floating reading.
        let strict = run(arguments, try io([name]))
        #expect(strict.io.text.hasPrefix("2026-03-16T09:00:00  "))
    }

    @Test func importGivesEventsWithoutUIDTheirOwnStableUIDs() throws {
        let name = "school-feed-without-uids.ics"
        let first = run(["import", name, "--calendar", "Schule"], try io([name]))
        #expect(first.status == 0, "\(first.io.errors)")
        #expect(first.io.text == "Imported 3 objects into Schule (3 events); rejected 0; 3 warnings.\n")
        #expect(first.io.errors.count == 3)
        #expect(first.io.errors.allSatisfy { $0.contains("has no UID; imported as UID derived-") })
        // Importing the same file again updates the three events: nothing is duplicated.
        let again = run(["import", name, "--calendar", "Schule"], try io([name]))
        #expect(again.io.text.hasPrefix("Imported 3 objects"))
        #expect(run(["calendar", "list"], try io([])).io.text.contains("Schule  3 objects"))
        let listed = run(["list", "--from", "2026-09-07", "--to", "2026-09-16", "--calendar", "Schule"], try io([])).io
            .text
        #expect(listed.split(separator: "\n").count == 6, "the zone's line and five")
    }

    @Test func importStoresGoogleFloatingTimesInTheCalendarZone() throws {
        let name = "google-floating-x-wr-timezone.ics"
        let imported = run(["import", name, "--calendar", "Lauftreff"], try io([name]))
        #expect(imported.status == 0, "\(imported.io.errors)")
        #expect(imported.io.errors.contains { $0.contains("stored with TZID=Europe/Berlin") })
        // Seen from UTC, 09:00 in Berlin on 2026-03-16 is 08:00 (a floating time would show 09:00).
        let listed = run(
            ["list", "--from", "2026-03-16", "--to", "2026-03-17", "--calendar", "Lauftreff"], try io([], zone: "UTC")
        ).io.text
        #expect(listed.hasPrefix("Times in UTC (UTC+00:00 now)\n2026-03-16 08:00–09:00  Lauftreff"))
    }

    @Test func importReadsBareEventsAndOutlookNearMisses() throws {
        let names = ["bare-vevent-download.ics", "outlook-whitespace-and-escapes.ics"]
        for name in names {
            let imported = run(["import", name, "--calendar", "Termine"], try io(names))
            #expect(imported.status == 0, "\(name): \(imported.io.errors)")
            #expect(imported.io.text.hasPrefix("Imported 1 object into Termine (1 event); rejected 0; "))
        }
        // The Outlook series: the union of its two rules, 10:00 in Berlin (five instances).
        let listed = run(["list", "--from", "2018-01-01", "--to", "2018-04-01", "--calendar", "Termine"], try io([])).io
            .text
        #expect(
            listed.split(separator: "\n").dropFirst().map { String($0.prefix(16)) } == [
                "2018-01-15 10:00", "2018-02-15 10:00", "2018-02-19 10:00", "2018-03-15 10:00", "2018-03-19 10:00",
            ])
        let bare = run(["list", "--from", "2026-12-03", "--to", "2026-12-04", "--calendar", "Termine"], try io([])).io
            .text
        #expect(bare.split(separator: "\n")[1].hasPrefix("2026-12-03 19:00–20:30  Stadtratssitzung"))
    }
}
