import CalendarStore

/// `almanac feed create|rotate|revoke CALENDAR`: a calendar's secret subscription URL.
enum FeedCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard let subcommand = arguments.first, ["create", "rotate", "revoke"].contains(subcommand) else {
            throw .usage("'feed' needs create, rotate or revoke, and a calendar title")
        }
        let options = try Options(Array(arguments.dropFirst()), for: try CommandTable.feed.spec(subcommand))
        guard options.operands.count == 1 else { throw .usage("'feed \(subcommand)' takes one calendar TITLE") }
        let base = options["--base-url"] ?? "http://127.0.0.1:8080"
        guard base.hasPrefix("http://") || base.hasPrefix("https://") else {
            throw .usage("--base-url is an http:// or https:// URL")
        }
        let context = try StoreContext(options, io: io)
        let calendar = try context.calendar(titled: options.operands[0])
        let kind: FeedKind = options.has("--busy") ? .freeBusy : .events
        let what = kind == .events ? "feed" : "free-busy feed"
        switch subcommand {
        case "revoke":
            _ = try StoreContext.run { () throws(StoreError) in
                try context.store.setFeedToken(nil, for: kind, calendar: calendar.id)
            }
            io.write("Revoked the \(what) of \(calendar.title); its old URL now answers 404\n")
            return 0
        default:
            var token = kind == .events ? calendar.feedToken : calendar.busyFeedToken
            if subcommand == "rotate" || token == nil {
                let fresh = DatabaseBackend.newFeedToken()
                _ = try StoreContext.run { () throws(StoreError) in
                    try context.store.setFeedToken(fresh, for: kind, calendar: calendar.id)
                }
                token = fresh
            }
            let trimmed = base.hasSuffix("/") ? String(base.dropLast()) : base
            let file = (token ?? "") + kind.fileSuffix
            let https = "\(trimmed)/feeds/\(file).ics"
            let webcal = "webcal://" + https.drop { $0 != "/" }.dropFirst(2)
            io.write(
                "\(kind == .events ? "Feed" : "Free-busy feed") of \(calendar.title)\(subcommand == "rotate" ? " (the old URL no longer works)" : ""):\n  \(webcal)\n  \(https)\n"
            )
            return 0
        }
    }
}
