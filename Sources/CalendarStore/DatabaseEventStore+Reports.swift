import CivilTime
import ICalendar
import Recurrence

// Reports: the resources of one calendar a query selects, with their bytes or their
// instances, in one read transaction (a CalDAV calendar-query or multiget).
extension DatabaseEventStore {
    /// A selected object: its row and its listing.
    struct Listed {
        var rowID: Int64
        var info: ResourceInfo
    }

    /// See ``EventStore/report(_:content:calendar:)``; floating times are read in the query's zone,
    /// else the calendar's.
    public func report(_ query: ResourceQuery, content: ResourceContent, calendar: some CalendarReference)
        throws(StoreError) -> ResourceReport
    {
        try database.read { (connection) throws(StoreError) -> ResourceReport in
            let row = try calendarRow(calendar, connection, write: false)
            let zone: ZoneRules
            if let requested = query.timeZone { zone = requested } else { zone = try viewerZone(nil, calendar: row) }
            var selected: [Listed]
            var missing: [String] = []
            if let range = query.overlapping {
                selected = try listing(overlapping: range, types: query.componentTypes, in: row, zone: zone, connection)
                if let names = query.names {
                    let wanted = Set(names)
                    selected.removeAll { !wanted.contains($0.info.name) }
                }
            } else {
                selected = try listing(in: row, names: query.names, connection)
                if let types = query.componentTypes { selected.removeAll { !types.contains($0.info.componentType) } }
            }
            if let names = query.names {
                let found = Set(selected.map(\.info.name))
                missing = names.filter { !found.contains($0) }
            }
            // A sharee reads their own parts of each object, under their own ETags.
            let parts = try personalParts(in: row, connection)
            if isSharee(row) {
                selected = selected.map {
                    Listed(rowID: $0.rowID, info: Self.personalized($0.info, rowID: $0.rowID, parts))
                }
            }
            func objectData(_ ids: [Int64]) throws(StoreError) -> [Int64: [UInt8]] {
                personalized(try self.objectData(ids, connection), in: row, parts)
            }
            if let range = query.alarmsFiring {
                let firing = try events(withAlarmsFiringIn: range, calendar: row, zone: zone, connection)
                selected.removeAll { !firing.contains($0.info.localIdentifier) }
            }
            var data: [Int64: [UInt8]] = [:]
            if let predicate = query.predicate {
                data = try objectData(selected.map(\.rowID))
                // Judged on every core; the objects share the request's expansion budget (each
                // at least enough for an ordinary series), so one query's work stays bounded.
                let share = max(100_000, backend.expansionBudget.steps / max(1, selected.count))
                let objects = selected.map { data[$0.rowID] ?? [] }
                let kept = Parallel.map(objects) { bytes in
                    guard let root = try? ICalendarParser.parse(bytes, options: .lenient).components.first else {
                        return false
                    }
                    return predicate(root, share)
                }
                selected = zip(selected, kept).filter(\.1).map(\.0)
            }
            switch content {
            case .listing:
                return ResourceReport(
                    items: selected.map { .init(info: $0.info, data: nil, instances: []) }, missing: missing,
                    isTruncated: false)
            case .data:
                if query.predicate == nil { data = try objectData(selected.map(\.rowID)) }
                return ResourceReport(
                    items: selected.compactMap { listed in
                        data[listed.rowID].map { .init(info: listed.info, data: $0, instances: []) }
                    }, missing: missing, isTruncated: false)
            case .instances(let range, let limit):
                var report = try instances(of: selected, in: range, limit: limit, calendar: row, zone: zone, connection)
                report.missing = missing
                return report
            }
        }
    }

    /// The listings of a calendar's objects, by name; only those named (in that order,
    /// repeats kept) when `names` is given.
    func listing(in calendar: CalendarRow, names: [String]?, _ connection: Connection) throws(StoreError) -> [Listed] {
        let columns =
            "SELECT id, name, etag, component, identifier, size, modified, schedule_tag FROM objects WHERE calendar_id = ?"
        func listed(_ object: Row) -> Listed {
            Listed(
                rowID: object.int64(0),
                info: ResourceInfo(
                    name: object.string(1), etag: object.string(2),
                    componentType: ComponentType(rawValue: object.string(3)) ?? .event,
                    localIdentifier: object.string(4), size: object.int(5), lastModified: object.int(6),
                    scheduleTag: object.optionalString(7)))
        }
        guard let names else {
            return try connection.rows(columns + " ORDER BY name", [.integer(calendar.rowID)], listed)
        }
        var found: [String: Listed] = [:]
        switch connection.dialect {
        case .sqlite:
            // In process, a cached statement per name costs what a batch would.
            for name in Set(names) {
                found[name] = try connection.firstRow(
                    columns + " AND name = ?", [.integer(calendar.rowID), .text(name)], listed)
            }
        case .postgres:
            // One round trip for the lot: the names as one text[] parameter.
            try connection.forEachRow(
                columns + " AND name = ANY(CAST(? AS TEXT[]))",
                [.integer(calendar.rowID), .text(SQLArray.literal(Set(names)))]
            ) { found[$0.string(1)] = listed($0) }
        }
        return names.compactMap { found[$0] }
    }

