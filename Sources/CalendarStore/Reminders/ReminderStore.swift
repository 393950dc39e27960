import CivilTime
import ICalendar
import JSON
import Recurrence

/// The alarm queue: the store's side of the reminder scheduler. Reached through
/// ``StoreBackend/reminders``; the scheduler (module Reminders) calls it on a clock of its
/// own, so every method takes the time.
///
/// Alarms are planned ahead, never found by scanning every series at each tick: every
/// firing of every alarm of every occurrence (a repetition of REPEAT is a firing of its
/// own) becomes a row of `alarm_instances` once it comes within the lookahead, made from
/// the range index a window at a time (``planAhead(now:lookahead:window:grace:)``). A
/// write to an object with alarms (or that had some) marks it in the same transaction,
/// and ``replanChanged(now:limit:)`` plans it again at once, so an alarm added or moved
/// by any client takes effect within a tick. ``fireDue(now:grace:limit:)``
/// takes the due rows, each in one transaction that also writes its `alarm.due` webhook
/// deliveries to the outbox, so a firing happens once across processes (rows another
/// process holds are skipped, `FOR UPDATE SKIP LOCKED`) and survives a crash at any
/// point: either the row is still pending or it fired and its deliveries are queued.
public protocol ReminderStore: Sendable {
    /// Poked after a write that marked alarms to plan again (the webhook outbox's signal).
    var signal: OutboxSignal { get }
    /// Plans the `window` seconds after how far alarms are planned, when that is less
    /// than `now + lookahead`; returns what it did (nil when there was nothing to plan, or another
    /// process is planning). The first call plans from `now`; after downtime, planning
    /// resumes at most `grace` plus a day before `now` (older firings are not recorded).
    func planAhead(now: Int, lookahead: Int, window: Int, grace: Int) throws(StoreError) -> AlarmPlanReport?
    /// Plans again, from shortly before `now`, up to `limit` objects written since they
    /// were last planned; returns how many (0 while another transaction plans a window:
    /// they are planned once it commits).
    func replanChanged(now: Int, limit: Int) throws(StoreError) -> Int
    /// Fires up to `limit` firings due at `now`, earliest first: those due less than `grace`
    /// ago fire (late when more than ``AlarmFiringRecord/lateAfter`` behind), older ones are
    /// recorded as missed; acknowledged ones were recorded when planned.
    func fireDue(now: Int, grace: Int, limit: Int) throws(StoreError) -> [AlarmFiringRecord]
    /// When the earliest pending firing is due; nil when none is planned.
    func nextDue() throws(StoreError) -> Int?
    /// Forgets firings that fired, were missed or acknowledged before `before`.
    func pruneAlarms(before: Int) throws(StoreError) -> Int

    // MARK: E-mail alarms

    /// Leases up to `limit` fired `ACTION:EMAIL` firings whose mail waits, for `lease`
    /// seconds, with their owner's own addresses (never the alarm's ATTENDEEs). A firing
    /// whose owner has no address, or has had `perOwnerPerHour` alarm mails in the last
    /// hour, is recorded as refused and not returned.
    func claimMail(now: Int, lease: Int, limit: Int, perOwnerPerHour: Int) throws(StoreError) -> [AlarmMailJob]
    /// Records how a leased mail went: sent (`error` nil), or failed and tried again at
    /// `retryAt` (nil: given up).
    func finishMail(_ job: AlarmMailJob, error: String?, retryAt: Int?) throws(StoreError)
}

/// A fired EMAIL alarm whose mail is to be sent, leased to one process.
public struct AlarmMailJob: Sendable, Hashable {
    let id: Int64
    /// The firing.
    public var record: AlarmFiringRecord
    /// Where it goes: its owner's addresses, in their order.
    public var addresses: [String]
    /// The owner's display name, if any.
    public var ownerName: String?
    /// Attempts made before this one.
    public var attempts: Int
}

/// What one ``ReminderStore/planAhead(now:lookahead:window:grace:)`` did.
public struct AlarmPlanReport: Sendable, Hashable {
    /// The window planned (Unix seconds).
    public var window: TimeRange
    /// Firings added to the queue.
    public var planned: Int
    /// Firings left out because an owner or an object passed its share of ``AlarmLimits``.
    public var dropped: Int
    /// Series whose expansion a bound cut: their later alarms are not planned.
    public var cut: Int
}

