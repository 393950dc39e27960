// The change log: what changed since a sync token, and forgetting old tombstones.
extension DatabaseEventStore {
    /// See ``EventStore/changes(since:calendar:limit:includingData:)``.
    public func changes(
        since token: SyncToken?, calendar: some CalendarReference, limit: Int?, includingData: Bool
    ) throws(StoreError) -> ChangeSet {
        try changes(
            since: token, calendar: calendar, limit: limit, includingData: includingData,
            maxDataBytes: ChangeSet.maxDataBytes)
    }

    /// ``changes(since:calendar:limit:includingData:)``, with the bytes of one answer kept
    /// under `maxDataBytes` (a test makes it small).
    func changes(
        since token: SyncToken?, calendar: some CalendarReference, limit: Int?, includingData: Bool,
        maxDataBytes: Int
    ) throws(StoreError) -> ChangeSet {
        try database.read { (connection) throws(StoreError) -> ChangeSet in
            let row = try calendarRow(calendar, connection, write: false)
            // The sequence as of this transaction (a handle's calendar may be older).
            guard
                let (sequence, horizon) = try connection.firstRow(
                    "SELECT sequence, tombstone_horizon FROM calendars WHERE id = ?", [.integer(row.rowID)],
                    { ($0.int(0), $0.int(1)) })
            else { throw StoreError(.notFound, "no calendar \(row.calendar.id)", resource: row.calendar.id) }
            let current = SyncToken(calendar: row.calendar.id, sequence: sequence)
            var since = 0
            if let token {
                guard token.calendar == row.calendar.id, token.sequence <= current.sequence else {
                    throw StoreError(
                        .invalidSyncToken, "sync token \(token) was not issued by this calendar",
                        resource: row.calendar.id)
                }
                guard token.sequence >= horizon else {
                    throw StoreError(
                        .invalidSyncToken, "sync token \(token) has expired; sync again from the start",
                        resource: row.calendar.id)
                }
                since = token.sequence
            }
            // Writes and deletions in change order; an initial sync lists only what exists.
            // One row past the limit tells whether the listing was cut.
            let sql = """
                SELECT sequence, name, etag, component, identifier, size, modified, created_sequence, uid, id, schedule_tag FROM objects WHERE calendar_id = ?1 AND sequence > ?2
                """
                + (token == nil
                    ? ""
                    : " UNION ALL SELECT sequence, name, NULL, NULL, identifier, NULL, NULL, NULL, uid, NULL, NULL FROM tombstones WHERE calendar_id = ?1 AND sequence > ?2")
                + " ORDER BY 1" + (limit == nil ? "" : " LIMIT ?3")
            // The limit is a parameter, not part of the text: one prepared statement serves every
            // limit a client asks for. One row past it (saturating: a client may ask for Int.max).
            let values: [SQLValue] =
                [.integer(row.rowID), .int(since)] + (limit.map { [.int($0 == Int.max ? $0 : $0 + 1)] } ?? [])
            // Each change with its object's row, for reading the bytes (none for a deletion).
            var rows = try connection.rows(sql, values) { found -> (change: ChangeSet.Change, rowID: Int64?) in
                guard !found.isNull(2) else {
                    let deletion = ChangeSet.Change(
                        kind: .deleted, name: found.string(1), sequence: found.int(0),
                        eventIdentifier: found.optionalString(4), uid: found.optionalString(8), resource: nil)
                    return (deletion, nil)
                }
                let write = ChangeSet.Change(
                    kind: token != nil && found.int(7) <= since ? .updated : .created, name: found.string(1),
                    sequence: found.int(0), eventIdentifier: found.string(4), uid: found.string(8),
                    resource: ResourceInfo(
                        name: found.string(1), etag: found.string(2),
                        componentType: ComponentType(rawValue: found.string(3)) ?? .event,
                        localIdentifier: found.string(4), size: found.int(5), lastModified: found.int(6),
                        scheduleTag: found.optionalString(10)))
                return (write, found.int64(9))
            }
            var changes = ChangeSet(entries: [], token: current)
            if let limit, rows.count > limit {
                rows.removeLast(rows.count - limit)
                changes.isTruncated = true
                // The checkpoint: everything up to the last change listed, nothing after it.
                changes.token = SyncToken(calendar: row.calendar.id, sequence: rows.last?.change.sequence ?? since)
            }
            if includingData {
                // The bytes stop the listing as a limit does, at a checkpoint: the first change
                // that would take them past `maxDataBytes` waits for the next answer (one is
                // always listed, whatever its size).
                var bytes = 0
                for index in rows.indices {
                    bytes += rows[index].change.resource?.size ?? 0
                    guard index > 0, bytes > maxDataBytes else { continue }
                    rows.removeLast(rows.count - index)
                    changes.isTruncated = true
                    changes.token = SyncToken(calendar: row.calendar.id, sequence: rows[index - 1].change.sequence)
                    break
                }
            }
            // A sharee reads their own parts of each object, under their own ETags.
            let parts = try personalParts(in: row, connection)
            var entries = rows.map { found in
                var change = found.change
                if let rowID = found.rowID, let resource = change.resource {
                    change.resource = Self.personalized(resource, rowID: rowID, parts)
                }
                return change
            }
            if includingData {
                let data = personalized(try objectData(rows.compactMap(\.rowID), connection), in: row, parts)
                for (index, row) in rows.enumerated() {
                    if let rowID = row.rowID { entries[index].data = data[rowID] }
                }
            }
            changes.entries = entries
            return changes
        }
    }

    /// See ``EventStore/pruneTombstones(through:calendar:)``; needs write access to the calendar.
    public func pruneTombstones(through token: SyncToken, calendar: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            let row = try calendarRow(calendar, connection, write: true)
            try connection.run(
                "DELETE FROM tombstones WHERE calendar_id = ? AND sequence <= ?",
                [.integer(row.rowID), .int(token.sequence)])
            try connection.run(
                "UPDATE calendars SET tombstone_horizon = ?1 WHERE id = ?2 AND tombstone_horizon < ?1",
                [.int(token.sequence), .integer(row.rowID)])
        }
    }
}
