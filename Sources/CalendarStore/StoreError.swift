import ICalendar

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a store operation failed: what kind of failure, a sentence for people,
/// and the context that helps a caller map it (the resource, the SQL, the
/// iCalendar diagnostic).
///
/// Every failing write leaves the store as it was: operations run in one
/// transaction that rolls back on any error.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure. The raw values are stable; later layers map them
    /// to HTTP statuses and DAV preconditions.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// No such calendar, event, resource or user (or not visible to this user).
        case notFound
        /// The caller may see the calendar but not change it, or may not see it at all.
        case forbidden
        /// An `ifMatch` / `ifNoneMatch` precondition failed (HTTP 412).
        case preconditionFailed
        /// Another resource of the calendar has this UID (CalDAV `no-uid-conflict`).
        case uidConflict
        /// The iCalendar data is malformed or not valid iCalendar (CalDAV `valid-calendar-data`).
        case invalidCalendarData
        /// Valid iCalendar that breaks a calendar object resource's rules (RFC 4791 §4.1:
        /// one VCALENDAR, one component type, one UID, one master, no METHOD; CalDAV
        /// `valid-calendar-object-resource`).
        case invalidCalendarObject
        /// The calendar does not accept this component type (CalDAV `supported-calendar-component`).
        case unsupportedComponent
        /// A sync token this calendar never issued, or one whose tombstones were pruned
        /// (CalDAV `valid-sync-token`, HTTP 403).
        case invalidSyncToken
        /// An argument out of range: an empty title, an interval that ends before it starts.
        case invalidArgument
        /// The answer would expand more recurrence than one request may, or a series a
        /// bound of expansion cut holds what it would need (``ExpansionBudget``): the same
        /// question over a shorter range or fewer calendars is answered (CalDAV
        /// `DAV:number-of-matches-within-limits`, the API's `range-too-long`).
        case expansionLimit
        /// A name or title already taken where it must be unique.
        case alreadyExists
        /// The slot or seat asked for is no longer free (booked, held or full): HTTP 409.
        case slotTaken
        /// The database or the file system failed, or PostgreSQL is unreachable (HTTP 503);
        /// `sqliteCode` or `sqlState`, and `sql`, say where.
        case database
        /// The write would pass the user's quota, or the disk is full (HTTP 507). Nothing
        /// was written; reads go on working, and writes work again once there is room.
        case insufficientStorage
    }

    /// What went wrong, stable across versions (the HTTP layers map it to a status).
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The resource or object involved, if any (a CalDAV resource name, an event identifier).
    public var resource: String?
    /// For `uidConflict`: the name of the resource that already holds the UID.
    public var conflictingResource: String?
    /// For `invalidCalendarData`: the parser's diagnostic, with its line.
    public var diagnostic: ICalendarError?
    /// For `database`: SQLite's extended result code.
    public var sqliteCode: Int32?
    /// For `database` on PostgreSQL: the SQLSTATE (`40001` a serialization failure,
    /// `08006` a lost connection).
    public var sqlState: String?
    /// For `database`: the statement that failed.
    public var sql: String?

    /// An error of `code`; the other fields say more where the code calls for it.
    public init(
        _ code: Code, _ message: String, resource: String? = nil, conflictingResource: String? = nil,
        diagnostic: ICalendarError? = nil, sqliteCode: Int32? = nil, sqlState: String? = nil, sql: String? = nil
    ) {
        self.code = code
        self.message = message
        self.resource = resource
        self.conflictingResource = conflictingResource
        self.diagnostic = diagnostic
        self.sqliteCode = sqliteCode
        self.sqlState = sqlState
        self.sql = sql
    }

    static func invalidData(_ error: ICalendarError, resource: String? = nil) -> StoreError {
        StoreError(.invalidCalendarData, error.description, resource: resource, diagnostic: error)
    }

    /// `message (resource NAME) [code]`.
    public var description: String {
        var text = message
        if let resource { text += " (resource \(resource))" }
        if let sqliteCode { text += " (SQLite code \(sqliteCode))" }
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        return text + " [\(code.rawValue)]"
    }
}

extension StoreError {
    /// Throws `preconditionFailed` unless `ifMatch` (an HTTP `If-Match` value: `*`, or
    /// one or more quoted ETags separated by commas) matches `current`. Nil matches anything.
    static func checkIfMatch(_ ifMatch: String?, current: String, resource: String) throws(StoreError) {
        func trimmed(_ text: Substring) -> Substring {
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            let start = text.drop(while: blank)
            return start[..<(start.lastIndex { !blank($0) }.map(start.index(after:)) ?? start.startIndex)]
        }
        guard let ifMatch, trimmed(ifMatch[...]) != "*" else { return }
        guard !ifMatch.split(separator: ",").contains(where: { trimmed($0) == current }) else { return }
        throw StoreError(
            .preconditionFailed, "it has changed: its ETag is \(current), not \(ifMatch)", resource: resource)
    }
}

extension StoreError {
    /// What a client is told: the message, except for a `database` failure, where it is
    /// what to do rather than the database's own words (those are for the server's log,
    /// see ``logDetails()``).
    public var clientMessage: String {
        guard code == .database else { return message }
        return
            "the store could not complete the request and nothing was changed; try again shortly (if it goes on, the server's log says why)"
    }

    /// Writes a `database` failure's own words, and its statement, to standard error,
    /// where the operator reads them; other errors are the client's and are not logged.
    public func logDetails() {
        guard code == .database || code == .insufficientStorage else { return }
        var line = "almanac: store error: \(message)"
        if let sqliteCode { line += " (SQLite \(sqliteCode))" }
        if let sqlState { line += " (SQLSTATE \(sqlState))" }
        if let sql { line += " in: \(sql.prefix(200))" }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
