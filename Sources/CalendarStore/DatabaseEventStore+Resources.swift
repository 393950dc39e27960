import Recurrence

// Reading calendar object resources: by name, all of a calendar, by time range.
extension DatabaseEventStore {
    public func resource(named name: String, calendar: String) throws(StoreError) -> StoredResource {
        try database.read { (connection) throws(StoreError) -> StoredResource in
            let row = try calendarRow(calendar, connection, write: false)
            guard let object = try object(named: name, in: row, connection) else {
                throw StoreError(.notFound, "no resource \(name)", resource: name)
            }
            return StoredResource(
                name: object.name, etag: object.etag, componentType: object.componentType, uid: object.uid,
                data: object.data,
                localIdentifier: object.identifier, lastModified: object.modified)
        }
    }

    public func resources(calendar: String) throws(StoreError) -> [ResourceInfo] {
        try database.read { (connection) throws(StoreError) -> [ResourceInfo] in
            let row = try calendarRow(calendar, connection, write: false)
            return try connection.rows(
                "SELECT name, etag, component, identifier, size, modified FROM objects WHERE calendar_id = ? ORDER BY name",
                [.integer(row.rowID)]
            ) { object in
                ResourceInfo(
                    name: object.string(0), etag: object.string(1),
                    componentType: ComponentType(rawValue: object.string(2)) ?? .event,
                    localIdentifier: object.string(3), size: object.int(4), lastModified: object.int(5))
            }
        }
    }

    public func resources(overlapping range: TimeRange, componentType: ComponentType, calendar: String)
        throws(StoreError) -> [ResourceInfo]
    {
        try database.read { (connection) throws(StoreError) -> [ResourceInfo] in
            let row = try calendarRow(calendar, connection, write: false)
            let zone = try viewerZone(nil, calendar: row)
            var result: [ResourceInfo] = []
            var budget = backend.expansionBudget
            for candidate in try candidates(in: row, from: range.start, to: range.end, connection)
            where candidate.componentType == componentType {
                // A one-off object answers from its row; a series stops at its first instance in range.
                if let single = candidate.single {
                    guard
                        OccurrenceTime.overlaps(
                            start: single.start, end: single.end, from: range.start, to: range.end, in: zone)
                    else { continue }
                } else {
                    let series = try cachedSeries(id: candidate.rowID, etag: candidate.etag, connection)
                    let found = series.prepared.expand(
                        from: range.start, to: range.end, viewerZone: zone, limit: 1, budget: &budget)
                    if budget.isSpent { throw Self.budgetSpent }
                    // A series a bound stopped before its first instance here may still have one:
                    // listing it loses nothing (the client reads its data), leaving it out would hide it.
                    guard !found.occurrences.isEmpty || !found.isComplete else { continue }
                }
                result.append(
                    ResourceInfo(
                        name: candidate.name, etag: candidate.etag, componentType: candidate.componentType,
                        localIdentifier: candidate.identifier,
                        size: candidate.size, lastModified: candidate.modified))
            }
            return result.sorted { $0.name < $1.name }
        }
    }

    public func resources(named names: [String], calendar: String) throws(StoreError) -> [StoredResource] {
        try database.read { (connection) throws(StoreError) -> [StoredResource] in
            let row = try calendarRow(calendar, connection, write: false)
            var result: [StoredResource] = []
            result.reserveCapacity(names.count)
            var found: [String: ObjectRow] = [:]
            switch connection.dialect {
            case .sqlite:
                // In process, a cached statement per name costs what a batch would.
                for name in Set(names) { found[name] = try object(named: name, in: row, connection) }
            case .postgres:
                // One round trip for the lot: the names as one text[] parameter.
                try connection.forEachRow(
                    Self.objectColumns + " WHERE o.calendar_id = ? AND o.name = ANY(CAST(? AS TEXT[]))",
                    [.integer(row.rowID), .text(SQLArray.literal(Set(names)))]
                ) { found[$0.string(3)] = objectRow($0) }
            }
            for name in names {
                guard let object = found[name] else { continue }
                result.append(
                    StoredResource(
                        name: object.name, etag: object.etag, componentType: object.componentType, uid: object.uid,
                        data: object.data,
                        localIdentifier: object.identifier, lastModified: object.modified))
            }
            return result
        }
    }
}