/// How much one user's alarms may put in the queue: one owner's calendars (a REPEAT of
/// 2^31 every second, thousands of such events) must not fill the database or hold the
/// scheduler from everyone else's alarms. Each plan of a stretch of time allows its share
/// of the hourly figure; the firings past it (the latest in the stretch) are left out.
public enum AlarmLimits {
    /// Firings of one owner's calendars an hour.
    public static let perOwnerPerHour = 100_000
    /// Firings of one event (all its alarms and occurrences) an hour: one every 5 seconds.
    public static let perObjectPerHour = 720

    /// The part of `perHour` that a plan of `range` may make.
    public static func share(_ perHour: Int, of range: TimeRange) -> Int {
        max(1, Int((Double(perHour) * Double(max(0, range.duration)) / 3_600).rounded(.up)))
    }
}

/// A firing as the scheduler took it from the queue.
public struct AlarmFiringRecord: Sendable, Hashable {
    /// What became of it.
    public enum State: String, Sendable, Hashable {
        /// Waiting for its time.
        case pending
        /// It fired (its webhook deliveries are in the outbox).
        case fired
        /// It was due longer ago than the grace when the scheduler came to it: not sent.
        case missed
        /// ACKNOWLEDGED (RFC 9074) said it was dismissed before it fired.
        case acknowledged
    }

    public var state: State
    /// Its owner's user name.
    public var owner: String
    public var calendar: String
    public var eventIdentifier: String
    public var uid: String
    /// The event's SUMMARY.
    public var summary: String?
    /// The occurrence's RECURRENCE-ID text (the API's form); nil for a one-off event.
    public var recurrenceID: String?
    /// The alarm's UID (its own, or ``AlarmIdentity/derivedUID(eventUID:recurrenceID:position:)``).
    public var alarmUID: String
    /// DISPLAY, AUDIO, EMAIL (or another action, as written).
    public var action: String
    public var description: String?
    /// The UID of the alarm a snooze alarm snoozes.
    public var snoozeOf: String?
    /// 0 for the first firing, then each REPEAT.
    public var repetition: Int
    /// Unix seconds.
    public var fireAt: Int
    public var occurrenceStart: Int
    public var occurrenceEnd: Int
    /// When the scheduler fired it (or found it missed), Unix seconds.
    public var firedAt: Int?
    /// The owner's calendar's zone (the zone its times are shown in).
    public var timeZone: String?

    /// Fired more than the scheduler's `lateAfter` behind its time.
    public var late: Bool { state == .fired && (firedAt ?? fireAt) - fireAt > AlarmFiringRecord.lateAfter }

    /// How far behind its time (seconds) a firing is late: the scheduler's delay is a
    /// second or two; a minute means it was not running.
    public static let lateAfter = 60
}

/// Marks objects whose alarms must be planned again, from the store's writes.
enum AlarmQueue {
    /// How far before `now` a plan again reaches: a firing written a moment before the
    /// scheduler came to it still fires.
    static let replanMargin = 5

    /// Called in the transaction that wrote object `objectID`: marks it when it has
    /// alarms, or had firings planned. A subscribed calendar's alarms are its feed's, not
    /// its subscriber's, and are not fired.
    static func objectWritten(
        _ objectID: Int64, hasAlarms: Bool, replaced: Bool, calendar: CalendarRow, _ connection: Connection
    ) throws(StoreError) {
        if case .subscription = calendar.calendar.kind { return }
        let marked: Int
        if hasAlarms {
            marked = try connection.run(
                "INSERT INTO alarm_dirty (object_id) VALUES (?) ON CONFLICT (object_id) DO NOTHING",
                [.integer(objectID)])
        } else if replaced {
            marked = try connection.run(
                """
                INSERT INTO alarm_dirty (object_id) SELECT CAST(?1 AS BIGINT)
                WHERE EXISTS (\(hasPending(connection.dialect)))
                ON CONFLICT (object_id) DO NOTHING
                """, [.integer(objectID)])
        } else {
            return
        }
        // Wakes the scheduler (it waits on the outbox's signal) once the write commits.
        if marked > 0 { connection.outboxDeliveries += 1 }
    }

