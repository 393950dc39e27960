import CalendarStore
import CivilTime
import ICalendar
import Recurrence

/// `almanac import` and `almanac export`: whole calendars as .ics files.
enum ImportExportCommands {
    /// Objects written per transaction; also how often the progress bar moves.
    static let batchSize = 1_000

    static func importFile(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, valued: StoreContext.valued.union(["--calendar"]), command: "import")
        guard options.operands.count == 1 else { throw .usage("'import' takes one FILE (or - for standard input)") }
        let path = options.operands[0]
        let calendarTitle = try options.required("--calendar", command: "import")
        let data = try io.read(path: path)
        let split: (objects: [CalendarFileSplitter.Object], rejections: [CalendarFileSplitter.Rejection])
        do {
            split = try CalendarFileSplitter.split(data)
        } catch {
            throw CommandFailure(status: 1, "\(path): \(error)")
        }
        let context = try StoreContext(options, io: io)
        let calendar = try context.calendar(titled: calendarTitle, create: true)
        var rejections = split.rejections.map { (line: $0.line, text: "\(path):\($0.line): \($0.uid.map { "UID \($0): " } ?? "")\($0.reason)") }
        var imported = 0
        var byType: [ComponentType: Int] = [:]
        let total = split.objects.count
        var done = 0
        while done < total {
            let batch = Array(split.objects[done..<min(total, done + batchSize)])
            let results = try StoreContext.run { () throws(StoreError) in
                try context.store.importObjects(batch, calendar: calendar.id)
            }
            for (object, result) in zip(batch, results) {
                switch result {
                case .success(let info):
                    imported += 1
                    byType[info.componentType, default: 0] += 1
                case .failure(let error):
                    var reason = error.diagnostic?.message ?? error.message
                    if let property = error.diagnostic?.property { reason += " (property \(property))" }
                    rejections.append((object.line, "\(path):\(object.line): UID \(object.uid): \(reason)"))
                }
            }
            done += batch.count
            if io.isTerminal { io.writeProgress("\r" + progressBar(done: done, total: total)) }
        }
        if io.isTerminal && total > 0 { io.writeProgress("\n") }
        for rejection in rejections.sorted(by: { $0.line < $1.line }) { io.writeError(rejection.text) }
        let kinds = ComponentType.allCases.compactMap { type in byType[type].map { "\($0) \(noun(type, $0))" } }
        io.write(
            "Imported \(imported) object\(imported == 1 ? "" : "s") into \(calendar.title)"
                + (kinds.isEmpty ? "" : " (" + kinds.joined(separator: ", ") + ")")
                + "; rejected \(rejections.count).\n")
        return rejections.isEmpty ? 0 : 1
    }

    static func noun(_ type: ComponentType, _ count: Int) -> String {
        let word = switch type {
        case .event: "event"
        case .todo: "task"
        case .journal: "journal entry"
        }
        return count == 1 ? word : (type == .journal ? "journal entries" : word + "s")
    }

    /// `[=========>          ]  45% 9000/20000`.
    static func progressBar(done: Int, total: Int) -> String {
        let width = 30
        let filled = total == 0 ? width : done * width / total
        let percent = total == 0 ? 100 : done * 100 / total
        let bar = String(repeating: "=", count: filled) + (filled < width ? ">" + String(repeating: " ", count: width - filled - 1) : "")
        return "[\(bar)] \(percent < 10 ? "  " : percent < 100 ? " " : "")\(percent)% \(done)/\(total)"
    }

    static func export(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, valued: StoreContext.valued.union(["--calendar"]), command: "export")
        guard options.operands.count <= 1 else { throw .usage("'export' takes at most one FILE (standard output without)") }
        let calendarTitle = try options.required("--calendar", command: "export")
        let context = try StoreContext(options, io: io)
        let calendar = try context.calendar(titled: calendarTitle)
        let export = try StoreContext.run { () throws(StoreError) in try CalendarExport.icalendar(of: calendar, in: context.store) }
        let bytes = export.bytes
        if let path = options.operands.first, path != "-" {
            try io.writeFile(path, bytes)
            io.writeError("Exported \(export.components) components of \(calendar.title) to \(path)")
        } else {
            io.write(bytes)
        }
        return 0
    }
}

/// `almanac db check|backup`.
enum DatabaseCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard let subcommand = arguments.first else { throw .usage("'db' needs check or backup") }
        let options = try Options(Array(arguments.dropFirst()), valued: ["--data"], command: "db \(subcommand)")
        let directory = options["--data"] ?? SQLiteBackend.defaultDirectory(environment: io.environment)
        let backend = try StoreContext.run { () throws(StoreError) in try SQLiteBackend(directory: directory) }
        switch subcommand {
        case "check":
            guard options.operands.isEmpty else { throw .usage("'db check' takes no operands") }
            let problems = try StoreContext.run { () throws(StoreError) in try backend.integrityCheck() }
            guard problems == ["ok"] else {
                for problem in problems { io.writeError("\(backend.path): \(problem)") }
                return 1
            }
            let counts = try StoreContext.run { () throws(StoreError) in try backend.statistics() }
            io.write(
                "\(backend.path): ok — \(counts.users) users, \(counts.calendars) calendars, \(counts.objects) objects, \(counts.tombstones) tombstones\n")
        case "backup":
            guard options.operands.count == 1 else { throw .usage("'db backup' takes one FILE") }
            try StoreContext.run { () throws(StoreError) in try backend.backup(to: options.operands[0]) }
            io.write("Backed up \(backend.path) to \(options.operands[0])\n")
        default:
            throw .usage("unknown subcommand 'db \(subcommand)' (check, backup)")
        }
        return 0
    }
}
