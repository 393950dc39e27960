/// The `almanac` command line: parses arguments and runs a command.
public enum Almanac {
    static let version = "0.1.0"

    static let help = """
        almanac — a calendar engine and server

        Usage: almanac <command> [options]

        Commands:
          ics check [--lenient] FILE...     validate iCalendar files
          ics format [--lenient] FILE|-     print the canonical serialization
          ics to-json [--lenient] [--compact] FILE|-
                                            convert iCalendar to jCal (RFC 7265)
          ics from-json FILE|-              convert jCal to iCalendar
          ics expand FILE [--from D] [--to D] [--tz ZONE] [--format text|jsonl]
                                            list the instances in a window

        Options:
          -h, --help       show help (also: almanac ics --help)
          --version        print the version

        Exit status: 0 success, 1 invalid or unreadable input, 2 usage error.
        """

    /// Runs `arguments` (without the program name) and returns the exit status.
    public static func run(_ arguments: [String], io: CommandIO) -> Int32 {
        do throws(CommandFailure) {
            guard let command = arguments.first else {
                io.write(help + "\n")
                return 0
            }
            let rest = Array(arguments.dropFirst())
            switch command {
            case "-h", "--help", "help":
                io.write(help + "\n")
                return 0
            case "--version":
                io.write("almanac \(version)\n")
                return 0
            case "ics":
                return try ICSCommand.run(rest, io: io)
            default:
                throw CommandFailure.usage(
                    command.hasPrefix("-")
                        ? "unknown option '\(command)' (see 'almanac --help')"
                        : "unknown command '\(command)' (see 'almanac --help')")
            }
        } catch {
            io.writeError("almanac: \(error.message)")
            return error.status
        }
    }
}

/// Splits a command's arguments into known flags and operands; anything else
/// that starts with `-` is a usage error.
struct ParsedArguments {
    var flags: Set<String> = []
    var operands: [String] = []

    init(_ arguments: [String], allowedFlags: Set<String>, command: String) throws(CommandFailure) {
        var operandsOnly = false
        for argument in arguments {
            if operandsOnly || argument == "-" || !argument.hasPrefix("-") {
                operands.append(argument)
            } else if argument == "--" {
                operandsOnly = true
            } else if allowedFlags.contains(argument) {
                flags.insert(argument)
            } else {
                throw .usage("unknown option '\(argument)' for '\(command)' (see 'almanac ics --help')")
            }
        }
    }
}
