/// A personal API token: a name, a scope and its owner. The secret itself is never
/// stored, only its hash.
public struct APIToken: Sendable, Hashable {
    /// The public part, shown in listings and used to revoke it.
    public var id: String
    public var user: String
    public var name: String
    public var scope: Scope
    /// Unix seconds.
    public var created: Int

    public enum Scope: String, Sendable, Hashable, CaseIterable {
        case read
        case readWrite = "read-write"
        /// May create events and read back only those it created (like EventKit's
        /// write-only access), so an app can offer "Add to Calendar" without seeing
        /// the calendar.
        case addOnly = "add-only"
    }

    public init(id: String, user: String, name: String, scope: Scope, created: Int) {
        self.id = id
        self.user = user
        self.name = name
        self.scope = scope
        self.created = created
    }
}

/// A user's note that they added an event to a device calendar.
public struct AddedMark: Sendable, Hashable {
    public var eventIdentifier: String
    /// `ios`, `android` or `web`, when told.
    public var platform: String?
    /// The identifier the device's calendar gave the copy, when told.
    public var nativeIdentifier: String?
    /// Unix seconds.
    public var added: Int

    public init(eventIdentifier: String, platform: String? = nil, nativeIdentifier: String? = nil, added: Int = 0) {
        self.eventIdentifier = eventIdentifier
        self.platform = platform
        self.nativeIdentifier = nativeIdentifier
        self.added = added
    }
}

/// A signed-in web session: whose it is, the token its forms and requests must carry
/// (`X-CSRF-Token`), and when it ends.
public struct WebSession: Sendable, Hashable {
    public var user: String
    public var csrfToken: String
    /// Unix seconds.
    public var expires: Int

    public init(user: String, csrfToken: String, expires: Int) {
        self.user = user
        self.csrfToken = csrfToken
        self.expires = expires
    }
}

/// How a user likes their calendar shown.
public struct ViewSettings: Sendable, Hashable {
    /// 1 (Monday) … 7 (Sunday), as `Weekday`'s raw values.
    public var firstWeekday: Int?
    /// An IANA zone.
    public var timeZone: String?

    public init(firstWeekday: Int? = nil, timeZone: String? = nil) {
        self.firstWeekday = firstWeekday
        self.timeZone = timeZone
    }
}
