/// A personal access token a user gives an app: a name, a scope and its owner. The
/// secret itself is never stored, only its hash.
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
    /// The rate limits a token may have, in requests a minute.
    public static let rateLimits = 1...1_000_000

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
    }

    /// Creates a token's record; the store checks the name and rate limit when it is created.
    public init(id: String, user: String, name: String, scope: Scope, created: Int, rateLimit: Int? = nil) {
        self.id = id
        self.user = user
        self.name = name
        self.scope = scope
        self.created = created
        self.rateLimit = rateLimit
    }
}
