import CivilTime
import Dispatch
import ICalendar
import Recurrence

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A stored object's row.
struct ObjectRow {
    var rowID: Int64
    var identifier: String
    var calendarRowID: Int64
    var name: String
    var uid: String
    var componentType: ComponentType
    var data: [UInt8]
    var etag: String
    var sequence: Int
    var modified: Int
}

extension DatabaseEventStore {
    static let objectColumns = """
        SELECT o.id, o.identifier, o.calendar_id, o.name, o.uid, o.component, d.data, o.etag, o.sequence, o.modified
        FROM objects o JOIN object_data d ON d.id = o.id
        """

    func objectRow(_ row: Row) -> ObjectRow {
        ObjectRow(
            rowID: row.int64(0), identifier: row.string(1), calendarRowID: row.int64(2), name: row.string(3), uid: row.string(4),
            componentType: ComponentType(rawValue: row.string(5)) ?? .event, data: row.bytes(6), etag: row.string(7),
            sequence: row.int(8), modified: row.int(9))
    }

    func object(named name: String, in calendar: CalendarRow, _ connection: Connection) throws(StoreError) -> ObjectRow? {
        try connection.firstRow(Self.objectColumns + " WHERE o.calendar_id = ? AND o.name = ?", [.integer(calendar.rowID), .text(name)], objectRow)
    }

    /// A write that passed every check: what `performWrite` stores.
    struct CheckedWrite {
        var object: CalendarObject
        var summary: CalendarObject.Summary
        var data: [UInt8]
        var name: String
        /// The row being replaced, if any.
        var existing: (rowID: Int64, identifier: String)?
    }

    /// The row id, local identifier, ETag and size of the object at `name`, without its bytes.
    func objectHeader(named name: String, in calendar: CalendarRow, _ connection: Connection) throws(StoreError)
        -> (rowID: Int64, identifier: String, etag: String, size: Int)?
    {
        try connection.firstRow(
            "SELECT id, identifier, etag, size FROM objects WHERE calendar_id = ? AND name = ?", [.integer(calendar.rowID), .text(name)]
        ) { row in (row.int64(0), row.string(1), row.string(2), row.int(3)) }
    }

    /// Refuses (507) a write that would take the calendar owner's objects or bytes past
    /// the backend's quota. Shrinking writes and replacements that add no object pass.
    func checkQuota(calendar: CalendarRow, addedObjects: Int, addedBytes: Int, _ connection: Connection) throws(StoreError) {
        let quota = backend.quota
        guard quota.maxObjects != nil || quota.maxBytes != nil, addedObjects > 0 || addedBytes > 0 else { return }
        // Cast: PostgreSQL sums bigints as numeric.
        let (objects, bytes) = try connection.firstRow(
            "SELECT CAST(coalesce(sum(object_count), 0) AS BIGINT), CAST(coalesce(sum(object_bytes), 0) AS BIGINT) FROM calendars WHERE owner_id = ?", [.integer(calendar.ownerID)]
        ) { ($0.int(0), $0.int(1)) } ?? (0, 0)
        if let limit = quota.maxObjects, addedObjects > 0, objects + addedObjects > limit {
            throw StoreError(.insufficientStorage, "the calendars of this account hold \(objects) objects, the most they may (\(limit)); remove some first")
        }
        if let limit = quota.maxBytes, addedBytes > 0, bytes + addedBytes > limit {
            throw StoreError(
                .insufficientStorage, "the calendars of this account hold \(bytes) bytes; this write would pass their quota of \(limit) bytes")
        }
    }

