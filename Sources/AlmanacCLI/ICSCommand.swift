import ICalendar
import Recurrence

/// `almanac ics …`: tools for iCalendar files.
enum ICSCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard let subcommand = arguments.first else {
            io.write(HelpText.group(CommandTable.ics))
            return 0
        }
        let rest = Array(arguments.dropFirst())
        // An option where the subcommand belongs is not a subcommand.
        let spec = subcommand.hasPrefix("-") ? nil : try CommandTable.ics.spec(subcommand)
        switch (subcommand, spec) {
        case ("check", let spec?):
            return try check(Options(rest, for: spec), io: io)
        case ("format", let spec?):
            let parsed = try Options(rest, for: spec)
            let path = try singleOperand(parsed, "ics format")
            let bytes = try io.read(path: path)
            let document = try load(bytes, path: path, policy: try ReadingPolicy(parsed), io: io)
            // What was read, in canonical form; the repairs reading made only when asked.
            io.write(parsed.has("--repair") ? document.serialized() : CanonicalText.format(bytes))
            return 0
        case ("to-json", let spec?):
            let parsed = try Options(rest, for: spec)
            let path = try singleOperand(parsed, "ics to-json")
            let document = try load(path, policy: try ReadingPolicy(parsed), io: io)
            do {
                let json = try JCal.json(for: document)
                io.write((parsed.has("--compact") ? json.jsonText : json.prettyJSONText) + "\n")
            } catch {
                throw CommandFailure(status: 1, "\(path): \(error)")
            }
            return 0
        case ("expand", let spec?):
            return try ExpandCommand.run(Options(rest, for: spec), io: io, today: Clock.today())
        case ("from-json", let spec?):
            let parsed = try Options(rest, for: spec)
            let path = try singleOperand(parsed, "ics from-json")
            do {
                io.write(try JCal.document(fromJSON: io.read(path: path)).serialized())
            } catch let error as ICalendarError {
                throw CommandFailure(status: 1, "\(path): \(error)")
            } catch let error as CommandFailure {
                throw error
            } catch {
                throw CommandFailure(status: 1, "\(path): \(error)")
            }
            return 0
        default:
            throw .usage(
                subcommand.hasPrefix("-")
                    ? "unknown option '\(subcommand)' for 'ics' (see 'almanac ics --help')"
                    : "unknown subcommand 'ics \(subcommand)' (see 'almanac ics --help')")
        }
    }

    static func singleOperand(_ parsed: Options, _ command: String) throws(CommandFailure) -> String {
        guard parsed.operands.count == 1 else {
            throw .usage("'\(command)' takes one FILE (or - for standard input)")
        }
        return parsed.operands[0]
    }

    /// How a command reads iCalendar: by default as a CalDAV PUT and an import do (RFC
    /// 5545 with the documented repairs, each a warning); `--strict`, RFC 5545 alone;
    /// `--lenient`, whatever lenient reading recovers from. The same three everywhere.
    enum ReadingPolicy {
        case accepting, strict, lenient

        init(_ parsed: Options) throws(CommandFailure) {
            switch (parsed.has("--strict"), parsed.has("--lenient")) {
            case (true, true): throw .usage("--lenient and --strict do not go together")
            case (true, false): self = .strict
            case (false, true): self = .lenient
            case (false, false): self = .accepting
            }
        }

        /// The bytes read under this policy, then their objects checked (``ObjectChecks``):
        /// two versions of one component are an error unless `--lenient` (which uses the
        /// highest SEQUENCE), an end before its start an error only with `--strict`.
        func check(_ bytes: [UInt8]) -> ICalendarCheckResult {
            var result =
                switch self {
                case .accepting: AcceptancePolicy.check(bytes)
                case .strict: ICalendarParser.check(bytes, options: .strict)
                case .lenient: ICalendarParser.check(bytes, options: .lenient)
                }
            guard let document = result.document else { return result }
            let (duplicates, ends): (ICalendarError.Severity, ICalendarError.Severity) =
                switch self {
                case .strict: (.error, .error)
                case .accepting: (.error, .warning)
                case .lenient: (.warning, .warning)
                }
            let found = document.components.flatMap {
                ObjectChecks.diagnostics(of: $0, duplicates: duplicates, ends: ends)
            }
            result.diagnostics += found
            if found.contains(where: { $0.severity == .error }) { result.document = nil }
            return result
        }
    }

    static func load(_ path: String, policy: ReadingPolicy, io: CommandIO) throws(CommandFailure) -> ICalendarDocument {
        try load(try io.read(path: path), path: path, policy: policy, io: io)
    }

    /// The document `bytes` hold when `policy` accepts them; every diagnostic goes to
    /// standard error (repeated ones once, with their count), and a refusal says when
    /// `--lenient` would have read the file.
    static func load(_ bytes: [UInt8], path: String, policy: ReadingPolicy, io: CommandIO) throws(CommandFailure)
        -> ICalendarDocument
    {
        let result = policy.check(bytes)
        report(result.diagnostics, path: path, io: io)
        guard let document = result.document else {
            let hint =
                policy != .lenient && ICalendarParser.check(bytes, options: .lenient).document != nil
                ? "; --lenient reads past what it can" : ""
            throw CommandFailure(
                status: 1, "\(path): not valid iCalendar (\(result.errors.count) error(s))\(hint)")
        }
        return document
    }

    /// Writes diagnostics to standard error as `PATH:LINE:COLUMN: message [code]`; a
    /// diagnostic repeated (the same code and message, line after line) is written once,
    /// with how many more there were.
    static func report(_ diagnostics: [ICalendarError], path: String, io: CommandIO) {
        var order: [String] = []
        var first: [String: ICalendarError] = [:]
        var count: [String: Int] = [:]
        for diagnostic in diagnostics {
            let key = "\(diagnostic.code)\u{0}\(diagnostic.severity)\u{0}\(diagnostic.message)"
            if first[key] == nil {
                first[key] = diagnostic
                order.append(key)
            }
            count[key, default: 0] += 1
        }
        for key in order {
            guard let diagnostic = first[key], let times = count[key] else { continue }
            let more = times > 1 ? " (and \(times - 1) more like it)" : ""
            io.writeError("\(path):\(diagnostic.line == nil ? " " : "")\(diagnostic)\(more)")
        }
    }

    static func check(_ parsed: Options, io: CommandIO) throws(CommandFailure) -> Int32 {
        guard !parsed.operands.isEmpty else { throw .usage("'ics check' needs at least one FILE") }
        // By default the policy a PUT and an import apply, so what passes here is what the server stores.
        let policy = try ReadingPolicy(parsed)
        var failed = false
        for path in parsed.operands {
            let bytes: [UInt8]
            do {
                bytes = try io.read(path: path)
            } catch {
                io.writeError("almanac: \(error.message)")
                failed = true
                continue
            }
            let result = policy.check(bytes)
            report(result.diagnostics, path: path, io: io)
            if let document = result.document {
                let components = document.components.reduce(0) { $0 + $1.componentCount }
                let warnings = result.warnings.count
                io.write(
                    "\(path): ok, \(components) component\(components == 1 ? "" : "s")"
                        + (warnings > 0 ? ", \(warnings) warning\(warnings == 1 ? "" : "s")" : "") + "\n")
            } else {
                failed = true
            }
        }
        return failed ? 1 : 0
    }
}