    /// Whether object `?1` has a firing to come. Both this and ``forgetPlanned(_:)`` go by
    /// the object's rows, never by every pending firing's (once per write, that was
    /// quadratic in the queue's length).
    static func hasPending(_ dialect: SQLDialect) -> String {
        "SELECT 1 FROM alarm_instances WHERE object_id = ?1 AND \(dialect.unindexed("state")) = 'pending'"
    }

    /// Removes object `?1`'s firings still to come from time `?2` on, to plan them again.
    static func forgetPlanned(_ dialect: SQLDialect) -> String {
        let (state, fireAt) = (dialect.unindexed("state"), dialect.unindexed("fire_at"))
        return
            "DELETE FROM alarm_instances WHERE object_id = ?1 AND \(state) IN ('pending', 'acknowledged') AND \(fireAt) >= ?2"
    }

    /// How the queue names a firing's alarm and occurrence: the alarm's UID (or the one
    /// derived from the event's UID, the component it is written in and its place), and
    /// the RECURRENCE-ID text of the occurrence (an absolute trigger belongs to its
    /// component, a relative one to each occurrence; "" for none).
    static func key(of alarm: Alarm, position: Int, in occurrence: EventOccurrence) -> (
        uid: String, recurrenceID: String
    ) {
        let member = occurrence.isDetached ? occurrence.recurrenceID?.text ?? "" : ""
        let eventUID = occurrence.component.property("UID")?.value ?? ""
        let uid = AlarmIdentity.uid(of: alarm, eventUID: eventUID, recurrenceID: member, position: position)
        if case .absolute = alarm.trigger { return (uid, member) }
        return (uid, occurrence.recurrenceID?.text ?? "")
    }

    /// Called when a calendar's zone changed: its floating and all-day alarms move.
    static func calendarZoneChanged(_ calendarID: Int64, _ connection: Connection) throws(StoreError) {
        let marked = try connection.run(
            """
            INSERT INTO alarm_dirty (object_id) SELECT id FROM objects WHERE calendar_id = ? AND alarm_reach IS NOT NULL
            ON CONFLICT (object_id) DO NOTHING
            """, [.integer(calendarID)])
        if marked > 0 { connection.outboxDeliveries += 1 }
    }
}

/// Firings planned and not yet written: inserted many rows a statement (on PostgreSQL
/// each statement is a round trip, and a window can hold tens of thousands). A firing
/// already queued is left as it is.
struct FiringRows {
    static let perStatement = 64
    private var values: [SQLValue] = []
    private var count = 0

    /// Adds one firing's 11 values (in the order of the INSERT below); writes when full.
    mutating func append(_ row: [SQLValue], _ connection: Connection) throws(StoreError) {
        values += row
        count += 1
        if count == Self.perStatement { try flush(connection) }
    }

    /// Writes what is waiting.
    mutating func flush(_ connection: Connection) throws(StoreError) {
        guard count > 0 else { return }
        try connection.run(
            """
            INSERT INTO alarm_instances (object_id, recurrence_id, alarm_uid, repetition, fire_at, action, description,
                snooze_of, occurrence_start, occurrence_end, state)
            VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", "))
            ON CONFLICT (object_id, recurrence_id, alarm_uid, repetition, fire_at) DO NOTHING
            """, values)
        values.removeAll(keepingCapacity: true)
        count = 0
    }
}

/// The reminder store of a ``DatabaseBackend``: tables `alarm_instances`, `alarm_dirty`
/// and `alarm_plan`, in the database of the calendars, so planning and firing commit
/// with what they read.
public struct DatabaseReminderStore: ReminderStore {
    let backend: DatabaseBackend
    var database: any StoreDatabase { backend.database }
    /// Expands series for no user in particular: it is given calendar rows, never asked
    /// what a user may see.
    var engine: DatabaseEventStore { DatabaseEventStore(backend: backend, userID: 0, user: "") }

    /// See ``ReminderStore/signal``.
    public var signal: OutboxSignal { database.outbox }

    /// Row locks where rows have them (PostgreSQL): another process's planning or firing
    /// is skipped, not waited for.
    func skipLocked(_ connection: Connection, of table: String) -> String {
        connection.dialect == .postgres ? " FOR UPDATE OF \(table) SKIP LOCKED" : ""
    }

