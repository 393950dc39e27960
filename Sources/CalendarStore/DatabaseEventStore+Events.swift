import CivilTime
import ICalendar
import Recurrence

extension DatabaseEventStore {
    // MARK: Reading

    /// The calendars a query covers: the visible ones with these identifiers, or all visible.
    func visibleCalendars(_ identifiers: [String]?, _ connection: Connection) throws(StoreError) -> [CalendarRow] {
        guard let identifiers else {
            return try connection.rows(
                calendarColumns + " ORDER BY c.sort_order, c.id", [.integer(userID)], calendarRow)
        }
        var rows: [CalendarRow] = []
        for identifier in identifiers { rows.append(try calendarRow(identifier, connection, write: false)) }
        return rows
    }

    /// The zone floating and all-day times are read in: the asked one, else the calendar's, else UTC.
    func viewerZone(_ name: String?, calendar: CalendarRow?) throws(StoreError) -> ZoneRules {
        guard let name = name ?? calendar?.calendar.timeZone else { return .utc }
        guard let zone = TimeZoneDatabase.zone(named: name) else {
            throw StoreError(.invalidArgument, "unknown time zone \(name) (use an IANA name such as Europe/Berlin)")
        }
        return zone
    }

    /// An object read for expansion, from the cache when its ETag is unchanged.
    func cachedSeries(id: Int64, etag: String, _ connection: Connection) throws(StoreError) -> CachedSeries {
        if let cached = backend.cache.object(id: id, etag: etag) { return cached }
        guard
            let (data, skeleton) = try connection.firstRow(
                "SELECT data, skeleton FROM object_data WHERE id = ?", [.integer(id)],
                { ($0.bytes(0), $0.isNull(1) ? nil : $0.bytes(1)) })
        else {
            throw StoreError(.notFound, "object \(id) vanished")
        }
        let object = try CalendarObject(parsing: skeleton ?? data)
        let prepared: PreparedObject
        do {
            prepared = try CalendarObjectExpansion(resolver: ZoneResolver(calendar: object.calendar)).prepare(
                object.members, uid: object.uid)
        } catch {
            throw .invalidData(error)
        }
        let series = CachedSeries(prepared: prepared, stored: StoredObject(data: data), fromSkeleton: skeleton != nil)
        backend.cache.store(series, id: id, etag: etag)
        return series
    }

    /// What a read answers when its expansions would take more than one request's
    /// ``ExpansionBudget``: the range holds more recurrence work than one answer may do.
    static let budgetSpent = StoreError(
        .expansionLimit,
        "answering this would expand more recurrence than one request may; ask for a shorter range or fewer calendars")

    /// The occurrences of a candidate in `from..<to`, as the store reports them, and the
    /// series itself when a bound of its expansion (``ExpansionLimits``) stopped it before
    /// `to`. The work comes out of `budget`, and a read that spends it all is refused
    /// (``budgetSpent``).
    func occurrences(
        of candidate: Candidate, series: CachedSeries, calendar: CalendarRow, from: Int?, to: Int?, zone: ZoneRules,
        budget: inout ExpansionBudget
    ) throws(StoreError) -> (occurrences: [EventOccurrence], truncated: TruncatedEvent?) {
        let expansion = series.prepared.expand(from: from, to: to, viewerZone: zone, budget: &budget)
        if budget.isSpent { throw Self.budgetSpent }
        let found = expansion.occurrences
        let truncated =
            expansion.isComplete
            ? nil
            : TruncatedEvent(
                eventIdentifier: candidate.identifier, calendarIdentifier: calendar.calendar.id,
                externalIdentifier: series.prepared.uid,
                title: series.prepared.summary, listed: found.count,
                lastListedStart: found.last?.start.instant(in: zone))
        let occurrences = found.map { occurrence in
            EventOccurrence(
                source: series.fromSkeleton
                    ? .member(series.stored, skeleton: occurrence.component) : .parsed(occurrence.component),
                start: occurrence.start, end: occurrence.end, recurrenceID: occurrence.recurrenceID,
                isDetached: occurrence.isOverride, timeZone: occurrence.tzid, eventIdentifier: candidate.identifier,
                calendarIdentifier: calendar.calendar.id, etag: candidate.etag, viewerZone: zone,
                seriesZone: occurrence.zone)
        }
        return (occurrences, truncated)
    }

