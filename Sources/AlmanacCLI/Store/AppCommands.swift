import Accounts
import AddToCalendar
import Availability
import CalendarStore
import CivilTime
import ICalendar
import Recurrence
import StoreAdapters

/// `almanac token create|list|revoke`: personal API tokens for the JSON API, and app
/// passwords for CalDAV clients.
enum TokenCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard let subcommand = arguments.first, ["create", "list", "revoke"].contains(subcommand) else {
            throw .usage("'token' needs create NAME --scope SCOPE, list, or revoke ID")
        }
        let options = try Options(Array(arguments.dropFirst()), for: try CommandTable.token.spec(subcommand))
        let context = try StoreContext(options, io: io)
        switch subcommand {
        case "create":
            guard options.operands.count == 1 else {
                throw .usage("'token create' takes one NAME (what the token is for)")
            }
            guard let scope = AccessToken.Scope(rawValue: options["--scope"] ?? "") else {
                throw .usage("'token create' needs --scope read, read-write, add-only or admin")
            }
            if scope == .admin {
                let owner = try StoreContext.run { () throws(StoreError) in
                    try context.backend.user(named: context.user)
                }
                guard owner.role == .admin else {
                    throw CommandFailure(
                        status: 1, "only an admin's token may have the admin scope; \(context.user) is not an admin")
                }
            }
            var rateLimit: Int?
            if let text = options["--rate-limit"] {
                guard let value = Int(text), AccessToken.rateLimits.contains(value) else {
                    throw .usage(
                        "--rate-limit is a number of requests a minute in \(AccessToken.rateLimits), not \(text)")
                }
                rateLimit = value
            }
            var expires: Int?
            if let text = options["--expires"] {
                let lifetime = try TimeInput.duration(text, option: "--expires").secondsAssumingUniformDays
                guard lifetime > 0, lifetime <= AccessToken.maxLifetime else {
                    throw .usage("--expires is a time from a minute to 366 days, such as 30d, not \(text)")
                }
                expires = io.now + lifetime
            }
            let kind: AccessToken.Kind = options.has("--app-password") ? .appPassword : .token
            if kind == .appPassword, scope != .read, scope != .readWrite {
                throw .usage("an app password is --scope read or read-write")
            }
            let titles = options.all("--calendar").flatMap { $0.split(separator: ",").map(String.init) }
            var calendars: [String]?
            if !titles.isEmpty {
                calendars = []
                for title in titles { calendars?.append(try context.calendar(titled: title).id) }
            }
            let (id, secret) = APITokenSecret.generate()
            let token = AccessToken(
                id: id, user: context.user, name: options.operands[0], scope: scope, created: io.now,
                rateLimit: rateLimit, expires: expires, kind: kind, calendars: calendars)
            try StoreContext.run { () throws(StoreError) in
                try context.backend.appState.createAccessToken(token, secretHash: APITokenSecret.hash(secret))
            }
            io.write(
                "Created \(kind == .token ? "token" : "app password") \(id) (\(scope.rawValue)) for \(context.user)"
                    + (calendars.map { ", \($0.count) calendar\($0.count == 1 ? "" : "s") only" } ?? "")
                    + (expires.map { ", expires \(CivilDateTime(secondsSinceEpoch: $0).description)Z" } ?? "")
                    + ":\n  \(secret)\n"
                    + (kind == .token
                        ? "(shown once; send it as 'Authorization: Bearer …')\n"
                        : "(shown once; a calendar app signs in with the user name \(context.user) and it as the password)\n")
            )
        case "list":
            guard options.operands.isEmpty else { throw .usage("'token list' takes no operands") }
            let tokens = try StoreContext.run { () throws(StoreError) in
                try context.backend.appState.accessTokens(user: context.user)
            }
            for token in tokens {
                let created = CivilDateTime(secondsSinceEpoch: token.created).date.description
                let limit = token.rateLimit.map { "\($0)/min" } ?? "default"
                var expiry = "no expiry"
                if let expires = token.expires {
                    expiry =
                        (token.hasExpired(at: io.now) ? "expired " : "expires ")
                        + CivilDateTime(secondsSinceEpoch: expires).date.description
                }
                let used =
                    token.lastUsed.map { "used " + CivilDateTime(secondsSinceEpoch: $0).date.description }
                    ?? "never used"
                let kind = token.kind == .token ? "token" : "app-password"
                let seen = token.calendars.map { "\($0.count) calendar\($0.count == 1 ? "" : "s")" } ?? "all calendars"
                io.write(
                    "\(token.id)  \(kind)  \(token.scope.rawValue)  \(seen)  \(created)  \(used)  \(limit)  \(expiry)  \(token.name)\n"
                )
            }
        default:
            guard options.operands.count == 1 else {
                throw .usage("'token revoke' takes one token ID (see 'almanac token list')")
            }
            try StoreContext.run { () throws(StoreError) in
                try context.backend.appState.revokeAccessToken(id: options.operands[0], user: context.user)
            }
            io.write("Revoked token \(options.operands[0])\n")
        }
        return 0
    }
}

