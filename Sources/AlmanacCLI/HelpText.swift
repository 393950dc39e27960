/// The help `almanac … --help` prints, made from the command table.
enum HelpText {
    static let width = 80

    /// `almanac --help`: every command, then how the store is chosen and what WHEN is.
    static var topLevel: String {
        var lines = [
            "almanac — a calendar engine and server", "", "Usage: almanac <command> [options]", "", "Commands:",
        ]
        for entry in CommandTable.entries {
            switch entry {
            case .command(let spec):
                lines += item(spec.synopsis, spec.summary)
            case .group(let group):
                for spec in group.subcommands { lines += item(spec.synopsis, spec.summary) }
            }
        }
        lines +=
            [""]
            + wrap(
                "Store commands work on --database URL, else $ALMANAC_DATABASE (postgres://user@host/db or sqlite:PATH), "
                    + "else almanac.sqlite in the data directory (--data DIR, else $ALMANAC_DATA, else $XDG_DATA_HOME/almanac, "
                    + "else ~/.local/share/almanac), for --user NAME, else $ALMANAC_USER, else the only user.",
                indent: "")
        lines += [""] + CommandTable.whenText.split(separator: "\n").map(String.init)
        lines += ["", "Options:"]
        lines += item(
            "-h, --help",
            "show help; 'almanac COMMAND --help' (or 'almanac help COMMAND') shows a command's options, their defaults and an example"
        )
        lines += item("--version", "print the version")
        lines += ["", "Exit status: 0 success, 1 invalid or unreadable input, 2 usage error."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A group's subcommands with their summaries.
    static func group(_ group: CommandGroup) -> String {
        var lines = [
            "Usage: almanac \(group.name) <subcommand> [options]", "", "\(capitalized(group.summary)).", "",
            "Subcommands:",
        ]
        for spec in group.subcommands {
            // The subcommand's own options inline; the store's are in each subcommand's help.
            let shared = Set(CommandTable.storeOptions.map(\.name))
            let own = spec.options.filter { !shared.contains($0.name) }.map { "[\($0.usage)]" }
            lines += item(
                ([spec.synopsis.dropFirst(group.name.count + 1).description] + own).joined(separator: " "), spec.summary
            )
        }
        if let details = group.details { lines += [""] + wrap(details, indent: "") }
        lines += ["", "'almanac \(group.name) <subcommand> --help' shows a subcommand's options and an example."]
        return lines.joined(separator: "\n") + "\n"
    }

    /// One command's usage, summary, options with their defaults, details and example.
    static func command(_ spec: CommandSpec) -> String {
        var lines = ["Usage: almanac \(spec.usage)", "", "\(capitalized(spec.summary))."]
        lines += ["", "Options:"]
        for option in spec.options { lines += item(option.usage, describe(option)) }
        lines += item("-h, --help", "show this help")
        if let details = spec.details { lines += [""] + wrap(details, indent: "") }
        lines += ["", "Example:", "  " + spec.example]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The summary, then the default and whether it repeats.
    static func describe(_ option: OptionSpec) -> String {
        var text = option.summary
        if option.isRepeatable { text += "; repeatable" }
        switch option.fallback {
        case .value(let value)?: text += " (default: \(value))"
        case .required?: text += " (required)"
        case .note(let note)?: text += " (\(note))"
        case nil: break
        }
        return text
    }

    /// `  NAME   text`, the text wrapped at `width` and aligned in a column.
    static func item(_ name: String, _ text: String) -> [String] {
        let column = 26
        let indent = String(repeating: " ", count: column)
        var lines = wrap(text, indent: indent)
        let head = "  " + name
        if head.count + 1 < column {
            lines[0] = head + String(repeating: " ", count: column - head.count) + lines[0].dropFirst(column)
        } else {
            lines.insert(head, at: 0)
        }
        return lines
    }

    /// `text` in lines of at most `width` characters (a longer word stands alone), each
    /// starting with `indent`; its own line breaks are kept.
    static func wrap(_ text: String, indent: String) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = indent
            for word in paragraph.split(separator: " ") {
                if line.count > indent.count && line.count + 1 + word.count > width {
                    lines.append(line)
                    line = indent
                }
                line += (line.count > indent.count ? " " : "") + word
            }
            lines.append(line)
        }
        return lines
    }

    static func capitalized(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }
}

extension CommandTable {
    /// The help that `arguments` ask for, or nil when they do not ask: `--help` or `-h`
    /// anywhere before `--` (it wins over every other mistake on the line), or
    /// `help [COMMAND [SUBCOMMAND]]` as the command or subcommand.
    static func helpRequest(_ arguments: [String]) throws(CommandFailure) -> String? {
        let words = Array(arguments.prefix { $0 != "--" })
        guard let first = words.first else { return nil }
        if first == "help" {
            let path = Array(arguments.dropFirst())
            guard let topic = path.first else { return HelpText.topLevel }
            guard let help = help(for: path) else { throw .usage("no command '\(topic)' (see 'almanac --help')") }
            return help
        }
        if first == "--help" || first == "-h" { return HelpText.topLevel }
        guard case .group(let group)? = entry(named: first), words.count > 1, words[1] == "help" else {
            return words.contains("--help") || words.contains("-h") ? help(for: words) : nil
        }
        // `almanac ics help [SUBCOMMAND]`.
        guard words.count > 2 else { return HelpText.group(group) }
        return HelpText.command(try group.spec(words[2]))
    }

    /// The help of the command `path` starts with: a command's, a subcommand's, or a
    /// group's when the subcommand is missing or unknown; nil for an unknown command.
    static func help(for path: [String]) -> String? {
        guard let first = path.first, let entry = entry(named: first) else { return nil }
        switch entry {
        case .command(let spec):
            return HelpText.command(spec)
        case .group(let group):
            if path.count > 1, let spec = group.subcommand(named: path[1]) { return HelpText.command(spec) }
            return HelpText.group(group)
        }
    }
}
