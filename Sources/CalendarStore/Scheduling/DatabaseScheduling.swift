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
            try connection.run(
                "INSERT INTO schedule_inbox (user_id, name, uid, method, sender, data, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    .integer(id), .text(message.name), .text(uid), .text(method), .optional(sender), .blob(data),
                    .int(now),
                ])
            try connection.run(
                """
                DELETE FROM schedule_inbox WHERE user_id = ?1 AND id NOT IN
                    (SELECT id FROM schedule_inbox WHERE user_id = ?1 ORDER BY id DESC LIMIT ?2)
                """, [.integer(id), .int(Self.maxInboxMessages)])
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
        }
    }
}

extension DatabaseEventStore {
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
    public var scheduling: any SchedulingStore { DatabaseSchedulingStore(backend: self) }
}
