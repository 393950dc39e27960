import ICalendar

/// Subscriptions on the database: `feed_sources` holds each URL's fetch state and last
/// good copy; a subscribed calendar is a `calendars` row of kind `subscription` naming
/// the URL, holding its own copy of the feed's objects (so everything a calendar
/// answers, CalDAV sync included, works on it unchanged).
struct DatabaseSubscriptionStore: SubscriptionStore {
    let backend: DatabaseBackend
    var database: any StoreDatabase { backend.database }

    /// A feed's objects, read and checked once for every subscriber.
    typealias Parsed = [(uid: String, data: [UInt8], object: CalendarObject, summary: CalendarObject.Summary)]

    static func parse(_ split: CalendarFileSplitter.Split) -> (Parsed, refused: Int) {
        let results = Parallel.map(split.objects) { object in
            Result { () throws(StoreError) -> (String, [UInt8], CalendarObject, CalendarObject.Summary) in
                let checked = try CalendarObject(
                    document: ICalendarDocument(components: [object.calendar]), resource: nil)
                return (object.uid, object.data, checked, try checked.summary())
            }
        }
        var parsed: Parsed = []
        var refused = split.rejections.count
        for result in results {
            switch result {
            case .success(let value): parsed.append(value)
            case .failure: refused += 1
            }
        }
        return (parsed, refused)
    }

    func subscribe(user: String, url: String, title: String, refreshInterval: Int?, now: Int) throws(StoreError)
        -> EventCalendar
    {
        guard let feed = FeedRules.normalized(url) else {
            throw StoreError(
                .invalidArgument,
                "a feed is an http://, https:// or webcal:// URL of at most \(FeedRules.maxURLBytes) bytes",
                resource: url)
        }
        if let refreshInterval, !(FeedRules.minimumInterval...FeedRules.maximumInterval).contains(refreshInterval) {
            throw StoreError(.invalidArgument, "a refresh interval is between 15 minutes and 7 days")
        }
        let store = try backend.databaseStore(for: user)
        let calendar = EventCalendar(
            title: title, kind: .subscription(url: feed, refreshInterval: refreshInterval ?? 0))
        try store.validate(calendar)
        // Another subscriber's last good copy fills the new calendar at once.
        let kept = try database.read { (connection) throws(StoreError) -> [UInt8]? in
            try connection.firstRow("SELECT data FROM feed_sources WHERE url = ?", [.text(feed)]) {
                $0.isNull(0) ? nil : $0.bytes(0)
            } ?? nil
        }
        let parsed = kept.flatMap { try? CalendarFileSplitter.read($0) }.map { Self.parse($0).0 }
        return try database.write { (connection) throws(StoreError) -> EventCalendar in
            // Counted in the write, the user locked: two subscribing at once cannot both pass.
            if let lock = connection.dialect.lockUser { try connection.run(lock, [.integer(store.userID)]) }
            let subscribed =
                try connection.firstRow(
                    "SELECT count(*) FROM calendars WHERE owner_id = ? AND kind = 'subscription'",
                    [.integer(store.userID)], { $0.int(0) }) ?? 0
            guard subscribed < FeedRules.maxPerUser else {
                throw StoreError(
                    .invalidArgument,
                    "\(user) subscribes to \(FeedRules.maxPerUser) calendars, the most a user may; remove one first")
            }
            let identifier = Identifiers.newUUID()
            let created = try store.insertCalendar(
                calendar, identifier: identifier, name: identifier.lowercased(), connection)
            try connection.run(
                "INSERT INTO feed_sources (url, next_fetch) VALUES (?, ?) ON CONFLICT (url) DO NOTHING",
                [.text(feed), .int(now)])
            if let parsed {
                let row = try store.calendarRow(identifier, connection, write: true, settings: true)
                _ = try store.fill(row, with: parsed, connection)
            }
            return try store.calendarRow(created.id, connection, write: false).calendar
        }
    }

    static let sourceColumns =
        "url, etag, last_modified, fetched, next_fetch, failures, last_error, last_status, feed_interval, objects"