    /// What a read answers that cannot say in its result that a series was cut (alarms,
    /// a removal): the read is refused, naming the series.
    static func truncationRefused(_ series: TruncatedEvent) -> StoreError {
        StoreError(.expansionLimit, "\(series); ask for a shorter range", resource: series.eventIdentifier)
    }

    /// A candidate row of the interval index.
    struct Candidate {
        var rowID: Int64
        var identifier: String
        var name: String
        var size: Int
        var modified: Int
        var sequence: Int
        var etag: String
        var componentType: ComponentType
        var recurring: Bool
        var firstStart: Int
        var lastEnd: Int?
        var scheduleTag: String?
        /// How far its alarms lie from its occurrences (seconds); nil without alarms.
        var alarmReach: Int?
        /// A one-off object's times and listing columns, to answer without parsing it.
        var single: Single?

        struct Single {
            var start: OccurrenceTime
            var end: OccurrenceTime
            var tzid: String?
            var title: String?
            var status: EventStatus?
            var categories: String?
            var transparent: Bool
        }
    }

    /// What a candidate holds in a range: a one-off object's own times, read from its
    /// row without parsing it, or a series (from the cache) to expand.
    enum Timing {
        case single(Candidate.Single)
        case series(CachedSeries)
    }

    /// A candidate's timing; nil for a one-off object whose row says it is outside
    /// `from..<to` in `zone`.
    func timing(of candidate: Candidate, from: Int, to: Int, zone: ZoneRules, _ connection: Connection)
        throws(StoreError) -> Timing?
    {
        guard let single = candidate.single else {
            return .series(try cachedSeries(id: candidate.rowID, etag: candidate.etag, connection))
        }
        guard OccurrenceTime.overlaps(start: single.start, end: single.end, from: from, to: to, in: zone) else {
            return nil
        }
        return .single(single)
    }

    /// A one-off object's occurrence, from its row and its bytes (kept, not parsed, until asked for).
    func occurrence(
        ofSingle single: Candidate.Single, _ candidate: Candidate, data: [UInt8], calendar: CalendarRow,
        zone: ZoneRules
    ) -> EventOccurrence {
        EventOccurrence(
            source: .stored(
                StoredObject(data: data), title: single.title, status: single.status, transparent: single.transparent),
            start: single.start, end: single.end, recurrenceID: nil, isDetached: false, timeZone: single.tzid,
            eventIdentifier: candidate.identifier, calendarIdentifier: calendar.calendar.id, etag: candidate.etag,
            viewerZone: zone, seriesZone: single.tzid.flatMap { TimeZoneDatabase.zone(named: $0) })
    }

    /// The objects of a calendar whose box overlaps `from..<to` (Unix seconds): a
    /// superset of those with an occurrence there, read from the range index.
    func candidates(in calendar: CalendarRow, from: Int, to: Int, alarmsOnly: Bool = false, _ connection: Connection)
        throws(StoreError) -> [Candidate]
    {
        let sql =
            Self.candidateColumns + " WHERE \(IntervalIndex.overlap(connection.dialect))"
            + (alarmsOnly ? " AND o.alarm_reach IS NOT NULL" : "")
        return try connection.rows(
            sql,
            [.integer(calendar.rowID), .int(IntervalIndex.lowerMinute(from)), .int(IntervalIndex.upperMinute(to))],
            Self.candidate)
    }

    /// What a candidate is read from (`objects o`), for ``candidate(_:)``.
    static let candidateColumns = """
        SELECT o.id, o.identifier, o.sequence, o.etag, o.component, o.recurring, o.first_start, o.last_end,
               o.time_kind, o.start_key, o.end_key, o.tzid, o.summary, o.status, o.categories, o.name, o.size, o.modified, o.transparent,
               o.schedule_tag, o.alarm_reach
        FROM objects o
        """

