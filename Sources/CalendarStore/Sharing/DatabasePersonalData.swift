import ICalendar

/// Per-user data on shared calendars (``PersonalData``): a sharee reads each object with
/// their own VALARMs and TRANSP in place of the owner's, under an ETag of their own, and a
/// write of theirs that changes only those is kept for them alone.
extension DatabaseEventStore {
    /// A sharee's parts of one object, as kept, and the tag that makes their ETag theirs.
    struct PersonalPart {
        var data: [UInt8]
        var tag: String
    }

    /// Whether this user reads and writes `calendar` as a sharee.
    func isSharee(_ calendar: CalendarRow) -> Bool { calendar.ownerID != userID }

    /// This user's parts of the objects of `calendar` (only `object`'s, when given); none for
    /// its owner.
    func personalParts(in calendar: CalendarRow, object: Int64? = nil, _ connection: Connection)
        throws(StoreError) -> [Int64: PersonalPart]
    {
        guard isSharee(calendar) else { return [:] }
        var parts: [Int64: PersonalPart] = [:]
        let sql =
            "SELECT object_id, data, tag FROM personal_data WHERE calendar_id = ? AND user_id = ?"
            + (object == nil ? "" : " AND object_id = ?")
        let values: [SQLValue] =
            [.integer(calendar.rowID), .integer(userID)] + (object.map { [.integer($0)] } ?? [])
        try connection.forEachRow(sql, values) { (row) throws(StoreError) in
            parts[row.int64(0)] = PersonalPart(data: row.bytes(1), tag: row.string(2))
        }
        return parts
    }

    /// The ETag a sharee sees: the object's, made their own by the tag of their parts.
    static func personalETag(_ etag: String, _ part: PersonalPart?) -> String {
        guard let part, etag.hasSuffix("\"") else { return etag }
        return String(etag.dropLast()) + "-p" + part.tag + "\""
    }

    /// `object` as a sharee with `parts` reads it (unchanged for the owner).
    func personalized(_ object: ObjectRow, in calendar: CalendarRow, _ parts: [Int64: PersonalPart]) -> ObjectRow {
        guard isSharee(calendar) else { return object }
        var seen = object
        seen.data = PersonalData.view(of: object.data, personal: parts[object.rowID]?.data)
        seen.etag = Self.personalETag(object.etag, parts[object.rowID])
        return seen
    }

    /// The listing of row `rowID` as a sharee with `parts` reads it.
    static func personalized(_ info: ResourceInfo, rowID: Int64, _ parts: [Int64: PersonalPart]) -> ResourceInfo {
        var seen = info
        seen.etag = personalETag(info.etag, parts[rowID])
        return seen
    }

    /// Objects' bytes (by row) as this user reads them in `calendar`.
    func personalized(_ data: [Int64: [UInt8]], in calendar: CalendarRow, _ parts: [Int64: PersonalPart])
        -> [Int64: [UInt8]]
    {
        guard isSharee(calendar) else { return data }
        return Dictionary(
            uniqueKeysWithValues: data.map { ($0.key, PersonalData.view(of: $0.value, personal: parts[$0.key]?.data)) })
    }

    /// What a sharee's write comes to.
    enum ShareeWrite {
        /// Only the sharee's parts changed: they are kept, and this is the sharee's new ETag.
        case personal(etag: String, scheduleTag: String?)
        /// The object to store (the sharee's content with the owner's parts) and its bytes,
        /// then the sharee's parts to keep with ``keepPersonal(_:of:calendar:_:)``.
        case content(CalendarObject, data: [UInt8], personal: Component?)
    }

