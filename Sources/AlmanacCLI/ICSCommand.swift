import ICalendar

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
            let document = try load(singleOperand(parsed, "ics format"), lenient: parsed.has("--lenient"), io: io)
            io.write(document.serialized())
            return 0
        case ("to-json", let spec?):
            let parsed = try Options(rest, for: spec)
            let path = try singleOperand(parsed, "ics to-json")
            let document = try load(path, lenient: parsed.has("--lenient"), io: io)
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

    static func load(_ path: String, lenient: Bool, io: CommandIO) throws(CommandFailure) -> ICalendarDocument {
        let bytes = try io.read(path: path)
        let result = ICalendarParser.check(bytes, options: lenient ? .lenient : .strict)
        for diagnostic in result.diagnostics { io.writeError("\(path):\(diagnostic)") }
        guard let document = result.document else {
            throw CommandFailure(status: 1, "\(path): not valid iCalendar (\(result.errors.count) error(s))")
        }
        return document
    }

    static func check(_ parsed: Options, io: CommandIO) throws(CommandFailure) -> Int32 {
        guard !parsed.operands.isEmpty else { throw .usage("'ics check' needs at least one FILE") }
        if parsed.has("--lenient") && parsed.has("--strict") {
            throw .usage("'ics check' takes --lenient or --strict, not both")
        }
        // By default the policy a PUT and an import apply, so what passes here is what the server stores.
        func check(_ bytes: [UInt8]) -> ICalendarCheckResult {
            if parsed.has("--strict") { return ICalendarParser.check(bytes, options: .strict) }
            if parsed.has("--lenient") { return ICalendarParser.check(bytes, options: .lenient) }
            return AcceptancePolicy.check(bytes)
        }
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
            let result = check(bytes)
            for diagnostic in result.diagnostics { io.writeError("\(path):\(diagnostic)") }
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
