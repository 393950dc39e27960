import Foundation
import Testing

@testable import AlmanacCLI

/// docs/cli.md ends with the reference made from the command table: a command or option
/// added without it fails here. `ALMANAC_UPDATE_DOCS=1 swift test --filter CLIReferenceTests`
/// writes the current reference into the file.
@Suite struct CLIReferenceTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/cli.md")

    @Test func docsCLIMatchesTheCommandTable() throws {
        let text = try String(contentsOf: Self.file, encoding: .utf8)
        let range = try #require(text.range(of: CLIReference.marker + "\n"), "docs/cli.md lacks the marker line")
        let expected = String(text[..<range.upperBound]) + "\n" + CLIReference.markdown
        if ProcessInfo.processInfo.environment["ALMANAC_UPDATE_DOCS"] == "1", text != expected {
            try expected.write(to: Self.file, atomically: true, encoding: .utf8)
            return
        }
        #expect(
            text == expected,
            "docs/cli.md is not the command table's reference; run ALMANAC_UPDATE_DOCS=1 swift test --filter CLIReferenceTests"
        )
    }

    /// Every command and every option of the table is in the reference.
    @Test func everyCommandAndOptionIsListed() {
        let reference = CLIReference.markdown
        for spec in CommandTable.allCommands {
            #expect(reference.contains("#### `almanac \(spec.synopsis)`"), "\(spec.name)")
            for option in spec.options {
                #expect(reference.contains("| `\(option.usage)` |"), "\(spec.name) \(option.name)")
            }
        }
    }
}
