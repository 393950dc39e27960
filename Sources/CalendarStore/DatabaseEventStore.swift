import CivilTime
import ICalendar

/// The `EventStore` of one user on a `DatabaseBackend` (SQLite or PostgreSQL).
///
/// Cheap to make and to copy; every call runs in its own transaction on the
/// backend's connections.
public struct DatabaseEventStore: EventStore {
    let backend: DatabaseBackend
    let userID: Int64
    /// The name of the user this store acts for.
    public let user: String
    /// The only calendars it sees (a token limited to some); nil: all the user sees.
    /// Any other is `notFound`, as another user's is, and no calendar can be made.
    var calendarLimit: Set<String>? = nil

    var database: any StoreDatabase { backend.database }
}

/// A calendar as the store reads it, with its row and what this user may do.
struct CalendarRow {
    var rowID: Int64
    var ownerID: Int64
    var calendar: EventCalendar
    var writable: Bool
}

extension DatabaseEventStore {
    /// The calendars this user owns or has accepted a share of (and the store's limit allows).
    var calendarColumns: String {
        Self.calendarSelect + " WHERE (c.owner_id = ?1 OR g.status = 'accepted')" + limitClause
    }

    /// The SQL condition of ``calendarLimit`` on `c` (empty when there is none).
    var limitClause: String {
        guard let calendarLimit else { return "" }
        let quoted = calendarLimit.sorted().map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" }
        return " AND c.identifier IN (" + (quoted.isEmpty ? "NULL" : quoted.joined(separator: ", ")) + ")"
    }

    /// `notFound` for a calendar outside the store's limit (see ``calendarLimit``).
    func checkLimit(_ identifier: String) throws(StoreError) {
        if let calendarLimit, !calendarLimit.contains(identifier) {
            throw StoreError(.notFound, "no calendar \(identifier)", resource: identifier)
        }
    }

    static let calendarSelect = """
        SELECT c.id, c.owner_id, c.identifier, c.name, u.name, c.title, c.color, c.description, c.time_zone,
               c.sort_order, c.components, c.kind, c.feed_url, c.refresh_interval, c.sequence, g.access, c.feed_token,
               g.alias, c.busy_feed_token
        FROM calendars c JOIN users u ON u.id = c.owner_id
        LEFT JOIN grants g ON g.calendar_id = c.id AND g.user_id = ?1
        """

    func calendarRow(_ row: Row) -> CalendarRow {
        var calendar = EventCalendar(title: row.string(5))
        calendar.id = row.string(2)
        calendar.name = row.string(3)
        calendar.owner = row.string(4)
        calendar.color = row.optionalString(6)
        calendar.calendarDescription = row.optionalString(7)
        calendar.timeZone = row.optionalString(8)
        calendar.order = row.int(9)
        calendar.componentTypes = Set(
            row.string(10).split(separator: ",").compactMap { ComponentType(rawValue: String($0)) })
        let subscribed = row.string(11) == "subscription"
        if subscribed {
            // 0: as often as the feed asks.
            calendar.kind = .subscription(url: row.string(12), refreshInterval: row.optionalInt(13) ?? 0)
        }
        let sequence = row.int(14)
        calendar.ctag = "\"\(calendar.id)-\(sequence)\""
        calendar.syncToken = SyncToken(calendar: calendar.id, sequence: sequence)
        calendar.feedToken = row.optionalString(16)
        calendar.busyFeedToken = row.optionalString(18)
        let ownerID = row.int64(1)
        // A subscribed calendar's objects come from its feed alone.
        let writable = (ownerID == userID || row.optionalString(15) == Access.readWrite.rawValue) && !subscribed
        calendar.ownerCollectionName = calendar.name
        if ownerID != userID {
            // A calendar shared with this user is named in their home by its share.
            calendar.name = row.optionalString(17) ?? calendar.id.lowercased()
            calendar.access = row.optionalString(15) == Access.readWrite.rawValue ? .readWrite : .read
            calendar.feedToken = nil
            calendar.busyFeedToken = nil
        }
        return CalendarRow(rowID: row.int64(0), ownerID: ownerID, calendar: calendar, writable: writable)
    }

    func loadDeadProperties(_ row: inout CalendarRow, _ connection: Connection) throws(StoreError) {
        try connection.forEachRow(
            "SELECT name, value FROM calendar_properties WHERE calendar_id = ?", [.integer(row.rowID)]
        ) { property in
            row.calendar.deadProperties[property.string(0)] = property.string(1)
        }
    }

