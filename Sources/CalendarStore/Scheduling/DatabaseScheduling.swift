struct DatabaseSchedulingStore: SchedulingStore {
    let backend: DatabaseBackend
    var database: any StoreDatabase { backend.database }

    static let columns = "name, uid, method, sender, data, created"

    static func message(_ row: Row) -> InboxMessage {
        InboxMessage(
            name: row.string(0), uid: row.string(1), method: row.string(2), sender: row.optionalString(3),
            data: row.bytes(4), created: row.int(5))
    }

    func deliver(_ data: [UInt8], uid: String, method: String, sender: String?, to user: String, now: Int)
        throws(StoreError) -> InboxMessage
    {
        let message = InboxMessage(
            name: Identifiers.newUUID().lowercased() + ".ics", uid: uid, method: method, sender: sender, data: data,
            created: now)
        try database.write { (connection) throws(StoreError) in
            let id = try connection.userRowID(named: user)
            let sequence = try bumpInboxSequence(id, connection)
            try connection.run(
                "INSERT INTO schedule_inbox (user_id, name, uid, method, sender, data, created, sequence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .integer(id), .text(message.name), .text(uid), .text(method), .optional(sender), .blob(data),
                    .int(now), .int(sequence),
                ])
            let trimmed = try connection.rows(
                """
                DELETE FROM schedule_inbox WHERE user_id = ?1 AND id NOT IN
                    (SELECT id FROM schedule_inbox WHERE user_id = ?1 ORDER BY id DESC LIMIT ?2) RETURNING name
                """, [.integer(id), .int(Self.maxInboxMessages)]
            ) { $0.string(0) }
            for name in trimmed { try recordRemoval(name, user: id, sequence: sequence, connection) }
        }
        return message
    }

    func inbox(of user: String) throws(StoreError) -> [InboxMessage] {
        try database.read { (connection) throws(StoreError) -> [InboxMessage] in
            let id = try connection.userRowID(named: user)
            return try connection.rows(
                "SELECT \(Self.columns) FROM schedule_inbox WHERE user_id = ? ORDER BY id", [.integer(id)], Self.message
            )
        }
    }

    func inboxEntries(of user: String) throws(StoreError) -> [InboxEntry] {
        try database.read { (connection) throws(StoreError) -> [InboxEntry] in
            let id = try connection.userRowID(named: user)
            return try connection.rows(
                "SELECT name, method, length(data), created FROM schedule_inbox WHERE user_id = ? ORDER BY id",
                [.integer(id)]
            ) { InboxEntry(name: $0.string(0), method: $0.string(1), size: $0.int(2), created: $0.int(3)) }
        }
    }

    func inbox(of user: String, uid: String, method: String) throws(StoreError) -> [InboxMessage] {
        try database.read { (connection) throws(StoreError) -> [InboxMessage] in
            let id = try connection.userRowID(named: user)
            return try connection.rows(
                "SELECT \(Self.columns) FROM schedule_inbox WHERE user_id = ? AND uid = ? AND method = ? ORDER BY id",
                [.integer(id), .text(uid), .text(method)], Self.message)
        }
    }

    func inboxMessage(named name: String, of user: String) throws(StoreError) -> InboxMessage? {
        try database.read { (connection) throws(StoreError) -> InboxMessage? in
            let id = try connection.userRowID(named: user)
            return try connection.firstRow(
                "SELECT \(Self.columns) FROM schedule_inbox WHERE user_id = ? AND name = ?",
                [.integer(id), .text(name)],
                Self.message)
        }
    }

    func removeInboxMessage(named name: String, of user: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            let id = try connection.userRowID(named: user)
            let removed = try connection.run(
                "DELETE FROM schedule_inbox WHERE user_id = ? AND name = ?", [.integer(id), .text(name)])
            if removed == 0 { throw StoreError(.notFound, "no message \(name) in the inbox", resource: name) }
            try recordRemoval(name, user: id, sequence: try bumpInboxSequence(id, connection), connection)
        }
    }

    func inboxChanges(of user: String, since token: SyncToken?) throws(StoreError) -> InboxChanges {
        try database.read { (connection) throws(StoreError) -> InboxChanges in
            let id = try connection.userRowID(named: user)
            let (sequence, horizon) =
                try connection.firstRow(
                    "SELECT sequence, horizon FROM schedule_inbox_state WHERE user_id = ?", [.integer(id)],
                    { ($0.int(0), $0.int(1)) }) ?? (0, 0)
            let current = SyncToken(calendar: InboxChanges.collection, sequence: sequence)
            var since = 0
            if let token {
                guard token.calendar == InboxChanges.collection, token.sequence <= sequence else {
                    throw StoreError(
                        .invalidSyncToken, "sync token \(token) was not issued by this inbox", resource: "inbox")
                }
                guard token.sequence >= horizon else {
                    throw StoreError(
                        .invalidSyncToken, "sync token \(token) has expired; sync the inbox again from the start",
                        resource: "inbox")
                }
                since = token.sequence
            }
            // Deliveries and removals in change order; an initial sync lists only what exists.
            let sql =
                "SELECT name, sequence, 0 FROM schedule_inbox WHERE user_id = ?1 AND sequence > ?2"
                + (token == nil
                    ? ""
                    : " UNION ALL SELECT name, sequence, 1 FROM schedule_inbox_tombstones WHERE user_id = ?1 AND sequence > ?2")
                + " ORDER BY 2, 1"
            // Messages delivered before the inbox kept a log have sequence 0: an initial sync lists them.
            let changes = try connection.rows(sql, [.integer(id), .int(token == nil ? -1 : since)]) {
                InboxChanges.Change(name: $0.string(0), sequence: $0.int(1), isRemoved: $0.int(2) == 1)
            }
            return InboxChanges(changes: changes, token: current)
        }
    }

    func inboxSyncToken(of user: String) throws(StoreError) -> SyncToken {
        try database.read { (connection) throws(StoreError) -> SyncToken in
            let id = try connection.userRowID(named: user)
            let sequence = try connection.firstRow(
                "SELECT sequence FROM schedule_inbox_state WHERE user_id = ?", [.integer(id)], { $0.int(0) })
            return SyncToken(calendar: InboxChanges.collection, sequence: sequence ?? 0)
        }
    }

    /// The next change sequence of a user's inbox.
    private func bumpInboxSequence(_ user: Int64, _ connection: Connection) throws(StoreError) -> Int {
        let next = try connection.firstRow(
            """
            INSERT INTO schedule_inbox_state (user_id, sequence, horizon) VALUES (?, 1, 0)
            ON CONFLICT (user_id) DO UPDATE SET sequence = schedule_inbox_state.sequence + 1 RETURNING sequence
            """, [.integer(user)], { $0.int(0) })
        guard let next else { throw StoreError(.database, "the inbox's sequence was not returned") }
        return next
    }

    /// Remembers a removal for sync; past ``maxInboxMessages`` remembered, the oldest are
    /// forgotten and tokens from before them expire.
    private func recordRemoval(_ name: String, user: Int64, sequence: Int, _ connection: Connection)
        throws(StoreError)
    {
        try connection.run(
            """
            INSERT INTO schedule_inbox_tombstones (user_id, name, sequence) VALUES (?, ?, ?)
            ON CONFLICT (user_id, name) DO UPDATE SET sequence = excluded.sequence
            """, [.integer(user), .text(name), .int(sequence)])
        let forgotten = try connection.rows(
            """
            DELETE FROM schedule_inbox_tombstones WHERE user_id = ?1 AND name NOT IN
                (SELECT name FROM schedule_inbox_tombstones WHERE user_id = ?1 ORDER BY sequence DESC, name LIMIT ?2)
            RETURNING sequence
            """, [.integer(user), .int(Self.maxInboxMessages)]
        ) { $0.int(0) }
        if let last = forgotten.max() {
            try connection.run(
                "UPDATE schedule_inbox_state SET horizon = ?1 WHERE user_id = ?2 AND horizon < ?1",
                [.int(last), .integer(user)])
        }
    }
}

