import Foundation
import ICalendar
import JSON
import Testing

/// The fixture corpora under Fixtures/ and the generated corpus.
@Suite struct CorpusTests {
    struct MalformedCase: Decodable, CustomTestStringConvertible, Sendable {
        var file: String
        var code: String
        var line: Int
        var column: Int?
        var lenient: String
        var testDescription: String { file }
    }

    struct RealWorldCase: Decodable, CustomTestStringConvertible, Sendable {
        struct ParameterExpectation: Decodable, Sendable {
            var property: String
            var parameter: String
            var values: [String]
        }
        var file: String
        var strictValid: Bool
        var strictFirstCode: String?
        var lenientWarningCodes: [String]
        var components: [String: Int]
        var summaries: [String]
        var parameters: [ParameterExpectation]
        var testDescription: String { file }
    }

    static func manifest<T: Decodable>(_ directory: String) -> [T] {
        let url = Support.fixtures.appendingPathComponent(directory).appendingPathComponent("EXPECTED.json")
        return (try? JSONDecoder().decode([T].self, from: Data(contentsOf: url))) ?? []
    }

    static let malformed: [MalformedCase] = manifest("malformed")
    static let realWorld: [RealWorldCase] = manifest("real-world")

    @Test func manifestsAreCompleteAndLoad() throws {
        for (directory, listed) in [
            ("malformed", Self.malformed.map(\.file)), ("real-world", Self.realWorld.map(\.file)),
        ] {
            let files = try FileManager.default.contentsOfDirectory(
                atPath: Support.fixtures.appendingPathComponent(directory).path
            )
            .filter { $0.hasSuffix(".ics") }
            #expect(Set(files) == Set(listed), "every fixture in \(directory) has an expectation")
            #expect(!listed.isEmpty)
        }
    }

    /// Every malformed file yields a located error of the expected kind, in both modes where expected, and nothing crashes.
    @Test(arguments: malformed)
    func malformedInput(expected: MalformedCase) throws {
        let bytes = try Support.read(
            Support.fixtures.appendingPathComponent("malformed").appendingPathComponent(expected.file))
        let strict = ICalendarParser.check(bytes, options: .strict)
        #expect(strict.document == nil)
        let first = try #require(strict.errors.first)
        #expect(first.code.rawValue == expected.code)
        #expect(first.line == expected.line)
        if let column = expected.column { #expect(first.column == column) }
        #expect(strict.diagnostics.allSatisfy { $0.line != nil })

        let lenient = ICalendarParser.check(bytes, options: .lenient)
        if expected.lenient == "ok" {
            let document = try #require(lenient.document, "lenient mode recovers: \(lenient.errors)")
            #expect(!document.warnings.isEmpty)
            // What lenient mode recovered serializes and reads back to the same tree.
            #expect(
                try ICalendarParser.parse(document.serialized(), options: .lenient).components == document.components)
        } else {
            #expect(lenient.document == nil)
        }
    }

