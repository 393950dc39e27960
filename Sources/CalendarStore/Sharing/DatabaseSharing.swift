/// Sharing on the database: a `grants` row per sharee (its access, its status and the
/// collection name it has in the sharee's home) and the notes of `share_notifications`.
/// Every change runs in one transaction that locks the calendar's row first, so an
/// owner's change and a sharee's answer take turns.
extension DatabaseEventStore {
    /// See ``EventStore/share(calendar:with:access:invite:summary:)``; only the owner may (`forbidden`), not with
    /// themselves, and a summary is at most 1,024 bytes (`invalidArgument`).
    public func share(
        calendar identifier: String, with grantee: String, access: Access?, invite: Bool, summary: String?
    ) throws(StoreError) {
        if let summary, summary.utf8.count > Self.maxShareSummaryBytes {
            throw StoreError(.invalidArgument, "a share's summary is at most \(Self.maxShareSummaryBytes) bytes")
        }
        try database.write { (connection) throws(StoreError) in
            let row = try calendarRow(identifier, connection, write: true, settings: true)
            guard row.ownerID == userID else {
                throw StoreError(.forbidden, "only the owner shares a calendar", resource: identifier)
            }
            let granteeID = try connection.userRowID(named: grantee)
            guard granteeID != userID else {
                throw StoreError(.invalidArgument, "a calendar is not shared with its owner", resource: grantee)
            }
            let existing = try connection.firstRow(
                "SELECT status, summary FROM grants WHERE calendar_id = ? AND user_id = ?",
                [.integer(row.rowID), .integer(granteeID)]
            ) { (status: CalendarShare.Status(rawValue: $0.string(0)) ?? .accepted, summary: $0.optionalString(1)) }
            guard let access else {
                guard let existing else { return }
                try connection.run(
                    "DELETE FROM grants WHERE calendar_id = ? AND user_id = ?",
                    [.integer(row.rowID), .integer(granteeID)])
                if existing.status != .declined {
                    try notify(
                        granteeID, .removed, row, access: nil, status: existing.status, summary: nil, inReplyTo: nil,
                        connection)
                }
                return
            }
            // An accepted share stays in effect with its new access; a new one is in effect at
            // once without an invitation (the operator's choice), or waits for the answer to
            // one. A share the sharee declined or left is never forced on them again: it
            // becomes an invitation.
            let status: CalendarShare.Status =
                existing?.status == .accepted
                ? .accepted : (invite || existing?.status == .declined ? .invited : .accepted)
            let alias = status == .accepted ? try alias(for: row, sharee: granteeID, connection) : nil
            let note = summary ?? existing?.summary
            try connection.run(
                """
                INSERT INTO grants (calendar_id, user_id, access, status, alias, summary) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (calendar_id, user_id) DO UPDATE SET access = excluded.access, status = excluded.status,
                    alias = excluded.alias, summary = excluded.summary
                """,
                [
                    .integer(row.rowID), .integer(granteeID), .text(access.rawValue), .text(status.rawValue),
                    .optional(alias), .optional(note),
                ])
            // The sharee's earlier invitations to this calendar give way to this one.
            try connection.run(
                "DELETE FROM share_notifications WHERE user_id = ? AND calendar = ? AND kind = 'invite'",
                [.integer(granteeID), .text(row.calendar.id)])
            try notify(
                granteeID, .invite, row, access: access, status: status, summary: note, inReplyTo: nil, connection)
        }
    }

    /// See ``EventStore/shares(ofCalendar:)``; only the owner may ask (`forbidden`).
    public func shares(ofCalendar identifier: String) throws(StoreError) -> [CalendarShare] {
        try database.read { (connection) throws(StoreError) -> [CalendarShare] in
            let row = try calendarRow(identifier, connection, write: false)
            guard row.ownerID == userID else {
                throw StoreError(.forbidden, "only the owner sees whom a calendar is shared with", resource: identifier)
            }
            return try connection.rows(
                """
                SELECT u.name, u.display_name, g.access, g.status, g.summary FROM grants g
                JOIN users u ON u.id = g.user_id WHERE g.calendar_id = ? ORDER BY u.name
                """, [.integer(row.rowID)]
            ) { share in
                CalendarShare(
                    user: share.string(0), displayName: share.optionalString(1),
                    access: Access(rawValue: share.string(2)) ?? .read,
                    status: CalendarShare.Status(rawValue: share.string(3)) ?? .accepted,
                    summary: share.optionalString(4))
            }
        }
    }

