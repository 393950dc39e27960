import CalendarStore
import CivilTime
import ICalendar
import Recurrence

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `almanac import` and `almanac export`: whole calendars as .ics files.
enum ImportExportCommands {
    /// Objects written per transaction; also how often the progress bar moves.
    static let batchSize = 1_000

    static func importFile(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.importFile)
        guard options.operands.count == 1 else { throw .usage("'import' takes one FILE (or - for standard input)") }
        let path = options.operands[0]
        let data = try io.read(path: path)
        let split: CalendarFileSplitter.Split
        do {
            split = try CalendarFileSplitter.read(data)
        } catch {
            throw CommandFailure(status: 1, "\(path): \(error)")
        }
        // The calendar the option names, else the one the file names (X-WR-CALNAME).
        guard let calendarTitle = options["--calendar"] ?? split.calendarName else {
            throw .usage("the file names no calendar (X-WR-CALNAME): say which with --calendar TITLE")
        }
        let context = try StoreContext(options, io: io)
        var calendar: EventCalendar
        if let existing = try context.calendarToWrite(titled: calendarTitle, create: options.has("--create")) {
            calendar = existing
        } else {
            calendar = try context.calendar(titled: calendarTitle, create: true)
        }
        var rejections = split.rejections.map {
            (line: $0.line, text: "\(path):\($0.line): \($0.uid.map { "UID \($0): " } ?? "")\($0.reason)")
        }
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
        // What lenient reading recovered from (an import reads what exporters write) and what was refused, by line.
        let warnings = split.warnings + split.objects.flatMap(\.warnings)
        let messages = rejections + warnings.map { (line: $0.line ?? 0, text: "\(path):\($0)") }
        for (_, message) in messages.enumerated().sorted(by: {
            ($0.element.line, $0.offset) < ($1.element.line, $1.offset)
        }) {
            io.writeError(message.text)
        }
        let kinds = ComponentType.allCases.compactMap { type in byType[type].map { "\($0) \(noun(type, $0))" } }
        let warned = warnings.isEmpty ? "" : "; \(warnings.count) warning" + (warnings.count == 1 ? "" : "s")
        io.write(
            "Imported \(imported) object\(imported == 1 ? "" : "s") into \(calendar.title)"
                + (kinds.isEmpty ? "" : " (" + kinds.joined(separator: ", ") + ")")
                + "; rejected \(rejections.count)" + warned + ".\n")
        return rejections.isEmpty ? 0 : 1
    }

    static func noun(_ type: ComponentType, _ count: Int) -> String {
        let word =
            switch type {
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
        let bar =
            String(repeating: "=", count: filled)
            + (filled < width ? ">" + String(repeating: " ", count: width - filled - 1) : "")
        return "[\(bar)] \(percent < 10 ? "  " : percent < 100 ? " " : "")\(percent)% \(done)/\(total)"
    }

    static func export(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.export)
        guard options.operands.count <= 1 else {
            throw .usage("'export' takes at most one FILE (standard output without)")
        }
        let calendarTitle = try options.required("--calendar", command: "export")
        let context = try StoreContext(options, io: io)
        let calendar = try context.calendar(titled: calendarTitle)
        let export = try StoreContext.run { () throws(StoreError) in
            try CalendarExport.icalendar(of: calendar, in: context.store)
        }
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

/// `almanac db check|migrate|backup|copy`.
enum DatabaseCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard let subcommand = arguments.first else { throw .usage("'db' needs check, migrate, backup or copy") }
        let options = try Options(Array(arguments.dropFirst()), for: try CommandTable.database.spec(subcommand))
        switch subcommand {
        case "check":
            guard options.operands.isEmpty else { throw .usage("'db check' takes no operands") }
            let backend = try StoreContext.openBackend(options, io: io)
            let problems = try StoreContext.run { () throws(StoreError) in try backend.integrityCheck() }
            guard problems == ["ok"] else {
                for problem in problems { io.writeError("\(backend.location): \(problem)") }
                return 1
            }
            let counts = try StoreContext.run { () throws(StoreError) in try backend.statistics() }
            io.write(
                "\(backend.location): ok — \(counts.users) users, \(counts.calendars) calendars, \(counts.objects) objects, \(counts.tombstones) tombstones\n"
            )
        case "migrate":
            guard options.operands.isEmpty else { throw .usage("'db migrate' takes no operands") }
            // Opening a database migrates it (under a lock, so running servers are safe).
            let backend = try StoreContext.openBackend(options, io: io)
            io.write("\(backend.location): the schema is up to date\n")
        case "backup":
            guard options.operands.count == 1 else { throw .usage("'db backup' takes one FILE") }
            let backend = try StoreContext.openBackend(options, io: io)
            try StoreContext.run { () throws(StoreError) in try backend.backup(to: options.operands[0]) }
            io.write("Backed up \(backend.location) to \(options.operands[0])\n")
        case "copy":
            guard options.operands.isEmpty else { throw .usage("'db copy' takes no operands") }
            let from = try options.required("--from", command: "db copy")
            let to = try options.required("--to", command: "db copy")
            for location in [from, to] where !(location.hasPrefix("sqlite:") || DatabaseBackend.isPostgresURL(location))
            {
                throw .usage("name each database as sqlite:PATH or postgres://user@host/db, not \(location)")
            }
            if from.hasPrefix("sqlite:"), access(String(from.dropFirst(7)), F_OK) != 0 {
                throw CommandFailure(status: 1, "no SQLite database at \(from.dropFirst(7))")
            }
            let source = try StoreContext.run { () throws(StoreError) in try DatabaseBackend(location: from) }
            let target = try StoreContext.run { () throws(StoreError) in try DatabaseBackend(location: to) }
            guard source.location != target.location else { throw .usage("--from and --to name the same database") }
            let report = try StoreContext.run { () throws(StoreError) in try source.copy(to: target) }
            for copied in report.rows { io.write("\(copied.table): \(copied.count) rows\n") }
            io.write(
                "Copied \(source.location) to \(target.location); \(report.verifiedObjects) objects verified (name and ETag)\n"
            )
        default:
            throw .usage("unknown subcommand 'db \(subcommand)' (check, migrate, backup, copy)")
        }
        return 0
    }
}