    /// A candidate from a row of ``candidateColumns``.
    static func candidate(_ row: Row) -> Candidate {
        var single: Candidate.Single?
        if let kindValue = row.optionalInt(8), let kind = SingleTiming(rawValue: kindValue) {
            single = Candidate.Single(
                start: kind.time(row.int(9)), end: kind.time(row.int(10)), tzid: row.optionalString(11),
                title: row.optionalString(12),
                status: row.optionalString(13).flatMap(EventStatus.init(rawValue:)),
                categories: row.optionalString(14),
                transparent: row.int(18) != 0)
        }
        return Candidate(
            rowID: row.int64(0), identifier: row.string(1), name: row.string(15), size: row.int(16),
            modified: row.int(17), sequence: row.int(2), etag: row.string(3),
            componentType: ComponentType(rawValue: row.string(4)) ?? .event, recurring: row.int(5) != 0,
            firstStart: row.int(6),
            lastEnd: row.optionalInt(7), scheduleTag: row.optionalString(19), alarmReach: row.optionalInt(20),
            single: single)
    }

    func occurrences(
        in range: TimeRange, calendars: [CalendarRow], filter: EventFilter, timeZone: String?, limit: Int = .max,
        _ connection: Connection
    ) throws(StoreError) -> OccurrenceList {
        let limit = max(0, limit)
        var result: [EventOccurrence] = []
        var truncated: [TruncatedEvent] = []
        /// Keeps the earliest `limit` once the list grows well past it.
        func trim() {
            guard result.count > limit.addingSaturated(10_000) else { return }
            Self.sortByStart(&result, keeping: limit)
        }
        var budget = backend.expansionBudget
        for calendar in calendars {
            let zone = try viewerZone(timeZone, calendar: calendar)
            var matched: [(candidate: Candidate, single: Candidate.Single)] = []
            for candidate in try candidates(in: calendar, from: range.start, to: range.end, connection)
            where filter.componentTypes.contains(candidate.componentType) {
                switch try timing(of: candidate, from: range.start, to: range.end, zone: zone, connection) {
                case nil: continue
                case .series(let series):
                    let found = try occurrences(
                        of: candidate, series: series, calendar: calendar, from: range.start, to: range.end,
                        zone: zone, budget: &budget)
                    for occurrence in found.occurrences
                    where filter.isEmpty || filter.matches(occurrence.filterComponent) {
                        result.append(occurrence)
                    }
                    if let cut = found.truncated { truncated.append(cut) }
                    trim()
                case .single(let single):
                    // A one-off object is answered from its row; its bytes are parsed only if asked for.
                    guard
                        filter.matches(
                            title: single.title, status: single.status,
                            categories: {
                                single.categories?.split(separator: SingleTiming.categorySeparator).map(String.init)
                                    ?? []
                            })
                    else { continue }
                    matched.append((candidate, single))
                }
            }
            // The matched one-off objects' bytes, read together.
            let data = try objectData(matched.map(\.candidate.rowID), connection)
            for (candidate, single) in matched {
                guard let data = data[candidate.rowID] else { continue }
                result.append(occurrence(ofSingle: single, candidate, data: data, calendar: calendar, zone: zone))
                trim()
            }
        }
        Self.sortByStart(&result, keeping: limit)
        // A series cut after the last occurrence the limit keeps took nothing from this answer.
        if result.count == limit, let last = result.last?.startInstant {
            truncated.removeAll { ($0.lastListedStart ?? .min) >= last }
        }
        return OccurrenceList(occurrences: result, truncatedSeries: truncated)
    }

    /// See ``EventStore/busyTime(in:calendars:timeZone:)``; every visible calendar when `calendars` is nil.
    public func busyTime(in range: TimeRange, calendars: [String]?, timeZone: String?) throws(StoreError) -> [BusyTime]
    {
        var zone: ZoneRules?
        if let timeZone { zone = try viewerZone(timeZone, calendar: nil) }
        return try database.read { (connection) throws(StoreError) -> [BusyTime] in
            try busyTime(in: range, calendars: try visibleCalendars(calendars, connection), zone: zone, connection)
        }
    }

    /// See ``EventStore/busyTime(in:calendar:timeZone:)``.
    public func busyTime(in range: TimeRange, calendar: some CalendarReference, timeZone: ZoneRules?)
        throws(StoreError) -> [BusyTime]
    {
        try database.read { (connection) throws(StoreError) -> [BusyTime] in
            try busyTime(
                in: range, calendars: [try calendarRow(calendar, connection, write: false)], zone: timeZone,
                connection)
        }
    }

