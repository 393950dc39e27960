import CivilTime
import ICalendar
import Recurrence

/// Booking types, holds and bookings as rows. Reached through ``DatabaseBackend/bookings``.
///
/// The store keeps rows and runs transactions; the rules (what is free, who is seated,
/// what a booking writes, when webhooks are told) are the Bookings module's, and run
/// inside ``withLockedType(_:owner:now:_:)``: one write transaction that locks the
/// type's calendars, so every change that takes a slot or a seat reads the situation
/// again (``BookingSituation``) and two bookers racing for the last seat or the same
/// slot, in one process or several on PostgreSQL, take turns and the second sees the
/// first's booking.
public protocol BookingStore: Sendable {
    /// Saves a new type of its owner's; throws `notFound` for an unknown owner, `invalidArgument`
    /// for a calendar not theirs to book into, a schedule they do not have, or a class event
    /// outside the booking calendar, and `alreadyExists` for a taken slug. The type's own
    /// fields are the caller's to check (the Bookings module's rules).
    func createBookingType(_ type: BookingType) throws(StoreError) -> BookingType
    /// The owner's booking types, by title (then identifier).
    func bookingTypes(owner: String) throws(StoreError) -> [BookingType]
    /// One of the owner's types; throws `notFound` when they have none of that id.
    func bookingType(id: String, owner: String) throws(StoreError) -> BookingType
    /// The type whose public page is `/book/{slug}`; `notFound` when its owner is disabled.
    func bookingType(slug: String) throws(StoreError) -> BookingType
    /// Replaces a type's fields (its references checked as on creation) when `ifMatch` is
    /// nil or its ETag; `modified` moves on.
    func updateBookingType(_ type: BookingType, ifMatch: String?) throws(StoreError) -> BookingType
    /// Removes a type with its holds and its bookings' records (the events stay).
    func deleteBookingType(id: String, owner: String, ifMatch: String?) throws(StoreError)

    /// What decides the slots of a type in `range` (busy time there; the type's bookings
    /// from a week before to a week after, for the limits), with the holds live at `now`.
    func situation(type: String, owner: String, in range: TimeRange, now: Int) throws(StoreError)
        -> BookingSituation
    /// Runs `body` in one write transaction with the type's calendars locked (every
    /// calendar a booking of it may write, in one order) and its holds that ran out by
    /// `now` dropped; what `body` does commits with it, or nothing does when it throws.
    /// The transaction is only valid inside `body`.
    func withLockedType<T: Sendable>(
        _ type: String, owner: String, now: Int, _ body: (any BookingTransaction) throws(StoreError) -> T
    ) throws(StoreError) -> T
    /// ``withLockedType(_:owner:now:_:)`` for the type of one of the owner's bookings,
    /// read again once the calendars are locked.
    func withLockedBooking<T: Sendable>(
        _ id: String, owner: String, now: Int, _ body: (any BookingTransaction, Booking) throws(StoreError) -> T
    ) throws(StoreError) -> T
    /// Gives a hold back before it runs out.
    func releaseHold(id: String, type: String) throws(StoreError)
    /// A user's bookings by start (then id), at most `limit`, optionally of one type and
    /// starting in a range, those after `cursor` (a booking id of the user's own).
    func bookings(owner: String, type: String?, in range: TimeRange?, after cursor: String?, limit: Int)
        throws(StoreError) -> [Booking]
    /// One of the owner's bookings; throws `notFound` when they have none of that id.
    func booking(id: String, owner: String) throws(StoreError) -> Booking
    /// The booking a cancel (or reschedule) token's hash belongs to; `notFound` when its
    /// owner is disabled.
    func booking(tokenHash: String, purpose: BookingTokenPurpose) throws(StoreError) -> Booking
    /// Removes the holds that ran out by `now` (each tells `hold.expired` to webhooks);
    /// how many.
    @discardableResult
    func expireHolds(now: Int) throws(StoreError) -> Int
}

/// Which of a booking's two tokens.
public enum BookingTokenPurpose: Sendable {
    /// The token that cancels the booking.
    case cancel
    /// The token that moves the booking to another slot.
    case reschedule
}

