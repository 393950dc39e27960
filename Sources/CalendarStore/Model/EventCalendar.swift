import ICalendar

/// The component types a calendar can hold (CalDAV `supported-calendar-component-set`).
public enum ComponentType: String, Sendable, Hashable, CaseIterable, Codable {
    /// Events (VEVENT).
    case event = "VEVENT"
    /// To-dos (VTODO).
    case todo = "VTODO"
    /// Journal entries (VJOURNAL).
    case journal = "VJOURNAL"
}

/// A calendar: a named collection of calendar object resources owned by one user
/// (EventKit's `EKCalendar`, a CalDAV calendar collection).
///
/// The store assigns `identifier`, `name`, `owner`, `ctag` and `syncToken`; the
/// other fields are the caller's to set and save with `updateCalendar`.
public struct EventCalendar: Sendable, Hashable, Identifiable {
    /// A subscribed calendar is filled from a feed; a local one by its users.
    public enum Kind: Sendable, Hashable {
        /// Kept here: its objects are written by its owner and the users it is shared with read-write.
        case local
        /// A read-only copy of an iCalendar feed, refreshed every `refreshInterval` seconds.
        case subscription(url: String, refreshInterval: Int)
    }

    /// The store's identifier, stable for the calendar's life (a UUID string).
    public internal(set) var id: String
    /// The path segment of the calendar's collection URL in the home of the user the store
    /// acts for: unique per owner, and for a calendar shared with them the name of its share.
    public internal(set) var name: String
    /// The path segment in its owner's home (`name`, unless the calendar is shared with
    /// the user the store acts for).
    public internal(set) var ownerCollectionName: String
    /// What the user the store acts for may do with a calendar shared with them; nil for their own.
    public internal(set) var access: Access?
    /// The user who owns the calendar.
    public internal(set) var owner: String
    /// The name shown for the calendar (CalDAV `displayname`); never empty.
    public var title: String
    /// `#RRGGBB` or `#RRGGBBAA`, kept as given.
    public var color: String?
    /// Free text about the calendar (CalDAV `calendar-description`); nil for none.
    public var calendarDescription: String?
    /// The IANA zone for floating and all-day times shown from this calendar.
    public var timeZone: String?
    /// Where clients sort the calendar among the user's others (Apple `calendar-order`).
    public var order: Int
    /// The component types it holds; at least one. A resource of another type is `unsupportedComponent`.
    public var componentTypes: Set<ComponentType>
    /// Whether it is local or subscribed from a feed.
    public var kind: Kind
    /// Properties a client set that the store does not interpret (WebDAV dead
    /// properties), by Clark name (`{namespace}local-name`) to their XML value.
    public var deadProperties: [String: String]
    /// Changes whenever anything in the calendar changes (CalDAV `getctag`).
    public internal(set) var ctag: String
    /// The token that `changes(since:)` accepts to list what changed after now.
    public internal(set) var syncToken: SyncToken

    /// The feed a subscribed calendar is filled from, or nil.
    public var subscriptionURL: String? {
        if case .subscription(let url, _) = kind { url } else { nil }
    }

    /// The calendar's ETag for the JSON API: its sync token, quoted (it changes with
    /// every change in the calendar).
    public var etag: String { "\"" + syncToken.description + "\"" }
    /// The secret of the calendar's subscription feed (`/feeds/<token>.ics`), if it has one.
    public internal(set) var feedToken: String?
    /// The secret of the calendar's free-busy feed (`/feeds/<token>-busy.ics`), if it has one.
    public internal(set) var busyFeedToken: String?

    /// A calendar to create; the store-assigned fields stay empty until it is saved.
    public init(
        title: String, color: String? = nil, description: String? = nil, timeZone: String? = nil, order: Int = 0,
        componentTypes: Set<ComponentType> = [.event, .todo, .journal], kind: Kind = .local,
        deadProperties: [String: String] = [:]
    ) {
        self.id = ""
        self.name = ""
        self.ownerCollectionName = ""
        self.owner = ""
        self.title = title
        self.color = color
        self.calendarDescription = description
        self.timeZone = timeZone
        self.order = order
        self.componentTypes = componentTypes
        self.kind = kind
        self.deadProperties = deadProperties
        self.ctag = ""
        self.syncToken = SyncToken(calendar: "", sequence: 0)
    }
}