    /// The busy time of `calendars` in `range`, floating and all-day times read in
    /// `requested`, else in each calendar's zone.
    func busyTime(
        in range: TimeRange, calendars: [CalendarRow], zone requested: ZoneRules?, _ connection: Connection
    ) throws(StoreError) -> [BusyTime] {
        var result: [BusyTime] = []
        var intervals: [BusyInterval] = []
        var budget = backend.expansionBudget
        for calendar in calendars {
            var zone = ZoneRules.utc
            if let requested { zone = requested } else { zone = try viewerZone(nil, calendar: calendar) }
            let calendarID = calendar.calendar.id
            for candidate in try candidates(in: calendar, from: range.start, to: range.end, connection)
            where candidate.componentType == .event {
                let series: CachedSeries
                switch try timing(of: candidate, from: range.start, to: range.end, zone: zone, connection) {
                case nil: continue
                case .series(let cached): series = cached
                case .single(let single):
                    guard !single.transparent, single.status != .cancelled else { continue }
                    var isAllDay = false
                    if case .date = single.start { isAllDay = true }
                    result.append(
                        BusyTime(
                            start: single.start.instant(in: zone), end: single.end.instant(in: zone),
                            eventIdentifier: candidate.identifier,
                            calendarIdentifier: calendarID, recurrenceID: nil,
                            isTentative: single.status == .tentative, isAllDay: isAllDay))
                    continue
                }
                intervals.removeAll(keepingCapacity: true)
                let isComplete = series.prepared.busyIntervals(
                    from: range.start, to: range.end, viewerZone: zone, budget: &budget, into: &intervals)
                if budget.isSpent { throw Self.budgetSpent }
                for interval in intervals where interval.traits.isDisjoint(with: [.transparent, .cancelled]) {
                    result.append(
                        BusyTime(
                            start: interval.start, end: interval.end, eventIdentifier: candidate.identifier,
                            calendarIdentifier: calendarID,
                            recurrenceID: interval.recurrenceID, isTentative: interval.traits.contains(.tentative),
                            isAllDay: interval.isAllDay))
                }
                // A series a bound stopped may be busy anywhere after its last listed instance: that
                // time counts as busy, so a free-slot search never offers it (more busy time, never less).
                if !isComplete {
                    let from = intervals.map(\.start).max().map { max(range.start, $0) } ?? range.start
                    result.append(
                        BusyTime(
                            start: from, end: range.end, eventIdentifier: candidate.identifier,
                            calendarIdentifier: calendarID, recurrenceID: nil,
                            isTentative: false, isAllDay: false))
                }
            }
        }
        return result
    }

    /// The bytes of objects by row id: one query on PostgreSQL (the ids as one bigint[]
    /// parameter); on SQLite, in process, a cached statement per id costs what a batch would.
    func objectData(_ ids: [Int64], _ connection: Connection) throws(StoreError) -> [Int64: [UInt8]] {
        var result: [Int64: [UInt8]] = [:]
        guard !ids.isEmpty else { return result }
        switch connection.dialect {
        case .sqlite:
            for id in ids {
                result[id] = try connection.firstRow("SELECT data FROM object_data WHERE id = ?", [.integer(id)]) {
                    $0.bytes(0)
                }
            }
        case .postgres:
            try connection.forEachRow(
                "SELECT id, data FROM object_data WHERE id = ANY(CAST(? AS BIGINT[]))",
                [.text(SQLArray.literal(ids.map(String.init)))]
            ) { result[$0.int64(0)] = $0.bytes(1) }
        }
        return result
    }

    /// Puts occurrences in start order (then by event and instance) in place, keeping the
    /// first `limit`: swaps move them without copying (a sorted copy retained every field of
    /// every occurrence once more, a tenth of a week's query).
    static func sortByStart(_ occurrences: inout [EventOccurrence], keeping limit: Int = .max) {
        let starts = occurrences.map(\.startInstant)
        let events = occurrences.map(\.eventIdentifier)
        let instances = occurrences.map { $0.recurrenceID?.instant(in: .utc) ?? 0 }
        let order = occurrences.indices.sorted { left, right in
            if starts[left] != starts[right] { return starts[left] < starts[right] }
            if events[left] != events[right] { return events[left] < events[right] }
            return instances[left] < instances[right]
        }
        // Apply the permutation in place, cycle by cycle: swaps move values without copying them.
        var placed = [Bool](repeating: false, count: order.count)
        for start in order.indices where !placed[start] {
            var position = start
            while true {
                placed[position] = true
                let source = order[position]
                if source == start { break }
                occurrences.swapAt(position, source)
                position = source
            }
        }
        if occurrences.count > limit { occurrences.removeLast(occurrences.count - limit) }
    }

