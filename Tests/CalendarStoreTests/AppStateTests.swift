import AlmanacTestSupport
import Testing

@testable import CalendarStore

/// The app state beside the event model (``AppStateStore``), on every backend.
@Suite("App state") struct AppStateTests {
    /// A token is found by its secret's hash only, listed for its owner, remembers the
    /// events it created, and is gone once revoked (by its owner only).
    @Test(arguments: Backend.allCases) func accessTokensAreFoundListedAndRevoked(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let state = fixture.backend.appState
        let token = AccessToken(id: "t1", user: "alice", name: "phone", scope: .addOnly, created: 1_795_000_000)
        try state.createAccessToken(token, secretHash: "h1")
        try state.createAccessToken(
            AccessToken(id: "t2", user: "alice", name: "laptop", scope: .read, created: 1_795_000_100), secretHash: "h2"
        )
        #expect(try state.accessToken(secretHash: "h1") == token)
        #expect(try state.accessToken(secretHash: "t1") == nil)
        #expect(try state.accessTokens(user: "alice").map(\.id) == ["t1", "t2"])
        #expect(try state.accessTokens(user: "bob").isEmpty)
        #expect(throws: StoreError.self) {
            try state.createAccessToken(
                AccessToken(id: "t3", user: "nobody", name: "x", scope: .read, created: 0), secretHash: "h3")
        }
        try state.noteCreation(ofEvent: "e1", byToken: "t1")
        try state.noteCreation(ofEvent: "e1", byToken: "t1")
        #expect(try state.eventsCreated(byToken: "t1") == ["e1"])
        #expect(try state.eventsCreated(byToken: "t2").isEmpty)
        let notBobs = #expect(throws: StoreError.self) { try state.revokeAccessToken(id: "t1", user: "bob") }
        #expect(notBobs?.code == .notFound)
        try state.revokeAccessToken(id: "t1", user: "alice")
        #expect(try state.accessToken(secretHash: "h1") == nil)
        #expect(try state.eventsCreated(byToken: "t1").isEmpty)
    }

    /// A session is found while it lasts and gone once deleted; a new password ends it
    /// and, when asked, revokes the user's tokens.
    @Test(arguments: Backend.allCases) func signInSessionsLastUntilDeletedExpiredOrThePasswordChanges(
        _ kind: Backend
    ) throws {
        let fixture = try StoreFixture(kind)
        let state = fixture.backend.appState
        let session = SignInSession(user: "alice", csrfToken: "csrf", expires: Int.max / 2)
        try state.createSession(session, secretHash: "s1")
        try state.createSession(SignInSession(user: "alice", csrfToken: "old", expires: 1), secretHash: "s0")
        #expect(try state.session(secretHash: "s1") == session)
        #expect(try state.session(secretHash: "s0") == nil)
        try state.deleteSession(secretHash: "s1")
        #expect(try state.session(secretHash: "s1") == nil)
        try state.createSession(session, secretHash: "s2")
        try state.createAccessToken(
            AccessToken(id: "t1", user: "alice", name: "phone", scope: .read, created: 0), secretHash: "h1")
        let ended = try fixture.backend.setPasswordHash("new", forUser: "alice", revokingTokens: true)
        #expect(ended.sessions == 1 && ended.tokens == 1)
        #expect(try state.session(secretHash: "s2") == nil && (try state.accessToken(secretHash: "h1")) == nil)
    }

    @Test(arguments: Backend.allCases) func viewSettingsAreKeptPerUserAndChecked(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let state = fixture.backend.appState
        #expect(try state.viewSettings(user: "alice") == ViewSettings())
        try state.setViewSettings(ViewSettings(firstWeekday: 7, timeZone: "America/New_York"), user: "alice")
        #expect(try state.viewSettings(user: "alice") == ViewSettings(firstWeekday: 7, timeZone: "America/New_York"))
        #expect(try state.viewSettings(user: "bob") == ViewSettings())
        #expect(throws: StoreError.self) { try state.setViewSettings(ViewSettings(firstWeekday: 8), user: "alice") }
        #expect(throws: StoreError.self) {
            try state.setViewSettings(ViewSettings(timeZone: "Mars/Olympus"), user: "alice")
        }
        #expect(throws: StoreError.self) { try state.viewSettings(user: "nobody") }
        #expect(try state.viewSettings(user: "alice").firstWeekday == 7)
    }

    /// A mark is kept per user and event, updated when made again, and only for an event
    /// the user can see.
    @Test(arguments: Backend.allCases) func addedMarksArePerUserAndNeedAVisibleEvent(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let state = fixture.backend.appState
        let work = try fixture.calendar()
        let event = try fixture.store.save(
            Event(title: "Class", start: zoned("UTC", 2026, 12, 2, 9), calendarIdentifier: work.id))
        let id = try #require(event.localIdentifier)
        let first = try state.markAdded(AddedMark(eventIdentifier: id, platform: "ios"), user: "alice")
        #expect(first.eventIdentifier == id && first.platform == "ios" && first.added > 0)
        let again = try state.markAdded(
            AddedMark(eventIdentifier: id, platform: "android", nativeIdentifier: "42"), user: "alice")
        #expect(try state.addedMark(event: id, user: "alice") == again)
        #expect(again.platform == "android" && again.nativeIdentifier == "42")
        let bobs = #expect(throws: StoreError.self) {
            try state.markAdded(AddedMark(eventIdentifier: id), user: "bob")
        }
        #expect(bobs?.code == .notFound)
        #expect(try state.addedMark(event: id, user: "bob") == nil)
        try state.removeAddedMark(event: id, user: "bob")
        #expect(try state.addedMark(event: id, user: "alice") != nil)
        try state.removeAddedMark(event: id, user: "alice")
        #expect(try state.addedMark(event: id, user: "alice") == nil)
    }
}

