/// Which of a calendar's secret feeds: the events (`/feeds/<token>.ics`) or only the
/// busy time, opaque blocks without titles (`/feeds/<token>-busy.ics`).
public enum FeedKind: String, Sendable, Hashable {
    case events
    case freeBusy = "free-busy"

    /// What follows the token in the feed's file name, before `.ics` (a token is hex, so
    /// never ends in the busy feed's suffix).
    public var fileSuffix: String { self == .events ? "" : "-busy" }
}

/// A calendar's share with one user, as its owner sees it.
public struct CalendarShare: Sendable, Hashable {
    /// Where the share stands: waiting for the sharee, in effect, or refused.
    public enum Status: String, Sendable, Hashable {
        case invited
        case accepted
        case declined
    }

    /// The sharee's user name.
    public var user: String
    public var displayName: String?
    public var access: Access
    public var status: Status
    /// The note the owner sent with the share.
    public var summary: String?
}

/// A note to a user about sharing (the CalendarServer sharing protocol's notifications):
/// an invitation to a calendar, a sharee's answer to one, or a share taken away.
public struct SharingNotification: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// To a sharee: an invitation, or a change of its access.
        case invite
        /// To an owner: a sharee accepted or declined.
        case reply
        /// To a sharee: the owner stopped sharing the calendar.
        case removed
    }

    /// Unique among the user's notifications; a reply names the invitation's in `inReplyTo`.
    public var uid: String
    public var kind: Kind
    /// Unix seconds.
    public var created: Int
    /// The user whose act it tells of: the owner of an invitation, the sharee of a reply.
    public var from: String
    /// The calendar's identifier.
    public var calendar: String
    /// The calendar's owner and collection name in their home (the CalDAV `hosturl`).
    public var hostOwner: String
    public var hostName: String
    /// The calendar's title when the note was written.
    public var title: String
    public var access: Access?
    public var status: CalendarShare.Status
    public var summary: String?
    public var inReplyTo: String?
}

extension EventStore {
    /// Shares a calendar at once, or (nil) stops sharing it: ``share(calendar:with:access:invite:summary:)``
    /// without an invitation.
    public func share(calendar identifier: String, with user: String, access: Access?) throws(StoreError) {
        try share(calendar: identifier, with: user, access: access, invite: false, summary: nil)
    }

    /// Sets (or revokes) the token of a calendar's events feed.
    public func setFeedToken(_ token: String?, calendar identifier: String) throws(StoreError) -> EventCalendar {
        try setFeedToken(token, for: .events, calendar: identifier)
    }
}
