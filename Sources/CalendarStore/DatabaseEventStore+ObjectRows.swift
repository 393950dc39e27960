/// A stored object's row.
struct ObjectRow {
    var rowID: Int64
    var identifier: String
    var calendarRowID: Int64
    var name: String
    var uid: String
    var componentType: ComponentType
    var data: [UInt8]
    var etag: String
    var sequence: Int
    var modified: Int
    /// The Schedule-Tag of a scheduling object (RFC 6638 §3.2.10), or nil.
    var scheduleTag: String? = nil
}

extension DatabaseEventStore {
    static let objectColumns = """
        SELECT o.id, o.identifier, o.calendar_id, o.name, o.uid, o.component, d.data, o.etag, o.sequence, o.modified,
            o.schedule_tag
        FROM objects o JOIN object_data d ON d.id = o.id
        """

    func objectRow(_ row: Row) -> ObjectRow {
        ObjectRow(
            rowID: row.int64(0), identifier: row.string(1), calendarRowID: row.int64(2), name: row.string(3),
            uid: row.string(4),
            componentType: ComponentType(rawValue: row.string(5)) ?? .event, data: row.bytes(6), etag: row.string(7),
            sequence: row.int(8), modified: row.int(9), scheduleTag: row.optionalString(10))
    }

    func object(named name: String, in calendar: CalendarRow, _ connection: Connection) throws(StoreError) -> ObjectRow?
    {
        try connection.firstRow(
            Self.objectColumns + " WHERE o.calendar_id = ? AND o.name = ?", [.integer(calendar.rowID), .text(name)],
            objectRow)
    }

    /// A write that passed every check: what `performWrite` stores.
    struct CheckedWrite {
        var object: CalendarObject
        var summary: CalendarObject.Summary
        var data: [UInt8]
        var name: String
        /// The row being replaced, if any.
        var existing: (rowID: Int64, identifier: String)?
    }

    /// The row id, local identifier, ETag and size of the object at `name`, without its bytes.
    func objectHeader(named name: String, in calendar: CalendarRow, _ connection: Connection) throws(StoreError)
        -> (rowID: Int64, identifier: String, etag: String, size: Int, uid: String)?
    {
        try connection.firstRow(
            "SELECT id, identifier, etag, size, uid FROM objects WHERE calendar_id = ? AND name = ?",
            [.integer(calendar.rowID), .text(name)]
        ) { row in (row.int64(0), row.string(1), row.string(2), row.int(3), row.string(4)) }
    }
}
