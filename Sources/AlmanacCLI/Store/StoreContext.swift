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

    /// The zone times are read and shown in: `--tz`, else the calendar's, else the local zone.
    func zone(_ options: Options, calendar: EventCalendar? = nil) throws(CommandFailure) -> ZoneRules {
        let name = options["--tz"] ?? calendar?.timeZone ?? TimeInput.localZoneName(environment: io.environment)
        return try TimeInput.zone(named: name, option: "--tz")
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
