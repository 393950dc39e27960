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

        Server:
          serve [--host A] [--port N] [--data DIR | --database URL] …
                                            run the calendar server (see serve --help)
          user add NAME [--generate] | user passwd NAME [--generate] [--revoke-tokens]
          user list | user remove NAME      accounts that sign in to the server
                                            (the password comes from standard input,
                                            or a prompt on a terminal)

        Store (--database URL, else $ALMANAC_DATABASE: postgres://user@host/db or
        sqlite:PATH; else almanac.sqlite in the data directory: --data DIR, else
        $ALMANAC_DATA, else $XDG_DATA_HOME/almanac, else ~/.local/share/almanac;
        --user NAME, else $ALMANAC_USER, else the only user):
          calendar list|create TITLE|delete TITLE|show TITLE
                                            manage calendars (create: --color,
                                            --tz, --description)
          add --calendar T --title T --start WHEN (--end WHEN | --duration 90m)
              [--all-day] [--tz ZONE] [--rrule RULE] [--alarm -15m]...
              [--location L] [--notes N] [--url U]
                                            add an event (creates the calendar)
          list [--from WHEN] [--to WHEN] [--calendar T] [--title T] [--tz ZONE]
               [--json]                     occurrences (default: next 30 days)
          agenda [--calendar T] [--tz ZONE] the next 7 days, by day
          cal [--month 2026-11 | --week 2026-W48 | --date WHEN]
              [--first-weekday monday] [--calendar T[,T...]] [--tz ZONE]
                                            a month or week grid with event markers
                                            (* a day with events, ! a conflict), then
                                            the agenda of the period
          remove --calendar T --from WHEN --to WHEN [--title T]
                                            remove occurrences in a range
          remove --id ID [--occurrence WHEN] [--span this|future]
                                            remove an event or some instances
          import FILE --calendar T          import a .ics file, one object per UID
          export --calendar T [FILE]        write the calendar as one .ics file
          feed create|rotate|revoke T [--base-url URL]
                                            the calendar's secret subscription URL
          alarms [--from WHEN] [--to WHEN] [--calendar T] [--json]
                                            alarms due (default: today)
          db check | db migrate             check the database; bring its schema
                                            up to date
          db backup FILE                    online copy of an SQLite database
          db copy --from DB --to DB         copy everything to another database
                                            (DB: sqlite:PATH or postgres://…);
                                            the target must be empty

        App API (see the README and /api/v1/openapi.json):
          token create NAME --scope read|read-write|add-only | token list
          token revoke ID                   personal API tokens (Authorization: Bearer)
          free --calendar T[,T...] [--from WHEN] [--to WHEN] [--duration 60m]
               [--working-hours "Mon-Fri 09:00-17:00"] [--step 30m] [--buffer 10m]
               [--tz ZONE] [--json]         free slots (default: the next 7 days)
          links --id ID [--occurrence RECURRENCE-ID] [--tz ZONE]
                                            every "Add to Calendar" target of an event

        WHEN is YYYY-MM-DD, "YYYY-MM-DD HH:MM" (in --tz, else the calendar's
        zone, else the local zone), a time ending in Z (UTC), today or tomorrow.

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
            case "calendar":
                return try CalendarCommand.run(rest, io: io)
            case "serve":
                return try ServeCommand.run(rest, io: io)
            case "user":
                return try UserCommand.run(rest, io: io)
            case "add":
                return try EventCommands.add(rest, io: io)
            case "list":
                return try EventCommands.list(rest, io: io, agenda: false)
            case "agenda":
                return try EventCommands.list(rest, io: io, agenda: true)
            case "remove":
                return try EventCommands.remove(rest, io: io)
            case "alarms":
                return try EventCommands.alarms(rest, io: io)
            case "import":
                return try ImportExportCommands.importFile(rest, io: io)
            case "export":
                return try ImportExportCommands.export(rest, io: io)
            case "feed":
                return try FeedCommand.run(rest, io: io)
            case "db":
                return try DatabaseCommand.run(rest, io: io)
            case "token":
                return try TokenCommand.run(rest, io: io)
            case "free":
                return try AppCommands.free(rest, io: io)
            case "links":
                return try AppCommands.links(rest, io: io)
            case "cal":
                return try CalCommand.run(rest, io: io)
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
