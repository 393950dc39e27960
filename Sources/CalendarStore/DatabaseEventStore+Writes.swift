import CivilTime
import ICalendar

// Writing and deleting calendar object resources: every check first, then the rows,
// the derived columns, the interval box and the change log, in one transaction.
extension DatabaseEventStore {
    /// Refuses (507) a write that would take the calendar owner's objects or bytes past
    /// the backend's quota. Shrinking writes and replacements that add no object pass.
    func checkQuota(calendar: CalendarRow, addedObjects: Int, addedBytes: Int, _ connection: Connection)
        throws(StoreError)
    {
        guard addedObjects > 0 || addedBytes > 0 else { return }
        // The owner's own limits and what they hold, in one query on the write's path.
        // Cast: PostgreSQL sums bigints as numeric.
        guard
            let (own, objects, bytes) = try connection.firstRow(
                """
                SELECT u.max_objects, u.max_bytes,
                    CAST(coalesce((SELECT sum(object_count) FROM calendars WHERE owner_id = u.id), 0) AS BIGINT),
                    CAST(coalesce((SELECT sum(object_bytes) FROM calendars WHERE owner_id = u.id), 0) AS BIGINT)
                FROM users u WHERE u.id = ?
                """,
                [.integer(calendar.ownerID)],
                { (StoreQuota(maxObjects: $0.optionalInt(0), maxBytes: $0.optionalInt(1)), $0.int(2), $0.int(3)) })
        else { return }
        let quota = backend.quota(own: own)
        guard quota.maxObjects != nil || quota.maxBytes != nil else { return }
        if let limit = quota.maxObjects, addedObjects > 0, objects + addedObjects > limit {
            throw StoreError(
                .insufficientStorage,
                "the calendars of this account hold \(objects) objects, the most they may (\(limit)); remove some first"
            )
        }
        if let limit = quota.maxBytes, addedBytes > 0, bytes + addedBytes > limit {
            throw StoreError(
                .insufficientStorage,
                "the calendars of this account hold \(bytes) bytes; this write would pass their quota of \(limit) bytes"
            )
        }
        // What the owner keeps as their own parts of others' shared objects counts too.
        if let limit = quota.maxBytes, addedBytes > 0 {
            let personal = try personalBytes(of: calendar.ownerID, connection)
            if personal > 0, bytes + personal + addedBytes > limit {
                throw StoreError(
                    .insufficientStorage,
                    "this account keeps \(bytes + personal) bytes (its calendars and its own alarms on shared ones); this write would pass its quota of \(limit) bytes"
                )
            }
        }
    }