/// `almanac free` (free slots) and `almanac links` (every "Add to Calendar" target).
enum AppCommands {
    /// `free --calendar T[,T…] --from WHEN --to WHEN --duration 60m [--working-hours … |
    /// --schedule default|ID] [--step 30m] [--buffer 10m] [--tz ZONE] [--include-past] [--json]`.
    static func free(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.free)
        guard options.operands.isEmpty else { throw .usage("'free' takes no operands") }
        let context = try StoreContext(options, io: io)
        let titles = options.all("--calendar").flatMap { $0.split(separator: ",").map(String.init) }
        guard !titles.isEmpty else { throw .usage("'free' needs --calendar TITLE (comma-separate several)") }
        var calendars: [EventCalendar] = []
        for title in titles { calendars.append(try context.calendar(titled: title)) }
        let zone = try context.zone(options)
        let range = try context.range(options, zone: zone, days: 7)
        func seconds(_ option: String, default value: Int) throws(CommandFailure) -> Int {
            guard let text = options[option] else { return value }
            let duration = try TimeInput.duration(text, option: option)
            return duration.secondsAssumingUniformDays
        }
        let length = try seconds("--duration", default: 3600)
        guard length > 0 else { throw .usage("--duration is positive, such as 60m") }
        var hours = AvailabilityRules.allDay(zone: zone, slotLength: length).workingHours
        if let text = options["--working-hours"] {
            guard let parsed = AvailabilityRules.workingHours(text) else {
                throw .usage("--working-hours reads like \"Mon-Fri 09:00-17:00, Sat 10:00-14:00\"")
            }
            hours = parsed
        }
        let buffer = try seconds("--buffer", default: 0)
        var rules = AvailabilityRules(
            zone: zone, workingHours: hours, slotLength: length, slotStep: try seconds("--step", default: length),
            bufferBefore: buffer,
            bufferAfter: buffer)
        if let id = options["--schedule"] {
            // A stored schedule (`almanac hours`): its hours and dates, in its own zone.
            guard options["--working-hours"] == nil else {
                throw .usage("--schedule gives the hours: leave out --working-hours")
            }
            let appState = context.backend.appState
            let user = context.user
            let stored = try StoreContext.run { () throws(StoreError) -> StoredSchedule? in
                id == "default" ? try appState.defaultSchedule(user: user) : try appState.schedule(id: id, user: user)
            }
            guard let stored, let schedule = try? AvailabilitySchedule(calendarData: stored.data) else {
                throw CommandFailure(status: 1, "no schedule \(id): set the hours with almanac hours set")
            }
            schedule.apply(to: &rules)
            rules.zone = TimeZoneDatabase.zone(named: schedule.timeZone) ?? zone
        }
        let margin = 2 * buffer + 86_400
        let busy = try StoreContext.run { () throws(StoreError) in
            try context.store.busyTime(
                in: TimeRange(start: range.start - margin, end: range.end + margin), calendars: calendars.map(\.id),
                timeZone: zone.identifier)
        }
        let includePast = options.has("--include-past")
        let slots = AvailabilitySearch.freeSlots(
            busy: busy.map(BusyBlock.init), rules: rules, from: range.start, to: range.end,
            now: includePast ? nil : io.now)
        if !options.has("--json") { io.write(context.zoneLine(zone)) }
        for slot in slots {
            let start = zone.localTime(at: slot.start)
            let end = zone.localTime(at: slot.end)
            if options.has("--json") {
                io.write(
                    "{\"start\":\"\(CivilDateTime(secondsSinceEpoch: slot.start))Z\",\"end\":\"\(CivilDateTime(secondsSinceEpoch: slot.end))Z\"}\n"
                )
            } else {
                io.write("\(start.date) \(clock(start))–\(clock(end))\n")
            }
        }
        if slots.isEmpty {
            // Say why when it is because past times are never offered.
            let past = includePast ? nil : AvailabilitySearch.pastPart(from: range.start, to: range.end, now: io.now)
            let now = TimeInput.text(io.now, zone: zone) + " " + zone.identifier
            if past == range.end {
                let reason =
                    "The range ends before now (\(now)): past times are never offered; use --include-past to search them"
                if options.has("--json") { io.writeError("almanac: " + reason) } else { io.write(reason + "\n") }
            } else if !options.has("--json") {
                io.write(
                    "No free slot of \(length / 60) minutes in that range"
                        + (past == nil
                            ? "" : " after now (\(now)); past times are never offered (--include-past searches them)")
                        + "\n")
            }
        }
        return 0
    }

    static func clock(_ time: CivilDateTime) -> String {
        (time.time.hour < 10 ? "0" : "") + "\(time.time.hour):" + (time.time.minute < 10 ? "0" : "")
            + "\(time.time.minute)"
    }

    /// `links --id ID [--occurrence RECURRENCE-ID] [--tz ZONE]`: the bridge payload, the
    /// Android intent, the web links and what each loses.
    static func links(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.links)
        guard options.operands.isEmpty else { throw .usage("'links' takes no operands") }
        let identifier = try options.required("--id", command: "links")
        let context = try StoreContext(options, io: io)
        if let zone = options["--tz"] { _ = try TimeInput.zone(named: zone, option: "--tz") }
        let occurrence = try options["--occurrence"].map { (wanted) throws(CommandFailure) in
            try StoreContext.run { () throws(StoreError) in
                try context.store.occurrence(ofEvent: identifier, recurrenceID: wanted, timeZone: options["--tz"])
            }
        }
        let targets = try StoreContext.run { () throws(StoreError) in
            try AddToCalendarTargets.targets(
                ofEvent: identifier, occurrence: occurrence, zoneName: options["--tz"], in: context.store)
        }
        func lost(_ losses: [AddToCalendarTargets.Loss]) -> String {
            losses.isEmpty ? "" : "  (loses: " + losses.map(\.rawValue).joined(separator: ", ") + ")"
        }
        io.write("Bridge payload\(lost(targets.bridgeLost)):\n  \(targets.bridge.json.jsonText)\n")
        io.write("Android intent\(lost(targets.android.lost)):\n  \(targets.android.uri)\n")
        io.write("Google Calendar\(lost(targets.google.lost)):\n  \(targets.google.url)\n")
        io.write("Outlook.com\(lost(targets.outlook.lost)):\n  \(targets.outlook.url)\n")
        io.write("Office 365\(lost(targets.office365.lost)):\n  \(targets.office365.url)\n")
        io.write("Yahoo\(lost(targets.yahoo.lost)):\n  \(targets.yahoo.url)\n")
        io.write(".ics: served at /events/\(identifier).ics (\(targets.ics.bytes.count) bytes)\n")
        return 0
    }
}
