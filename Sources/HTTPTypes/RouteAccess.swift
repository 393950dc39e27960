/// Who may call a route: what the server's table says of each of its routes, and what
/// decides, from a request's head alone, how much of its body is read and which
/// middleware finds out who is calling.
public enum RouteAccess: Sendable, Hashable {
    /// Anyone, signed in or not: the sign-in form, feeds (their token is in the path),
    /// static files, discovery. A body is small and announced.
    case anyone
    /// Someone holding a booking page's address or a booking link's token, without an
    /// account (throttled per address); a body is small and announced. A request with
    /// `Authorization` is an account's and is judged as ``token``.
    case booker
    /// The web pages' session (its cookie); a change carries the session's CSRF token.
    case session
    /// HTTP Basic, the one scheme calendar clients speak (CalDAV).
    case basic
    /// HTTP Basic or a Bearer token with its scope, or the web pages' session with its
    /// CSRF token on changes (the JSON API).
    case token
}
