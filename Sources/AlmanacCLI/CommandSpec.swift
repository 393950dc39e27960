/// What a command's option value or operand is, so the completion scripts offer the
/// right things (files, a fixed set of words, or nothing for free text).
enum ValueKind: Sendable, Equatable {
    case text
    case file
    case directory
    case choices([String])
}

/// One option of a command, as its help shows it and its parser accepts it.
struct OptionSpec: Sendable {
    /// What an option is when it is not given.
    enum Default: Sendable {
        /// `(default: …)`.
        case value(String)
        /// `(required)`.
        case required
        /// `(…)`: a condition rather than a value, such as "required unless --id".
        case note(String)
    }

    /// `--from`.
    let name: String
    /// The value's placeholder (`WHEN`); nil for a flag.
    let value: String?
    let summary: String
    let fallback: Default?
    /// Whether giving it again adds a value instead of replacing it.
    let isRepeatable: Bool
    let kind: ValueKind

    /// An option with a value.
    static func valued(
        _ name: String, _ value: String, _ summary: String, _ fallback: Default, repeatable: Bool = false,
        kind: ValueKind = .text
    ) -> OptionSpec {
        OptionSpec(name: name, value: value, summary: summary, fallback: fallback, isRepeatable: repeatable, kind: kind)
    }

    /// An option without a value (off unless given).
    static func flag(_ name: String, _ summary: String) -> OptionSpec {
        OptionSpec(name: name, value: nil, summary: summary, fallback: nil, isRepeatable: false, kind: .text)
    }

    /// `--from WHEN`, or `--json`.
    var usage: String { value.map { "\(name) \($0)" } ?? name }
}

/// One command: its words, operands, options, summary and an example. The help text,
/// the completion scripts and the option parser (`Options(_:for:)`) all read it, so
/// an option that is accepted is documented and completed.
struct CommandSpec: Sendable {
    /// `["ics", "expand"]`, `["list"]`.
    let path: [String]
    /// The operands as the usage line shows them (`FILE|-`, `[FILE]`); empty for none.
    let operands: String
    /// What the operands are for completion; nil when the command takes none.
    let operandKind: ValueKind?
    let summary: String
    let options: [OptionSpec]
    /// One command line as a user types it, starting with `almanac`.
    let example: String
    /// More to say, printed after the options.
    let details: String?

    init(
        _ path: [String], operands: String = "", operandKind: ValueKind? = nil, summary: String,
        options: [OptionSpec] = [], example: String,
        details: String? = nil
    ) {
        self.path = path
        self.operands = operands
        self.operandKind = operandKind
        self.summary = summary
        self.options = options
        self.example = example
        self.details = details
    }

    /// `ics expand`.
    var name: String { path.joined(separator: " ") }

    /// `ics expand FILE|-`.
    var synopsis: String { name + (operands.isEmpty ? "" : " " + operands) }

    /// `ics expand FILE|- [options]`.
    var usage: String { synopsis + (options.isEmpty ? "" : " [options]") }

    func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }
}

/// Commands that share a first word (`ics`, `calendar`, `user`, …).
struct CommandGroup: Sendable {
    let name: String
    let summary: String
    let subcommands: [CommandSpec]
    /// More to say after the list of subcommands.
    let details: String?

    func subcommand(named name: String) -> CommandSpec? { subcommands.first { $0.path.last == name } }

    /// The spec of `name`, or the usage error an unknown subcommand gets.
    func spec(_ name: String) throws(CommandFailure) -> CommandSpec {
        guard let spec = subcommand(named: name) else {
            throw .usage(
                "unknown subcommand '\(self.name) \(name)' (\(subcommands.compactMap(\.path.last).joined(separator: ", ")); see 'almanac \(self.name) --help')"
            )
        }
        return spec
    }
}

/// An entry of the top level: a command, or a group of subcommands.
enum CommandEntry: Sendable {
    case command(CommandSpec)
    case group(CommandGroup)

    var name: String {
        switch self {
        case .command(let spec): spec.name
        case .group(let group): group.name
        }
    }
}