/// A point in a calendar's change history, as CalDAV sync tokens carry it.
///
/// Its text form, `almanac-sync:<calendar id>:<sequence>`, is what clients store
/// and send back.
public struct SyncToken: Sendable, Hashable, CustomStringConvertible {
    /// The identifier of the calendar the token belongs to.
    public var calendar: String
    /// The calendar's change sequence at this point; 0 before any change.
    public var sequence: Int

    /// A token for `calendar` at `sequence`.
    public init(calendar: String, sequence: Int) {
        self.calendar = calendar
        self.sequence = sequence
    }

    /// Reads the text form; nil when `text` is not a token of this shape.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "almanac-sync", let sequence = Int(parts[2]), sequence >= 0 else {
            return nil
        }
        self.init(calendar: String(parts[1]), sequence: sequence)
    }

    /// The text form, `almanac-sync:<calendar id>:<sequence>`.
    public var description: String { "almanac-sync:\(calendar):\(sequence)" }
}

/// What changed in a calendar since a sync token (RFC 6578).
public struct ChangeSet: Sendable, Hashable {
    /// One resource's change: its latest, once, at the position of its latest write or deletion.
    public struct Change: Sendable, Hashable {
        /// How a resource changed since the token.
        public enum Kind: String, Sendable, Hashable {
            /// Written since the token and absent at it (new, or deleted and written again since).
            case created
            /// Written since the token and present at it; objects stored before schema 9
            /// (which did not record when they were created) always count as present.
            case updated
            /// Deleted since the token (a tombstone).
            case deleted
        }

        /// Whether it was created, updated or deleted.
        public var kind: Kind
        /// The resource's name in the calendar.
        public var name: String
        /// The change sequence of the write or deletion (the token's position after it).
        public var sequence: Int
        /// The event's identifier (`Event.localIdentifier`) and UID; nil for a deletion
        /// recorded before schema 9, which kept only the name.
        public var eventIdentifier: String?
        /// The event's UID; nil for a deletion recorded before schema 9.
        public var uid: String?
        /// The resource as it is now; nil for a deletion.
        public var resource: ResourceInfo?
        /// Its bytes, when asked for; nil for a deletion.
        public var data: [UInt8]?

        /// Creates a change; `data` only when the bytes were asked for.
        public init(
            kind: Kind, name: String, sequence: Int, eventIdentifier: String?, uid: String?, resource: ResourceInfo?,
            data: [UInt8]? = nil
        ) {
            self.kind = kind
            self.name = name
            self.sequence = sequence
            self.eventIdentifier = eventIdentifier
            self.uid = uid
            self.resource = resource
            self.data = data
        }
    }

    /// Every change since the token, in change order.
    public var entries: [Change]
    /// The most bytes of resources one listing with their data holds (at least one
    /// resource, whatever its size): 16 MiB. Past it the listing stops at a checkpoint,
    /// as at a limit (``isTruncated``).
    public static let maxDataBytes = 16 << 20
    /// Resources written since the token, with their current ETags, in change order.
    public var changed: [ResourceInfo] { entries.compactMap(\.resource) }
    /// Names of resources deleted since the token (tombstones).
    public var deleted: [String] { entries.filter { $0.kind == .deleted }.map(\.name) }
    /// The token to send next time: the current one, or, when the listing was cut at a
    /// limit, a checkpoint just after the last change listed.
    public var token: SyncToken
    /// Whether more changes follow the checkpoint (the listing stopped at its limit).
    public var isTruncated: Bool = false
}

/// A calendar object resource's name and ETag.
public struct ResourceInfo: Sendable, Hashable {
    /// The resource's name in its calendar (the last path segment of its URL).
    public var name: String
    /// A strong ETag, quoted as HTTP sends it (`"…"`).
    public var etag: String
    /// The type of its components.
    public var componentType: ComponentType
    /// The identifier of the event the resource holds (`Event.localIdentifier`).
    public var localIdentifier: String
    /// The stored bytes' length.
    public var size: Int
    /// When it was last written, Unix seconds.
    public var lastModified: Int
    /// The Schedule-Tag of a scheduling object (RFC 6638 §3.2.10), quoted; nil for others.
    public var scheduleTag: String? = nil
}