extension DatabaseBackend {
    /// The booking store on this backend's database.
    public var bookings: any BookingStore { DatabaseBookingStore(backend: self) }
}

struct DatabaseBookingStore: BookingStore {
    let backend: DatabaseBackend
    var database: any StoreDatabase { backend.database }

    /// The booking type's row, with its owner's.
    struct TypeRow {
        var rowID: Int64
        var ownerID: Int64
        var type: BookingType
    }

    static let typeColumns = """
        SELECT t.id, t.user_id, t.identifier, u.name, t.slug, t.title, t.description, t.location, t.durations, t.calendar,
            t.busy_calendars, t.schedule, t.buffer_before, t.buffer_after, t.notice, t.window_days, t.step,
            t.daily_limit, t.weekly_limit, t.capacity, t.class_event, t.waitlist, t.hold_seconds, t.created, t.modified,
            t.hosts, t.group_mode, t.group_minimum, t.all_day_busy, t.host_notice
        FROM booking_types t JOIN users u ON u.id = t.user_id
        """

    static func typeRow(_ row: Row) -> TypeRow {
        let type = BookingType(
            id: row.string(2), owner: row.string(3), slug: row.optionalString(4), title: row.string(5),
            description: row.optionalString(6), location: row.optionalString(7),
            durations: row.string(8).split(separator: ",").compactMap { Int($0) }, calendar: row.string(9),
            busyCalendars: row.optionalString(10).map { $0.split(separator: ",").map(String.init) },
            schedule: row.optionalString(11), bufferBefore: row.int(12), bufferAfter: row.int(13),
            notice: row.int(14), windowDays: row.optionalInt(15), step: row.optionalInt(16),
            dailyLimit: row.optionalInt(17), weeklyLimit: row.optionalInt(18), capacity: row.optionalInt(19),
            classEvent: row.optionalString(20), waitlist: row.int(21) != 0, holdSeconds: row.int(22),
            hosts: row.optionalString(25).map(Self.hosts) ?? [],
            groupMode: BookingType.GroupMode(rawValue: row.string(26)) ?? .single, groupMinimum: row.optionalInt(27),
            allDayIsBusy: row.int(28) != 0, notifyHost: row.int(29) != 0, created: row.int(23), modified: row.int(24))
        return TypeRow(rowID: row.int64(0), ownerID: row.int64(1), type: type)
    }

    /// Hosts as stored: a line each, `name TAB calendar TAB busy,calendars TAB schedule`.
    static func hostsText(_ hosts: [BookingHost]) -> String? {
        guard !hosts.isEmpty else { return nil }
        return hosts.map { host in
            [host.name, host.calendar, host.busyCalendars?.joined(separator: ",") ?? "", host.schedule ?? ""]
                .joined(separator: "\t")
        }.joined(separator: "\n")
    }

