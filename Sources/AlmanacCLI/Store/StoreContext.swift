import CalendarStore
import CivilTime

/// The store a command works on: the database (`--database`, else
/// `$ALMANAC_DATABASE`: a PostgreSQL URL or `sqlite:PATH`), else the SQLite file in
/// the data directory (`--data`, else `$ALMANAC_DATA`, `$XDG_DATA_HOME/almanac`,
/// `~/.local/share/almanac`), and the user it acts for (`--user`, else `$ALMANAC_USER`, else the only user, else
/// `$USER`). The first command on an empty store creates that user.
///
/// SQLite's WAL and busy timeout make this safe while a server runs on the same
/// directory.
struct StoreContext {
    let backend: DatabaseBackend
    let store: any EventStore
    let user: String
    let io: CommandIO

    init(_ options: Options, io: CommandIO) throws(CommandFailure) {
        self.io = io
        let environment = io.environment
        let backend = try Self.openBackend(options, io: io)
        self.backend = backend
        let users = try Self.run { () throws(StoreError) in try backend.users().map(\.name) }
        var name = options["--user"] ?? environment["ALMANAC_USER"]
        if name == nil {
            name = users.count == 1 ? users[0] : (environment["USER"].flatMap { $0.isEmpty ? nil : $0 } ?? "admin")
        }
        let user = name!
        if !users.contains(user) {
            guard users.isEmpty else {
                throw CommandFailure(
                    status: 1,
                    "no user \(user) in \(backend.location) (users: \(users.joined(separator: ", "))); choose one with --user"
                )
            }
            try Self.run { () throws(StoreError) in try backend.createUser(named: user) }
        }
        self.user = user
        store = try Self.run { () throws(StoreError) in try backend.eventStore(for: user) }
    }

    /// The database `--database` or `$ALMANAC_DATABASE` names, else `almanac.sqlite` in
    /// the data directory (created when missing).
    static func openBackend(_ options: Options, io: CommandIO) throws(CommandFailure) -> DatabaseBackend {
        if options["--database"] != nil, options["--data"] != nil {
            throw .usage("give --data DIR or --database URL, not both")
        }
        if let location = options["--database"] ?? io.environment["ALMANAC_DATABASE"].flatMap({ $0.isEmpty ? nil : $0 })
        {
            return try run { () throws(StoreError) in try DatabaseBackend(location: location) }
        }
        let directory = options["--data"] ?? DatabaseBackend.defaultDirectory(environment: io.environment)
        return try run { () throws(StoreError) in try DatabaseBackend(directory: directory) }
    }

    /// Runs a store call, turning its error into a failure with exit status 1.
    @discardableResult
    static func run<T>(_ body: () throws(StoreError) -> T) throws(CommandFailure) -> T {
        do {
            return try body()
        } catch {
            throw CommandFailure(status: 1, error.description)
        }
    }

    /// The user's calendar with this title (ignoring case).
    func calendar(titled title: String, create: Bool = false) throws(CommandFailure) -> EventCalendar {
        let found = try Self.run { () throws(StoreError) in try store.calendar(titled: title, createIfMissing: create) }
        guard let found else {
            throw CommandFailure(status: 1, "no calendar titled '\(title)' (see 'almanac calendar list')")
        }
        return found
    }

    /// The calendar a write goes to: the user's calendar with this title (ignoring
    /// case), or nil when it is to be made, which needs `create` (`--create`) unless the
    /// user has no calendar yet. A title that is none of theirs otherwise is refused,
    /// naming the closest one, so a typo never makes a calendar.
    func calendarToWrite(titled title: String, create: Bool) throws(CommandFailure) -> EventCalendar? {
        let calendars = try Self.run { () throws(StoreError) in try store.calendars() }
        if let found = calendars.first(where: { $0.title.lowercased() == title.lowercased() }) { return found }
        guard create || calendars.isEmpty else {
            let closest = calendars.min {
                Self.distance($0.title.lowercased(), title.lowercased())
                    < Self.distance($1.title.lowercased(), title.lowercased())
            }
            let hint = closest.map { "did you mean '\($0.title)'? " } ?? ""
            throw CommandFailure(
                status: 1,
                "no calendar titled '\(title)'; \(hint)(add --create to make a new one, 'almanac calendar list' lists them)"
            )
        }
        return nil
    }

    /// Edits (insertions, deletions, substitutions) from `a` to `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var previous = row[0]
            row[0] = i + 1
            for (j, y) in b.enumerated() {
                let next = min(row[j + 1] + 1, row[j] + 1, previous + (x == y ? 0 : 1))
                previous = row[j + 1]
                row[j + 1] = next
            }
        }
        return row[b.count]
    }

    /// The zone times are read and shown in, by one rule for every command: `--tz`, else
    /// the user's own zone (the web calendar's setting, stored at their first sign-in),
    /// else `TZ`, else the system's. Output names it (``zoneLine(_:)``).
    func zone(_ options: Options) throws(CommandFailure) -> ZoneRules {
        let stored = (try? backend.appState.viewSettings(user: user))?.timeZone
        let name = options["--tz"] ?? stored ?? TimeInput.localZoneName(environment: io.environment)
        return try TimeInput.zone(named: name, option: "--tz")
    }

    /// The line that heads a command's times: `Times in Europe/Berlin (UTC+01:00 now)`.
    func zoneLine(_ zone: ZoneRules) -> String {
        "Times in \(zone.identifier) (UTC\(TimeInput.offsetText(zone.offset(at: io.now))) now)\n"
    }

    /// `--from`/`--to` as a range: defaults from today's midnight, for `days` days.
    func range(_ options: Options, zone: ZoneRules, days: Int) throws(CommandFailure) -> TimeRange {
        let now = io.now
        let start =
            try options["--from"].map { (text) throws(CommandFailure) in
                TimeInput.instant(try TimeInput.parse(text, now: now, zone: zone, option: "--from"), zone: zone)
            } ?? zone.instant(for: CivilDateTime(date: zone.localTime(at: now).date, time: .midnight))
        let end =
            try options["--to"].map { (text) throws(CommandFailure) in
                TimeInput.instant(try TimeInput.parse(text, now: now, zone: zone, option: "--to"), zone: zone)
            }
            ?? zone.instant(
                for: CivilDateTime(date: zone.localTime(at: start).date.adding(days: days), time: .midnight))
        guard start < end else { throw .usage("--from must be before --to") }
        return TimeRange(start: start, end: end)
    }
}