    /// See ``EventStore/occurrences(in:calendars:matching:timeZone:limit:)``.
    public func occurrences(
        in range: TimeRange, calendars: [String]?, matching filter: EventFilter, timeZone: String?, limit: Int
    )
        throws(StoreError) -> OccurrenceList
    {
        try database.read { (connection) throws(StoreError) -> OccurrenceList in
            try occurrences(
                in: range, calendars: try visibleCalendars(calendars, connection), filter: filter, timeZone: timeZone,
                limit: limit, connection)
        }
    }

    /// The stored object an event identifier (local, else UID) names, in a calendar the user sees.
    func locate(_ identifier: String, write: Bool, _ connection: Connection) throws(StoreError) -> (
        ObjectRow, CalendarRow
    ) {
        // Which object, and its calendar: only in calendars this user owns or was granted.
        let visible = """
            SELECT o.id, o.calendar_id, c.identifier FROM objects o
            JOIN calendars c ON c.id = o.calendar_id LEFT JOIN grants g ON g.calendar_id = c.id AND g.user_id = ?1
            WHERE (c.owner_id = ?1 OR g.status = 'accepted')
            """ + limitClause
        let key = { (row: Row) in (rowID: row.int64(0), calendarRowID: row.int64(1), calendar: row.string(2)) }
        var found = try connection.firstRow(
            visible + " AND o.identifier = ?2", [.integer(userID), .text(identifier)], key)
        if found == nil {
            found = try connection.firstRow(
                // A UID the user has in a calendar of their own means that one, before any
                // object of that UID in a calendar shared with them.
                visible + " AND o.uid = ?2 ORDER BY CASE WHEN c.owner_id = ?1 THEN 0 ELSE 1 END, o.id",
                [.integer(userID), .text(identifier)], key)
        }
        guard let found else { throw StoreError(.notFound, "no event \(identifier)", resource: identifier) }
        // The calendar first (for a write, that locks it on PostgreSQL), then the object as it
        // is now: a writer in another process may have changed it in between.
        let row = try calendarRow(found.calendar, connection, write: write)
        guard
            let object = try connection.firstRow(
                Self.objectColumns + " WHERE o.id = ?", [.integer(found.rowID)], objectRow)
        else {
            throw StoreError(.notFound, "no event \(identifier)", resource: identifier)
        }
        guard object.calendarRowID == found.calendarRowID else {
            // Moved to another calendar meanwhile: the write starts over (a serialization failure).
            throw StoreError(.database, "event \(identifier) moved to another calendar meanwhile", sqlState: "40001")
        }
        return (object, row)
    }

    func event(from object: ObjectRow, calendar: CalendarRow) throws(StoreError) -> Event {
        let parsed = try CalendarObject(parsing: object.data, resource: object.name)
        var event = Event(component: parsed.master ?? parsed.members[0])
        event.localIdentifier = object.identifier
        event.calendarIdentifier = calendar.calendar.id
        event.resourceName = object.name
        event.etag = object.etag
        return event
    }

    /// See ``EventStore/event(withIdentifier:)``; a UID in one of the user's own calendars wins over
    /// one in a shared calendar. `notFound` when the user sees none.
    public func event(withIdentifier identifier: String) throws(StoreError) -> Event {
        try database.read { (connection) throws(StoreError) -> Event in
            let (object, calendar) = try locate(identifier, write: false, connection)
            return try event(from: object, calendar: calendar)
        }
    }