    static func hosts(_ text: String) -> [BookingHost] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 4 else { return nil }
            return BookingHost(
                name: parts[0], calendar: parts[1],
                busyCalendars: parts[2].isEmpty ? nil : parts[2].split(separator: ",").map(String.init),
                schedule: parts[3].isEmpty ? nil : parts[3])
        }
    }

    func typeRow(id: String, owner: String, _ connection: Connection) throws(StoreError) -> TypeRow {
        guard
            let found = try connection.firstRow(
                Self.typeColumns + " WHERE t.identifier = ? AND u.name = ?", [.text(id), .text(owner)], Self.typeRow)
        else { throw StoreError(.notFound, "\(owner) has no booking type \(id)", resource: id) }
        return found
    }

    func events(_ row: TypeRow) -> DatabaseEventStore {
        DatabaseEventStore(backend: backend, userID: row.ownerID, user: row.type.owner)
    }

    // MARK: Types

    /// What a type names must exist and be the owner's to use: its calendars, schedules
    /// and class event; its slug must be free. Checked before anything is written.
    func checkReferences(_ type: BookingType, ownerID: Int64, _ connection: Connection) throws(StoreError) {
        func check(_ condition: Bool, _ message: String) throws(StoreError) {
            if !condition { throw StoreError(.invalidArgument, message) }
        }
        let events = DatabaseEventStore(backend: backend, userID: ownerID, user: type.owner)
        // A booking page publishes the busy time of its calendars to anyone and lets
        // strangers write into them: only the owner's own calendars (subscribed ones
        // included), or those another user shared with them read-write (a trainer who
        // lets the studio book them). A read-only share gave no such right.
        func own(_ identifier: String, _ role: String) throws(StoreError) -> CalendarRow {
            let row = try events.calendarRow(identifier, connection, write: false)
            try check(
                row.ownerID == ownerID || row.writable,
                "the \(role) must be \(type.owner)'s own or shared with them read-write, not read-only")
            return row
        }
        let calendar = try own(type.calendar, "booking calendar")
        try check(calendar.writable, "the booking calendar must be writable by \(type.owner)")
        for identifier in type.busyCalendars ?? [] { _ = try own(identifier, "busy calendar \(identifier)") }
        if let schedule = type.schedule {
            guard try DatabaseAppState(backend: backend).schedule(id: schedule, user: type.owner, connection) != nil
            else { throw StoreError(.invalidArgument, "\(type.owner) has no schedule \(schedule)", resource: schedule) }
        }
        for host in type.hosts {
            let row = try own(host.calendar, "calendar of host \(host.name)")
            try check(row.writable, "the calendar of host \(host.name) must be writable by \(type.owner)")
            for identifier in host.busyCalendars ?? [] { _ = try own(identifier, "busy calendar \(identifier)") }
            if let schedule = host.schedule,
                try DatabaseAppState(backend: backend).schedule(id: schedule, user: type.owner, connection) == nil
            {
                throw StoreError(.invalidArgument, "\(type.owner) has no schedule \(schedule)", resource: schedule)
            }
        }
        if let classEvent = type.classEvent {
            let (_, row) = try events.locate(classEvent, write: false, connection)
            try check(row.rowID == calendar.rowID, "the class event must be in the booking calendar")
        }
        if let slug = type.slug,
            try connection.firstRow(
                "SELECT 1 FROM booking_types WHERE slug = ? AND identifier <> ?", [.text(slug), .text(type.id)],
                { _ in true }) != nil
        {
            throw StoreError(.alreadyExists, "the slug \(slug) is taken", resource: slug)
        }
    }

    func columns(_ type: BookingType) -> [(name: String, value: SQLValue)] {
        [
            ("slug", .optional(type.slug)), ("title", .text(type.title)), ("description", .optional(type.description)),
            ("location", .optional(type.location)),
            ("durations", .text(type.durations.map(String.init).joined(separator: ","))),
            ("calendar", .text(type.calendar)),
            ("busy_calendars", .optional(type.busyCalendars.map { $0.joined(separator: ",") })),
            ("schedule", .optional(type.schedule)), ("buffer_before", .int(type.bufferBefore)),
            ("buffer_after", .int(type.bufferAfter)), ("notice", .int(type.notice)),
            ("window_days", .optional(type.windowDays)), ("step", .optional(type.step)),
            ("daily_limit", .optional(type.dailyLimit)), ("weekly_limit", .optional(type.weeklyLimit)),
            ("capacity", .optional(type.capacity)), ("class_event", .optional(type.classEvent)),
            ("waitlist", .int(type.waitlist ? 1 : 0)), ("hold_seconds", .int(type.holdSeconds)),
            ("hosts", .optional(Self.hostsText(type.hosts))), ("group_mode", .text(type.groupMode.rawValue)),
            ("group_minimum", .optional(type.groupMinimum)), ("all_day_busy", .int(type.allDayIsBusy ? 1 : 0)),
            ("host_notice", .int(type.notifyHost ? 1 : 0)),
        ]
    }

    func createBookingType(_ type: BookingType) throws(StoreError) -> BookingType {
        try database.write { (connection) throws(StoreError) -> BookingType in
            guard
                let ownerID = try connection.firstRow(
                    "SELECT id FROM users WHERE name = ?", [.text(type.owner)], { $0.int64(0) })
            else { throw StoreError(.notFound, "no user \(type.owner)", resource: type.owner) }
            if let lock = connection.dialect.lockUser { try connection.run(lock, [.integer(ownerID)]) }
            try checkReferences(type, ownerID: ownerID, connection)
            let count =
                try connection.firstRow("SELECT count(*) FROM booking_types WHERE user_id = ?", [.integer(ownerID)]) {
                    $0.int(0)
                } ?? 0
            guard count < BookingType.maxPerUser else {
                throw StoreError(.invalidArgument, "a user has at most \(BookingType.maxPerUser) booking types")
            }
            let now = WallClock.now()
            let all =
                columns(type) + [
                    ("identifier", .text(type.id)), ("user_id", .integer(ownerID)), ("created", .int(now)),
                    ("modified", .int(now)),
                ]
            try connection.run(
                "INSERT INTO booking_types (" + all.map(\.name).joined(separator: ", ") + ") VALUES ("
                    + all.map { _ in "?" }.joined(separator: ", ") + ")", all.map(\.value))
            return try typeRow(id: type.id, owner: type.owner, connection).type
        }
    }

    func bookingTypes(owner: String) throws(StoreError) -> [BookingType] {
        try database.read { (connection) throws(StoreError) -> [BookingType] in
            try connection.rows(
                Self.typeColumns + " WHERE u.name = ? ORDER BY t.title, t.identifier", [.text(owner)], Self.typeRow
            ).map(\.type)
        }
    }

    func bookingType(id: String, owner: String) throws(StoreError) -> BookingType {
        try database.read { (connection) throws(StoreError) -> BookingType in
            try typeRow(id: id, owner: owner, connection).type
        }
    }

    func bookingType(slug: String) throws(StoreError) -> BookingType {
        let found = try database.read { (connection) throws(StoreError) -> TypeRow? in
            // A disabled owner's pages are gone with them (404), not just closed.
            try connection.firstRow(
                Self.typeColumns + " WHERE t.slug = ? AND u.disabled = 0", [.text(slug)], Self.typeRow)
        }
        guard let found else { throw StoreError(.notFound, "no booking page \(slug)", resource: slug) }
        return found.type
    }

    func updateBookingType(_ type: BookingType, ifMatch: String?) throws(StoreError) -> BookingType {
        try database.write { (connection) throws(StoreError) -> BookingType in
            let row = try typeRow(id: type.id, owner: type.owner, connection)
            try StoreError.checkIfMatch(ifMatch, current: row.type.etag, resource: type.id)
            try checkReferences(type, ownerID: row.ownerID, connection)
            // Modified moves on even within one second: the ETag must change.
            let modified = max(WallClock.now(), row.type.modified + 1)
            let all = columns(type) + [("modified", .int(modified))]
            try connection.run(
                "UPDATE booking_types SET " + all.map { $0.name + " = ?" }.joined(separator: ", ") + " WHERE id = ?",
                all.map(\.value) + [.integer(row.rowID)])
            return try typeRow(id: type.id, owner: type.owner, connection).type
        }
    }

    func deleteBookingType(id: String, owner: String, ifMatch: String?) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            let row = try typeRow(id: id, owner: owner, connection)
            try StoreError.checkIfMatch(ifMatch, current: row.type.etag, resource: id)
            try connection.run("DELETE FROM bookings WHERE type_id = ?", [.integer(row.rowID)])
            try connection.run("DELETE FROM booking_holds WHERE type_id = ?", [.integer(row.rowID)])
            try connection.run("DELETE FROM booking_types WHERE id = ?", [.integer(row.rowID)])
        }
    }

    // MARK: The situation

    static let holdColumns = """
        SELECT h.identifier, t.identifier, h.starts, h.ends, h.recurrence_id, h.expires, h.hosts
        FROM booking_holds h JOIN booking_types t ON t.id = h.type_id
        """

    static func hold(_ row: Row) -> BookingHold {
        BookingHold(
            id: row.string(0), type: row.string(1), start: row.int(2), end: row.int(3),
            recurrenceID: row.optionalString(4), expires: row.int(5), hosts: list(row.optionalString(6)))
    }

    /// A comma-separated list as stored (nil: none).
    static func list(_ text: String?) -> [String] { text.map { $0.split(separator: ",").map(String.init) } ?? [] }

    static func listText(_ items: [String]) -> SQLValue { items.isEmpty ? .null : .text(items.joined(separator: ",")) }

    static let bookingColumns = """
        SELECT b.identifier, t.identifier, u.name, b.calendar, b.event_identifier, b.recurrence_id, b.starts, b.ends,
            b.name, b.email, b.note, b.status, b.created, b.modified, b.id, t.id, b.hosts, b.events, b.time_zone,
            b.sequence
        FROM bookings b JOIN booking_types t ON t.id = b.type_id JOIN users u ON u.id = t.user_id
        """

    static func booking(_ row: Row) -> Booking {
        Booking(
            id: row.string(0), type: row.string(1), owner: row.string(2), calendar: row.string(3),
            eventIdentifier: row.optionalString(4), recurrenceID: row.optionalString(5), start: row.int(6),
            end: row.int(7), name: row.string(8), email: row.string(9), note: row.optionalString(10),
            status: Booking.Status(rawValue: row.string(11)) ?? .cancelled, created: row.int(12),
            modified: row.int(13), hosts: list(row.optionalString(16)), events: list(row.optionalString(17)),
            timeZone: row.optionalString(18), sequence: row.int(19))
    }

    /// The seven days around a range that the daily and weekly limits read.
    static let limitMargin = 8 * 86_400

    /// Whether a type's page may still show a calendar's busy time: the owner's own, or
    /// shared with them read-write now (a share since made read-only, or left, no longer
    /// counts; the type was checked when saved, the share may have changed since).
    static func publishable(_ calendar: CalendarRow, by type: TypeRow) -> Bool {
        calendar.ownerID == type.ownerID || calendar.writable
    }

    /// The situation of a type in `range`, read in the caller's transaction: other
    /// bookers' live holds (all but `ownHold`), and busy time without the event of
    /// `ownBooking` (whose time a reschedule gives up).
    func situation(
        _ row: TypeRow, in range: TimeRange, now: Int, ownHold: String? = nil, ownBooking: Booking? = nil,
        _ connection: Connection
    ) throws(StoreError) -> BookingSituation {
        let type = row.type
        let events = events(row)
        let appState = DatabaseAppState(backend: backend)
        var schedule: StoredSchedule?
        if let id = type.schedule {
            schedule = try appState.schedule(id: id, user: type.owner, connection)
        } else {
            schedule = try appState.defaultSchedule(user: type.owner, connection)
        }
        let holds = try connection.rows(
            Self.holdColumns + " WHERE h.type_id = ? AND h.expires > ? AND h.starts < ? AND h.ends > ?",
            [.integer(row.rowID), .int(now), .int(range.end), .int(range.start)], Self.hold
        ).filter { $0.id != ownHold }
        let bookings = try connection.rows(
            Self.bookingColumns
                + " WHERE b.type_id = ? AND b.status = 'confirmed' AND b.starts < ? AND b.ends > ? ORDER BY b.starts",
            [
                .integer(row.rowID), .int(range.end.addingSaturated(Self.limitMargin)),
                .int(range.start.subtractingSaturated(Self.limitMargin)),
            ], Self.booking
        ).filter { $0.id != ownBooking?.id }
        var busy: [BusyTime] = []
        var occurrences: [ClassOccurrence] = []
        let bookingCalendar = try events.calendarRow(type.calendar, connection, write: false)
        var hosts: [HostSituation] = []
        var windowBookings: [Booking] = []
        if let classEvent = type.classEvent {
            occurrences = try classOccurrences(
                of: classEvent, capacity: type.capacity, in: range, calendar: bookingCalendar, events: events,
                connection)
        } else if !type.hosts.isEmpty {
            // Each host: their calendar and busy calendars (those since removed skipped),
            // their schedule, and the holds and bookings that take them.
            let own = Set(ownBooking?.events ?? [])
            for host in type.hosts {
                var calendars: [CalendarRow] = []
                for identifier in [host.calendar] + (host.busyCalendars ?? [])
                where !calendars.contains(where: { $0.calendar.id == identifier }) {
                    if let calendar = try? events.calendarRow(identifier, connection, write: false),
                        Self.publishable(calendar, by: row)
                    {
                        calendars.append(calendar)
                    }
                }
                var hostSchedule = schedule
                if let id = host.schedule { hostSchedule = try appState.schedule(id: id, user: type.owner, connection) }
                var hostBusy = try events.busyTime(in: range, calendars: calendars, zone: nil, connection)
                hostBusy.removeAll { own.contains($0.eventIdentifier) }
                hosts.append(
                    HostSituation(
                        host: host, schedule: hostSchedule, busy: hostBusy,
                        holds: holds.filter { $0.hosts.contains(host.name) },
                        bookings: bookings.filter { $0.hosts.contains(host.name) }))
            }
            // Fairness counts the bookings from now to the end of the booking window.
            let windowEnd =
                type.windowDays.map { now.addingSaturated(($0 + 1) * 86_400) }
                ?? range.end.addingSaturated(Self.limitMargin)
            windowBookings = try connection.rows(
                Self.bookingColumns
                    + " WHERE b.type_id = ? AND b.status = 'confirmed' AND b.starts >= ? AND b.starts < ? ORDER BY b.starts",
                [.integer(row.rowID), .int(min(now, range.start)), .int(windowEnd)], Self.booking
            ).filter { $0.id != ownBooking?.id }
        } else {
            // The booking calendar always blocks; busy calendars since removed are skipped.
            var calendars = [bookingCalendar]
            if let identifiers = type.busyCalendars {
                for identifier in identifiers where identifier != type.calendar {
                    if let calendar = try? events.calendarRow(identifier, connection, write: false),
                        Self.publishable(calendar, by: row)
                    {
                        calendars.append(calendar)
                    }
                }
            } else {
                // By default the owner's own calendars (subscribed ones too): one shared with
                // them is not theirs to publish, nor should a share someone else made block
                // their bookings.
                calendars = try events.visibleCalendars(nil, connection).filter { $0.ownerID == row.ownerID }
            }
            busy = try events.busyTime(in: range, calendars: calendars, zone: nil, connection)
            if let own = ownBooking?.eventIdentifier { busy.removeAll { $0.eventIdentifier == own } }
        }
        return BookingSituation(
            type: type, schedule: schedule, busy: busy, holds: holds, bookings: bookings, occurrences: occurrences,
            hosts: hosts, windowBookings: windowBookings)
    }

    /// The occurrences of a class in `range` with their capacity (the instance's
    /// `X-ALMANAC-CAPACITY`, else the series', else the type's, else 1) and the attendees
    /// that have not declined.
    func classOccurrences(
        of classEvent: String, capacity: Int?, in range: TimeRange, calendar: CalendarRow, events: DatabaseEventStore,
        _ connection: Connection
    ) throws(StoreError) -> [ClassOccurrence] {
        let (object, _) = try events.locate(classEvent, write: false, connection)
        let parsed = try CalendarObject(parsing: object.data, resource: object.name)
        let seriesCapacity = parsed.master.flatMap(Self.capacity) ?? capacity ?? 1
        let listed = try events.occurrences(
            in: range, calendars: [calendar], filter: .all, timeZone: nil, connection)
        return listed.occurrences.filter { $0.eventIdentifier == object.identifier }.map { occurrence in
            let component = occurrence.component
            let attendees = component.properties(named: "ATTENDEE").filter {
                $0[parameter: "PARTSTAT"]?.uppercased() != "DECLINED"
            }
            return ClassOccurrence(
                start: occurrence.startInstant, end: occurrence.endInstant, recurrenceID: occurrence.recurrenceID?.text,
                capacity: (occurrence.isDetached ? Self.capacity(component) : nil) ?? seriesCapacity,
                taken: attendees.count, isCancelled: occurrence.isCancelled)
        }
    }

    /// A component's `X-ALMANAC-CAPACITY`, when it is a count the store takes.
    static func capacity(_ component: Component) -> Int? {
        guard let value = component.property("X-ALMANAC-CAPACITY").flatMap({ Int($0.value) }),
            (0...BookingType.maxCapacity).contains(value)
        else { return nil }
        return value
    }

    func situation(type: String, owner: String, in range: TimeRange, now: Int) throws(StoreError)
        -> BookingSituation
    {
        try database.read { (connection) throws(StoreError) -> BookingSituation in
            try situation(try typeRow(id: type, owner: owner, connection), in: range, now: now, connection)
        }
    }

    /// The type's row, its booking calendar locked until the transaction ends (so
    /// decisions about its slots take turns), and the holds that ran out dropped.
    func lockedType(id: String, owner: String, now: Int, _ connection: Connection) throws(StoreError) -> (
        TypeRow, CalendarRow
    ) {
        let row = try typeRow(id: id, owner: owner, connection)
        let events = events(row)
        // Every calendar a booking of the type may write, locked in one order (by
        // identifier), so two types sharing a host's calendar never wait on each other.
        var calendar: CalendarRow?
        for identifier in Set([row.type.calendar] + row.type.hosts.map(\.calendar)).sorted() {
            let locked = try events.calendarRow(identifier, connection, write: true)
            if identifier == row.type.calendar { calendar = locked }
        }
        try expireHolds(typeRowID: row.rowID, now: now, connection)
        guard let calendar else { throw StoreError(.notFound, "no calendar \(row.type.calendar)") }
        return (row, calendar)
    }

    // MARK: Holds

    func releaseHold(id: String, type: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            let removed = try connection.run(
                "DELETE FROM booking_holds WHERE identifier = ? AND type_id = (SELECT id FROM booking_types WHERE identifier = ?)",
                [.text(id), .text(type)])
            if removed == 0 { throw StoreError(.notFound, "no hold \(id)", resource: id) }
        }
    }

    func expireHolds(now: Int) throws(StoreError) -> Int {
        // The sweeper asks every few seconds: take the write lock only when a hold ran out.
        let due = try database.read { (connection) throws(StoreError) -> Bool in
            try connection.firstRow("SELECT 1 FROM booking_holds WHERE expires <= ? LIMIT 1", [.int(now)]) { _ in true }
                ?? false
        }
        guard due else { return 0 }
        return try database.write { (connection) throws(StoreError) -> Int in
            try expireHolds(typeRowID: nil, now: now, connection)
        }
    }

    /// Drops the holds (of one type, or all) that ran out, telling webhooks of each.
    @discardableResult
    func expireHolds(typeRowID: Int64?, now: Int, _ connection: Connection) throws(StoreError) -> Int {
        let expired = try connection.rows(
            """
            SELECT h.id, h.identifier, t.calendar, t.user_id, h.starts, h.recurrence_id FROM booking_holds h
            JOIN booking_types t ON t.id = h.type_id WHERE h.expires <= ?
            """ + (typeRowID == nil ? "" : " AND h.type_id = ?") + " ORDER BY h.id LIMIT 1000",
            [.int(now)] + (typeRowID.map { [.integer($0)] } ?? [])
        ) { row in
            (
                rowID: row.int64(0), id: row.string(1), calendar: row.string(2), ownerID: row.int64(3),
                recurrenceID: row.optionalString(5)
            )
        }
        for hold in expired {
            try connection.run("DELETE FROM booking_holds WHERE id = ?", [.integer(hold.rowID)])
            try Outbox.record(
                Outbox.Change(
                    type: .holdExpired, calendar: hold.calendar, ownerID: hold.ownerID,
                    sequence: try calendarSequence(hold.calendar, connection),
                    occurrence: hold.recurrenceID.map { .init(recurrenceID: $0, span: "this") }, booking: hold.id),
                connection)
        }
        return expired.count
    }

    func calendarSequence(_ identifier: String, _ connection: Connection) throws(StoreError) -> Int {
        try connection.firstRow("SELECT sequence FROM calendars WHERE identifier = ?", [.text(identifier)]) {
            $0.int(0)
        } ?? 0
    }

    // MARK: Bookings

    /// Records a booking's change for the owner's webhooks.
    func tell(_ type: WebhookEventType, _ booking: Booking, ownerID: Int64, _ connection: Connection)
        throws(StoreError)
    {
        try Outbox.record(
            Outbox.Change(
                type: type, calendar: booking.calendar, ownerID: ownerID,
                sequence: try calendarSequence(booking.calendar, connection), eventIdentifier: booking.eventIdentifier,
                occurrence: booking.recurrenceID.map { .init(recurrenceID: $0, span: "this") }, booking: booking.id),
            connection)
    }

    func bookings(owner: String, type: String?, in range: TimeRange?, after cursor: String?, limit: Int)
        throws(StoreError) -> [Booking]
    {
        try database.read { (connection) throws(StoreError) -> [Booking] in
            var sql = Self.bookingColumns + " WHERE u.name = ?"
            var values: [SQLValue] = [.text(owner)]
            if let type {
                sql += " AND t.identifier = ?"
                values.append(.text(type))
            }
            if let range {
                sql += " AND b.starts >= ? AND b.starts < ?"
                values += [.int(range.start), .int(range.end)]
            }
            if let cursor {
                // Pages by (start, id): the cursor is the last booking of the page before.
                guard
                    let start = try connection.firstRow(
                        """
                        SELECT b.starts FROM bookings b JOIN booking_types t ON t.id = b.type_id
                        JOIN users u ON u.id = t.user_id WHERE b.identifier = ? AND u.name = ?
                        """, [.text(cursor), .text(owner)], { $0.int(0) })
                else { throw StoreError(.invalidArgument, "the cursor \(cursor) is no booking of yours") }
                sql += " AND (b.starts > ? OR (b.starts = ? AND b.identifier > ?))"
                values += [.int(start), .int(start), .text(cursor)]
            }
            return try connection.rows(
                sql + " ORDER BY b.starts, b.identifier LIMIT ?", values + [.int(limit)], Self.booking)
        }
    }

    func booking(id: String, owner: String) throws(StoreError) -> Booking {
        let found = try database.read { (connection) throws(StoreError) -> Booking? in
            try connection.firstRow(
                Self.bookingColumns + " WHERE b.identifier = ? AND u.name = ?", [.text(id), .text(owner)], Self.booking)
        }
        guard let found else { throw StoreError(.notFound, "\(owner) has no booking \(id)", resource: id) }
        return found
    }

    func booking(tokenHash: String, purpose: BookingTokenPurpose) throws(StoreError) -> Booking {
        let column = purpose == .cancel ? "cancel_token" : "reschedule_token"
        let found = try database.read { (connection) throws(StoreError) -> Booking? in
            try connection.firstRow(
                Self.bookingColumns + " WHERE b.\(column) = ? AND u.disabled = 0", [.text(tokenHash)], Self.booking)
        }
        guard let found else { throw StoreError(.notFound, "no booking has this link") }
        return found
    }

    /// The booking, in the caller's transaction, after its type's calendar is locked.
    func lockedBooking(id: String, owner: String, now: Int, _ connection: Connection) throws(StoreError) -> (
        Booking, TypeRow, CalendarRow
    ) {
        guard
            let type = try connection.firstRow(
                "SELECT t.identifier FROM bookings b JOIN booking_types t ON t.id = b.type_id WHERE b.identifier = ?",
                [.text(id)], { $0.string(0) })
        else { throw StoreError(.notFound, "\(owner) has no booking \(id)", resource: id) }
        let (row, calendar) = try lockedType(id: type, owner: owner, now: now, connection)
        guard
            let booking = try connection.firstRow(
                Self.bookingColumns + " WHERE b.identifier = ?", [.text(id)], Self.booking)
        else { throw StoreError(.notFound, "\(owner) has no booking \(id)", resource: id) }
        return (booking, row, calendar)
    }
}