    /// Checks a write against the calendar's rules and the preconditions, writing nothing:
    /// every way a write can be refused is found here, so a refused write changes nothing.
    func checkWrite(
        _ object: CalendarObject, summary: CalendarObject.Summary? = nil, data: [UInt8], name: String, calendar: CalendarRow,
        ifMatch: String?, ifNoneMatch: Bool, _ connection: Connection
    ) throws(StoreError) -> CheckedWrite {
        guard calendar.calendar.componentTypes.contains(object.componentType) else {
            throw StoreError(
                .unsupportedComponent,
                "calendar \(calendar.calendar.title) does not hold \(object.componentType.rawValue)", resource: name)
        }
        let existing = try objectHeader(named: name, in: calendar, connection)
        if ifNoneMatch, existing != nil {
            throw StoreError(.preconditionFailed, "\(name) already exists (If-None-Match: *)", resource: name)
        }
        if let ifMatch, ifMatch != "*" ? existing?.etag != ifMatch : existing == nil {
            throw StoreError(
                .preconditionFailed, existing == nil ? "\(name) does not exist (If-Match)" : "\(name) has changed: its ETag is \(existing!.etag), not \(ifMatch)",
                resource: name)
        }
        if let other = try connection.firstRow(
            "SELECT name FROM objects WHERE calendar_id = ? AND uid = ? AND name <> ?",
            [.integer(calendar.rowID), .text(object.uid), .text(name)], { $0.string(0) })
        {
            throw StoreError(
                .uidConflict, "UID \(object.uid) is already used by \(other) in this calendar", resource: name, conflictingResource: other)
        }
        try checkQuota(calendar: calendar, addedObjects: existing == nil ? 1 : 0, addedBytes: data.count - (existing?.size ?? 0), connection)
        var summary = summary
        if summary == nil { summary = try object.summary() }
        return CheckedWrite(object: object, summary: summary!, data: data, name: name, existing: existing.map { ($0.rowID, $0.identifier) })
    }

    /// Checks, then stores `object` (parsed from `data`) at `name`. Returns the new row.
    @discardableResult
    func writeObject(
        _ object: CalendarObject, data: [UInt8], name: String, calendar: CalendarRow, ifMatch: String?, ifNoneMatch: Bool,
        _ connection: Connection
    ) throws(StoreError) -> ObjectRow {
        let checked = try checkWrite(object, data: data, name: name, calendar: calendar, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, connection)
        return try performWrite(checked, calendar: calendar, sequence: try bumpSequence(calendar.rowID, connection), connection)
    }

    /// Stores a checked write at change `sequence`: the bytes, the derived columns, the
    /// interval box, and no tombstone for the name. Throws only when the database fails,
    /// and then the caller's transaction must roll back.
    func performWrite(_ checked: CheckedWrite, calendar: CalendarRow, sequence: Int, _ connection: Connection) throws(StoreError)
        -> ObjectRow
    {
        let object = checked.object
        let summary = checked.summary
        let data = checked.data
        let name = checked.name
        let existing = checked.existing
        let etag = Identifiers.etag(for: data, sequence: sequence)
        let now = WallClock.now()
        var timing: [SQLValue] = [nil, nil, nil, nil]
        if let single = summary.single {
            let kind = SingleTiming(single.start)
            timing = [.int(kind.rawValue), .int(kind.key(single.start)), .int(kind.key(single.end)), .optional(single.tzid)]
        }
        let values: [SQLValue] = [
            .text(object.uid), .text(object.componentType.rawValue), .text(etag), .int(sequence), .optional(summary.title),
            .int(summary.firstStart), .optional(summary.lastEnd), .int(summary.isRecurring ? 1 : 0), .optional(summary.alarmReach),
        ] + timing + [
            .optional(summary.status?.rawValue),
            summary.categories.isEmpty ? nil : .text(summary.categories.joined(separator: SingleTiming.categorySeparator)), .int(now),
            .int(data.count), .int(summary.isTransparent ? 1 : 0),
        ]
        let rowID: Int64
        let identifier: String
        if let existing {
            rowID = existing.rowID
            identifier = existing.identifier
            try connection.run(
                "UPDATE calendars SET object_bytes = object_bytes + ? - (SELECT size FROM objects WHERE id = ?) WHERE id = ?",
                [.int(data.count), .integer(rowID), .integer(calendar.rowID)])
            try connection.run(
                """
                UPDATE objects SET uid = ?, component = ?, etag = ?, sequence = ?, summary = ?, first_start = ?,
                    last_end = ?, recurring = ?, alarm_reach = ?, time_kind = ?, start_key = ?, end_key = ?, tzid = ?, status = ?,
                    categories = ?, modified = ?, size = ?, transparent = ? WHERE id = ?
                """, values + [.integer(rowID)])
        } else {
            identifier = Identifiers.newUUID()
            let inserted = try connection.firstRow(
                """
                INSERT INTO objects (uid, component, etag, sequence, summary, first_start, last_end, recurring,
                    alarm_reach, time_kind, start_key, end_key, tzid, status, categories, modified, size, transparent, identifier, calendar_id,
                    name, created)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """, values + [.text(identifier), .integer(calendar.rowID), .text(name), .int(now)], { $0.int64(0) })
            guard let inserted else { throw StoreError(.database, "the new object's row was not returned") }
            rowID = inserted
            try connection.run(
                "UPDATE calendars SET object_count = object_count + 1, object_bytes = object_bytes + ? WHERE id = ?", [.int(data.count), .integer(calendar.rowID)])
        }
        try connection.run(
            """
            INSERT INTO object_data (id, data, skeleton) VALUES (?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET data = excluded.data, skeleton = excluded.skeleton
            """,
            [.integer(rowID), .blob(data), summary.skeleton.map { .blob($0) } ?? nil])
        try connection.run(
            IntervalIndex.upsert(connection.dialect),
            [
                .integer(rowID), .integer(calendar.rowID), .integer(calendar.rowID), .int(IntervalIndex.lowerMinute(summary.firstStart)),
                .int(IntervalIndex.upperMinute(summary.lastEnd)),
            ])
        try connection.run("DELETE FROM tombstones WHERE calendar_id = ? AND name = ?", [.integer(calendar.rowID), .text(name)])
        return ObjectRow(
            rowID: rowID, identifier: identifier, calendarRowID: calendar.rowID, name: name, uid: object.uid,
            componentType: object.componentType, data: data, etag: etag, sequence: sequence, modified: now)
    }