    /// The listings of the objects with an instance of one of `types` (any, when nil)
    /// overlapping `range`, by name: a one-off object answers from its row, a series
    /// stops at its first instance in the range.
    func listing(
        overlapping range: TimeRange, types: Set<ComponentType>?, in calendar: CalendarRow, zone: ZoneRules,
        _ connection: Connection
    ) throws(StoreError) -> [Listed] {
        var result: [Listed] = []
        var budget = backend.expansionBudget
        for candidate in try candidates(in: calendar, from: range.start, to: range.end, connection)
        where types?.contains(candidate.componentType) ?? true {
            switch try timing(of: candidate, from: range.start, to: range.end, zone: zone, connection) {
            case nil: continue
            case .single: break
            case .series(let series):
                let found = series.prepared.expand(
                    from: range.start, to: range.end, viewerZone: zone, limit: 1, budget: &budget)
                if budget.isSpent { throw Self.budgetSpent }
                // A series a bound stopped before its first instance here may still have one:
                // listing it loses nothing (the client reads its data), leaving it out would hide it.
                guard !found.occurrences.isEmpty || !found.isComplete else { continue }
            }
            result.append(
                Listed(
                    rowID: candidate.rowID,
                    info: ResourceInfo(
                        name: candidate.name, etag: candidate.etag, componentType: candidate.componentType,
                        localIdentifier: candidate.identifier, size: candidate.size, lastModified: candidate.modified,
                        scheduleTag: candidate.scheduleTag)))
        }
        return result.sorted { $0.info.name < $1.info.name }
    }

    /// The instances of the selected objects in `range`: only they are expanded. At most
    /// `limit` in all, the earliest; past that, or after the point where a bound of
    /// expansion stopped one of them, the report says it is cut.
    func instances(
        of selected: [Listed], in range: TimeRange, limit: Int, calendar: CalendarRow, zone: ZoneRules,
        _ connection: Connection
    ) throws(StoreError) -> ResourceReport {
        let wanted = Set(selected.map(\.rowID))
        var candidates: [Int64: Candidate] = [:]
        for candidate in try self.candidates(in: calendar, from: range.start, to: range.end, connection)
        where wanted.contains(candidate.rowID) {
            candidates[candidate.rowID] = candidate
        }
        var budget = backend.expansionBudget
        var instances: [Int64: [EventOccurrence]] = [:]
        var singles: [(Candidate, Candidate.Single)] = []
        var cuts: [TruncatedEvent] = []
        for candidate in candidates.values {
            switch try timing(of: candidate, from: range.start, to: range.end, zone: zone, connection) {
            case nil: continue
            case .single(let single): singles.append((candidate, single))
            case .series(let series):
                let found = try occurrences(
                    of: candidate, series: series, calendar: calendar, from: range.start, to: range.end, zone: zone,
                    budget: &budget)
                instances[candidate.rowID] = found.occurrences
                if let cut = found.truncated { cuts.append(cut) }
            }
        }
        let data = try objectData(singles.map(\.0.rowID), connection)
        for (candidate, single) in singles {
            guard let bytes = data[candidate.rowID] else { continue }
            instances[candidate.rowID] = [
                occurrence(ofSingle: single, candidate, data: bytes, calendar: calendar, zone: zone)
            ]
        }
        // None after the point where a cut series stopped; then the earliest `limit`.
        var isTruncated = !cuts.isEmpty
        if let stop = cuts.map({ $0.lastListedStart ?? range.start }).min() {
            for key in instances.keys { instances[key]?.removeAll { $0.startInstant > stop } }
        }
        let total = instances.values.reduce(0) { $0 + $1.count }
        if total > limit {
            isTruncated = true
            let starts = instances.values.flatMap { $0.map(\.startInstant) }.sorted()
            let last = starts[max(0, limit - 1)]
            // Those starting before the limit's last start stay, then as many at it as fit.
            var room = limit - starts.prefix { $0 < last }.count
            for listed in selected {
                guard var list = instances[listed.rowID] else { continue }
                list.removeAll { occurrence in
                    if occurrence.startInstant < last { return false }
                    if occurrence.startInstant == last, room > 0 {
                        room -= 1
                        return false
                    }
                    return true
                }
                instances[listed.rowID] = list
            }
        }
        return ResourceReport(
            items: selected.map { .init(info: $0.info, data: nil, instances: instances[$0.rowID] ?? []) }, missing: [],
            isTruncated: isTruncated)
    }
}