    /// The calendar with this identifier if this user may see it (and, for `write`, change
    /// its objects: then its row stays locked until the transaction ends; with `settings`,
    /// locked without that check, for the calls that check ownership themselves). A
    /// calendar the user may not see is `notFound`, so its existence is not revealed.
    func calendarRow(_ identifier: String, _ connection: Connection, write: Bool, settings: Bool = false)
        throws(StoreError) -> CalendarRow
    {
        let sql = calendarColumns + " AND c.identifier = ?2" + (write ? connection.dialect.lockCalendar : "")
        guard var row = try connection.firstRow(sql, [.integer(userID), .text(identifier)], calendarRow)
        else { throw StoreError(.notFound, "no calendar \(identifier)", resource: identifier) }
        if write && !settings && !row.writable { throw readOnly(row) }
        try loadDeadProperties(&row, connection)
        return row
    }

    /// Why this user may not change the objects of `row`.
    func readOnly(_ row: CalendarRow) -> StoreError {
        if case .subscription(let url, _) = row.calendar.kind {
            return StoreError(
                .forbidden, "calendar \(row.calendar.title) is subscribed from \(url): it is read-only",
                resource: row.calendar.id)
        }
        return StoreError(
            .forbidden, "calendar \(row.calendar.title) is shared with \(user) read-only", resource: row.calendar.id)
    }

    /// The calendar a reference names: a handle made by this store as it was resolved
    /// (for `write`, its row locked and its access checked again), else by identifier.
    func calendarRow(_ reference: some CalendarReference, _ connection: Connection, write: Bool) throws(StoreError)
        -> CalendarRow
    {
        guard let handle = reference.handle, handle.userID == userID else {
            return try calendarRow(reference.calendarIdentifier, connection, write: write)
        }
        guard write else { return handle.row }
        let sql = calendarColumns + " AND c.id = ?2" + connection.dialect.lockCalendar
        guard var row = try connection.firstRow(sql, [.integer(userID), .integer(handle.row.rowID)], calendarRow) else {
            throw StoreError(.notFound, "no calendar \(handle.calendar.id)", resource: handle.calendar.id)
        }
        guard row.writable else { throw readOnly(row) }
        // Resource writes read no dead property: the ones resolved with the handle stand.
        row.calendar.deadProperties = handle.row.calendar.deadProperties
        return row
    }

    // MARK: Calendars

    /// See ``EventStore/calendars()``.
    public func calendars() throws(StoreError) -> [EventCalendar] {
        try database.read { (connection) throws(StoreError) -> [EventCalendar] in
            var rows = try connection.rows(
                calendarColumns + " ORDER BY c.sort_order, c.title, c.id", [.integer(userID)], calendarRow)
            for index in rows.indices { try loadDeadProperties(&rows[index], connection) }
            return rows.map(\.calendar)
        }
    }

    /// The calendar with this identifier if this user owns it or accepted a share of it; `notFound` otherwise.
    public func calendar(withIdentifier identifier: String) throws(StoreError) -> EventCalendar {
        try database.read { (connection) throws(StoreError) -> EventCalendar in
            try calendarRow(identifier, connection, write: false).calendar
        }
    }

    /// See ``EventStore/calendar(named:)``; `notFound` when there is none.
    public func calendar(named name: String) throws(StoreError) -> EventCalendar {
        try calendarHandle(named: name).calendar
    }

    /// The calendar with this collection name (the user's own first, else a share's name in their home),
    /// with its row, for later calls on it; `notFound` when there is none.
    public func calendarHandle(named name: String) throws(StoreError) -> CalendarHandle {
        try database.read { (connection) throws(StoreError) -> CalendarHandle in
            // The user's own calendar of that name, else a calendar shared with them under it.
            var found = try connection.firstRow(
                calendarColumns + " AND c.owner_id = ?1 AND c.name = ?2", [.integer(userID), .text(name)],
                calendarRow)
            if found == nil {
                found = try connection.firstRow(
                    calendarColumns + " AND c.owner_id <> ?1 AND g.alias = ?2", [.integer(userID), .text(name)],
                    calendarRow)
            }
            guard var row = found else { throw StoreError(.notFound, "no calendar named \(name)", resource: name) }
            try loadDeadProperties(&row, connection)
            return CalendarHandle(row: row, userID: userID)
        }
    }