    /// See ``EventStore/events(inCalendar:after:limit:)``; at least one event is asked for.
    public func events(inCalendar calendar: String, after cursor: String?, limit: Int) throws(StoreError) -> [Event] {
        try database.read { (connection) throws(StoreError) -> [Event] in
            let row = try calendarRow(calendar, connection, write: false)
            let objects = try connection.rows(
                Self.objectColumns + " WHERE o.calendar_id = ? AND o.identifier > ? ORDER BY o.identifier LIMIT ?",
                [.integer(row.rowID), .text(cursor ?? ""), .int(max(1, limit))], objectRow)
            return try objects.map { (object) throws(StoreError) in try event(from: object, calendar: row) }
        }
    }

    /// See ``EventStore/events(withExternalIdentifier:)``; at most one per calendar, by calendar order.
    public func events(withExternalIdentifier uid: String) throws(StoreError) -> [Event] {
        try database.read { (connection) throws(StoreError) -> [Event] in
            var result: [Event] = []
            for calendar in try visibleCalendars(nil, connection) {
                if let object = try connection.firstRow(
                    Self.objectColumns + " WHERE o.calendar_id = ? AND o.uid = ?",
                    [.integer(calendar.rowID), .text(uid)], objectRow)
                {
                    result.append(try event(from: object, calendar: calendar))
                }
            }
            return result
        }
    }

    // MARK: Alarms

    /// See ``EventStore/alarms(firingIn:calendars:timeZone:limit:)``; `expansionLimit` when a series cut
    /// by the expansion bounds could have fired within the answer.
    public func alarms(firingIn range: TimeRange, calendars: [String]?, timeZone: String?, limit: Int)
        throws(StoreError) -> [AlarmFiring]
    {
        let limit = max(0, limit)
        var result: [AlarmFiring] = []
        func trim() {
            result.sort {
                $0.fireTime != $1.fireTime
                    ? $0.fireTime < $1.fireTime : $0.occurrence.identifier < $1.occurrence.identifier
            }
            if result.count > limit { result.removeLast(result.count - limit) }
        }
        let cuts = try visitAlarms(firingIn: range, calendars: calendars, timeZone: timeZone) {
            alarm, position, occurrence, schedule, objectID in
            let key = AlarmQueue.key(of: alarm, position: position, in: occurrence)
            // Each alarm's firings ascend, so its first `limit` are all the answer can need.
            for repetition in schedule.repetitions.prefix(limit) {
                var firing = AlarmFiring(
                    fireTime: schedule.time(of: repetition), alarm: alarm, occurrence: occurrence,
                    repetition: repetition, alarmUID: key.uid)
                firing.instance = (objectID, key.recurrenceID)
                result.append(firing)
            }
            if result.count > limit.multipliedSaturated(by: 2).addingSaturated(1_000) { trim() }
        }
        trim()
        // A cut series' missing occurrences fire no earlier than its cut point: past the last
        // firing the limit keeps, the cut took nothing from this answer.
        let kept = result.count == limit ? result.last?.fireTime ?? .max : .max
        if let cut = cuts.first(where: { $0.firesFrom <= kept }) { throw Self.truncationRefused(cut.series) }
        try readStates(of: &result, in: range)
        return result
    }

    /// Fills in what the scheduler did with each firing, from the alarm queue.
    func readStates(of firings: inout [AlarmFiring], in range: TimeRange) throws(StoreError) {
        let objects = Set(firings.map(\.instance.objectID))
        guard !objects.isEmpty else { return }
        typealias Key = (objectID: Int64, recurrenceID: String, alarmUID: String, repetition: Int, fireTime: Int)
        var states: [String: (AlarmFiringRecord.State, Int?)] = [:]
        func text(_ key: Key) -> String {
            "\(key.objectID)\u{0}\(key.recurrenceID)\u{0}\(key.alarmUID)\u{0}\(key.repetition)\u{0}\(key.fireTime)"
        }
        try database.read { (connection) throws(StoreError) in
            for object in objects {
                try connection.forEachRow(
                    """
                    SELECT recurrence_id, alarm_uid, repetition, fire_at, state, fired_at FROM alarm_instances
                    WHERE object_id = ? AND fire_at >= ? AND fire_at < ?
                    """, [.integer(object), .int(range.start), .int(range.end)]
                ) { row in
                    guard let state = AlarmFiringRecord.State(rawValue: row.string(4)) else { return }
                    states[text((object, row.string(0), row.string(1), row.int(2), row.int(3)))] = (
                        state, row.optionalInt(5)
                    )
                }
            }
        }
        for index in firings.indices {
            let firing = firings[index]
            let key = (
                firing.instance.objectID, firing.instance.recurrenceID, firing.alarmUID, firing.repetition,
                firing.fireTime
            )
            if let (state, firedAt) = states[text(key)] {
                firings[index].state = state
                firings[index].firedAt = firedAt
            }
        }
    }

