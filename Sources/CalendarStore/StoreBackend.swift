/// A database that holds users and their calendars: the embedded SQLite file or,
/// later, a PostgreSQL cluster. Interfaces hold one backend per process and act
/// for a user through `eventStore(for:)`.
public protocol StoreBackend: Sendable {
    /// Creates a user with an optional display name and password hash (PHC string form); names are unique
    /// (`alreadyExists`), 1 to 64 letters, digits, `.`, `_`, `-` or `@` (`invalidArgument`).
    @discardableResult
    func createUser(named name: String, displayName: String?, passwordHash: String?) throws(StoreError) -> User
    /// Every user, by name.
    func users() throws(StoreError) -> [User]
    /// At most `limit` users whose names sort after `after` (all when nil), by name.
    func users(after: String?, limit: Int) throws(StoreError) -> [User]
    /// The user with this name; `notFound` when there is none.
    func user(named name: String) throws(StoreError) -> User
    /// Changes a user's display name, role, disabled flag and quota as `change` says, in
    /// one transaction (disabling ends their web sessions); the user as stored.
    @discardableResult
    func updateUser(named name: String, _ change: (inout User) -> Void) throws(StoreError) -> User
    /// Sets (or, with nil, removes) a user's password hash and, in the same transaction,
    /// ends every sign-in session of theirs (a changed password locks out whoever had the
    /// old one) and, with `revokingTokens`, revokes their access tokens. Returns how many of each.
    @discardableResult
    func setPasswordHash(_ hash: String?, forUser name: String, revokingTokens: Bool) throws(StoreError) -> (
        sessions: Int, tokens: Int
    )
    /// Binds a user's account to an OpenID Connect identity (issuer and subject) when it
    /// is bound to none; `forbidden` when it is bound to another, or another account has
    /// this one. The user as stored.
    @discardableResult
    func bindIdentity(_ identity: String, toUser name: String) throws(StoreError) -> User
    /// Removes a user with their calendars and everything in them; `notFound` when there is none.
    func removeUser(named name: String) throws(StoreError)
    /// The store acting for `user`; `notFound` when there is no such user.
    func eventStore(for user: String) throws(StoreError) -> any EventStore
    /// The event store acting for a user read from this backend (by ``user(named:)``),
    /// without looking them up again.
    func eventStore(for user: User) throws(StoreError) -> any EventStore
    /// The store acting for `user` through a token: limited to the calendars it names
    /// (every other is `notFound`, and none can be made), or all the user sees when nil.
    func eventStore(for user: String, limitedTo calendars: [String]?) throws(StoreError) -> any EventStore
    /// The owner and calendar identifier a feed token of this kind publishes, or nil
    /// (also when the owner is disabled).
    func feed(token: String, kind: FeedKind) throws(StoreError) -> (owner: String, calendar: String)?
    /// A user's e-mail addresses (their `mailto:` calendar user addresses), in the order set.
    func addresses(ofUser name: String) throws(StoreError) -> [String]
    /// Replaces a user's e-mail addresses; each belongs to one user (`alreadyExists` when
    /// another has it). Stored lowercased.
    func setAddresses(_ addresses: [String], forUser name: String) throws(StoreError)
    /// The user with this e-mail address (any case, with or without `mailto:`), or nil.
    func user(withAddress address: String) throws(StoreError) -> User?
    /// A consistency check of the database: `["ok"]` when sound.
    func integrityCheck() throws(StoreError) -> [String]

    /// Access tokens, sign-in sessions, view settings and added marks: what the apps
    /// around the calendars keep, apart from the event model.
    var appState: any AppStateStore { get }

    /// Webhook subscriptions and their outbox (see ``WebhookStore``).
    var webhooks: any WebhookStore { get }

    /// Booking types, holds and bookings (see ``BookingStore``).
    var bookings: any BookingStore { get }

    /// Subscribed calendars and the feeds they are fetched from (see ``SubscriptionStore``).
    var subscriptions: any SubscriptionStore { get }

    /// Users' scheduling inboxes (see ``SchedulingStore``).
    var scheduling: any SchedulingStore { get }

    /// The queue of alarms the reminder scheduler fires (see ``ReminderStore``).
    var reminders: any ReminderStore { get }

    /// WebDAV-Push subscriptions and the messages owed to them (see ``PushStore``).
    var push: any PushStore { get }
}

extension StoreBackend {
    /// A new feed token: 32 random bytes, URL-safe.
    public static func newFeedToken() -> String {
        Identifiers.newUUID().lowercased().filter { $0 != "-" }
            + Identifiers.newUUID().lowercased().filter { $0 != "-" }
    }

    /// Makes a user an admin or a plain user; `notFound` when there is no such user.
    public func setRole(_ role: User.Role, forUser name: String) throws(StoreError) {
        try updateUser(named: name) { $0.role = role }
    }

    /// Disables a user (their web sessions end; no sign-in or token works) or enables
    /// them again; `notFound` when there is no such user.
    public func setDisabled(_ disabled: Bool, forUser name: String) throws(StoreError) {
        try updateUser(named: name) { $0.isDisabled = disabled }
    }

    /// Creates a user without a display name or password hash.
    @discardableResult
    public func createUser(named name: String) throws(StoreError) -> User {
        try createUser(named: name, displayName: nil, passwordHash: nil)
    }
}