    /// Deletes an object and leaves a tombstone for sync.
    func deleteObject(_ object: ObjectRow, calendar: CalendarRow, _ connection: Connection) throws(StoreError) {
        let sequence = try bumpSequence(calendar.rowID, connection)
        try connection.run(
            "UPDATE calendars SET object_count = object_count - 1, object_bytes = object_bytes - (SELECT size FROM objects WHERE id = ?) WHERE id = ?",
            [.integer(object.rowID), .integer(calendar.rowID)])
        try connection.run("DELETE FROM object_ranges WHERE id = ?", [.integer(object.rowID)])
        try connection.run("DELETE FROM objects WHERE id = ?", [.integer(object.rowID)])
        try connection.run(
            """
            INSERT INTO tombstones (calendar_id, name, sequence) VALUES (?, ?, ?)
            ON CONFLICT (calendar_id, name) DO UPDATE SET sequence = excluded.sequence
            """,
            [.integer(calendar.rowID), .text(object.name), .int(sequence)])
    }

    // MARK: Resources

    public func writeResource(_ data: [UInt8], name: String, calendar: String, ifMatch: String?, ifNoneMatch: Bool)
        throws(StoreError) -> ResourceWrite
    {
        guard Self.isValidResourceName(name) else {
            throw StoreError(.invalidArgument, "a resource name is one path segment", resource: name)
        }
        // Parse and index outside the write lock: the slow part needs no database.
        let object = try CalendarObject(parsing: data, resource: name)
        let summary = try object.summary()
        return try database.write { (connection) throws(StoreError) -> ResourceWrite in
            let row = try calendarRow(calendar, connection, write: true)
            let checked = try checkWrite(
                object, summary: summary, data: data, name: name, calendar: row, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, connection)
            let written = try performWrite(checked, calendar: row, sequence: try bumpSequence(row.rowID, connection), connection)
            return ResourceWrite(etag: written.etag, created: checked.existing == nil, warnings: object.warnings)
        }
    }

