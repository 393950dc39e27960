import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import CivilTime
import ICalendar
import Testing

/// The backends the conformance suite runs against: AlmanacTesting's ``StoreKind``. Every
/// suite takes one as its argument: SQLite always, and PostgreSQL when
/// `ALMANAC_TEST_POSTGRES` names a test cluster (as `make test` does), each test in a
/// schema of its own.
typealias Backend = StoreKind

/// A fresh store in a temporary directory, with users alice and bob and alice's store.
struct StoreFixture {
    let directory: TemporaryDirectory
    let backend: any StoreBackend
    let store: any EventStore

    init(_ kind: Backend) throws {
        directory = try TemporaryDirectory()
        backend = try kind.openBackend(in: directory)
        try backend.createUser(named: "alice")
        try backend.createUser(named: "bob")
        store = try backend.eventStore(for: "alice")
    }

    func store(for user: String) throws -> any EventStore { try backend.eventStore(for: user) }

    /// Alice's calendar titled `title`, created for the test.
    func calendar(_ title: String = "Work", types: Set<ComponentType> = [.event, .todo, .journal]) throws
        -> EventCalendar
    {
        try store.createCalendar(EventCalendar(title: title, componentTypes: types))
    }
}

/// Unix seconds of a UTC wall clock.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Int {
    CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute)!.secondsSinceEpoch
}

/// Unix seconds of a wall clock in an IANA zone.
func local(_ zone: String, _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Int {
    TimeZoneDatabase.zone(named: zone)!.instant(
        for: CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute)!)
}

/// A calendar object resource from VEVENT (or other) lines: CRLF-joined inside one VCALENDAR.
func resource(_ lines: [String]) -> [UInt8] {
    Array(
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN"] + lines + ["END:VCALENDAR", ""]).joined(
            separator: "\r\n"
        ).utf8)
}

/// One VEVENT's lines.
func vevent(uid: String, _ lines: [String]) -> [String] {
    ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20261101T000000Z"] + lines + ["END:VEVENT"]
}

/// A zoned DATE-TIME value.
func zoned(_ zone: String, _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> DateTimeValue {
    DateTimeValue(
        CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute)!, form: .zoned(tzid: zone))
}

/// Week of 2026-11-30 (Monday) to 2026-12-07, UTC.
let firstDecemberWeek = TimeRange(start: utc(2026, 11, 30), end: utc(2026, 12, 7))
