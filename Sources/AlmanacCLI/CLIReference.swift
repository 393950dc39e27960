/// The command reference as Markdown, made from the command table as `--help` is: the
/// generated part of `docs/cli.md` (a test keeps the file current).
enum CLIReference {
    /// The line in `docs/cli.md` after which the file is this reference.
    static let marker =
        "<!-- Generated from Sources/AlmanacCLI/CommandTable.swift below this line; a test keeps it current. -->"

    /// Every command and subcommand in `almanac --help`'s order: usage, options with their
    /// defaults, details and an example.
    static var markdown: String {
        var lines = [
            "## Reference", "",
            "Every command with its options and their defaults, as `almanac COMMAND --help` prints them.", "",
            "Store commands work on `--database URL`, else `$ALMANAC_DATABASE` (`postgres://user@host/db` or "
                + "`sqlite:PATH`), else `almanac.sqlite` in the data directory (`--data DIR`, else `$ALMANAC_DATA`, "
                + "else `$XDG_DATA_HOME/almanac`, else `~/.local/share/almanac`), for `--user NAME`, else "
                + "`$ALMANAC_USER`, else the only user.", "",
            CommandTable.whenText.split(separator: "\n").joined(separator: " "), "",
            "Exit status: 0 success, 1 invalid or unreadable input, 2 usage error.",
        ]
        for entry in CommandTable.entries {
            switch entry {
            case .command(let spec): lines += command(spec)
            case .group(let group):
                lines += ["", "### `almanac \(group.name)`", "", HelpText.capitalized(group.summary) + "."]
                if let details = group.details { lines += ["", paragraph(details)] }
                for spec in group.subcommands { lines += command(spec) }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func command(_ spec: CommandSpec) -> [String] {
        var lines = [
            "", "#### `almanac \(spec.synopsis)`", "", HelpText.capitalized(spec.summary) + ".", "", "```",
            "almanac \(spec.usage)", "```",
        ]
        if !spec.options.isEmpty {
            lines += ["", "| Option | What it does |", "|---|---|"]
            for option in spec.options {
                lines.append("| `\(option.usage)` | \(cell(HelpText.describe(option))) |")
            }
        }
        if let details = spec.details { lines += ["", paragraph(details)] }
        lines += ["", "Example: `\(spec.example)`"]
        return lines
    }

    /// Text for a table cell: no line breaks, `|` escaped.
    static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "|", with: "\\|")
    }

    /// A help text as Markdown: its wrapped lines joined into paragraphs; a blank line, or a
    /// line that starts with a space or `-` (an example, a list), starts a line of its own.
    static func paragraph(_ text: String) -> String {
        var lines: [String] = []
        var previousBlank = true
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.isEmpty {
                lines.append("")
            } else if previousBlank || line.hasPrefix(" ") || line.hasPrefix("-") {
                lines.append(line.hasPrefix(" ") ? "    " + line.drop { $0 == " " } : line)
            } else {
                lines[lines.count - 1] += " " + line
            }
            previousBlank = line.isEmpty
        }
        return lines.joined(separator: "\n")
    }
}