    /// A calendar's row as the planner reads it; nil when it is gone or subscribed.
    func calendar(_ rowID: Int64, _ connection: Connection) throws(StoreError) -> CalendarRow? {
        guard
            let row = try connection.firstRow(
                DatabaseEventStore.calendarSelect + " WHERE c.id = ?2", [.integer(0), .integer(rowID)],
                engine.calendarRow)
        else { return nil }
        if case .subscription = row.calendar.kind { return nil }
        return row
    }

    /// The zone a calendar's floating and all-day alarms are read in (UTC when its zone is unknown).
    func zone(of calendar: CalendarRow) -> ZoneRules {
        calendar.calendar.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
    }

    /// Adds the firings of `candidate` in `range` to `rows` (at most `limit`); returns how
    /// many it added and left out, and whether a bound cut the series.
    func plan(
        _ candidate: DatabaseEventStore.Candidate, reach: Int, calendar: CalendarRow, zone: ZoneRules,
        range: TimeRange, limit: Int, into rows: inout FiringRows, _ connection: Connection
    ) throws(StoreError) -> (planned: Int, dropped: Int, cut: Bool) {
        var firings:
            [(
                alarm: Alarm, alarmUID: String, recurrenceID: String, repetition: Int, at: Int, start: Int, end: Int,
                acknowledged: Bool
            )] = []
        var total = 0
        var budget = backend.expansionBudget
        let cut = try engine.visitAlarms(
            of: candidate, calendar: calendar, zone: zone, reach: reach, range: range, budget: &budget, connection
        ) { alarm, position, occurrence, schedule in
            let (alarmUID, key) = AlarmQueue.key(of: alarm, position: position, in: occurrence)
            // RFC 9074 §6: dismissed at or after its first firing, the instance is done
            // (its repetitions too); Thunderbird says so for every alarm of the event.
            let acknowledged = [
                alarm.acknowledged,
                (try? occurrence.component.property("X-MOZ-LASTACK")?.dateTimeValue())?.civil.secondsSinceEpoch,
            ].contains { $0.map { $0 >= schedule.first } ?? false }
            total += schedule.repetitions.count
            for repetition in schedule.repetitions.prefix(max(0, limit - firings.count)) {
                firings.append(
                    (
                        alarm, alarmUID, key, repetition, schedule.time(of: repetition), occurrence.startInstant,
                        occurrence.endInstant, acknowledged
                    ))
            }
        }
        for firing in firings {
            try rows.append(
                [
                    .integer(candidate.rowID), .text(firing.recurrenceID), .text(firing.alarmUID),
                    .int(firing.repetition), .int(firing.at),
                    .text(firing.alarm.component.property("ACTION")?.value.uppercased() ?? "DISPLAY"),
                    .optional(firing.alarm.alarmDescription), .optional(firing.alarm.snoozedAlarm), .int(firing.start),
                    .int(firing.end), .text(firing.acknowledged ? "acknowledged" : "pending"),
                ], connection)
        }
        return (firings.count, total - firings.count, cut != nil)
    }

    /// The farthest an object's alarms reach, and its calendar.
    static let alarmColumns = "SELECT o.alarm_reach, o.calendar_id FROM objects o WHERE o.id = ?"

