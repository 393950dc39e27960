import AlmanacTestSupport
import CivilTime
import Foundation
import Testing

/// Writes TZif files (RFC 8536) for tests: a version 1 block with the
/// transitions that fit 32 bits and, for version 2+, a 64-bit block and footer.
struct TZifWriter {
    var version: UInt8 = UInt8(ascii: "2")
    var types: [(offset: Int32, isDaylightSaving: Bool, abbreviation: String)]
    var transitions: [(time: Int64, type: UInt8)] = []
    var leapSeconds: [(occurrence: Int64, correction: Int32)] = []
    /// The footer's TZ string; `nil` writes no footer at all (a truncated file).
    var footer: String? = ""

    func bytes() -> [UInt8] {
        var output: [UInt8] = []
        block(into: &output, version: version, timeSize: 4)
        if version != 0 {
            block(into: &output, version: version, timeSize: 8)
            if let footer { output += [0x0A] + Array(footer.utf8) + [0x0A] }
        }
        return output
    }

    private func block(into output: inout [UInt8], version: UInt8, timeSize: Int) {
        let fits = { (time: Int64) in timeSize == 8 || Int64(Int32.min)...Int64(Int32.max) ~= time }
        let times = transitions.filter { fits($0.time) }
        let leaps = leapSeconds.filter { fits($0.occurrence) }
        var characters: [UInt8] = []
        var designations: [Int] = []
        for type in types {
            designations.append(characters.count)
            characters += Array(type.abbreviation.utf8) + [0]
        }
        output += Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
        for count in [types.count, types.count, leaps.count, times.count, types.count, characters.count] {
            output += Self.bigEndian(UInt64(count), size: 4)
        }
        for transition in times { output += Self.bigEndian(UInt64(bitPattern: transition.time), size: timeSize) }
        output += times.map(\.type)
        for (index, type) in types.enumerated() {
            output += Self.bigEndian(UInt64(UInt32(bitPattern: type.offset)), size: 4)
            output += [type.isDaylightSaving ? 1 : 0, UInt8(designations[index])]
        }
        output += characters
        for leap in leaps {
            output += Self.bigEndian(UInt64(bitPattern: leap.occurrence), size: timeSize)
            output += Self.bigEndian(UInt64(UInt32(bitPattern: leap.correction)), size: 4)
        }
        output += [UInt8](repeating: 0, count: types.count * 2)  // isstd, isut
    }