    /// Checks a write against the calendar's rules and the preconditions, writing nothing:
    /// every way a write can be refused is found here, so a refused write changes nothing.
    func checkWrite(
        _ object: CalendarObject, summary: CalendarObject.Summary? = nil, data: [UInt8], name: String,
        calendar: CalendarRow,
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
                .preconditionFailed,
                existing == nil
                    ? "\(name) does not exist (If-Match)"
                    : "\(name) has changed: its ETag is \(existing!.etag), not \(ifMatch)",
                resource: name)
        }
        // A resource keeps its UID: a PUT over it with another is no update of it (RFC 4791
        // §5.3.2.1, `no-uid-conflict` naming the resource that holds the UID).
        if let existing, existing.uid != object.uid {
            throw StoreError(
                .uidConflict,
                "\(name) holds UID \(existing.uid); an object keeps its UID (delete it, or store UID \(object.uid) under another name)",
                resource: name, conflictingResource: name)
        }
        if let other = try connection.firstRow(
            "SELECT name FROM objects WHERE calendar_id = ? AND uid = ? AND name <> ?",
            [.integer(calendar.rowID), .text(object.uid), .text(name)], { $0.string(0) })
        {
            throw StoreError(
                .uidConflict, "UID \(object.uid) is already used by \(other) in this calendar", resource: name,
                conflictingResource: other)
        }
        try checkQuota(
            calendar: calendar, addedObjects: existing == nil ? 1 : 0, addedBytes: data.count - (existing?.size ?? 0),
            connection)
        var summary = summary
        if summary == nil { summary = try object.summary() }
        return CheckedWrite(
            object: object, summary: summary!, data: data, name: name,
            existing: existing.map { ($0.rowID, $0.identifier) })
    }

    /// Checks, then stores `object` (parsed from `data`) at `name`. Returns the new row.
    @discardableResult
    func writeObject(
        _ object: CalendarObject, data: [UInt8], name: String, calendar: CalendarRow, ifMatch: String?,
        ifNoneMatch: Bool, note: Outbox.Note? = nil,
        _ connection: Connection
    ) throws(StoreError) -> ObjectRow {
        let checked = try checkWrite(
            object, data: data, name: name, calendar: calendar, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, connection)
        return try performWrite(
            checked, calendar: calendar, sequence: try bumpSequence(calendar.rowID, connection), note: note, connection)
    }

    /// Stores a checked write at change `sequence`: the bytes, the derived columns, the
    /// interval box, no tombstone for the name, and the webhook deliveries of the change
    /// (`event.created` or `event.updated` unless `note` says otherwise). Throws only when
    /// the database fails, and then the caller's transaction must roll back.
    func performWrite(
        _ checked: CheckedWrite, calendar: CalendarRow, sequence: Int, note: Outbox.Note? = nil,
        _ connection: Connection
    )
        throws(StoreError)
        -> ObjectRow
    {
        let object = checked.object
        let summary = checked.summary
        let data = checked.data
        let name = checked.name
        let existing = checked.existing
        let etag = Identifiers.etag(for: data, sequence: sequence)
        let now = WallClock.now()
        // The derived columns, by name: the UPDATE and the INSERT are written from this list,
        // so a value can never land in another column.
        let single = summary.single
        let kind = single.map { SingleTiming($0.start) }
        let startKey = single.flatMap { single in kind?.key(single.start) }
        let endKey = single.flatMap { single in kind?.key(single.end) }
        let columns: [(name: String, value: SQLValue)] = [
            ("uid", .text(object.uid)), ("component", .text(object.componentType.rawValue)), ("etag", .text(etag)),
            ("sequence", .int(sequence)), ("summary", .optional(summary.title)),
            ("first_start", .int(summary.firstStart)),
            ("last_end", .optional(summary.lastEnd)), ("recurring", .int(summary.isRecurring ? 1 : 0)),
            ("alarm_reach", .optional(summary.alarmReach)), ("time_kind", .optional(kind?.rawValue)),
            ("start_key", .optional(startKey)), ("end_key", .optional(endKey)),
            ("tzid", .optional(single?.tzid)), ("status", .optional(summary.status?.rawValue)),
            (
                "categories",
                summary.categories.isEmpty
                    ? nil : .text(summary.categories.joined(separator: SingleTiming.categorySeparator))
            ),
            ("modified", .int(now)), ("size", .int(data.count)), ("transparent", .int(summary.isTransparent ? 1 : 0)),
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
                "UPDATE objects SET " + columns.map { $0.name + " = ?" }.joined(separator: ", ") + " WHERE id = ?",
                columns.map(\.value) + [.integer(rowID)])
        } else {
            identifier = Identifiers.newUUID()
            let all =
                columns + [
                    ("identifier", .text(identifier)), ("calendar_id", .integer(calendar.rowID)), ("name", .text(name)),
                    ("created", .int(now)), ("created_sequence", .int(sequence)),
                ]
            let inserted = try connection.firstRow(
                "INSERT INTO objects (" + all.map(\.name).joined(separator: ", ") + ") VALUES ("
                    + all.map { _ in "?" }.joined(separator: ", ") + ") RETURNING id",
                all.map(\.value), { $0.int64(0) })
            guard let inserted else { throw StoreError(.database, "the new object's row was not returned") }
            rowID = inserted
            try connection.run(
                "UPDATE calendars SET object_count = object_count + 1, object_bytes = object_bytes + ? WHERE id = ?",
                [.int(data.count), .integer(calendar.rowID)])
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
                .integer(rowID), .integer(calendar.rowID), .integer(calendar.rowID),
                .int(IntervalIndex.lowerMinute(summary.firstStart)),
                .int(IntervalIndex.upperMinute(summary.lastEnd)),
            ])
        try connection.run(
            "DELETE FROM tombstones WHERE calendar_id = ? AND name = ?", [.integer(calendar.rowID), .text(name)])
        try Outbox.record(
            Outbox.Change(
                type: note?.type ?? (existing == nil ? .eventCreated : .eventUpdated), calendar: calendar.calendar.id,
                ownerID: calendar.ownerID, sequence: sequence, eventIdentifier: identifier, uid: object.uid,
                etag: etag, resource: name, occurrence: note?.occurrence), connection)
        try AlarmQueue.objectWritten(
            rowID, hasAlarms: summary.alarmReach != nil, replaced: existing != nil, calendar: calendar, connection)
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
            INSERT INTO tombstones (calendar_id, name, sequence, identifier, uid) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (calendar_id, name) DO UPDATE SET sequence = excluded.sequence, identifier = excluded.identifier, uid = excluded.uid
            """,
            [
                .integer(calendar.rowID), .text(object.name), .int(sequence), .text(object.identifier),
                .text(object.uid),
            ])
        try Outbox.record(
            Outbox.Change(
                type: .eventDeleted, calendar: calendar.calendar.id, ownerID: calendar.ownerID, sequence: sequence,
                eventIdentifier: object.identifier, uid: object.uid, resource: object.name), connection)
    }

    /// See ``EventStore/writeResource(_:name:calendar:ifMatch:ifNoneMatch:)``; the Schedule-Tag stays as it was.
    public func writeResource(
        _ data: [UInt8], name: String, calendar: some CalendarReference, ifMatch: String?, ifNoneMatch: Bool
    )
        throws(StoreError) -> ResourceWrite
    {
        try writeResource(
            data, name: name, calendar: calendar, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, scheduleTag: nil,
            ifScheduleTagMatch: nil)
    }

    /// See ``EventStore/writeResource(_:name:calendar:ifMatch:ifNoneMatch:scheduleTag:ifScheduleTagMatch:)``;
    /// a name that is not one path segment of at most 255 bytes is `invalidArgument`.
    public func writeResource(
        _ data: [UInt8], name: String, calendar: some CalendarReference, ifMatch: String?, ifNoneMatch: Bool,
        scheduleTag: ScheduleTagChange?, ifScheduleTagMatch: String?
    ) throws(StoreError) -> ResourceWrite {
        guard Self.isValidResourceName(name) else {
            throw StoreError(.invalidArgument, "a resource name is one path segment", resource: name)
        }
        // Parse and index outside the write lock: the slow part needs no database.
        let object = try CalendarObject(accepting: data, resource: name)
        let summary = try object.summary()
        let (written, result) = try database.write {
            (connection) throws(StoreError) -> (ObjectRow?, ResourceWrite) in
            let row = try calendarRow(calendar, connection, write: true)
            let current =
                try connection.firstRow(
                    "SELECT schedule_tag FROM objects WHERE calendar_id = ? AND name = ?",
                    [.integer(row.rowID), .text(name)], { $0.optionalString(0) }) ?? nil
            if let ifScheduleTagMatch, ifScheduleTagMatch != current {
                throw StoreError(
                    .preconditionFailed,
                    "\(name) has changed for its organizer: its Schedule-Tag is \(current ?? "none"), not \(ifScheduleTagMatch)",
                    resource: name)
            }
            var checked: CheckedWrite
            var personal: Component?? = nil
            if isSharee(row) {
                switch try shareeWrite(
                    object, data: data, name: name, calendar: row, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch,
                    connection)
                {
                case .personal(let etag, let scheduleTag):
                    return (
                        nil,
                        ResourceWrite(etag: etag, created: false, warnings: object.warnings, scheduleTag: scheduleTag)
                    )
                case .content(let shared, let bytes, let mine):
                    // The preconditions were judged on what the sharee sees.
                    checked = try checkWrite(
                        shared, data: bytes, name: name, calendar: row, ifMatch: nil, ifNoneMatch: false, connection)
                    personal = .some(mine)
                }
            } else {
                checked = try checkWrite(
                    object, summary: summary, data: data, name: name, calendar: row, ifMatch: ifMatch,
                    ifNoneMatch: ifNoneMatch, connection)
            }
            let written = try performWrite(
                checked, calendar: row, sequence: try bumpSequence(row.rowID, connection), connection)
            var etag = written.etag
            if case .some(let mine) = personal {
                let tag = try keepPersonal(mine, of: written.rowID, calendar: row, connection)
                etag = Self.personalETag(etag, tag.map { PersonalPart(data: [], tag: $0) })
            }
            var tag = current
            if let scheduleTag {
                if scheduleTag == .new || tag == nil { tag = "\"st-" + Identifiers.newUUID().lowercased() + "\"" }
                try connection.run(
                    "UPDATE objects SET schedule_tag = ? WHERE id = ?", [.optional(tag), .integer(written.rowID)])
            }
            return (
                written,
                ResourceWrite(etag: etag, created: checked.existing == nil, warnings: object.warnings, scheduleTag: tag)
            )
        }
        // The series prepared to index it serves the reads that follow (once committed).
        if let written, let prepared = summary.prepared, written.data == data {
            backend.cache.store(
                CachedSeries(prepared: prepared, stored: StoredObject(data: data), fromSkeleton: false),
                id: written.rowID, etag: written.etag)
        }
        return result
    }

    static func isValidResourceName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && name.utf8.count <= 255
    }

    /// See ``EventStore/deleteResource(named:calendar:ifMatch:)``; `ifMatch` is judged on the ETag this user sees.
    public func deleteResource(named name: String, calendar: some CalendarReference, ifMatch: String?)
        throws(StoreError)
    {
        try database.write { (connection) throws(StoreError) in
            let row = try calendarRow(calendar, connection, write: true)
            guard let object = try object(named: name, in: row, connection) else {
                throw StoreError(.notFound, "no resource \(name)", resource: name)
            }
            // A sharee names the ETag they see.
            let seen = Self.personalETag(
                object.etag, try personalParts(in: row, object: object.rowID, connection)[object.rowID])
            if let ifMatch, ifMatch != "*", ifMatch != seen {
                throw StoreError(
                    .preconditionFailed, "\(name) has changed: its ETag is \(seen), not \(ifMatch)",
                    resource: name)
            }
            try deleteObject(object, calendar: row, connection)
        }
    }
}
