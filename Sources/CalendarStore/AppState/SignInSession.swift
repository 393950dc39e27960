/// A sign-in session a browser holds in a cookie: whose it is, the token its forms and
/// requests must carry (`X-CSRF-Token`, against cross-site request forgery), and when
/// it ends.
public struct SignInSession: Sendable, Hashable {
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