    /// See ``EventStore/answerShare(ofCalendar:accept:)``; `notFound` when the calendar is not shared with
    /// the user. Declining returns nil.
    public func answerShare(ofCalendar identifier: String, accept: Bool) throws(StoreError) -> EventCalendar? {
        try checkLimit(identifier)
        return try database.write { (connection) throws(StoreError) -> EventCalendar? in
            // Any share of this user's, answered or not (calendarRow sees only accepted ones).
            let sql =
                Self.calendarSelect + " WHERE c.owner_id <> ?1 AND g.status IS NOT NULL AND c.identifier = ?2"
                + connection.dialect.lockCalendar
            guard let row = try connection.firstRow(sql, [.integer(userID), .text(identifier)], calendarRow) else {
                throw StoreError(.notFound, "no calendar \(identifier) is shared with \(user)", resource: identifier)
            }
            try answerShare(row, accept: accept, connection)
            return accept ? try calendarRow(identifier, connection, write: false).calendar : nil
        }
    }

    /// Sets this user's share of `row` (a calendar shared with them) accepted or declined,
    /// marks their invitations to it answered and tells the owner.
    func answerShare(_ row: CalendarRow, accept: Bool, _ connection: Connection) throws(StoreError) {
        let status: CalendarShare.Status = accept ? .accepted : .declined
        let alias = accept ? try alias(for: row, sharee: userID, connection) : nil
        try connection.run(
            "UPDATE grants SET status = ?, alias = ? WHERE calendar_id = ? AND user_id = ?",
            [.text(status.rawValue), .optional(alias), .integer(row.rowID), .integer(userID)])
        let invitation = try connection.firstRow(
            """
            SELECT uid FROM share_notifications WHERE user_id = ? AND calendar = ? AND kind = 'invite'
            ORDER BY id DESC LIMIT 1
            """, [.integer(userID), .text(row.calendar.id)]
        ) { $0.string(0) }
        try connection.run(
            "UPDATE share_notifications SET status = ? WHERE user_id = ? AND calendar = ? AND kind = 'invite'",
            [.text(status.rawValue), .integer(userID), .text(row.calendar.id)])
        try notify(
            row.ownerID, .reply, row, access: row.calendar.access, status: status, summary: nil,
            inReplyTo: invitation, connection)
    }

    /// See ``EventStore/sharedCalendarIdentifier(owner:name:)``.
    public func sharedCalendarIdentifier(owner: String, name: String) throws(StoreError) -> String? {
        try database.read { (connection) throws(StoreError) -> String? in
            try connection.firstRow(
                """
                SELECT c.identifier FROM calendars c JOIN users u ON u.id = c.owner_id
                JOIN grants g ON g.calendar_id = c.id AND g.user_id = ? WHERE u.name = ? AND c.name = ?
                """, [.integer(userID), .text(owner), .text(name)]
            ) { $0.string(0) }
        }
    }

    /// See ``EventStore/personalProperties(ofCalendar:)``; empty when there are none.
    public func personalProperties(ofCalendar identifier: String) throws(StoreError) -> [String: String] {
        try checkLimit(identifier)
        return try database.read { (connection) throws(StoreError) -> [String: String] in
            var values: [String: String] = [:]
            try connection.forEachRow(
                """
                SELECT p.name, p.value FROM grant_properties p JOIN calendars c ON c.id = p.calendar_id
                WHERE c.identifier = ? AND p.user_id = ?
                """, [.text(identifier), .integer(userID)]
            ) { (row) throws(StoreError) in values[row.string(0)] = row.string(1) }
            return values
        }
    }