extension DatabaseEventStore {
    /// See ``EventStore/ownResource(withUID:except:)``; subscribed calendars never count.
    public func ownResource(withUID uid: String, except location: ResourceLocation?) throws(StoreError) -> (
        calendar: EventCalendar, resource: StoredResource
    )? {
        let found = try database.read { (connection) throws(StoreError) -> (String, String)? in
            try connection.firstRow(
                """
                SELECT c.identifier, o.name FROM objects o JOIN calendars c ON c.id = o.calendar_id
                WHERE c.owner_id = ?1 AND c.kind = 'local' AND o.uid = ?2 AND NOT (c.identifier = ?3 AND o.name = ?4)
                ORDER BY c.sort_order, c.id LIMIT 1
                """,
                [.integer(userID), .text(uid), .text(location?.calendar ?? ""), .text(location?.name ?? "")],
                { ($0.string(0), $0.string(1)) })
        }
        guard let (identifier, name) = found else { return nil }
        let handle = try calendarHandle(identifier: identifier)
        return (handle.calendar, try resource(named: name, calendar: handle))
    }

    func calendarHandle(identifier: String) throws(StoreError) -> CalendarHandle {
        try database.read { (connection) throws(StoreError) -> CalendarHandle in
            CalendarHandle(row: try calendarRow(identifier, connection, write: false), userID: userID)
        }
    }
}

extension DatabaseBackend {
    /// The scheduling inboxes kept in this database.
    public var scheduling: any SchedulingStore { DatabaseSchedulingStore(backend: self) }
}
