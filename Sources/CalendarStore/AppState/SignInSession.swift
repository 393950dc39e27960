/// A sign-in session a browser holds in a cookie: whose it is, the token its forms and
/// requests must carry (`X-CSRF-Token`, against cross-site request forgery), and when
/// it ends.
public struct SignInSession: Sendable, Hashable {
    /// The name of the user signed in.
    public var user: String
    /// What the session's forms and requests carry in `X-CSRF-Token`.
    public var csrfToken: String
    /// Unix seconds.
    public var expires: Int

    /// Creates a session for ``AppStateStore/createSession(_:secretHash:)`` to store.
    public init(user: String, csrfToken: String, expires: Int) {
        self.user = user
        self.csrfToken = csrfToken
        self.expires = expires
    }
}