    /// See ``ReminderStore/planAhead(now:lookahead:window:grace:)``.
    public func planAhead(now: Int, lookahead: Int, window: Int, grace: Int) throws(StoreError) -> AlarmPlanReport? {
        try database.write { (connection) throws(StoreError) -> AlarmPlanReport? in
            try connection.run(
                "INSERT INTO alarm_plan (id, planned_until) VALUES (1, ?) ON CONFLICT (id) DO NOTHING", [.int(now)])
            guard
                let planned = try connection.firstRow(
                    "SELECT planned_until FROM alarm_plan WHERE id = 1" + skipLocked(connection, of: "alarm_plan"),
                    { $0.int(0) })
            else { return nil }
            let start = max(planned, now - grace - 86_400)
            let target = now + lookahead
            guard start < target else { return nil }
            // Whole windows, so each window's share of the limits is a fair one.
            let range = TimeRange(start: start, end: start + max(1, window))
            var report = AlarmPlanReport(window: range, planned: 0, dropped: 0, cut: 0)
            // Each calendar with alarms, its owner, and the farthest its alarms reach.
            let calendars = try connection.rows(
                """
                SELECT a.calendar_id, c.owner_id, a.reach FROM
                    (SELECT calendar_id, max(alarm_reach) AS reach FROM objects WHERE alarm_reach IS NOT NULL
                     GROUP BY calendar_id) a
                JOIN calendars c ON c.id = a.calendar_id ORDER BY c.owner_id, a.calendar_id
                """
            ) { (calendar: $0.int64(0), owner: $0.int64(1), reach: $0.int(2)) }
            let (perOwner, perObject) = (
                AlarmLimits.share(AlarmLimits.perOwnerPerHour, of: range),
                AlarmLimits.share(AlarmLimits.perObjectPerHour, of: range)
            )
            var left: [Int64: Int] = [:]
            var rows = FiringRows()
            for (calendarID, owner, reach) in calendars {
                guard let calendar = try calendar(calendarID, connection) else { continue }
                let zone = zone(of: calendar)
                let (from, to) = (range.start.subtractingSaturated(reach), range.end.addingSaturated(reach))
                for candidate in try engine.candidates(in: calendar, from: from, to: to, alarmsOnly: true, connection) {
                    guard let objectReach = candidate.alarmReach else { continue }
                    let allowed = min(perObject, left[owner] ?? perOwner)
                    let done = try plan(
                        candidate, reach: objectReach, calendar: calendar, zone: zone, range: range,
                        limit: allowed, into: &rows, connection)
                    left[owner] = (left[owner] ?? perOwner) - done.planned
                    report.planned += done.planned
                    report.dropped += done.dropped
                    if done.cut { report.cut += 1 }
                }
            }
            try rows.flush(connection)
            try connection.run("UPDATE alarm_plan SET planned_until = ? WHERE id = 1", [.int(range.end)])
            return report
        }
    }

    /// See ``ReminderStore/replanChanged(now:limit:)``.
    public func replanChanged(now: Int, limit: Int) throws(StoreError) -> Int {
        let any = try database.read { (connection) throws(StoreError) -> Bool in
            try connection.firstRow("SELECT 1 FROM alarm_dirty LIMIT 1", { _ in true }) ?? false
        }
        guard any else { return 0 }
        return try database.write { (connection) throws(StoreError) -> Int in
            // While a window is being planned (on PostgreSQL, by another thread or process,
            // which holds the plan's row), wait for it to commit: planning this object now
            // would not see that window's firings, which are of the object as it was, and
            // would then remove them. The row is made first if it is missing, so a first
            // window being planned (its row not yet committed) is waited for too.
            try connection.run(
                "INSERT INTO alarm_plan (id, planned_until) VALUES (1, ?) ON CONFLICT (id) DO NOTHING", [.int(now)])
            let shared = connection.dialect == .postgres ? " FOR SHARE SKIP LOCKED" : ""
            guard
                let until = try connection.firstRow(
                    "SELECT planned_until FROM alarm_plan WHERE id = 1" + shared, { $0.int(0) })
            else { return 0 }
            let objects = try connection.rows(
                "SELECT object_id FROM alarm_dirty ORDER BY object_id LIMIT ?"
                    + skipLocked(connection, of: "alarm_dirty"), [.int(limit)], { $0.int64(0) })
            let from = now - AlarmQueue.replanMargin
            var rows = FiringRows()
            for objectID in objects {
                try connection.run("DELETE FROM alarm_dirty WHERE object_id = ?", [.integer(objectID)])
                try connection.run(AlarmQueue.forgetPlanned(connection.dialect), [.integer(objectID), .int(from)])
                guard until > from,
                    let (reach, calendarID) = try connection.firstRow(
                        Self.alarmColumns, [.integer(objectID)], { ($0.optionalInt(0), $0.int64(1)) }),
                    let reach, let calendar = try calendar(calendarID, connection),
                    let candidate = try connection.firstRow(
                        DatabaseEventStore.candidateColumns + " WHERE o.id = ?", [.integer(objectID)],
                        DatabaseEventStore.candidate)
                else { continue }
                let range = TimeRange(start: from, end: until)
                _ = try plan(
                    candidate, reach: reach, calendar: calendar, zone: zone(of: calendar), range: range,
                    limit: AlarmLimits.share(AlarmLimits.perObjectPerHour, of: range), into: &rows, connection)
            }
            try rows.flush(connection)
            return objects.count
        }
    }

