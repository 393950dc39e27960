/// Copies a whole store between databases (SQLite to PostgreSQL, or back), row for
/// row: identifiers, ETags, change sequences, tombstones, tokens and sessions stay
/// as they were, so clients syncing with the old server go on with the new one
/// without noticing.
extension DatabaseBackend {
    /// What a copy moved, table by table, and how it was verified.
    public struct CopyReport: Sendable, Equatable {
        /// The rows copied of one table.
        public struct TableCount: Sendable, Equatable {
            /// The table's name.
            public var table: String
            /// How many rows were copied.
            public var count: Int
        }

        /// Rows copied per table, in copy order.
        public var rows: [TableCount]
        /// Objects whose (calendar, name, ETag) were compared between the two databases.
        public var verifiedObjects: Int
    }

    /// The tables in an order that satisfies their foreign keys, with the columns both
    /// databases have. `object_ranges` is rebuilt from `objects` in the target's form.
    static let copiedTables: [(name: String, columns: [String])] = [
        (
            "users",
            [
                "id", "name", "display_name", "password_hash", "created", "first_weekday", "time_zone", "role",
                "disabled", "max_objects", "max_bytes", "identity",
            ]
        ),
        (
            "calendars",
            [
                "id", "identifier", "owner_id", "name", "title", "color", "description", "time_zone", "sort_order",
                "components", "kind",
                "feed_url", "refresh_interval", "sequence", "tombstone_horizon", "created", "feed_token",
                "object_count", "object_bytes", "busy_feed_token",
            ]
        ),
        ("calendar_properties", ["calendar_id", "name", "value"]),
        ("grants", ["calendar_id", "user_id", "access", "status", "alias", "summary"]),
        ("grant_properties", ["calendar_id", "user_id", "name", "value"]),
        ("user_addresses", ["address", "user_id", "position"]),
        ("schedule_inbox", ["id", "user_id", "name", "uid", "method", "sender", "data", "created", "sequence"]),
        ("schedule_inbox_state", ["user_id", "sequence", "horizon"]),
        ("schedule_inbox_tombstones", ["user_id", "name", "sequence"]),
        (
            "feed_sources",
            [
                "id", "url", "etag", "last_modified", "data", "fetched", "next_fetch", "failures", "last_error",
                "last_status", "feed_interval", "objects",
            ]
        ),
        (
            "share_notifications",
            [
                "id", "user_id", "uid", "kind", "from_user", "calendar", "host_owner", "host_name", "title", "access",
                "status", "summary", "in_reply_to", "created",
            ]
        ),
        (
            "objects",
            [
                "id", "identifier", "calendar_id", "name", "uid", "component", "etag", "sequence", "summary",
                "first_start", "last_end",
                "recurring", "alarm_reach", "time_kind", "start_key", "end_key", "tzid", "status", "categories",
                "created", "modified", "size",
                "transparent", "created_sequence", "schedule_tag",
            ]
        ),
        ("object_data", ["id", "data", "skeleton"]),
        (
            "alarm_instances",
            [
                "id", "object_id", "recurrence_id", "alarm_uid", "repetition", "fire_at", "action", "description",
                "snooze_of", "occurrence_start", "occurrence_end", "state", "fired_at", "mail_state", "mail_lease",
                "mail_attempts",
            ]
        ),
        ("alarm_dirty", ["object_id"]),
        ("alarm_plan", ["id", "planned_until"]),
        // The server's secrets: the API cursors' MAC key, the VAPID key push services know.
        ("server_secrets", ["name", "secret"]),
        (
            "push_subscriptions",
            [
                "id", "identifier", "user_id", "calendar_id", "push_resource", "public_key", "auth_secret",
                "content_update", "property_update", "expires", "created", "failures", "last_error",
            ]
        ),
        ("push_pending", ["subscription_id", "sequence", "content", "property", "due", "lease", "attempts"]),
        ("personal_data", ["object_id", "calendar_id", "user_id", "data", "tag"]),
        ("tombstones", ["calendar_id", "name", "sequence", "identifier", "uid"]),
        (
            "api_tokens",
            [
                "id", "user_id", "secret_hash", "name", "scope", "created", "rate_limit", "expires", "kind",
                "calendars",
                "last_used",
            ]
        ),
        ("api_token_events", ["token_id", "event_identifier"]),
        ("added_marks", ["user_id", "event_identifier", "platform", "native_identifier", "added"]),
        ("sessions", ["secret_hash", "user_id", "csrf", "created", "expires"]),
        (
            "idempotency_keys",
            ["user_id", "key", "request_hash", "created", "status", "content_type", "location", "etag", "body"]
        ),
        (
            "webhooks",
            [
                "id", "identifier", "user_id", "url", "secret", "events", "all_calendars", "description", "state",
                "state_reason", "failures", "created",
            ]
        ),
        ("webhook_calendars", ["webhook_id", "calendar"]),
        (
            "webhook_deliveries",
            [
                "id", "identifier", "webhook_id", "calendar", "type", "sequence", "event_identifier", "uid", "etag",
                "resource", "recurrence_id", "span", "occurred", "state", "attempts", "last_status", "last_error",
                "finished", "booking", "detail",
            ]
        ),
        ("webhook_queues", ["webhook_id", "calendar", "next_attempt", "lease_until", "lease_owner"]),
        ("webhook_attempts", ["id", "webhook_id", "delivery", "type", "at", "status", "error", "duration"]),
        (
            "availability_schedules",
            ["id", "identifier", "user_id", "title", "data", "is_default", "created", "modified"]
        ),
        (
            "booking_types",
            [
                "id", "identifier", "user_id", "slug", "title", "description", "location", "durations", "calendar",
                "busy_calendars", "schedule", "buffer_before", "buffer_after", "notice", "window_days", "step",
                "daily_limit", "weekly_limit", "capacity", "class_event", "waitlist", "hold_seconds", "hosts",
                "group_mode", "group_minimum", "all_day_busy", "host_notice", "created", "modified",
            ]
        ),
        ("booking_holds", ["id", "identifier", "type_id", "starts", "ends", "recurrence_id", "hosts", "expires"]),
        (
            "bookings",
            [
                "id", "identifier", "type_id", "calendar", "event_identifier", "recurrence_id", "starts", "ends",
                "name", "email", "note", "status", "hosts", "events", "cancel_token", "reschedule_token", "created",
                "modified", "time_zone", "sequence",
            ]
        ),
    ]