    static func isValidResourceName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && name.utf8.count <= 255
    }

    public func resource(named name: String, calendar: String) throws(StoreError) -> StoredResource {
        try database.read { (connection) throws(StoreError) -> StoredResource in
            let row = try calendarRow(calendar, connection, write: false)
            guard let object = try object(named: name, in: row, connection) else {
                throw StoreError(.notFound, "no resource \(name)", resource: name)
            }
            return StoredResource(
                name: object.name, etag: object.etag, componentType: object.componentType, uid: object.uid, data: object.data,
                localIdentifier: object.identifier, lastModified: object.modified)
        }
    }

    public func deleteResource(named name: String, calendar: String, ifMatch: String?) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            let row = try calendarRow(calendar, connection, write: true)
            guard let object = try object(named: name, in: row, connection) else {
                throw StoreError(.notFound, "no resource \(name)", resource: name)
            }
            if let ifMatch, ifMatch != "*", ifMatch != object.etag {
                throw StoreError(.preconditionFailed, "\(name) has changed: its ETag is \(object.etag), not \(ifMatch)", resource: name)
            }
            try deleteObject(object, calendar: row, connection)
        }
    }

    public func resources(calendar: String) throws(StoreError) -> [ResourceInfo] {
        try database.read { (connection) throws(StoreError) -> [ResourceInfo] in
            let row = try calendarRow(calendar, connection, write: false)
            return try connection.rows(
                "SELECT name, etag, component, identifier, size, modified FROM objects WHERE calendar_id = ? ORDER BY name",
                [.integer(row.rowID)]
            ) { object in
                ResourceInfo(
                    name: object.string(0), etag: object.string(1), componentType: ComponentType(rawValue: object.string(2)) ?? .event,
                    localIdentifier: object.string(3), size: object.int(4), lastModified: object.int(5))
            }
        }
    }

    public func resources(overlapping range: TimeRange, componentType: ComponentType, calendar: String) throws(StoreError) -> [ResourceInfo] {
        try database.read { (connection) throws(StoreError) -> [ResourceInfo] in
            let row = try calendarRow(calendar, connection, write: false)
            let zone = try viewerZone(nil, calendar: row)
            var result: [ResourceInfo] = []
            var budget = backend.expansionBudget
            for candidate in try candidates(in: row, from: range.start, to: range.end, connection) where candidate.componentType == componentType {
                // A one-off object answers from its row; a series stops at its first instance in range.
                if let single = candidate.single {
                    guard OccurrenceTime.overlaps(start: single.start, end: single.end, from: range.start, to: range.end, in: zone) else { continue }
                } else {
                    let series = try cachedSeries(id: candidate.rowID, etag: candidate.etag, connection)
                    let found = series.prepared.expand(from: range.start, to: range.end, viewerZone: zone, limit: 1, budget: &budget)
                    if budget.isSpent { throw Self.budgetSpent }
                    // A series a bound stopped before its first instance here may still have one:
                    // listing it loses nothing (the client reads its data), leaving it out would hide it.
                    guard !found.occurrences.isEmpty || !found.isComplete else { continue }
                }
                result.append(
                    ResourceInfo(
                        name: candidate.name, etag: candidate.etag, componentType: candidate.componentType, localIdentifier: candidate.identifier,
                        size: candidate.size, lastModified: candidate.modified))
            }
            return result.sorted { $0.name < $1.name }
        }
    }

    public func resources(named names: [String], calendar: String) throws(StoreError) -> [StoredResource] {
        try database.read { (connection) throws(StoreError) -> [StoredResource] in
            let row = try calendarRow(calendar, connection, write: false)
            var result: [StoredResource] = []
            result.reserveCapacity(names.count)
            var found: [String: ObjectRow] = [:]
            switch connection.dialect {
            case .sqlite:
                // In process, a cached statement per name costs what a batch would.
                for name in Set(names) { found[name] = try object(named: name, in: row, connection) }
            case .postgres:
                // One round trip for the lot: the names as one text[] parameter.
                try connection.forEachRow(
                    Self.objectColumns + " WHERE o.calendar_id = ? AND o.name = ANY(CAST(? AS TEXT[]))",
                    [.integer(row.rowID), .text(SQLArray.literal(Set(names)))]
                ) { found[$0.string(3)] = objectRow($0) }
            }
            for name in names {
                guard let object = found[name] else { continue }
                result.append(
                    StoredResource(
                        name: object.name, etag: object.etag, componentType: object.componentType, uid: object.uid, data: object.data,
                        localIdentifier: object.identifier, lastModified: object.modified))
            }
            return result
        }
    }

    public func importResources(_ objects: [[UInt8]], calendar: String) throws(StoreError) -> [Result<ResourceInfo, StoreError>] {
        // Parse and index on every core, outside the write lock; only the checks and writes hold it.
        let parsed = Parallel.map(objects) { data in
            Result { () throws(StoreError) -> (CalendarObject, CalendarObject.Summary) in
                let object = try CalendarObject(parsing: data)
                return (object, try object.summary())
            }
        }
        return try importParsed(parsed, data: objects, calendar: calendar)
    }

    public func importObjects(_ objects: [CalendarFileSplitter.Object], calendar: String) throws(StoreError)
        -> [Result<ResourceInfo, StoreError>]
    {
        // The splitter's component is what its bytes serialize, so it is read, not parsed again.
        let parsed = Parallel.map(objects) { object in
            Result { () throws(StoreError) -> (CalendarObject, CalendarObject.Summary) in
                let checked = try CalendarObject(document: ICalendarDocument(components: [object.calendar]), resource: nil)
                return (checked, try checked.summary())
            }
        }
        return try importParsed(parsed, data: objects.map(\.data), calendar: calendar)
    }

    func importParsed(
        _ parsed: [Result<(CalendarObject, CalendarObject.Summary), StoreError>], data objects: [[UInt8]], calendar: String
    ) throws(StoreError) -> [Result<ResourceInfo, StoreError>] {
        try database.write { (connection) throws(StoreError) -> [Result<ResourceInfo, StoreError>] in
            let row = try calendarRow(calendar, connection, write: true)
            var sequence = row.calendar.syncToken.sequence
            var results: [Result<ResourceInfo, StoreError>] = []
            results.reserveCapacity(objects.count)
            var claimed: [String: String] = [:]
            for (candidate, data) in zip(parsed, objects) {
                // A refused object is refused by its checks, before anything is written, so
                // the others go on; a database failure while writing aborts the whole batch.
                let checked: CheckedWrite
                do throws(StoreError) {
                    let object: CalendarObject
                    let summary: CalendarObject.Summary
                    switch candidate {
                    case .success(let value): (object, summary) = value
                    case .failure(let error): throw error
                    }
                    var name = try connection.firstRow(
                        "SELECT name FROM objects WHERE calendar_id = ? AND uid = ?", [.integer(row.rowID), .text(object.uid)], { $0.string(0) })
                    if name == nil { name = claimed[object.uid] ?? Identifiers.resourceName(forUID: object.uid) }
                    checked = try checkWrite(
                        object, summary: summary, data: data, name: name!, calendar: row, ifMatch: nil, ifNoneMatch: false, connection)
                } catch {
                    results.append(.failure(error))
                    continue
                }
                claimed[checked.object.uid] = checked.name
                sequence += 1
                let written = try performWrite(checked, calendar: row, sequence: sequence, connection)
                results.append(
                    .success(
                        ResourceInfo(
                            name: written.name, etag: written.etag, componentType: written.componentType, localIdentifier: written.identifier,
                            size: written.data.count, lastModified: written.modified)))
            }
            try connection.run("UPDATE calendars SET sequence = ? WHERE id = ?", [.int(sequence), .integer(row.rowID)])
            return results
        }
    }

    // MARK: Changes

    public func changes(since token: SyncToken?, calendar: String, limit: Int?) throws(StoreError) -> ChangeSet {
        try database.read { (connection) throws(StoreError) -> ChangeSet in
            let row = try calendarRow(calendar, connection, write: false)
            let current = row.calendar.syncToken
            var since = 0
            if let token {
                let horizon = try connection.firstRow("SELECT tombstone_horizon FROM calendars WHERE id = ?", [.integer(row.rowID)]) { $0.int(0) } ?? 0
                guard token.calendar == row.calendar.id, token.sequence <= current.sequence else {
                    throw StoreError(.invalidSyncToken, "sync token \(token) was not issued by this calendar", resource: calendar)
                }
                guard token.sequence >= horizon else {
                    throw StoreError(.invalidSyncToken, "sync token \(token) has expired; sync again from the start", resource: calendar)
                }
                since = token.sequence
            }
            // Writes and deletions in change order; an initial sync lists only what exists.
            // One row past the limit tells whether the listing was cut.
            let sql = """
                SELECT sequence, name, etag, component, identifier, size, modified FROM objects WHERE calendar_id = ?1 AND sequence > ?2
                """ + (token == nil ? "" : " UNION ALL SELECT sequence, name, NULL, NULL, NULL, NULL, NULL FROM tombstones WHERE calendar_id = ?1 AND sequence > ?2")
                + " ORDER BY 1" + (limit == nil ? "" : " LIMIT ?3")
            // The limit is a parameter, not part of the text: one prepared statement serves every
            // limit a client asks for. One row past it (saturating: a client may ask for Int.max).
            let values: [SQLValue] = [.integer(row.rowID), .int(since)] + (limit.map { [.int($0 == Int.max ? $0 : $0 + 1)] } ?? [])
            var rows = try connection.rows(sql, values) { object -> (sequence: Int, name: String, info: ResourceInfo?) in
                guard !object.isNull(2) else { return (object.int(0), object.string(1), nil) }
                return (
                    object.int(0), object.string(1),
                    ResourceInfo(
                        name: object.string(1), etag: object.string(2), componentType: ComponentType(rawValue: object.string(3)) ?? .event,
                        localIdentifier: object.string(4), size: object.int(5), lastModified: object.int(6))
                )
            }
            var changes = ChangeSet(changed: [], deleted: [], token: current)
            if let limit, rows.count > limit {
                rows.removeLast(rows.count - limit)
                changes.isTruncated = true
                // The checkpoint: everything up to the last change listed, nothing after it.
                changes.token = SyncToken(calendar: row.calendar.id, sequence: rows.last?.sequence ?? since)
            }
            for change in rows {
                if let info = change.info { changes.changed.append(info) } else { changes.deleted.append(change.name) }
            }
            return changes
        }
    }

    public func pruneTombstones(through token: SyncToken, calendar: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            let row = try calendarRow(calendar, connection, write: true)
            try connection.run("DELETE FROM tombstones WHERE calendar_id = ? AND sequence <= ?", [.integer(row.rowID), .int(token.sequence)])
            try connection.run(
                "UPDATE calendars SET tombstone_horizon = ?1 WHERE id = ?2 AND tombstone_horizon < ?1", [.int(token.sequence), .integer(row.rowID)])
        }
    }
}