    static let firingColumns = """
        SELECT i.id, i.recurrence_id, i.alarm_uid, i.repetition, i.fire_at, i.action, i.description, i.snooze_of,
            i.occurrence_start, i.occurrence_end, i.state, i.fired_at,
            o.identifier, o.uid, o.etag, o.name, o.summary, c.identifier, c.owner_id, c.sequence, u.name, c.time_zone,
            u.disabled
        FROM alarm_instances i JOIN objects o ON o.id = i.object_id JOIN calendars c ON c.id = o.calendar_id
        JOIN users u ON u.id = c.owner_id
        """

    static func firing(_ row: Row) -> AlarmFiringRecord {
        AlarmFiringRecord(
            state: AlarmFiringRecord.State(rawValue: row.string(10)) ?? .pending, owner: row.string(20),
            calendar: row.string(17), eventIdentifier: row.string(12), uid: row.string(13),
            summary: row.optionalString(16), recurrenceID: row.string(1).isEmpty ? nil : row.string(1),
            alarmUID: row.string(2), action: row.string(5), description: row.optionalString(6),
            snoozeOf: row.optionalString(7), repetition: row.int(3), fireAt: row.int(4), occurrenceStart: row.int(8),
            occurrenceEnd: row.int(9), firedAt: row.optionalInt(11), timeZone: row.optionalString(21))
    }

    /// See ``ReminderStore/fireDue(now:grace:limit:)``; looks in a read
    /// transaction first, so a tick that finds nothing due takes no write lock.
    public func fireDue(now: Int, grace: Int, limit: Int) throws(StoreError) -> [AlarmFiringRecord] {
        guard let due = try nextDue(), due <= now else { return [] }
        return try database.write { (connection) throws(StoreError) -> [AlarmFiringRecord] in
            let due = try connection.rows(
                Self.firingColumns + " WHERE i.state = 'pending' AND i.fire_at <= ? ORDER BY i.fire_at, i.id LIMIT ?"
                    + skipLocked(connection, of: "i"), [.int(now), .int(limit)]
            ) { row in
                (
                    record: Self.firing(row), id: row.int64(0), owner: row.int64(18), sequence: row.int(19),
                    etag: row.string(14), resource: row.string(15), disabled: row.int(22) != 0
                )
            }
            var fired: [AlarmFiringRecord] = []
            for (record, id, owner, sequence, etag, resource, disabled) in due {
                var record = record
                record.firedAt = now
                // A disabled account causes no outbound work.
                record.state = record.fireAt < now - grace || disabled ? .missed : .fired
                let mail = record.state == .fired && record.action == "EMAIL"
                try connection.run(
                    "UPDATE alarm_instances SET state = ?, fired_at = ?, mail_state = ? WHERE id = ?",
                    [.text(record.state.rawValue), .int(now), mail ? .text("pending") : nil, .integer(id)])
                if record.state == .fired {
                    try Outbox.record(
                        Outbox.Change(
                            type: .alarmDue, calendar: record.calendar, ownerID: owner, sequence: sequence,
                            eventIdentifier: record.eventIdentifier, uid: record.uid, etag: etag, resource: resource,
                            occurrence: record.recurrenceID.map { .init(recurrenceID: $0, span: "this") },
                            detail: Self.detail(record).jsonText,
                            occurred: now * 1_000), connection)
                }
                fired.append(record)
            }
            return fired
        }
    }

