/// A database that holds users and their calendars: the embedded SQLite file or,
/// later, a PostgreSQL cluster. Interfaces hold one backend per process and act
/// for a user through `eventStore(for:)`.
public protocol StoreBackend: Sendable {
    @discardableResult
    func createUser(named name: String, displayName: String?, passwordHash: String?) throws(StoreError) -> User
    func users() throws(StoreError) -> [User]
    func user(named name: String) throws(StoreError) -> User
    /// Sets (or, with nil, removes) a user's password hash and, in the same transaction,
    /// ends every web session of theirs (a changed password locks out whoever had the old
    /// one) and, with `revokingTokens`, revokes their API tokens. Returns how many of each.
    @discardableResult
    func setPasswordHash(_ hash: String?, forUser name: String, revokingTokens: Bool) throws(StoreError) -> (
        sessions: Int, tokens: Int
    )
    func removeUser(named name: String) throws(StoreError)
    /// The store acting for `user`; `notFound` when there is no such user.
    func eventStore(for user: String) throws(StoreError) -> any EventStore
    /// The owner and calendar identifier a feed token publishes, or nil.
    func feed(token: String) throws(StoreError) -> (owner: String, calendar: String)?
    /// A consistency check of the database: `["ok"]` when sound.
    func integrityCheck() throws(StoreError) -> [String]

    // MARK: API tokens

    /// Stores a token with the hash of its secret (the secret itself is never stored).
    func createAPIToken(_ token: APIToken, secretHash: String) throws(StoreError)
    /// The token whose secret has this hash, or nil.
    func apiToken(secretHash: String) throws(StoreError) -> APIToken?
    func apiTokens(user: String) throws(StoreError) -> [APIToken]
    func revokeAPIToken(id: String, user: String) throws(StoreError)
    /// Notes that a token created an event, so an add-only token can read it back.
    func noteCreation(ofEvent identifier: String, byToken tokenID: String) throws(StoreError)
    func eventsCreated(byToken tokenID: String) throws(StoreError) -> Set<String>

    // MARK: Web sessions and view settings

    /// Stores a session under the hash of its cookie's secret (and drops expired ones).
    func createSession(_ session: WebSession, secretHash: String) throws(StoreError)
    /// The unexpired session whose secret has this hash, or nil.
    func session(secretHash: String) throws(StoreError) -> WebSession?
    func deleteSession(secretHash: String) throws(StoreError)
    func viewSettings(user: String) throws(StoreError) -> ViewSettings
    func setViewSettings(_ settings: ViewSettings, user: String) throws(StoreError)
}

extension StoreBackend {
    /// A new feed token: 32 random bytes, URL-safe.
    public static func newFeedToken() -> String {
        Identifiers.newUUID().lowercased().filter { $0 != "-" }
            + Identifiers.newUUID().lowercased().filter { $0 != "-" }
    }

    @discardableResult
    public func createUser(named name: String) throws(StoreError) -> User {
        try createUser(named: name, displayName: nil, passwordHash: nil)
    }
}