    static func source(_ row: Row) -> FeedSource {
        FeedSource(
            url: row.string(0), etag: row.optionalString(1), lastModified: row.optionalString(2),
            fetched: row.optionalInt(3), nextFetch: row.int(4), failures: row.int(5), lastError: row.optionalString(6),
            lastStatus: row.optionalInt(7), feedInterval: row.optionalInt(8), objects: row.int(9))
    }

    func source(url: String) throws(StoreError) -> FeedSource? {
        guard let feed = FeedRules.normalized(url) else { return nil }
        return try database.read { (connection) throws(StoreError) -> FeedSource? in
            try connection.firstRow(
                "SELECT \(Self.sourceColumns) FROM feed_sources WHERE url = ?", [.text(feed)], Self.source)
        }
    }

    func claimDueFeeds(now: Int, owner: String, leaseSeconds: Int, limit: Int) throws(StoreError) -> [FeedSource] {
        try database.write { (connection) throws(StoreError) -> [FeedSource] in
            try connection.run(
                """
                DELETE FROM feed_sources WHERE NOT EXISTS
                    (SELECT 1 FROM calendars c WHERE c.kind = 'subscription' AND c.feed_url = feed_sources.url)
                """)
            var claimed = try connection.rows(
                """
                UPDATE feed_sources SET lease_until = ?1, lease_owner = ?2 WHERE id IN
                    (SELECT q.id FROM feed_sources q WHERE q.next_fetch <= ?3 AND (q.lease_until IS NULL OR q.lease_until < ?3)
                     ORDER BY q.next_fetch LIMIT ?4\(connection.dialect.skipLocked))
                RETURNING \(Self.sourceColumns)
                """, [.int(now + leaseSeconds), .text(owner), .int(now), .int(limit)], Self.source)
            for index in claimed.indices {
                claimed[index].subscribers = try connection.rows(
                    """
                    SELECT DISTINCT u.name FROM calendars c JOIN users u ON u.id = c.owner_id
                    WHERE c.kind = 'subscription' AND c.feed_url = ? ORDER BY u.name
                    """, [.text(claimed[index].url)], { $0.string(0) })
            }
            return claimed
        }
    }

    func requestRefresh(url: String, now: Int) throws(StoreError) {
        _ = try database.write { (connection) throws(StoreError) in
            try connection.run(
                """
                UPDATE feed_sources SET next_fetch = CASE WHEN fetched IS NOT NULL AND fetched + ?3 > ?1 THEN fetched + ?3
                    ELSE ?1 END WHERE url = ?2 AND next_fetch > ?1
                """, [.int(now), .text(url), .int(FeedRules.refreshSpacing)])
        }
    }

