import ICalendar

// Importing many objects at once: parsed and indexed on every core, written under one lock.
extension DatabaseEventStore {
    /// See ``EventStore/importResources(_:calendar:)``; parsed on every core, written under one lock.
    public func importResources(_ objects: [[UInt8]], calendar: String) throws(StoreError) -> [Result<
        ResourceInfo, StoreError
    >] {
        // Parse and index on every core, outside the write lock; only the checks and writes hold it.
        let parsed = Parallel.map(objects) { data in
            Result { () throws(StoreError) -> (CalendarObject, CalendarObject.Summary) in
                let object = try CalendarObject(accepting: data)
                return (object, try object.summary())
            }
        }
        return try importParsed(parsed, data: objects, calendar: calendar)
    }

    /// See ``EventStore/importObjects(_:calendar:)``; the split components are checked, not parsed again.
    public func importObjects(_ objects: [CalendarFileSplitter.Object], calendar: String) throws(StoreError)
        -> [Result<ResourceInfo, StoreError>]
    {
        // The splitter's component is what its bytes serialize, so it is read, not parsed again.
        let parsed = Parallel.map(objects) { object in
            Result { () throws(StoreError) -> (CalendarObject, CalendarObject.Summary) in
                let checked = try CalendarObject(
                    document: ICalendarDocument(components: [object.calendar]), resource: nil)
                return (checked, try checked.summary())
            }
        }
        return try importParsed(parsed, data: objects.map(\.data), calendar: calendar)
    }

    func importParsed(
        _ parsed: [Result<(CalendarObject, CalendarObject.Summary), StoreError>], data objects: [[UInt8]],
        calendar: String
    ) throws(StoreError) -> [Result<ResourceInfo, StoreError>] {
        try database.write { (connection) throws(StoreError) -> [Result<ResourceInfo, StoreError>] in
            let row = try calendarRow(calendar, connection, write: true)
            var sequence = row.calendar.syncToken.sequence
            var results: [Result<ResourceInfo, StoreError>] = []
            results.reserveCapacity(objects.count)
            var claimed: [String: String] = [:]
            for (candidate, data) in zip(parsed, objects) {
                // A refused object is refused by its checks, before anything is written, so
                // the others go on; a database failure while writing aborts the whole batch.
                let checked: CheckedWrite
                do throws(StoreError) {
                    let object: CalendarObject
                    let summary: CalendarObject.Summary
                    switch candidate {
                    case .success(let value): (object, summary) = value
                    case .failure(let error): throw error
                    }
                    var name = try connection.firstRow(
                        "SELECT name FROM objects WHERE calendar_id = ? AND uid = ?",
                        [.integer(row.rowID), .text(object.uid)], { $0.string(0) })
                    if name == nil { name = claimed[object.uid] ?? Identifiers.resourceName(forUID: object.uid) }
                    checked = try checkWrite(
                        object, summary: summary, data: data, name: name!, calendar: row, ifMatch: nil,
                        ifNoneMatch: false, connection)
                } catch {
                    results.append(.failure(error))
                    continue
                }
                claimed[checked.object.uid] = checked.name
                sequence += 1
                let written = try performWrite(checked, calendar: row, sequence: sequence, connection)
                results.append(
                    .success(
                        ResourceInfo(
                            name: written.name, etag: written.etag, componentType: written.componentType,
                            localIdentifier: written.identifier,
                            size: written.data.count, lastModified: written.modified)))
            }
            try connection.run("UPDATE calendars SET sequence = ? WHERE id = ?", [.int(sequence), .integer(row.rowID)])
            return results
        }
    }
}