    /// Creates a calendar owned by the user, a colour from ``CalendarPalette`` when it has none;
    /// `invalidArgument` for a missing title or an unknown zone, `alreadyExists` when `name` is taken.
    public func createCalendar(_ calendar: EventCalendar, name: String?) throws(StoreError) -> EventCalendar {
        try validate(calendar)
        let identifier = Identifiers.newUUID()
        let name = name ?? identifier.lowercased()
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw StoreError(.invalidArgument, "a calendar name is one path segment", resource: name)
        }
        return try database.write { (connection) throws(StoreError) -> EventCalendar in
            try insertCalendar(calendar, identifier: identifier, name: name, connection)
        }
    }

    func insertCalendar(_ calendar: EventCalendar, identifier: String, name: String, _ connection: Connection)
        throws(StoreError) -> EventCalendar
    {
        if calendarLimit != nil {
            throw StoreError(.forbidden, "this token sees only some calendars: it cannot make one", resource: name)
        }
        if try connection.firstRow(
            """
            SELECT 1 FROM calendars WHERE owner_id = ?1 AND name = ?2
            UNION ALL SELECT 1 FROM grants WHERE user_id = ?1 AND alias = ?2
            """, [.integer(userID), .text(name)], { _ in true })
            != nil
        {
            throw StoreError(.alreadyExists, "a calendar named \(name) exists", resource: name)
        }
        var calendar = calendar
        if calendar.color == nil {
            // Apart from the user's other calendars unless the caller chose a colour.
            let taken = try connection.rows("SELECT color FROM calendars WHERE owner_id = ?", [.integer(userID)]) {
                $0.optionalString(0)
            }
            calendar.color = CalendarPalette.next(after: taken)
        }
        let rowID = try connection.firstRow(
            """
            INSERT INTO calendars (identifier, owner_id, name, title, color, description, time_zone, sort_order,
                components, kind, feed_url, refresh_interval, created)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """,
            [.text(identifier), .integer(userID), .text(name)] + settableColumns(calendar) + [.int(WallClock.now())],
            { $0.int64(0) })
        guard let rowID else { throw StoreError(.database, "the new calendar's row was not returned") }
        try writeDeadProperties(calendar.deadProperties, rowID: rowID, connection)
        try Outbox.record(
            Outbox.Change(type: .calendarCreated, calendar: identifier, ownerID: userID, sequence: 0), connection)
        return try calendarRow(identifier, connection, write: false).calendar
    }

    func validate(_ calendar: EventCalendar) throws(StoreError) {
        if calendar.title.isEmpty { throw StoreError(.invalidArgument, "a calendar needs a title") }
        if calendar.componentTypes.isEmpty {
            throw StoreError(.invalidArgument, "a calendar holds at least one of VEVENT, VTODO, VJOURNAL")
        }
        if let zone = calendar.timeZone, TimeZoneDatabase.zone(named: zone) == nil {
            throw StoreError(.invalidArgument, "unknown time zone \(zone) (use an IANA name such as Europe/Berlin)")
        }
    }

    func settableColumns(_ calendar: EventCalendar) -> [SQLValue] {
        let components = ComponentType.allCases.filter(calendar.componentTypes.contains).map(\.rawValue).joined(
            separator: ",")
        var kind: SQLValue = "local"
        var url: SQLValue = nil
        var interval: SQLValue = nil
        if case .subscription(let feed, let refresh) = calendar.kind {
            kind = "subscription"
            url = .text(feed)
            interval = refresh > 0 ? .int(refresh) : nil
        }
        return [
            .text(calendar.title), .optional(calendar.color), .optional(calendar.calendarDescription),
            .optional(calendar.timeZone),
            .int(calendar.order), .text(components), kind, url, interval,
        ]
    }

    func writeDeadProperties(_ properties: [String: String], rowID: Int64, _ connection: Connection) throws(StoreError)
    {
        try connection.run("DELETE FROM calendar_properties WHERE calendar_id = ?", [.integer(rowID)])
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            try connection.run(
                "INSERT INTO calendar_properties (calendar_id, name, value) VALUES (?, ?, ?)",
                [.integer(rowID), .text(name), .text(value)])
        }
    }

    /// Bumps a calendar's change sequence and returns the new value.
    func bumpSequence(_ rowID: Int64, _ connection: Connection) throws(StoreError) -> Int {
        guard
            let sequence = try connection.firstRow(
                "UPDATE calendars SET sequence = sequence + 1 WHERE id = ? RETURNING sequence", [.integer(rowID)],
                { $0.int(0) })
        else { throw StoreError(.notFound, "calendar row \(rowID) vanished") }
        return sequence
    }

    /// Saves a calendar's settable fields and dead properties and bumps its sequence;
    /// only the owner may (`forbidden`). `ifMatch` as in ``EventStore/updateCalendar(_:ifMatch:)``.
    public func updateCalendar(_ calendar: EventCalendar, ifMatch: String?) throws(StoreError) -> EventCalendar {
        try validate(calendar)
        return try database.write { (connection) throws(StoreError) -> EventCalendar in
            let row = try calendarRow(calendar.id, connection, write: true, settings: true)
            guard row.ownerID == userID else {
                throw StoreError(.forbidden, "only the owner changes a calendar's settings", resource: calendar.id)
            }
            try StoreError.checkIfMatch(ifMatch, current: row.calendar.etag, resource: calendar.id)
            try connection.run(
                """
                UPDATE calendars SET title = ?, color = ?, description = ?, time_zone = ?, sort_order = ?, components = ?,
                    kind = ?, feed_url = ?, refresh_interval = ? WHERE id = ?
                """, settableColumns(calendar) + [.integer(row.rowID)])
            if calendar.timeZone != row.calendar.timeZone { try AlarmQueue.calendarZoneChanged(row.rowID, connection) }
            try writeDeadProperties(calendar.deadProperties, rowID: row.rowID, connection)
            let sequence = try bumpSequence(row.rowID, connection)
            try Outbox.record(
                Outbox.Change(type: .calendarUpdated, calendar: calendar.id, ownerID: row.ownerID, sequence: sequence),
                connection)
            return try calendarRow(calendar.id, connection, write: false).calendar
        }
    }

    /// Deletes one of the user's calendars with its objects; a sharee's deletion leaves the share instead.
    public func deleteCalendar(withIdentifier identifier: String, ifMatch: String?) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            let shared = try calendarRow(identifier, connection, write: false)
            try StoreError.checkIfMatch(ifMatch, current: shared.calendar.etag, resource: identifier)
            guard shared.ownerID == userID else {
                // A sharee deleting a calendar shared with them leaves the share (declines it).
                try answerShare(shared, accept: false, connection)
                return
            }
            let row = try calendarRow(identifier, connection, write: true, settings: true)
            try connection.run(
                "DELETE FROM object_ranges WHERE id IN (SELECT id FROM objects WHERE calendar_id = ?)",
                [.integer(row.rowID)])
            try connection.run("DELETE FROM calendars WHERE id = ?", [.integer(row.rowID)])
            try Outbox.record(
                Outbox.Change(
                    type: .calendarDeleted, calendar: identifier, ownerID: row.ownerID,
                    sequence: row.calendar.syncToken.sequence), connection)
        }
    }

    /// See ``EventStore/calendar(titled:createIfMissing:)``; only the user's own calendars count.
    public func calendar(titled title: String, createIfMissing: Bool) throws(StoreError) -> EventCalendar? {
        let wanted = title.lowercased()
        let find = { (connection: Connection) throws(StoreError) -> EventCalendar? in
            try connection.rows(
                calendarColumns + " AND c.owner_id = ?1 ORDER BY c.id", [.integer(userID)], calendarRow
            )
            .first { $0.calendar.title.lowercased() == wanted }?.calendar
        }
        if let found = try database.read(find) { return try calendar(withIdentifier: found.id) }
        guard createIfMissing else { return nil }
        let template = EventCalendar(title: title)
        try validate(template)
        // Look again under the write lock, so two callers racing create one calendar.
        return try database.write { (connection) throws(StoreError) -> EventCalendar in
            if let lock = connection.dialect.lockUser { try connection.run(lock, [.integer(userID)]) }
            if let found = try find(connection) { return try calendarRow(found.id, connection, write: false).calendar }
            let identifier = Identifiers.newUUID()
            return try insertCalendar(template, identifier: identifier, name: identifier.lowercased(), connection)
        }
    }

    /// See ``EventStore/setFeedToken(_:for:calendar:)``; only the owner may (`forbidden`).
    public func setFeedToken(_ token: String?, for kind: FeedKind, calendar identifier: String) throws(StoreError)
        -> EventCalendar
    {
        try database.write { (connection) throws(StoreError) -> EventCalendar in
            let row = try calendarRow(identifier, connection, write: true, settings: true)
            guard row.ownerID == userID else {
                throw StoreError(.forbidden, "only the owner publishes a calendar", resource: identifier)
            }
            let column = kind == .events ? "feed_token" : "busy_feed_token"
            try connection.run(
                "UPDATE calendars SET \(column) = ? WHERE id = ?", [.optional(token), .integer(row.rowID)])
            return try calendarRow(identifier, connection, write: false).calendar
        }
    }

}
