/// What the apps around the calendars keep for each user, apart from the event model:
/// access tokens (and the events each created), sign-in sessions, view settings and
/// "added" marks. Reached through ``StoreBackend/appState``; every method acts for the
/// user it names, and one that does not exist is `notFound` where a write needs them.
///
/// ``EventStore`` stays the EventKit-style model of calendars and events; nothing here
/// changes an event or its change sequence.
public protocol AppStateStore: Sendable {
    // MARK: The server's own secrets

    /// The server's secret of this `name` (32 random bytes), made the first time it is
    /// asked for and the same for every process on the database ever after: what the
    /// server keys its own tokens with (the API's cursors).
    func serverSecret(named name: String) throws(StoreError) -> [UInt8]

    // MARK: Access tokens

    /// Stores a token with the hash of its secret (the secret itself is never stored).
    func createAccessToken(_ token: AccessToken, secretHash: String) throws(StoreError)
    /// The token whose secret has this hash, or nil.
    func accessToken(secretHash: String) throws(StoreError) -> AccessToken?
    /// A user's tokens, oldest first.
    func accessTokens(user: String) throws(StoreError) -> [AccessToken]
    /// Notes that a token signed a request in at `now` (Unix seconds), for its
    /// `lastUsed`; a write at most once a minute per token.
    func noteUse(ofToken token: AccessToken, at now: Int) throws(StoreError)
    /// Revokes one of a user's tokens; `notFound` when they have no such token.
    func revokeAccessToken(id: String, user: String) throws(StoreError)
    /// Notes that a token created an event, so an add-only token can read it back.
    func noteCreation(ofEvent identifier: String, byToken tokenID: String) throws(StoreError)
    /// The identifiers of the events a token created.
    func eventsCreated(byToken tokenID: String) throws(StoreError) -> Set<String>

    // MARK: Idempotency keys

    /// The record of a user's `Idempotency-Key`, or nil when there is none younger than
    /// ``IdempotencyRecord/lifetime`` at `now`. (A request records its key with its first
    /// write, through ``IdempotencyClaim``.)
    func idempotencyRecord(user: String, key: String, now: Int) throws(StoreError) -> IdempotencyRecord?
    /// Keeps the answer of the request that recorded the key, for its retries.
    func keepIdempotentAnswer(_ answer: IdempotencyRecord.Answer, user: String, key: String) throws(StoreError)

    // MARK: Sign-in sessions

    /// Stores a session under the hash of its cookie's secret (and drops expired ones).
    func createSession(_ session: SignInSession, secretHash: String) throws(StoreError)
    /// The unexpired session whose secret has this hash, or nil.
    func session(secretHash: String) throws(StoreError) -> SignInSession?
    /// Ends the session whose secret has this hash (signing out); nothing when there is none.
    func deleteSession(secretHash: String) throws(StoreError)

    // MARK: View settings

    /// The user's view settings; `notFound` when there is no such user.
    func viewSettings(user: String) throws(StoreError) -> ViewSettings
    /// Refuses a first weekday outside 1…7 and an unknown zone with `invalidArgument`.
    func setViewSettings(_ settings: ViewSettings, user: String) throws(StoreError)

    // MARK: Availability schedules

    /// A user's schedules, their default first, then by title.
    func schedules(user: String) throws(StoreError) -> [StoredSchedule]
    /// One of the user's schedules; `notFound` when they have none of that id.
    func schedule(id: String, user: String) throws(StoreError) -> StoredSchedule
    /// The user's default schedule, or nil when they have none.
    func defaultSchedule(user: String) throws(StoreError) -> StoredSchedule?
    /// Creates or replaces (by id) a schedule, checking `ifMatch` against the stored
    /// one's ETag in the same transaction; making one the default makes it the only one.
    /// The user's first schedule is their default.
    @discardableResult
    func saveSchedule(_ schedule: StoredSchedule, ifMatch: String?) throws(StoreError) -> StoredSchedule
    /// Deletes one of the user's schedules (`ifMatch`: its ETag must still be that); when it was
    /// the default, their oldest other schedule becomes it. `notFound` when they have none of that id.
    func deleteSchedule(id: String, user: String, ifMatch: String?) throws(StoreError)

    // MARK: Added marks

    /// Notes that the user added one of their events to a device calendar (again: updates
    /// the note); `notFound` when the user cannot see that event.
    func markAdded(_ mark: AddedMark, user: String) throws(StoreError) -> AddedMark
    /// The user's mark on an event, or nil.
    func addedMark(event identifier: String, user: String) throws(StoreError) -> AddedMark?
    /// Removes the user's mark on an event; nothing when there is none.
    func removeAddedMark(event identifier: String, user: String) throws(StoreError)
}