/// The outcome of storing a resource.
public struct ResourceWrite: Sendable, Hashable {
    /// The new strong ETag, quoted.
    public var etag: String
    /// Whether the name was free before (HTTP 201 rather than 204).
    public var created: Bool
    /// What lenient reading recovered from in the bytes written (they are stored as sent,
    /// and read the same way each time); for the client to see.
    public var warnings: [ICalendarError] = []
    /// The resource's Schedule-Tag after the write, if it is a scheduling object.
    public var scheduleTag: String? = nil
}

/// What a write does to a scheduling object's Schedule-Tag (RFC 6638 §3.2.10): it
/// changes when the object changes for the organizer's sake (their own write, or an
/// attendee's copy updated from their request), and stays when only an attendee's
/// answer changes (their own PUT, or a reply applied to the organizer's copy).
public enum ScheduleTagChange: Sendable, Hashable {
    /// A new Schedule-Tag: the object changed for the organizer's sake.
    case new
    /// The Schedule-Tag stays: only an attendee's answer changed.
    case keep
}

/// Where a calendar object resource is kept: its calendar's identifier and its name there.
public struct ResourceLocation: Sendable, Hashable {
    /// The calendar's identifier.
    public var calendar: String
    /// The resource's name in the calendar.
    public var name: String

    /// The resource `name` in the calendar with identifier `calendar`.
    public init(calendar: String, name: String) {
        self.calendar = calendar
        self.name = name
    }
}

/// A calendar object resource as stored: the iCalendar bytes a client sent.
public struct StoredResource: Sendable, Hashable {
    /// The resource's name in its calendar (the last path segment of its URL).
    public var name: String
    /// A strong ETag, quoted as HTTP sends it (`"…"`).
    public var etag: String
    /// The type of its components.
    public var componentType: ComponentType
    /// The UID its components share.
    public var uid: String
    /// The iCalendar text exactly as it was put.
    public var data: [UInt8]
    /// The identifier of the event this resource holds (`Event.localIdentifier`).
    public var localIdentifier: String
    /// When it was last written, Unix seconds.
    public var lastModified: Int
    /// The Schedule-Tag of a scheduling object (RFC 6638 §3.2.10), quoted; nil for others.
    public var scheduleTag: String? = nil

    /// Its listing, without the bytes.
    public var info: ResourceInfo {
        ResourceInfo(
            name: name, etag: etag, componentType: componentType, localIdentifier: localIdentifier, size: data.count,
            lastModified: lastModified, scheduleTag: scheduleTag)
    }
}

/// A user: someone who owns calendars and signs in to the server.
public struct User: Sendable, Hashable {
    /// The name the user signs in with, unique on the server.
    public var name: String
    /// The name shown for the user; nil for none.
    public var displayName: String?
    /// The password hash as the server stored it (PHC string form), if any.
    public var passwordHash: String?
    /// What the user may do on the server: an admin also manages other accounts.
    public var role: Role = .user
    /// A disabled user cannot sign in by any method, and their tokens do not work.
    public var isDisabled = false
    /// The user's own limits; a nil field takes the server's (``DatabaseBackend/quota``).
    public var quota = StoreQuota()
    /// The OpenID Connect identity (issuer and subject) the account is bound to, once
    /// its user has signed in through the provider: no other identity signs in as them.
    public var identity: String?

    /// What a user may do on the server.
    public enum Role: String, Sendable, Hashable, CaseIterable {
        /// Manages accounts (the provisioning API, `almanac user`) besides their own data.
        case admin
        /// Their own calendars and what others share with them.
        case user
    }
    /// The user's key in the store it was read from, so that a store acting for them
    /// (``StoreBackend/eventStore(for:)-(User)``) needs no second lookup.
    var storeID: Int64?
}

/// What another user may do with a calendar shared with them.
public enum Access: String, Sendable, Hashable {
    /// May read the calendar and its objects.
    case read
    /// May also write, change and delete its objects.
    case readWrite = "read-write"
}
