/// Which of a calendar's secret feeds: the events (`/feeds/<token>.ics`) or only the
/// busy time, opaque blocks without titles (`/feeds/<token>-busy.ics`).
public enum FeedKind: String, Sendable, Hashable {
    /// The calendar's events, as iCalendar (`/feeds/<token>.ics`).
    case events
    /// Only its busy time, as opaque blocks (`/feeds/<token>-busy.ics`).
    case freeBusy = "free-busy"

    /// What follows the token in the feed's file name, before `.ics` (a token is hex, so
    /// never ends in the busy feed's suffix).
    public var fileSuffix: String { self == .events ? "" : "-busy" }
}

/// A calendar's share with one user, as its owner sees it.
public struct CalendarShare: Sendable, Hashable {
    /// Where the share stands: waiting for the sharee, in effect, or refused.
    public enum Status: String, Sendable, Hashable {
        /// Waiting for the sharee's answer; not in their calendars yet.
        case invited
        /// In effect: the calendar is among the sharee's.
        case accepted
        /// Refused or left by the sharee; sharing again makes it an invitation.
        case declined
    }

    /// The sharee's user name.
    public var user: String
    /// The sharee's display name; nil when they have none.
    public var displayName: String?
    /// What the sharee may do with the calendar.
    public var access: Access
    /// Whether the share waits for the sharee, is in effect or was refused.
    public var status: Status
    /// The note the owner sent with the share.
    public var summary: String?
}

/// A note to a user about sharing (the CalendarServer sharing protocol's notifications):
/// an invitation to a calendar, a sharee's answer to one, or a share taken away.
public struct SharingNotification: Sendable, Hashable {
    /// What a sharing note tells of.
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
    /// Whether it is an invitation, an answer or a removed share.
    public var kind: Kind
    /// Unix seconds.
    public var created: Int
    /// The user whose act it tells of: the owner of an invitation, the sharee of a reply.
    public var from: String
    /// The calendar's identifier.
    public var calendar: String
    /// The calendar's owner and collection name in their home (the CalDAV `hosturl`).
    public var hostOwner: String
    /// The calendar's collection name in its owner's home.
    public var hostName: String
    /// The calendar's title when the note was written.
    public var title: String
    /// The access an invitation offers, or the sharee has when they answer; nil for a removed share.
    public var access: Access?
    /// The share's status: an invitation's (kept up to date as the sharee answers), the answer of a reply,
    /// or what a removed share had.
    public var status: CalendarShare.Status
    /// The note the owner sent with an invitation; nil otherwise.
    public var summary: String?
    /// For a reply: the uid of the invitation it answers; nil otherwise.
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
