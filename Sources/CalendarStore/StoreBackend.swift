/// A database that holds users and their calendars: the embedded SQLite file or,
/// later, a PostgreSQL cluster. Interfaces hold one backend per process and act
/// for a user through `eventStore(for:)`.
public protocol StoreBackend: Sendable {
    @discardableResult
    func createUser(named name: String, displayName: String?, passwordHash: String?) throws(StoreError) -> User
    func users() throws(StoreError) -> [User]
    func user(named name: String) throws(StoreError) -> User
    func setPasswordHash(_ hash: String?, forUser name: String) throws(StoreError)
    func removeUser(named name: String) throws(StoreError)
    /// The store acting for `user`; `notFound` when there is no such user.
    func eventStore(for user: String) throws(StoreError) -> any EventStore
    /// A consistency check of the database: `["ok"]` when sound.
    func integrityCheck() throws(StoreError) -> [String]
}

extension StoreBackend {
    @discardableResult
    public func createUser(named name: String) throws(StoreError) -> User {
        try createUser(named: name, displayName: nil, passwordHash: nil)
    }
}
