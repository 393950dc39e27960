import Accounts
import CalendarStore
import HTTPTypes

/// Sign-in through the server's OpenID Connect provider, as the web pages see it: the
/// server (which knows the provider and the accounts) supplies the two steps.
public struct WebIdentitySignIn: Sendable {
    /// What the sign-in page's button names ("Sign in with id.example.com").
    public var name: String
    /// Where to send the browser for `signIn`, returning to `redirectURI`.
    public var begin:
        @Sendable (_ signIn: OpenIDProvider.BrowserSignIn, _ redirectURI: String) -> Result<
            String, AuthenticationFailure
        >
    /// The user a returning browser signed in as (its `state` and `code` checked and
    /// exchanged), or why not.
    public var finish:
        @Sendable (_ signIn: OpenIDProvider.BrowserSignIn, _ state: String, _ code: String, _ redirectURI: String) ->
            Result<String, AuthenticationFailure>

    public init(
        name: String,
        begin: @escaping @Sendable (OpenIDProvider.BrowserSignIn, String) -> Result<String, AuthenticationFailure>,
        finish:
            @escaping @Sendable (OpenIDProvider.BrowserSignIn, String, String, String) -> Result<
                String, AuthenticationFailure
            >
    ) {
        self.name = name
        self.begin = begin
        self.finish = finish
    }
}

extension WebContext {
    /// The cookie that carries a browser's sign-in secret to the provider and back: only
    /// to the sign-in paths, for ten minutes, SameSite=Lax (the provider's redirect back
    /// is a top-level GET, which carries it).
    static let identityCookie = "almanac_oidc"

    /// Where the provider sends the browser back: this server as the browser reached it.
    var identityRedirectURI: String {
        let scheme = request.headers["X-Forwarded-Proto"]?.lowercased() == "https" ? "https" : "http"
        return "\(scheme)://\(request.headers["Host"] ?? "127.0.0.1")/login/oidc/callback"
    }

    func identityCookieHeader(_ value: String, maxAge: Int) -> String {
        cookie(value, maxAge: maxAge, name: Self.identityCookie, path: "/login/oidc")
    }

    /// `GET /login/oidc`: a new sign-in, its secret in the cookie, the browser sent on to
    /// the provider.
    func beginIdentitySignIn() throws(WebFailure) -> HTTPResponse {
        guard let identity = calendar.identity else {
            throw WebFailure(404, "This server signs in with passwords only.")
        }
        let signIn = OpenIDProvider.BrowserSignIn()
        switch identity.begin(signIn, identityRedirectURI) {
        case .failure(let failure): return signInFailure(failure)
        case .success(let url):
            var response = Self.redirect(url)
            response.headers.add("Set-Cookie", identityCookieHeader(signIn.secret, maxAge: 600))
            return response
        }
    }

    /// `GET /login/oidc/callback`: the provider's answer. The browser's cookie must hold
    /// the sign-in this answer's `state` belongs to; then the code is exchanged, the
    /// account found (or made), and the usual session begins.
    func finishIdentitySignIn() throws(WebFailure) -> HTTPResponse {
        guard let identity = calendar.identity else {
            throw WebFailure(404, "This server signs in with passwords only.")
        }
        let result: Result<String, AuthenticationFailure>
        if let error = request.queryValue("error") {
            // Only the error code (RFC 6749 §4.1.2.1), and only its letters: anyone can
            // link here, and the page must not show a stranger's words as the server's.
            let code = String(error.filter { $0.isASCII && ($0.isLetter || $0 == "_") }.prefix(64))
            result = .failure(.invalidToken("\(identity.name) did not sign you in (\(code))"))
        } else if let secret = WebCalendar.cookie(Self.identityCookie, in: request), !secret.isEmpty,
            let state = request.queryValue("state"), let code = request.queryValue("code")
        {
            result = identity.finish(
                OpenIDProvider.BrowserSignIn(secret: secret), state, code, identityRedirectURI)
        } else {
            result = .failure(
                .invalidToken("this sign-in was not begun in this browser, or took too long; start again"))
        }
        var response: HTTPResponse
        switch result {
        case .failure(let failure): response = signInFailure(failure)
        case .success(let user): response = try beginSession(for: user, zone: nil)
        }
        response.headers.add("Set-Cookie", identityCookieHeader("", maxAge: 0))
        return response
    }

    /// The sign-in page telling why signing in did not work (503 and 429 say when to try again).
    func signInFailure(_ failure: AuthenticationFailure) -> HTTPResponse {
        var response = signInPage(message: failure.message)
        response.status = failure.status == 403 ? 401 : failure.status
        if let wait = failure.retryAfter { response.headers.set("Retry-After", String(wait)) }
        return response
    }
}