/// An account's OpenID Connect identity, on every backend.
@Suite("Identity binding") struct IdentityBindingTests {
    /// The first identity binds the account; the same one again is a no-op; another
    /// identity for it, or the same identity for another account, is refused.
    @Test(arguments: Backend.allCases) func anAccountHasOneIdentityAndAnIdentityOneAccount(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let backend = fixture.backend
        try backend.createUser(named: "lena")
        try backend.createUser(named: "maria")
        #expect(try backend.user(named: "lena").identity == nil)
        #expect(
            try backend.bindIdentity("https://id.example.org sub-1", toUser: "lena").identity
                == "https://id.example.org sub-1")
        #expect(try backend.user(named: "lena").identity == "https://id.example.org sub-1")
        try backend.bindIdentity("https://id.example.org sub-1", toUser: "lena")
        let another = #expect(throws: StoreError.self) {
            try backend.bindIdentity("https://id.example.org sub-2", toUser: "lena")
        }
        #expect(another?.code == .forbidden)
        let taken = #expect(throws: StoreError.self) {
            try backend.bindIdentity("https://id.example.org sub-1", toUser: "maria")
        }
        #expect(taken?.code == .forbidden)
        #expect(try backend.user(named: "maria").identity == nil)
        let nobody = #expect(throws: StoreError.self) { try backend.bindIdentity("x y", toUser: "nobody") }
        #expect(nobody?.code == .notFound)
        // An update may unbind an identity (then another may bind), never bind one.
        #expect(try backend.updateUser(named: "maria") { $0.identity = "https://id.example.org sub-1" }.identity == nil)
        #expect(try backend.user(named: "maria").identity == nil)
        #expect(try backend.updateUser(named: "lena") { $0.identity = nil }.identity == nil)
        #expect(try backend.user(named: "lena").identity == nil)
        #expect(try backend.bindIdentity("https://id.example.org sub-1", toUser: "maria").identity != nil)
    }
}
