import Recurrence

// Reading calendar object resources: by name, all of a calendar, by time range.
extension DatabaseEventStore {
    /// The resource at `name` with its bytes, as this user sees it (a sharee's own alarms and ETag);
    /// `notFound` when there is none.
    public func resource(named name: String, calendar: some CalendarReference) throws(StoreError) -> StoredResource {
        try database.read { (connection) throws(StoreError) -> StoredResource in
            let row = try calendarRow(calendar, connection, write: false)
            guard var object = try object(named: name, in: row, connection) else {
                throw StoreError(.notFound, "no resource \(name)", resource: name)
            }
            object = personalized(object, in: row, try personalParts(in: row, object: object.rowID, connection))
            return StoredResource(
                name: object.name, etag: object.etag, componentType: object.componentType, uid: object.uid,
                data: object.data,
                localIdentifier: object.identifier, lastModified: object.modified, scheduleTag: object.scheduleTag)
        }
    }

    /// See ``EventStore/resources(calendar:)``; each ETag as this user sees it.
    public func resources(calendar: some CalendarReference) throws(StoreError) -> [ResourceInfo] {
        try database.read { (connection) throws(StoreError) -> [ResourceInfo] in
            let row = try calendarRow(calendar, connection, write: false)
            let parts = try personalParts(in: row, connection)
            return try listing(in: row, names: nil, connection).map { listed in
                Self.personalized(listed.info, rowID: listed.rowID, parts)
            }
        }
    }

    /// See ``EventStore/resources(overlapping:componentType:calendar:)``; each ETag as this user sees it.
    public func resources(overlapping range: TimeRange, componentType: ComponentType, calendar: some CalendarReference)
        throws(StoreError) -> [ResourceInfo]
    {
        try database.read { (connection) throws(StoreError) -> [ResourceInfo] in
            let row = try calendarRow(calendar, connection, write: false)
            let parts = try personalParts(in: row, connection)
            return try listing(
                overlapping: range, types: [componentType], in: row, zone: try viewerZone(nil, calendar: row),
                connection
            ).map { Self.personalized($0.info, rowID: $0.rowID, parts) }
        }
    }

    /// See ``EventStore/resources(named:calendar:)``; each as this user sees it.
    public func resources(named names: [String], calendar: some CalendarReference) throws(StoreError)
        -> [StoredResource]
    {
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
            let parts = try personalParts(in: row, connection)
            for name in names {
                guard let found = found[name] else { continue }
                let object = personalized(found, in: row, parts)
                result.append(
                    StoredResource(
                        name: object.name, etag: object.etag, componentType: object.componentType, uid: object.uid,
                        data: object.data,
                        localIdentifier: object.identifier, lastModified: object.modified,
                        scheduleTag: object.scheduleTag))
            }
            return result
        }
    }
}
