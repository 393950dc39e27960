// The change log: what changed since a sync token, and forgetting old tombstones.
extension DatabaseEventStore {
    public func changes(since token: SyncToken?, calendar: some CalendarReference, limit: Int?) throws(StoreError)
        -> ChangeSet
    {
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
                SELECT sequence, name, etag, component, identifier, size, modified FROM objects WHERE calendar_id = ?1 AND sequence > ?2
                """
                + (token == nil
                    ? ""
                    : " UNION ALL SELECT sequence, name, NULL, NULL, NULL, NULL, NULL FROM tombstones WHERE calendar_id = ?1 AND sequence > ?2")
                + " ORDER BY 1" + (limit == nil ? "" : " LIMIT ?3")
            // The limit is a parameter, not part of the text: one prepared statement serves every
            // limit a client asks for. One row past it (saturating: a client may ask for Int.max).
            let values: [SQLValue] =
                [.integer(row.rowID), .int(since)] + (limit.map { [.int($0 == Int.max ? $0 : $0 + 1)] } ?? [])
            var rows = try connection.rows(sql, values) {
                object -> (sequence: Int, name: String, info: ResourceInfo?) in
                guard !object.isNull(2) else { return (object.int(0), object.string(1), nil) }
                return (
                    object.int(0), object.string(1),
                    ResourceInfo(
                        name: object.string(1), etag: object.string(2),
                        componentType: ComponentType(rawValue: object.string(3)) ?? .event,
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
            try connection.run(
                "DELETE FROM tombstones WHERE calendar_id = ? AND sequence <= ?",
                [.integer(row.rowID), .int(token.sequence)])
            try connection.run(
                "UPDATE calendars SET tombstone_horizon = ?1 WHERE id = ?2 AND tombstone_horizon < ?1",
                [.int(token.sequence), .integer(row.rowID)])
        }
    }
}
