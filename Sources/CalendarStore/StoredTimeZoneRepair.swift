import Recurrence

// Healing what earlier versions stored: repairs that run once per database, when it is
// opened after an upgrade, through the ordinary write path (new ETags, sync changes).
extension DatabaseBackend {
    /// The repair that rewrites the VTIMEZONEs earlier versions wrote (their observances'
    /// first onsets only as DTSTART, which Thunderbird's ical.js does not read) in
    /// ``VTimeZone/component(for:from:to:)``'s form. A row of `store_repairs` while due.
    static let timeZoneRepair = "vtimezone-rdate-form"

    /// Runs the repairs still due. An object that changes meanwhile (its ETag moved) or
    /// that its calendar refuses is left as it is; the repair is marked done once every
    /// object was seen. Returns how many objects were rewritten.
    @discardableResult
    func runStoreRepairs(batchSize: Int = 200) throws(StoreError) -> Int {
        let due = try database.read { (connection) throws(StoreError) -> Bool in
            try connection.firstRow(
                "SELECT 1 FROM store_repairs WHERE name = ?", [.text(Self.timeZoneRepair)], { _ in true }) ?? false
        }
        guard due else { return 0 }
        struct Candidate {
            var owner: String
            var calendar: String
            var name: String
            var etag: String
            var healed: [UInt8]
        }
        var after: Int64 = 0
        var rewritten = 0
        while true {
            let (last, candidates) = try database.read {
                (connection) throws(StoreError) -> (Int64?, [Candidate]) in
                var last: Int64?
                var found: [Candidate] = []
                try connection.forEachRow(
                    """
                    SELECT o.id, u.name, c.identifier, o.name, o.etag, d.data FROM objects o
                    JOIN object_data d ON d.id = o.id JOIN calendars c ON c.id = o.calendar_id
                    JOIN users u ON u.id = c.owner_id
                    WHERE o.id > ? ORDER BY o.id LIMIT ?
                    """, [.integer(after), .int(batchSize)]
                ) { (row) throws(StoreError) in
                    last = row.int64(0)
                    let data = row.bytes(5)
                    guard let healed = VTimeZone.replacingEarlierForms(in: data) else { return }
                    found.append(
                        Candidate(
                            owner: row.string(1), calendar: row.string(2), name: row.string(3), etag: row.string(4),
                            healed: healed))
                }
                return (last, found)
            }
            for candidate in candidates {
                do {
                    _ = try databaseStore(for: candidate.owner).writeResource(
                        candidate.healed, name: candidate.name, calendar: candidate.calendar, ifMatch: candidate.etag,
                        ifNoneMatch: false)
                    rewritten += 1
                } catch {
                    // Changed since it was read, or refused by its calendar: the bytes stay.
                }
            }
            guard let last else { break }
            after = last
        }
        try database.write { (connection) throws(StoreError) in
            _ = try connection.run("DELETE FROM store_repairs WHERE name = ?", [.text(Self.timeZoneRepair)])
        }
        return rewritten
    }
}
