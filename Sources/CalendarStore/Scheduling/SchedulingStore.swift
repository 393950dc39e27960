/// One iTIP message in a user's scheduling inbox (RFC 6638 §2.2): what was delivered
/// to them — an invitation, a cancellation, an answer to their own invitation.
public struct InboxMessage: Sendable, Hashable {
    /// Its resource name in the inbox collection.
    public var name: String
    /// The UID of the scheduling object it is about.
    public var uid: String
    /// REQUEST, CANCEL or REPLY.
    public var method: String
    /// The calendar user address it came from.
    public var sender: String?
    /// The message as delivered: an iCalendar object with its METHOD.
    public var data: [UInt8]
    /// Unix seconds.
    public var created: Int

    /// A strong ETag: a message never changes once delivered.
    public var etag: String { "\"\(name)-\(created)\"" }
}

/// A message of an inbox as a listing names it, without its bytes.
public struct InboxEntry: Sendable, Hashable {
    /// Its resource name in the inbox collection.
    public var name: String
    /// REQUEST, CANCEL or REPLY.
    public var method: String
    /// The message's length in bytes.
    public var size: Int
    /// Unix seconds.
    public var created: Int
}

/// The scheduling side of the store: users' inboxes, and finding a user's copy of a
/// scheduling object and the calendar invitations land in. The rules of who is sent
/// what live above the store (the `Scheduling` module's agent); this only keeps it.
public protocol SchedulingStore: Sendable {
    /// Delivers a message to `user`'s inbox; past ``maxInboxMessages`` the oldest go.
    func deliver(_ data: [UInt8], uid: String, method: String, sender: String?, to user: String, now: Int)
        throws(StoreError) -> InboxMessage
    /// The user's inbox, oldest first.
    func inbox(of user: String) throws(StoreError) -> [InboxMessage]
    /// The user's inbox without the messages' bytes, oldest first (a listing, a CTag).
    func inboxEntries(of user: String) throws(StoreError) -> [InboxEntry]
    /// The user's messages about `uid` of one `method` (COUNTER: the proposals), oldest first.
    func inbox(of user: String, uid: String, method: String) throws(StoreError) -> [InboxMessage]
    /// One message of the user's inbox, by name, or nil.
    func inboxMessage(named name: String, of user: String) throws(StoreError) -> InboxMessage?
    /// Removes a message (a client processed it).
    func removeInboxMessage(named name: String, of user: String) throws(StoreError)
    /// What changed in `user`'s inbox since `token` (an initial sync, listing every message,
    /// when nil), in change order: the messages delivered and the names removed since. A
    /// token of another collection, or older than the removals the inbox remembers, is
    /// ``StoreError/Code/invalidSyncToken``.
    func inboxChanges(of user: String, since token: SyncToken?) throws(StoreError) -> InboxChanges
    /// `user`'s inbox's sync token now (its CTag too).
    func inboxSyncToken(of user: String) throws(StoreError) -> SyncToken
}

/// What changed in an inbox since a sync token (RFC 6578 on the schedule inbox).
public struct InboxChanges: Sendable, Hashable {
    /// A message delivered since the token, or removed since it.
    public struct Change: Sendable, Hashable {
        /// The message's resource name in the inbox.
        public var name: String
        /// The inbox's change sequence of the delivery or removal.
        public var sequence: Int
        /// Whether the message was removed (else delivered).
        public var isRemoved: Bool
    }

    /// Oldest first.
    public var changes: [Change]
    /// The inbox's token now.
    public var token: SyncToken

    /// The token of inboxes: their own collection name in ``SyncToken``.
    public static let collection = "inbox"
}

extension SchedulingStore {
    /// The most messages an inbox keeps.
    public static var maxInboxMessages: Int { 1_000 }
}

extension EventStore {
    /// The calendar scheduling messages land in for this user (`schedule-default-calendar-URL`):
    /// their first own calendar that holds events (by order, then title), made ("Calendar")
    /// when they have none.
    public func defaultSchedulingCalendar() throws(StoreError) -> EventCalendar {
        let own = try calendars().filter {
            $0.access == nil && $0.subscriptionURL == nil && $0.componentTypes.contains(.event)
        }
        if let first = own.first { return first }
        guard let made = try calendar(titled: "Calendar", createIfMissing: true) else {
            throw StoreError(.database, "the default calendar was not made")
        }
        return made
    }
}

/// Resource names for objects the server writes on a user's behalf.
public enum ResourceNames {
    /// The name an object with this UID gets: the UID when it is a safe path segment,
    /// else one derived from it.
    public static func forUID(_ uid: String) -> String { Identifiers.resourceName(forUID: uid) }
}