/// How a one-off object's times are kept in its row.
enum SingleTiming: Int {
    case instant = 0
    case floating = 1
    case date = 2

    /// Joins CATEGORIES values in their column (the unit separator never appears in text).
    static let categorySeparator = "\u{1F}"

    init(_ time: OccurrenceTime) {
        switch time {
        case .instant: self = .instant
        case .floating: self = .floating
        case .date: self = .date
        }
    }

    func key(_ time: OccurrenceTime) -> Int {
        switch time {
        case .instant(let instant): instant
        case .floating(let local): local.secondsSinceEpoch
        case .date(let date): CivilDateTime(date: date, time: .midnight).secondsSinceEpoch
        }
    }

    func time(_ key: Int) -> OccurrenceTime {
        switch self {
        case .instant: .instant(key)
        case .floating: .floating(CivilDateTime(secondsSinceEpoch: key))
        case .date: .date(CivilDateTime(secondsSinceEpoch: key).date)
        }
    }
}

/// How object boxes are laid out in the range index: minutes since the epoch in
/// 32-bit integers (about ±4,000 years), rounded outward so a box always holds its
/// object, with the largest value for a series without end.
///
/// SQLite keeps boxes in an R*Tree (calendar on one axis, minutes on the other).
/// PostgreSQL keeps one `int8range` per object under a GiST index, with the calendar
/// in the high 32 bits and the minute (offset to be non-negative) in the low 32, so one
/// range overlap finds the candidates of one calendar.
enum IntervalIndex {
    static let openEnd = Int(Int32.max)

