/// A personal access token a user gives an app, or an app password a calendar app signs
/// in with: a name, a scope, optionally some calendars, and its owner. The secret itself
/// is never stored, only its hash.
public struct AccessToken: Sendable, Hashable {
    /// The public part, shown in listings and used to revoke it.
    public var id: String
    /// The name of the user it acts for.
    public var user: String
    /// What the user called it (the app it was made for); 1 to 200 bytes.
    public var name: String
    /// What it may do.
    public var scope: Scope
    /// Unix seconds.
    public var created: Int
    /// JSON API requests a minute it may send; nil for the server's default.
    public var rateLimit: Int?
    /// When it stops working, in Unix seconds; nil: never.
    public var expires: Int?
    /// How it is presented: a bearer token, or an app password (HTTP Basic).
    public var kind: Kind
    /// The identifiers of the only calendars it may see; nil: all the user sees.
    public var calendars: [String]?
    /// When it last signed a request in, to the minute (Unix seconds); nil: never.
    public var lastUsed: Int?
    /// The most calendars one token may be limited to.
    public static let maxCalendars = 100
    /// The most tokens and app passwords one user may hold at once (listings show all).
    public static let maxPerUser = 1_000
    /// The rate limits a token may have, in requests a minute.
    public static let rateLimits = 1...1_000_000
    /// The longest a token may last before it expires, in seconds (a year).
    public static let maxLifetime = 366 * 86_400

    /// How a token is presented.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `Authorization: Bearer` on the JSON API.
        case token
        /// The password of HTTP Basic, with its owner's name: for the CalDAV clients and
        /// feed readers that cannot do OpenID Connect. Never signs in to the web pages.
        case appPassword = "app-password"
    }

    /// What a token may do with the JSON API.
    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// Every read (GET), no write.
        case read
        /// Everything the user may do.
        case readWrite = "read-write"
        /// May create events and read back only those it created (like EventKit's
        /// write-only access), so an app can offer "Add to Calendar" without seeing
        /// the calendar.
        case addOnly = "add-only"
        /// Everything read-write may, and an admin's provisioning API
        /// (`/api/v1/admin/…`); only an admin's tokens have it.
        case admin
    }

    /// Creates a token's record; the store checks the name and rate limit when it is created.
    public init(
        id: String, user: String, name: String, scope: Scope, created: Int, rateLimit: Int? = nil, expires: Int? = nil,
        kind: Kind = .token, calendars: [String]? = nil, lastUsed: Int? = nil
    ) {
        self.id = id
        self.user = user
        self.name = name
        self.scope = scope
        self.created = created
        self.rateLimit = rateLimit
        self.expires = expires
        self.kind = kind
        self.calendars = calendars
        self.lastUsed = lastUsed
    }

    /// Whether it no longer works at `now` (Unix seconds).
    public func hasExpired(at now: Int) -> Bool { expires.map { now >= $0 } ?? false }
}
