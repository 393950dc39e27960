import ICalendar

/// `almanac ics …`: tools for iCalendar files.
enum ICSCommand {
    static let help = """
        Usage: almanac ics <subcommand> [options]

        Subcommands:
          check [--lenient] FILE...
              Parse each file; exit 0 when all are valid, else 1. Each problem is
              printed to stderr as FILE:LINE:COLUMN: message [code]. --lenient
              accepts what lenient mode recovers from and prints it as warnings.
          format [--lenient] FILE|-
              Print the canonical serialization (CRLF, folded at 75 octets,
              upper-case names, minimal quoting). '-' reads standard input.
          to-json [--lenient] [--compact] FILE|-
              Print the jCal (RFC 7265) form, indented unless --compact.
          from-json FILE|-
              Read jCal and print iCalendar.
          expand FILE|- [--from DATE] [--to DATE] [--tz ZONE] [--format text|jsonl] [--lenient]
              Print every instance of every VEVENT, VTODO and VJOURNAL that
              overlaps [from, to), sorted by start. DATE is YYYY-MM-DD (midnight
              in --tz), YYYY-MM-DDTHH:MM:SS (in --tz) or YYYY-MM-DDTHH:MM:SSZ.
              --tz (default UTC) is the viewer's zone: it places floating and
              all-day instances. Defaults: from today, for a year. jsonl prints
              one object per instance: uid, recurrenceId, start, end, allDay,
              tzid, override, status, summary; start/end are RFC 3339 UTC for timed
              instances, YYYY-MM-DD for all-day, local time for floating.

        Strict mode is the default; docs/icalendar-diagnostics.md lists every
        check and what --lenient does with it.
        """

    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard let subcommand = arguments.first else {
            io.write(help + "\n")
            return 0
        }
        let rest = Array(arguments.dropFirst())
        switch subcommand {
        case "-h", "--help", "help":
            io.write(help + "\n")
            return 0
        case "check":
            return try check(ParsedArguments(rest, allowedFlags: ["--lenient"], command: "ics check"), io: io)
        case "format":
            let parsed = try ParsedArguments(rest, allowedFlags: ["--lenient"], command: "ics format")
            let document = try load(singleOperand(parsed, "ics format"), lenient: parsed.flags.contains("--lenient"), io: io)
            io.write(document.serialized())
            return 0
        case "to-json":
            let parsed = try ParsedArguments(rest, allowedFlags: ["--lenient", "--compact"], command: "ics to-json")
            let path = try singleOperand(parsed, "ics to-json")
            let document = try load(path, lenient: parsed.flags.contains("--lenient"), io: io)
            do {
                let json = try JCal.json(for: document)
                io.write((parsed.flags.contains("--compact") ? json.jsonText : json.prettyJSONText) + "\n")
            } catch {
                throw CommandFailure(status: 1, "\(path): \(error)")
            }
            return 0
        case "expand":
            return try ExpandCommand.run(rest, io: io, today: Clock.today())
        case "from-json":
            let parsed = try ParsedArguments(rest, allowedFlags: [], command: "ics from-json")
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

    static func singleOperand(_ parsed: ParsedArguments, _ command: String) throws(CommandFailure) -> String {
        guard parsed.operands.count == 1 else {
            throw .usage("'\(command)' takes one FILE (or - for standard input)")
        }
        return parsed.operands[0]
    }

    static func load(_ path: String, lenient: Bool, io: CommandIO) throws(CommandFailure) -> ICalendarDocument {
        let bytes = try io.read(path: path)
        let result = ICalendarParser.check(bytes, options: lenient ? .lenient : .strict)
        for diagnostic in result.diagnostics { io.writeError("\(path):\(diagnostic)") }
        guard let document = result.document else {
            throw CommandFailure(status: 1, "\(path): not valid iCalendar (\(result.errors.count) error(s))")
        }
        return document
    }

    static func check(_ parsed: ParsedArguments, io: CommandIO) throws(CommandFailure) -> Int32 {
        guard !parsed.operands.isEmpty else { throw .usage("'ics check' needs at least one FILE") }
        let options: ParseOptions = parsed.flags.contains("--lenient") ? .lenient : .strict
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
            let result = ICalendarParser.check(bytes, options: options)
            for diagnostic in result.diagnostics { io.writeError("\(path):\(diagnostic)") }
            if let document = result.document {
                let components = document.components.reduce(0) { $0 + $1.componentCount }
                let warnings = result.warnings.count
                io.write("\(path): ok, \(components) component\(components == 1 ? "" : "s")"
                    + (warnings > 0 ? ", \(warnings) warning\(warnings == 1 ? "" : "s")" : "") + "\n")
            } else {
                failed = true
            }
        }
        return failed ? 1 : 0
    }
}
