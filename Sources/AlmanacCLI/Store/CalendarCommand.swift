import CalendarStore

/// `almanac calendar list|create|delete|show|share|unshare`.
enum CalendarCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard let subcommand = arguments.first else {
            throw .usage("'calendar' needs list, create, delete, show, share or unshare")
        }
        let options = try Options(Array(arguments.dropFirst()), for: try CommandTable.calendar.spec(subcommand))
        let context = try StoreContext(options, io: io)
        let store = context.store
        func title() throws(CommandFailure) -> String {
            guard options.operands.count == 1 else { throw .usage("'calendar \(subcommand)' takes one TITLE") }
            return options.operands[0]
        }
        switch subcommand {
        case "list":
            let calendars = try StoreContext.run { () throws(StoreError) in try store.calendars() }
            var output = ""
            for calendar in calendars {
                let count = try StoreContext.run { () throws(StoreError) in
                    try store.resources(calendar: calendar.id).count
                }
                output += "\(calendar.title)  \(count) object\(count == 1 ? "" : "s")"
                if let color = calendar.color { output += "  \(color)" }
                if let zone = calendar.timeZone { output += "  \(zone)" }
                if calendar.owner != context.user { output += "  (shared by \(calendar.owner))" }
                output += "\n"
            }
            io.write(output)
        case "create":
            let title = try title()
            if try StoreContext.run({ () throws(StoreError) in try store.calendar(titled: title, createIfMissing: false)
            }) != nil {
                throw CommandFailure(status: 1, "a calendar titled '\(title)' exists")
            }
            if let zone = options["--tz"] { _ = try TimeInput.zone(named: zone, option: "--tz") }
            let calendar = try StoreContext.run { () throws(StoreError) in
                try store.createCalendar(
                    EventCalendar(
                        title: title, color: options["--color"], description: options["--description"],
                        timeZone: options["--tz"]))
            }
            io.write("Created calendar \(calendar.title) (\(calendar.id))\n")
        case "delete":
            let calendar = try context.calendar(titled: try title())
            try StoreContext.run { () throws(StoreError) in try store.deleteCalendar(withIdentifier: calendar.id) }
            io.write("Deleted calendar \(calendar.title)\n")
        case "show":
            let calendar = try context.calendar(titled: try title())
            let resources = try StoreContext.run { () throws(StoreError) in try store.resources(calendar: calendar.id) }
            var lines = [
                "Title:       \(calendar.title)", "Identifier:  \(calendar.id)", "Name:        \(calendar.name)",
                "Owner:       \(calendar.owner)",
            ]
            if let color = calendar.color { lines.append("Colour:      \(color)") }
            if let description = calendar.calendarDescription { lines.append("Description: \(description)") }
            lines.append("Time zone:   \(calendar.timeZone ?? "(none; floating times read in the viewer's zone)")")
            lines.append(
                "Holds:       "
                    + ComponentType.allCases.filter(calendar.componentTypes.contains).map(\.rawValue).joined(
                        separator: ", "))
            if case .subscription(let url, let interval) = calendar.kind {
                lines.append(
                    "Subscribed:  \(url), " + (interval > 0 ? "every \(interval) s at least" : "as often as it asks"))
            }
            for type in ComponentType.allCases {
                let count = resources.filter { $0.componentType == type }.count
                if count > 0 {
                    lines.append(
                        "\(type.rawValue):" + String(repeating: " ", count: 12 - type.rawValue.count) + "\(count)")
                }
            }
            lines.append("CTag:        \(calendar.ctag)")
            lines.append("Sync token:  \(calendar.syncToken)")
            if let access = calendar.access {
                lines.append("Shared with you by \(calendar.owner), \(access.rawValue)")
            } else {
                let shares = try StoreContext.run { () throws(StoreError) in try store.shares(ofCalendar: calendar.id) }
                for share in shares {
                    lines.append("Shared with: \(share.user), \(share.access.rawValue) (\(share.status.rawValue))")
                }
            }
            io.write(lines.joined(separator: "\n") + "\n")
        case "share", "unshare":
            let calendar = try context.calendar(titled: try title())
            let sharee = options["--with"] ?? ""
            var access: Access? = nil
            if subcommand == "share" {
                guard let chosen = Access(rawValue: options["--access"] ?? "read") else {
                    throw .usage("--access is read or read-write")
                }
                access = chosen
            }
            try StoreContext.run { () throws(StoreError) in
                try store.share(
                    calendar: calendar.id, with: sharee, access: access, invite: options.has("--invite"),
                    summary: options["--summary"])
            }
            if let access {
                io.write(
                    options.has("--invite")
                        ? "Invited \(sharee) to \(calendar.title) (\(access.rawValue)); it appears in their home once they accept\n"
                        : "Shared \(calendar.title) with \(sharee) (\(access.rawValue))\n")
            } else {
                io.write("Stopped sharing \(calendar.title) with \(sharee)\n")
            }
        default:
            throw .usage("unknown subcommand 'calendar \(subcommand)' (list, create, delete, show, share, unshare)")
        }
        return 0
    }
}