    /// Stores an object's box; binds (row id, calendar row id, calendar row id, lower minute, upper minute).
    static func upsert(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            "INSERT OR REPLACE INTO object_ranges (id, calendar_min, calendar_max, start_min, end_max) VALUES (?, ?, ?, ?, ?)"
        case .postgres:
            """
            INSERT INTO object_ranges (id, calendar_id, span)
            VALUES (?1, ?2, int8range(?2 * 4294967296 + ?4 + 2147483648, ?3 * 4294967296 + ?5 + 2147483648, '[]'))
            ON CONFLICT (id) DO UPDATE SET calendar_id = excluded.calendar_id, span = excluded.span
            """
        }
    }

    /// The condition on `object_ranges r` for boxes that overlap; binds (calendar row id, lower minute, upper minute) as ?1–?3.
    static func overlap(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            "r.calendar_min <= ?1 AND r.calendar_max >= ?1 AND r.start_min <= ?3 AND r.end_max >= ?2"
        case .postgres:
            "r.span && int8range(?1 * 4294967296 + ?2 + 2147483648, ?1 * 4294967296 + ?3 + 2147483648, '[]')"
        }
    }

    static func lowerMinute(_ seconds: Int) -> Int {
        if seconds == Int.min { return Int(Int32.min) }
        let minute = seconds >= 0 ? seconds / 60 : -((-seconds + 59) / 60)
        return max(Int(Int32.min), min(openEnd - 1, minute))
    }

    static func upperMinute(_ seconds: Int?) -> Int {
        guard let seconds else { return openEnd }
        let minute = seconds >= 0 ? (seconds + 59) / 60 : -(-seconds / 60)
        return max(Int(Int32.min), min(openEnd, minute))
    }
}