    func record(_ fetch: FeedFetch, url: String, now: Int) throws(StoreError) -> FeedSource {
        var parsed: Parsed = []
        var refused = 0
        var outcome = fetch
        if case .content(_, let split, _, _) = fetch {
            if split.objects.count > FeedRules.maxObjects {
                outcome = .failed(
                    "the feed holds \(split.objects.count) objects, more than \(FeedRules.maxObjects); its last good copy stays",
                    status: 200)
            } else {
                (parsed, refused) = Self.parse(split)
            }
        }
        return try database.write { (connection) throws(StoreError) -> FeedSource in
            guard
                let current = try connection.firstRow(
                    "SELECT \(Self.sourceColumns) FROM feed_sources WHERE url = ?", [.text(url)], Self.source)
            else { throw StoreError(.notFound, "no feed \(url) is subscribed to", resource: url) }
            let requested =
                try connection.firstRow(
                    "SELECT min(refresh_interval) FROM calendars WHERE kind = 'subscription' AND feed_url = ? AND refresh_interval > 0",
                    [.text(url)], { $0.optionalInt(0) }) ?? nil
            switch outcome {
            case .notModified:
                let interval = FeedRules.interval(requested: requested, feed: current.feedInterval)
                try connection.run(
                    """
                    UPDATE feed_sources SET fetched = ?, next_fetch = ?, failures = 0, last_error = NULL, last_status = 304,
                        lease_until = NULL, lease_owner = NULL WHERE url = ?
                    """, [.int(now), .int(now + interval), .text(url)])
            case .failed(let message, let status):
                let failures = current.failures + 1
                try connection.run(
                    """
                    UPDATE feed_sources SET next_fetch = ?, failures = ?, last_error = ?, last_status = ?, lease_until = NULL,
                        lease_owner = NULL WHERE url = ?
                    """,
                    [
                        .int(now + FeedRules.backoff(failures: failures)), .int(failures),
                        .text(String(message.prefix(500))), .optional(status), .text(url),
                    ])
            case .content(let data, let split, let etag, let lastModified):
                let interval = FeedRules.interval(requested: requested, feed: split.refreshInterval)
                var problems: [String] = []
                for subscriber in try connection.rows(
                    """
                    SELECT c.identifier, c.owner_id, u.name FROM calendars c JOIN users u ON u.id = c.owner_id
                    WHERE c.kind = 'subscription' AND c.feed_url = ? ORDER BY c.id
                    """, [.text(url)], { (identifier: $0.string(0), owner: $0.int64(1), user: $0.string(2)) })
                {
                    let store = DatabaseEventStore(backend: backend, userID: subscriber.owner, user: subscriber.user)
                    let row = try store.calendarRow(subscriber.identifier, connection, write: true, settings: true)
                    // Every subscriber reads this text: it names no one, and no one's quota.
                    if try store.fill(row, with: parsed, connection) != nil {
                        problems.append("a subscribed calendar could not take every object (its owner's quota)")
                    }
                }
                if refused > 0 {
                    problems.insert("\(refused) object\(refused == 1 ? "" : "s") of the feed could not be read", at: 0)
                }
                try connection.run(
                    """
                    UPDATE feed_sources SET etag = ?, last_modified = ?, data = ?, fetched = ?, next_fetch = ?, failures = 0,
                        last_error = ?, last_status = 200, feed_interval = ?, objects = ?, lease_until = NULL,
                        lease_owner = NULL WHERE url = ?
                    """,
                    [
                        .optional(etag), .optional(lastModified), .blob(data), .int(now), .int(now + interval),
                        problems.isEmpty ? nil : .text(String(problems.joined(separator: "; ").prefix(500))),
                        .optional(split.refreshInterval), .int(parsed.count), .text(url),
                    ])
            }
            return try connection.firstRow(
                "SELECT \(Self.sourceColumns) FROM feed_sources WHERE url = ?", [.text(url)], Self.source) ?? current
        }
    }
}

extension DatabaseEventStore {
    /// Makes a subscribed calendar hold exactly `parsed`: objects whose bytes are
    /// unchanged stay as they are, changed ones are written, those gone from the feed are
    /// deleted (with tombstones, so clients' next sync sees it). Returns why some objects
    /// could not be stored (the account's quota), or nil.
    func fill(_ row: CalendarRow, with parsed: DatabaseSubscriptionStore.Parsed, _ connection: Connection)
        throws(StoreError) -> String?
    {
        var existing: [String: ObjectRow] = [:]
        try connection.forEachRow(Self.objectColumns + " WHERE o.calendar_id = ?", [.integer(row.rowID)]) { found in
            let object = objectRow(found)
            existing[object.uid] = object
        }
        var refusal: String?
        var kept = Set<String>()
        for item in parsed {
            kept.insert(item.uid)
            let stored = existing[item.uid]
            if stored?.data == item.data { continue }
            do throws(StoreError) {
                let checked = try checkWrite(
                    item.object, summary: item.summary, data: item.data,
                    name: stored?.name ?? Identifiers.resourceName(forUID: item.uid), calendar: row, ifMatch: nil,
                    ifNoneMatch: false, connection)
                _ = try performWrite(
                    checked, calendar: row, sequence: try bumpSequence(row.rowID, connection), connection)
            } catch  where error.code != .database {
                refusal = refusal ?? error.message
            }
        }
        for (uid, object) in existing where !kept.contains(uid) {
            try deleteObject(object, calendar: row, connection)
        }
        return refusal
    }
}