    @Test(arguments: realWorld)
    func realWorldExports(expected: RealWorldCase) throws {
        let bytes = try Support.read(
            Support.fixtures.appendingPathComponent("real-world").appendingPathComponent(expected.file))
        let strict = ICalendarParser.check(bytes, options: .strict)
        #expect((strict.document != nil) == expected.strictValid, "\(strict.errors)")
        #expect(strict.errors.first?.code.rawValue == expected.strictFirstCode)

        let lenient = ICalendarParser.check(bytes, options: .lenient)
        let document = try #require(lenient.document, "\(lenient.errors)")
        #expect(Set(document.warnings.map(\.code.rawValue)) == Set(expected.lenientWarningCodes))

        var counts: [String: Int] = [:]
        var summaries: [String] = []
        func walk(_ component: Component) {
            counts[component.name, default: 0] += 1
            if ["VEVENT", "VTODO", "VJOURNAL"].contains(component.name), let summary = component.property("SUMMARY") {
                summaries.append(summary.textValue())
            }
            component.components.forEach(walk)
        }
        document.components.forEach(walk)
        #expect(counts == expected.components)
        #expect(summaries == expected.summaries)
        for parameter in expected.parameters {
            let found = document.components.flatMap(Self.allProperties).first {
                $0.name == parameter.property && $0.parameter(parameter.parameter) != nil
            }
            #expect(
                found?.parameter(parameter.parameter)?.values == parameter.values,
                "\(parameter.property);\(parameter.parameter)")
        }
        // Lossless: serialize and parse again gives the same tree; serializing that is byte-stable.
        let serialized = document.serialized()
        let again = try ICalendarParser.parse(serialized, options: .lenient)
        #expect(again.components == document.components)
        #expect(again.serialized() == serialized)
    }

    static func allProperties(_ component: Component) -> [Property] {
        component.properties + component.components.flatMap(allProperties)
    }

    /// Inputs that once crashed or hung a fuzzer; each must parse or fail cleanly in both modes.
    @Test func fuzzRegressions() throws {
        let directory = Support.fixtures.appendingPathComponent("fuzz-regressions")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for file in files where !file.hasPrefix(".") && file != "README.md" {
            let bytes = try Support.read(directory.appendingPathComponent(file))
            for options in [ParseOptions.strict, .lenient] {
                let result = ICalendarParser.check(bytes, options: options)
                if let document = result.document {
                    let again = try ICalendarParser.parse(document.serialized(), options: .lenient)
                    #expect(JCalTests.firstDifference(again.components, document.components) == nil, "\(file)")
                    #expect(again.serialized() == document.serialized(), "\(file)")
                } else {
                    #expect(result.errors.first?.line != nil, "\(file)")
                }
            }
        }
    }

    /// The round-trip property over generated calendars: parse → serialize → parse
    /// gives the same tree, serializing is byte-stable, and so is jCal.
    @Test(arguments: [1, 2, 3])
    func generatedCorpusRoundTrips(seed: Int) throws {
        let bytes = try Support.generatedCorpus(events: 2000, seed: seed)
        let document = try ICalendarParser.parse(bytes)
        #expect(document.warnings.isEmpty)
        let events = document.components[0].components.filter { $0.name == "VEVENT" }
        #expect(events.count >= 2000)

        let serialized = document.serialized()
        let reparsed = try ICalendarParser.parse(serialized)
        #expect(JCalTests.firstDifference(reparsed.components, document.components) == nil)
        #expect(reparsed.serialized() == serialized)
        // The generator writes canonical content lines except for quoting it does not need
        // (CN="Grace Lee"); every line we wrote is ≤ 75 octets and every fold is valid.
        #expect(LineChecks.problems(in: serialized).isEmpty)

        let json = try JCal.json(for: document)
        let back = try JCal.document(from: JSONValue(parsing: json.jsonText))
        let difference = JCalTests.firstDifference(
            back.components.map(JCalTests.normalized), document.components.map(JCalTests.normalized))
        #expect(difference == nil)
    }
}

/// Checks on serialized output that do not depend on the serializer's own logic.
enum LineChecks {
    /// Lines longer than 75 octets, lines not ending in CRLF, and physical lines that are not valid UTF-8.
    static func problems(in bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        var lineStart = 0
        var number = 1
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index == 0 || bytes[index - 1] != 0x0D { problems.append("line \(number): bare LF") }
                let end = index > 0 && bytes[index - 1] == 0x0D ? index - 1 : index
                let line = Array(bytes[lineStart..<end])
                if line.count > 75 { problems.append("line \(number): \(line.count) octets") }
                if String(validating: line, as: UTF8.self) == nil {
                    problems.append("line \(number): fold splits UTF-8")
                }
                lineStart = index + 1
                number += 1
            }
            index += 1
        }
        if lineStart != bytes.count { problems.append("no final CRLF") }
        return problems
    }
}