    /// The `alarm` member of an `alarm.due` delivery.
    static func detail(_ record: AlarmFiringRecord) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        func time(_ seconds: Int) -> JSONValue { .string(CivilDateTime(secondsSinceEpoch: seconds).description + "Z") }
        return .object([
            ("uid", .string(record.alarmUID)), ("action", .string(record.action)),
            ("description", text(record.description)), ("trigger", time(record.fireAt)),
            ("repetition", .integer(record.repetition)), ("late", .bool(record.late)),
            ("snoozeOf", text(record.snoozeOf)),
            ("summary", text(record.summary)), ("occurrenceStart", time(record.occurrenceStart)),
            ("occurrenceEnd", time(record.occurrenceEnd)),
        ])
    }

    /// See ``ReminderStore/nextDue()``.
    public func nextDue() throws(StoreError) -> Int? {
        try database.read { (connection) throws(StoreError) -> Int? in
            try connection.firstRow(
                "SELECT fire_at FROM alarm_instances WHERE state = 'pending' ORDER BY fire_at LIMIT 1", { $0.int(0) })
        }
    }

    /// See ``ReminderStore/pruneAlarms(before:)``.
    public func pruneAlarms(before: Int) throws(StoreError) -> Int {
        try database.write { (connection) throws(StoreError) -> Int in
            try connection.run(
                "DELETE FROM alarm_instances WHERE state IN ('fired', 'missed', 'acknowledged') AND fire_at < ?",
                [.int(before)])
        }
    }

    /// See ``ReminderStore/claimMail(now:lease:limit:perOwnerPerHour:)``.
    public func claimMail(now: Int, lease: Int, limit: Int, perOwnerPerHour: Int) throws(StoreError)
        -> [AlarmMailJob]
    {
        let any = try database.read { (connection) throws(StoreError) -> Bool in
            try connection.firstRow(
                "SELECT 1 FROM alarm_instances WHERE mail_state = 'pending' AND mail_lease <= ? LIMIT 1", [.int(now)],
                { _ in true }) ?? false
        }
        guard any else { return [] }
        return try database.write { (connection) throws(StoreError) -> [AlarmMailJob] in
            let due = try connection.rows(
                Self.firingColumns
                    + " WHERE i.mail_state = 'pending' AND i.mail_lease <= ? ORDER BY i.fired_at, i.id LIMIT ?"
                    + skipLocked(connection, of: "i"), [.int(now), .int(limit)]
            ) { row in (record: Self.firing(row), id: row.int64(0), owner: row.int64(18)) }
            var jobs: [AlarmMailJob] = []
            for (record, id, owner) in due {
                let addresses = try connection.rows(
                    "SELECT address FROM user_addresses WHERE user_id = ? ORDER BY position", [.integer(owner)],
                    { $0.string(0) })
                // The owner's alarm mails of the last hour: sent, given up, or on their way.
                let sent =
                    try connection.firstRow(
                        """
                        SELECT count(*) FROM alarm_instances m JOIN objects o ON o.id = m.object_id
                        JOIN calendars c ON c.id = o.calendar_id
                        WHERE (m.mail_state IN ('sent', 'failed') OR (m.mail_state = 'pending' AND m.mail_lease > ?1))
                            AND m.fired_at > ?2 AND c.owner_id = ?3
                        """, [.int(now), .int(now - 3_600), .integer(owner)], { $0.int(0) }) ?? 0
                let refused = addresses.isEmpty || sent >= perOwnerPerHour
                try connection.run(
                    "UPDATE alarm_instances SET mail_state = ?, mail_lease = ? WHERE id = ?",
                    [.text(refused ? "refused" : "pending"), .int(now + lease), .integer(id)])
                guard !refused else { continue }
                let attempts =
                    try connection.firstRow(
                        "SELECT mail_attempts FROM alarm_instances WHERE id = ?", [.integer(id)], { $0.int(0) }) ?? 0
                let name =
                    try connection.firstRow(
                        "SELECT display_name FROM users WHERE id = ?", [.integer(owner)], { $0.optionalString(0) })
                    ?? nil
                jobs.append(
                    AlarmMailJob(id: id, record: record, addresses: addresses, ownerName: name, attempts: attempts))
            }
            return jobs
        }
    }

    /// See ``ReminderStore/finishMail(_:error:retryAt:)``.
    public func finishMail(_ job: AlarmMailJob, error: String?, retryAt: Int?) throws(StoreError) {
        let state = error == nil ? "sent" : retryAt == nil ? "failed" : "pending"
        _ = try database.write { (connection) throws(StoreError) -> Int in
            try connection.run(
                """
                UPDATE alarm_instances SET mail_state = ?, mail_lease = ?, mail_attempts = mail_attempts + 1
                WHERE id = ? AND mail_state = 'pending'
                """, [.text(state), .int(retryAt ?? 0), .integer(job.id)])
        }
    }
}