    /// See ``EventStore/setPersonalProperties(_:ofCalendar:)``.
    public func setPersonalProperties(_ values: [String: String?], ofCalendar identifier: String)
        throws(StoreError)
    {
        try checkLimit(identifier)
        try database.write { (connection) throws(StoreError) in
            guard
                let calendarID = try connection.firstRow(
                    "SELECT c.id FROM calendars c JOIN grants g ON g.calendar_id = c.id AND g.user_id = ? WHERE c.identifier = ?",
                    [.integer(userID), .text(identifier)], { $0.int64(0) })
            else {
                throw StoreError(.notFound, "no calendar \(identifier) is shared with \(user)", resource: identifier)
            }
            for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                if let value {
                    _ = try connection.run(
                        """
                        INSERT INTO grant_properties (calendar_id, user_id, name, value) VALUES (?, ?, ?, ?)
                        ON CONFLICT (calendar_id, user_id, name) DO UPDATE SET value = excluded.value
                        """, [.integer(calendarID), .integer(userID), .text(name), .text(value)])
                } else {
                    _ = try connection.run(
                        "DELETE FROM grant_properties WHERE calendar_id = ? AND user_id = ? AND name = ?",
                        [.integer(calendarID), .integer(userID), .text(name)])
                }
            }
        }
    }

    /// See ``EventStore/sharingNotifications()``; the newest 500 are kept.
    public func sharingNotifications() throws(StoreError) -> [SharingNotification] {
        try database.read { (connection) throws(StoreError) -> [SharingNotification] in
            try connection.rows(
                """
                SELECT uid, kind, created, from_user, calendar, host_owner, host_name, title, access, status, summary,
                    in_reply_to FROM share_notifications WHERE user_id = ? ORDER BY id
                """, [.integer(userID)]
            ) { note in
                SharingNotification(
                    uid: note.string(0), kind: SharingNotification.Kind(rawValue: note.string(1)) ?? .invite,
                    created: note.int(2), from: note.string(3), calendar: note.string(4), hostOwner: note.string(5),
                    hostName: note.string(6), title: note.string(7),
                    access: note.optionalString(8).flatMap(Access.init),
                    status: CalendarShare.Status(rawValue: note.string(9)) ?? .invited,
                    summary: note.optionalString(10),
                    inReplyTo: note.optionalString(11))
            }
        }
    }

    /// See ``EventStore/removeSharingNotification(_:)``; `notFound` when the user has none of that uid.
    public func removeSharingNotification(_ uid: String) throws(StoreError) {
        try database.write { (connection) throws(StoreError) in
            let removed = try connection.run(
                "DELETE FROM share_notifications WHERE user_id = ? AND uid = ?", [.integer(userID), .text(uid)])
            if removed == 0 { throw StoreError(.notFound, "no notification \(uid)", resource: uid) }
        }
    }

    /// The longest note an owner may send with a share.
    static let maxShareSummaryBytes = 1024
    /// The most notes a user keeps: past it, the oldest go (a flood of shares cannot fill the store).
    static let maxSharingNotifications = 500

    /// Writes a note to `recipient` about `row`'s share; returns its uid.
    @discardableResult
    func notify(
        _ recipient: Int64, _ kind: SharingNotification.Kind, _ row: CalendarRow, access: Access?,
        status: CalendarShare.Status, summary: String?, inReplyTo: String?, _ connection: Connection
    ) throws(StoreError) -> String {
        let uid = Identifiers.newUUID().lowercased()
        try connection.run(
            """
            INSERT INTO share_notifications (user_id, uid, kind, from_user, calendar, host_owner, host_name, title,
                access, status, summary, in_reply_to, created)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .integer(recipient), .text(uid), .text(kind.rawValue), .text(user), .text(row.calendar.id),
                .text(row.calendar.owner), .text(row.calendar.ownerCollectionName), .text(row.calendar.title),
                .optional(access?.rawValue), .text(status.rawValue), .optional(summary), .optional(inReplyTo),
                .int(WallClock.now()),
            ])
        try connection.run(
            """
            DELETE FROM share_notifications WHERE user_id = ?1 AND id NOT IN
                (SELECT id FROM share_notifications WHERE user_id = ?1 ORDER BY id DESC LIMIT ?2)
            """, [.integer(recipient), .int(Self.maxSharingNotifications)])
        return uid
    }

    /// The collection name `row`'s share has (or gets) in the sharee's home: the one it
    /// has, else `<owner>-<name>`, numbered past any name of theirs already taken.
    func alias(for row: CalendarRow, sharee: Int64, _ connection: Connection) throws(StoreError) -> String {
        if let kept = try connection.firstRow(
            "SELECT alias FROM grants WHERE calendar_id = ? AND user_id = ? AND alias IS NOT NULL",
            [.integer(row.rowID), .integer(sharee)], { $0.string(0) })
        {
            return kept
        }
        let base = "\(row.calendar.owner)-\(row.calendar.ownerCollectionName)"
        for attempt in 1...50 {
            let candidate = attempt == 1 ? base : "\(base)-\(attempt)"
            let taken = try connection.firstRow(
                """
                SELECT 1 FROM calendars WHERE owner_id = ?1 AND name = ?2
                UNION ALL SELECT 1 FROM grants WHERE user_id = ?1 AND alias = ?2
                """, [.integer(sharee), .text(candidate)], { _ in true })
            if taken == nil { return candidate }
        }
        return row.calendar.id.lowercased()
    }
}