    /// See ``EventStore/events(withAlarmsFiringIn:calendar:)``; times read in the calendar's zone.
    public func events(withAlarmsFiringIn range: TimeRange, calendar: String) throws(StoreError) -> Set<String> {
        try database.read { (connection) throws(StoreError) -> Set<String> in
            try events(
                withAlarmsFiringIn: range, calendar: try calendarRow(calendar, connection, write: false), zone: nil,
                connection)
        }
    }

    /// The events of `calendar` with an alarm firing in `range`, floating and all-day
    /// times read in `zone` (the calendar's own when nil).
    func events(withAlarmsFiringIn range: TimeRange, calendar: CalendarRow, zone: ZoneRules?, _ connection: Connection)
        throws(StoreError) -> Set<String>
    {
        var result = Set<String>()
        let cuts = try visitAlarms(firingIn: range, calendars: [calendar], zone: zone, connection) {
            _, _, occurrence, _, _ in
            result.insert(occurrence.eventIdentifier)
        }
        // A cut series with an alarm in the range is in the answer already; any other is not known.
        if let cut = cuts.first(where: { !result.contains($0.series.eventIdentifier) }) {
            throw Self.truncationRefused(cut.series)
        }
        return result
    }

    /// Calls `body` for each alarm of each occurrence that fires at least once in `range`,
    /// with the repetitions that fall in it (computed, never walked: REPEAT may be 2^31).
    /// Returns the series a bound of expansion cut, each with the earliest time an alarm of
    /// its missing occurrences could fire.
    private func visitAlarms(
        firingIn range: TimeRange, calendars: [String]?, timeZone: String?,
        _ body: (Alarm, Int, EventOccurrence, AlarmSchedule.Firings, Int64) -> Void
    ) throws(StoreError) -> [(series: TruncatedEvent, firesFrom: Int)] {
        var zone: ZoneRules?
        if let timeZone { zone = try viewerZone(timeZone, calendar: nil) }
        return try database.read { (connection) throws(StoreError) -> [(series: TruncatedEvent, firesFrom: Int)] in
            try visitAlarms(
                firingIn: range, calendars: try visibleCalendars(calendars, connection), zone: zone, connection, body)
        }
    }

    /// Floating and all-day times are read in `zone`, else in each calendar's own. `body`
    /// gets the alarm, its place among its component's alarms, the occurrence, the
    /// firings and the object's row.
    private func visitAlarms(
        firingIn range: TimeRange, calendars: [CalendarRow], zone requested: ZoneRules?, _ connection: Connection,
        _ body: (Alarm, Int, EventOccurrence, AlarmSchedule.Firings, Int64) -> Void
    ) throws(StoreError) -> [(series: TruncatedEvent, firesFrom: Int)] {
        var cuts: [(series: TruncatedEvent, firesFrom: Int)] = []
        var budget = backend.expansionBudget
        for calendar in calendars {
            var zone = ZoneRules.utc
            if let requested { zone = requested } else { zone = try viewerZone(nil, calendar: calendar) }
            let reach =
                try connection.firstRow(
                    "SELECT max(alarm_reach) FROM objects WHERE calendar_id = ?", [.integer(calendar.rowID)],
                    { $0.optionalInt(0) }) ?? nil
            guard let reach else { continue }
            let (from, to) = (range.start.subtractingSaturated(reach), range.end.addingSaturated(reach))
            for candidate in try candidates(in: calendar, from: from, to: to, alarmsOnly: true, connection) {
                if let cut = try visitAlarms(
                    of: candidate, calendar: calendar, zone: zone, reach: reach, range: range, budget: &budget,
                    connection,
                    { alarm, position, occurrence, schedule in
                        body(alarm, position, occurrence, schedule, candidate.rowID)
                    })
                {
                    cuts.append((cut, (cut.lastListedStart ?? from).subtractingSaturated(reach)))
                }
            }
        }
        return cuts
    }