    /// A sharee's write of `object` at `name`: their VALARMs and TRANSP are kept as theirs,
    /// the rest joined with the owner's. Checks If-Match and If-None-Match against what the
    /// sharee sees.
    func shareeWrite(
        _ object: CalendarObject, data: [UInt8], name: String, calendar: CalendarRow, ifMatch: String?,
        ifNoneMatch: Bool, _ connection: Connection
    ) throws(StoreError) -> ShareeWrite {
        let existing = try self.object(named: name, in: calendar, connection)
        let parts = try existing.map { (row) throws(StoreError) in
            try personalParts(in: calendar, object: row.rowID, connection)
        }
        let seenETag = existing.map { Self.personalETag($0.etag, parts?[$0.rowID]) }
        if ifNoneMatch, existing != nil {
            throw StoreError(.preconditionFailed, "\(name) already exists (If-None-Match: *)", resource: name)
        }
        if let ifMatch, ifMatch != "*" ? seenETag != ifMatch : existing == nil {
            throw StoreError(
                .preconditionFailed,
                seenETag.map { "\(name) has changed: its ETag is \($0), not \(ifMatch)" }
                    ?? "\(name) does not exist (If-Match)",
                resource: name)
        }
        let (shared, mine) = PersonalData.split(object.calendar)
        let stored = try existing.map { (row) throws(StoreError) in
            PersonalData.split(try CalendarObject(parsing: row.data, resource: name).calendar)
        }
        if let existing, let stored, stored.shared == shared {
            let tag = try keepPersonal(mine, of: existing.rowID, calendar: calendar, connection)
            // Logged as a change, so the sharee's sync sees it; the owner's ETag stays.
            try connection.run(
                "UPDATE objects SET sequence = ? WHERE id = ?",
                [.int(try bumpSequence(calendar.rowID, connection)), .integer(existing.rowID)])
            return .personal(
                etag: Self.personalETag(existing.etag, tag.map { PersonalPart(data: [], tag: $0) }),
                scheduleTag: existing.scheduleTag)
        }
        var result = object
        result.calendar = PersonalData.merge(shared, stored?.personal)
        let bytes = mine == nil && stored?.personal == nil ? data : result.calendar.serialized()
        return .content(result, data: bytes, personal: mine)
    }

    /// Keeps `personal` as this user's parts of object `rowID` (removes them when nil) and
    /// returns their new tag.
    @discardableResult
    func keepPersonal(_ personal: Component?, of rowID: Int64, calendar: CalendarRow, _ connection: Connection)
        throws(StoreError) -> String?
    {
        guard let personal else {
            try connection.run(
                "DELETE FROM personal_data WHERE object_id = ? AND user_id = ?", [.integer(rowID), .integer(userID)])
            return nil
        }
        let data = personal.serialized()
        try checkPersonalRoom(for: data.count, replacing: rowID, connection)
        let tag = Identifiers.randomHex(bytes: 6)
        try connection.run(
            """
            INSERT INTO personal_data (object_id, calendar_id, user_id, data, tag) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (object_id, user_id) DO UPDATE SET data = excluded.data, tag = excluded.tag
            """,
            [.integer(rowID), .integer(calendar.rowID), .integer(userID), .blob(data), .text(tag)])
        return tag
    }

    /// Refuses (507) a sharee's parts of one object past ``PersonalData/maxBytes``, and
    /// parts that would take what the user keeps (their own calendars' objects and their
    /// parts of others') past the backend's byte quota. The owner's quota counts only the
    /// shared object itself.
    func checkPersonalRoom(for count: Int, replacing rowID: Int64, _ connection: Connection) throws(StoreError) {
        guard count <= PersonalData.maxBytes else {
            throw StoreError(
                .insufficientStorage,
                "your own alarms and transparency on one shared object are at most \(PersonalData.maxBytes) bytes; these are \(count)"
            )
        }
        guard let limit = try backend.quota(of: userID, connection).maxBytes else { return }
        let personal = try personalBytes(of: userID, besides: rowID, connection)
        let owned =
            try connection.firstRow(
                "SELECT CAST(coalesce(sum(object_bytes), 0) AS BIGINT) FROM calendars WHERE owner_id = ?",
                [.integer(userID)]
            ) { $0.int(0) } ?? 0
        if owned + personal + count > limit {
            throw StoreError(
                .insufficientStorage,
                "this account keeps \(owned + personal) bytes (its calendars and its own alarms on shared ones); these \(count) would pass its quota of \(limit) bytes"
            )
        }
    }

    /// The bytes `user` keeps as their parts of shared objects (but those of object
    /// `excluded`, about to be replaced).
    func personalBytes(of user: Int64, besides excluded: Int64 = 0, _ connection: Connection) throws(StoreError) -> Int
    {
        // Cast: PostgreSQL sums bigints as numeric.
        try connection.firstRow(
            """
            SELECT CAST(coalesce(sum(length(p.data)), 0) AS BIGINT) FROM grants g
            JOIN personal_data p ON p.calendar_id = g.calendar_id AND p.user_id = g.user_id
            WHERE g.user_id = ? AND p.object_id <> ?
            """,
            [.integer(user), .integer(excluded)]
        ) { $0.int(0) } ?? 0
    }
}