    static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

@Suite struct TZifTests {
    static func file(_ identifier: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: TimeZoneDatabase.directory + "/" + identifier)))
    }

    static func error(_ bytes: [UInt8]) -> TZifError? {
        do {
            _ = try TZif.parse(bytes, identifier: "Test/Zone")
            return nil
        } catch {
            return error
        }
    }

    static let berlinLike = TZifWriter(
        types: [(3208, false, "LMT"), (3600, false, "CET"), (7200, true, "CEST")],
        transitions: [(-2_422_054_408, 1), (1_774_746_000, 2), (1_792_890_000, 1)],
        footer: "CET-1CEST,M3.5.0,M10.5.0/3")

    @Test func everyInstalledFileParses() throws {
        let root = TimeZoneDatabase.directory
        let enumerator = try #require(FileManager.default.enumerator(atPath: root))
        var parsed = 0
        while let path = enumerator.nextObject() as? String {
            guard enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: root + "/" + path)))
            guard bytes.starts(with: Array("TZif".utf8)) else { continue }
            #expect(throws: Never.self, "\(path)") { _ = try TZif.parse(bytes, identifier: path) }
            parsed += 1
        }
        #expect(parsed > 500)
    }

    @Test func leapSecondFilesGiveTheSameUnixInstants() throws {
        for identifier in ["Europe/Berlin", "America/New_York", "Australia/Sydney"] {
            guard let right = try? Self.file("right/" + identifier) else { continue }
            let leapAware = try TZif.parse(right, identifier: identifier)
            let plain = try ZoneSamples.zone(identifier)
            // A right/ file stops where its leap-second list expires (a no-op
            // transition in 2026 here) and has an empty footer: a TZ string
            // cannot count leap seconds. Up to there the Unix instants agree.
            let end = try #require(leapAware.transitions.last).instant
            #expect(
                leapAware.transitions.map(\.instant) == plain.transitions.map(\.instant).filter { $0 <= end },
                "\(identifier)")
            #expect(leapAware.footer == nil)
        }
    }

    @Test func everyTruncationThrows() throws {
        for identifier in ["Europe/Berlin", "Asia/Kolkata", "UTC"] {
            let bytes = try Self.file(identifier)
            for length in 0..<bytes.count {
                let error = Self.error(Array(bytes[0..<length]))
                #expect(error?.code == .truncated, "\(identifier) cut at \(length): \(String(describing: error))")
            }
        }
    }

    @Test func mutatedFilesThrowOrParseButNeverTrap() throws {
        var generator = SplitMix64(seed: 8536)
        for identifier in ["Europe/Berlin", "Australia/Sydney", "Pacific/Chatham"] {
            let original = try Self.file(identifier)
            for _ in 0..<1500 {
                var bytes = original
                for _ in 0...(generator.next() % 4) {
                    let position = Int(generator.next() % UInt64(bytes.count))
                    bytes[position] = UInt8(truncatingIfNeeded: generator.next())
                }
                guard let rules = try? TZif.parse(bytes, identifier: identifier) else { continue }
                for instant in [Int.min, -2_000_000_000, 0, 1_774_746_000, 4_109_880_600, Int.max] {
                    _ = rules.offset(at: instant)
                    _ = rules.instant(for: rules.localTime(at: instant))
                }
                _ = rules.transitions(from: 0, to: 4_133_980_799)
            }
        }
    }

    @Test func garbageThrows() {
        var generator = SplitMix64(seed: 1)
        for length in [0, 1, 4, 43, 44, 45, 100, 1000] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            #expect(Self.error(bytes) != nil)
            #expect(Self.error(Array("TZif2".utf8) + bytes) != nil)
        }
        #expect(Self.error([])?.code == .truncated)
        #expect(Self.error(Array("<html>not a zone</html>, long enough to hold a TZif header".utf8))?.code == .badMagic)
    }

    @Test func errorsNameTheProblemAndWhere() {
        var writer = Self.berlinLike
        var bytes = writer.bytes()
        bytes[4] = UInt8(ascii: "5")
        let version = Self.error(bytes)
        #expect(version?.code == .unsupportedVersion && version?.offset == 4)
        #expect(version?.description == "TZif Test/Zone: unsupportedVersion at byte 4: version byte 53")

        writer.types = []
        #expect(Self.error(writer.bytes())?.code == .invalidHeader)  // typecnt is zero

        writer = Self.berlinLike
        writer.transitions = [(1_792_890_000, 1), (1_774_746_000, 2)]
        #expect(Self.error(writer.bytes())?.code == .invalidData)  // not ascending

        writer = Self.berlinLike
        writer.transitions = [(1_774_746_000, 7)]
        #expect(Self.error(writer.bytes())?.code == .invalidData)  // no type 7

        writer = Self.berlinLike
        writer.types[0].offset = 100_000
        #expect(Self.error(writer.bytes())?.code == .invalidData)  // beyond RFC 8536's range

        writer = Self.berlinLike
        writer.footer = "CET-1CEST,M3.5.0"
        let footer = Self.error(writer.bytes())
        #expect(footer?.code == .invalidFooter)
        #expect(footer?.description.contains("\"CET-1CEST,M3.5.0\" is not a POSIX TZ string") == true)

        writer = Self.berlinLike
        writer.footer = nil
        #expect(Self.error(writer.bytes())?.code == .truncated)  // no footer at all

        writer = Self.berlinLike
        bytes = writer.bytes()
        bytes.removeLast()  // the footer's closing newline
        #expect(Self.error(bytes)?.code == .truncated)
    }

    @Test func versionOneFilesUseThe32BitBlock() throws {
        var writer = Self.berlinLike
        writer.version = 0
        let rules = try TZif.parse(writer.bytes(), identifier: "Test/V1")
        #expect(rules.footer == nil)
        // 32 bits reach back to 1901-12-13: the 1893 change from LMT is not in a version 1 file.
        #expect(rules.transitions.map(\.instant) == [1_774_746_000, 1_792_890_000])
        #expect(rules.offset(at: 4_109_880_600).seconds == 3600)  // no footer: the last type stays

        // The version 1 block of a real file, on its own, agrees with the whole file where 32 bits reach.
        let berlin = try Self.file("Europe/Berlin")
        var versionOne = Array(berlin[0..<44])
        let counts = (0..<6).map { index in
            versionOne[(20 + 4 * index)..<(24 + 4 * index)].reduce(0) { $0 << 8 | Int($1) }
        }
        let length = counts[3] * 5 + counts[4] * 6 + counts[5] + counts[2] * 8 + counts[1] + counts[0]
        versionOne += berlin[44..<(44 + length)]
        versionOne[4] = 0
        let old = try TZif.parse(versionOne, identifier: "Europe/Berlin")
        let full = try ZoneSamples.zone("Europe/Berlin")
        for instant in stride(from: -2_000_000_000, to: 2_000_000_000, by: 999_983) {
            #expect(old.offset(at: instant) == full.offset(at: instant), "\(instant)")
        }
    }

    @Test func footersDecideAfterTheTable() throws {
        // No transitions: the footer governs every instant (RFC 8536 §3.3).
        var writer = TZifWriter(types: [(3600, false, "CET")], footer: "CET-1CEST,M3.5.0,M10.5.0/3")
        let footerOnly = try TZif.parse(writer.bytes(), identifier: "Test/FooterOnly")
        #expect(footerOnly.offset(at: 1_774_746_000).seconds == 7200)  // 2026-03-29T01:00:00Z
        #expect(footerOnly.offset(at: -1_000_000_000).seconds == 7200)  // 1938-04-24T22:13:20Z: the rules reach back
        #expect(footerOnly.offset(at: 0).seconds == 3600)  // 1970-01-01T00:00:00Z

        // An empty footer: the last type stays.
        writer = Self.berlinLike
        writer.footer = ""
        let noRules = try TZif.parse(writer.bytes(), identifier: "Test/EmptyFooter")
        #expect(noRules.footer == nil && noRules.offset(at: 4_109_880_600).seconds == 3600)

        // Version 3 and 4 footers with hours beyond 24.
        for version in ["3", "4"] {
            writer = TZifWriter(
                version: UInt8(ascii: Unicode.Scalar(version)!), types: [(7200, false, "IST"), (10_800, true, "IDT")],
                transitions: [(1_774_569_600, 1)], footer: "IST-2IDT,M3.4.4/26,M10.5.0")
            let jerusalem = try TZif.parse(writer.bytes(), identifier: "Test/V\(version)")
            #expect(
                jerusalem.transitions(from: 4_102_444_800, to: 4_133_980_800).map(\.instant) == [
                    4_109_702_400, 4_128_620_400,
                ])
            // 2100-03-26T00:00:00Z (Friday 02:00 IST), 2100-10-30T23:00:00Z (Sunday 02:00 IDT)
        }
    }

    @Test func leapSecondTablesAreRemovedFromTransitionTimes() throws {
        // Two leap seconds before the transition: the file's clock is 2 s ahead of Unix time.
        let writer = TZifWriter(
            types: [(3600, false, "CET"), (7200, true, "CEST")],
            transitions: [(1_774_746_002, 1)],
            leapSeconds: [(78_796_800, 1), (94_694_401, 2)],
            footer: "")
        let rules = try TZif.parse(writer.bytes(), identifier: "Test/Leap")
        #expect(rules.transitions.map(\.instant) == [1_774_746_000])  // 2026-03-29T01:00:00Z
    }
}