    /// Calls `body` for each alarm of each occurrence of `candidate` that fires at least
    /// once in `range` (`reach` is the farthest one of its alarms lies from its
    /// occurrence), with its place among its component's alarms and the repetitions in the
    /// range. An absolute trigger fires once for the object, not for each occurrence.
    /// Returns the series when a bound of expansion cut it.
    func visitAlarms(
        of candidate: Candidate, calendar: CalendarRow, zone: ZoneRules, reach: Int, range: TimeRange,
        budget: inout ExpansionBudget, _ connection: Connection,
        _ body: (Alarm, Int, EventOccurrence, AlarmSchedule.Firings) -> Void
    ) throws(StoreError) -> TruncatedEvent? {
        let (from, to) = (range.start.subtractingSaturated(reach), range.end.addingSaturated(reach))
        let series = try cachedSeries(id: candidate.rowID, etag: candidate.etag, connection)
        let expansion = try occurrences(
            of: candidate, series: series, calendar: calendar, from: from, to: to, zone: zone, budget: &budget)
        var absoluteSeen = Set<String>()
        for occurrence in expansion.occurrences {
            for (position, component) in occurrence.component.components(named: "VALARM").enumerated() {
                let alarm = Alarm(component: component)
                guard let first = AlarmSchedule.fireTime(of: alarm, for: occurrence) else { continue }
                // The same alarm copied into an override keeps its UID (or, without one, its instant).
                if case .absolute = alarm.trigger, !absoluteSeen.insert(alarm.uid ?? "\(first)").inserted { continue }
                let schedule = AlarmSchedule.Firings(alarm: alarm, first: first, in: range)
                guard !schedule.repetitions.isEmpty else { continue }
                body(alarm, position, occurrence, schedule)
            }
        }
        return expansion.truncated
    }
}

/// When alarms fire.
enum AlarmSchedule {
    /// The firings of one alarm for one occurrence that fall in a range: the first at
    /// `first`, then every `step` seconds for REPEAT more (RFC 5545 §3.8.6.2), found by
    /// division so that a REPEAT of 2^31 costs what the range holds.
    struct Firings {
        let first: Int
        let step: Int
        /// The repetitions (0 is the first firing) that fire inside the range.
        let repetitions: Range<Int>

        init(alarm: Alarm, first: Int, in range: TimeRange) {
            self.first = first
            // DURATION is at most CalendarDuration.maxSeconds, so its seconds cannot overflow.
            let step = alarm.repeatInterval.map { max(1, abs($0.secondsAssumingUniformDays)) }
            let repeats = step == nil ? 0 : max(0, alarm.repeatCount)
            self.step = step ?? 1
            let (start, end) = (range.start, range.end)
            // The first repetition at or after the range's start, and the last before its end.
            let low = first >= start ? 0 : (start - first - 1) / self.step + 1
            let high = first >= end ? -1 : min(repeats, (end - 1 - first) / self.step)
            repetitions = low <= high ? low..<(high + 1) : 0..<0
        }

        func time(of repetition: Int) -> Int { first + repetition * step }
    }

    /// The first firing of `alarm` for `occurrence`, Unix seconds; nil without a readable trigger.
    ///
    /// A relative trigger's nominal days count on the wall clock of the occurrence's
    /// zone (so "one day before" a 09:00 event is 09:00 the day before, across DST),
    /// then its exact part is added (RFC 5545 §3.3.6, §3.8.6.3).
    static func fireTime(of alarm: Alarm, for occurrence: EventOccurrence) -> Int? {
        switch alarm.trigger {
        case .absolute(let instant)?:
            return instant
        case .relative(let offset, let relatedToEnd)?:
            let base = relatedToEnd ? occurrence.end : occurrence.start
            let instant = base.instant(in: occurrence.viewerZone)
            guard offset.nominalDays != 0 else { return instant + offset.exactSeconds }
            let zone: ZoneRules
            if case .instant = base { zone = occurrence.seriesZone ?? .utc } else { zone = occurrence.viewerZone }
            return zone.instant(for: zone.localTime(at: instant).adding(days: offset.nominalDays)) + offset.exactSeconds
        case nil:
            return nil
        }
    }
}