    /// Copies everything in this store into `target`, which must hold no users, in one
    /// transaction on the target (so a failed copy leaves it empty) from one snapshot
    /// of this store (so writes during the copy are either wholly in it or not at all).
    /// Then compares row counts and every object's calendar, name and ETag.
    public func copy(to target: DatabaseBackend) throws(StoreError) -> CopyReport {
        guard try target.users().isEmpty else {
            throw StoreError(
                .alreadyExists, "the target database \(target.location) already holds users; copy into an empty one")
        }
        let sourceDatabase = database
        let targetDatabase = target.database
        var report = try sourceDatabase.read { (source) throws(StoreError) -> CopyReport in
            try targetDatabase.write { (destination) throws(StoreError) -> CopyReport in
                var rows: [CopyReport.TableCount] = []
                for (table, columns) in Self.copiedTables {
                    let insert =
                        "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
                    var count = 0
                    try source.forEachRow("SELECT \(columns.joined(separator: ", ")) FROM \(table)", []) {
                        (row) throws(StoreError) in
                        try destination.run(insert, (0..<Int32(columns.count)).map { row.value($0) })
                        count += 1
                    }
                    rows.append(CopyReport.TableCount(table: table, count: count))
                }
                var ranges = 0
                try source.forEachRow("SELECT id, calendar_id, first_start, last_end FROM objects", []) {
                    (row) throws(StoreError) in
                    try destination.run(
                        IntervalIndex.upsert(destination.dialect),
                        [
                            .integer(row.int64(0)), .integer(row.int64(1)), .integer(row.int64(1)),
                            .int(IntervalIndex.lowerMinute(row.int(2))),
                            .int(IntervalIndex.upperMinute(row.optionalInt(3))),
                        ])
                    ranges += 1
                }
                rows.append(CopyReport.TableCount(table: "object_ranges", count: ranges))
                if destination.dialect == .postgres {
                    // Rows came with their ids: new rows must be numbered after them.
                    for table in [
                        "users", "calendars", "objects", "webhooks", "webhook_deliveries", "webhook_attempts",
                        "availability_schedules", "booking_types", "booking_holds", "bookings", "share_notifications",
                        "feed_sources", "alarm_instances",
                    ] {
                        try destination.run(
                            "SELECT setval(pg_get_serial_sequence('\(table)', 'id'), (SELECT COALESCE(max(id), 0) + 1 FROM \(table)), false)"
                        )
                    }
                }
                return CopyReport(rows: rows, verifiedObjects: 0)
            }
        }
        report.verifiedObjects = try verifyCopy(report, in: target)
        return report
    }

    /// Compares the target's row counts with the copy's, and every object's calendar,
    /// name and ETag with this store's; returns how many objects matched.
    private func verifyCopy(_ report: CopyReport, in target: DatabaseBackend) throws(StoreError) -> Int {
        for copied in report.rows {
            let found = try target.database.read { (connection) throws(StoreError) -> Int in
                try connection.firstRow("SELECT count(*) FROM \(copied.table)") { $0.int(0) } ?? 0
            }
            guard found == copied.count else {
                throw StoreError(
                    .database,
                    "the copy of \(copied.table) has \(found) rows in \(target.location), not \(copied.count)")
            }
        }
        let listing =
            "SELECT c.identifier, o.name, o.etag FROM objects o JOIN calendars c ON c.id = o.calendar_id ORDER BY c.identifier, o.name"
        func objects(_ backend: DatabaseBackend) throws(StoreError) -> [String] {
            try backend.database.read { (connection) throws(StoreError) -> [String] in
                try connection.rows(listing) { "\($0.string(0))/\($0.string(1)) \($0.string(2))" }
            }
        }
        let mine = try objects(self)
        let theirs = try objects(target)
        guard mine == theirs else {
            let missing = Set(mine).subtracting(theirs).sorted().prefix(3)
            throw StoreError(
                .database,
                "the copied objects differ from the originals (for example \(missing.joined(separator: ", ")))")
        }
        return mine.count
    }
}
