/// The `almanac` command line: parses arguments and runs a command.
public enum Almanac {
    static let version = "0.1.0"

    /// Runs `arguments` (without the program name) and returns the exit status.
    public static func run(_ arguments: [String], io: CommandIO) -> Int32 {
        do throws(CommandFailure) {
            guard let command = arguments.first else {
                io.write(HelpText.topLevel)
                return 0
            }
            // `--help` anywhere wins over whatever else is wrong with the line.
            if let help = try CommandTable.helpRequest(arguments) {
                io.write(help)
                return 0
            }
            let rest = Array(arguments.dropFirst())
            switch command {
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
            case "webhook":
                return try WebhookCommand.run(rest, io: io)
            case "hours":
                return try HoursCommand.run(rest, io: io)
            case "free":
                return try AppCommands.free(rest, io: io)
            case "links":
                return try AppCommands.links(rest, io: io)
            case "subscribe":
                return try SubscribeCommand.run(rest, io: io)
            case "imip":
                return try IMIPCommand.run(rest, io: io)
            case "cal":
                return try CalCommand.run(rest, io: io)
            case "completion":
                return try CompletionCommand.run(rest, io: io)
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
