import Accounts
import AddToCalendar
import CalendarStore
import CalendarViews
import CivilTime
import Foundation
import HTTPTypes
import ICalendar
import Scheduling

/// The web calendar: server-rendered pages (sign-in, month, week and day views, event
/// detail with the "Add to Calendar" button, the event form, settings) over the store,
/// and the public booking pages (`/book/…`, no sign-in), as request → response. The
/// server hands it every request for `/`, `/login…`, `/logout`, `/settings`,
/// `/calendar…`, `/book/…` and `/static/…`.
public struct WebCalendar: Sendable {
    public let backend: any StoreBackend
    /// Checks a user name and password (the server's throttled check); the signed-in
    /// user's name, or a message to show.
    public let verifyPassword:
        @Sendable (_ user: String, _ password: String, _ address: String) -> Result<String, AuthenticationFailure>
    public let now: @Sendable () -> Int
    /// How long a session lasts, in seconds.
    public var sessionLifetime = 30 * 86_400
    /// Sends invitations and answers by mail (iMIP) to people outside the server; nil: none.
    public var mail: (any IMIPSender)?
    /// Sign-in through the server's OpenID Connect provider; nil: passwords only.
    public var identity: WebIdentitySignIn?

    public init(
        backend: any StoreBackend,
        verifyPassword: @escaping @Sendable (String, String, String) -> Result<String, AuthenticationFailure>,
        now: @escaping @Sendable () -> Int
    ) {
        self.backend = backend
        self.verifyPassword = verifyPassword
        self.now = now
    }

    public static let cookieName = "almanac_session"

    /// The session a request's cookie names, if it is valid.
    public func session(for request: HTTPRequest) -> SignInSession? {
        guard let secret = Self.cookie(Self.cookieName, in: request) else { return nil }
        return try? backend.appState.session(secretHash: APITokenSecret.hash(secret))
    }

    static func cookie(_ name: String, in request: HTTPRequest) -> String? {
        for header in request.headers.values("Cookie") {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        let nonce = PasswordGenerator.generate(length: 22)
        var response: HTTPResponse
        if request.path.hasPrefix("/static/") || request.path == "/favicon.ico" {
            response = StaticFiles.response(to: request)
        } else {
            let context = WebContext(calendar: self, request: request, session: session(for: request), nonce: nonce)
            do throws(WebFailure) {
                response = try context.route()
            } catch {
                response = context.errorPage(error)
            }
        }
        return Self.secured(response, nonce: nonce)
    }

    /// The pages' 429 (a throttle past its allowance): the error page with `Retry-After`.
    public func tooManyRequests(_ request: HTTPRequest, retryAfter: Int) -> HTTPResponse {
        let nonce = PasswordGenerator.generate(length: 22)
        let context = WebContext(calendar: self, request: request, session: session(for: request), nonce: nonce)
        let failure = WebFailure(
            429, "Too many requests from your address; try again in \(retryAfter) seconds.", retryAfter: retryAfter)
        return Self.secured(context.errorPage(failure), nonce: nonce)
    }

    /// `response` with the headers every page carries.
    static func secured(_ response: HTTPResponse, nonce: String) -> HTTPResponse {
        var response = response
        // Scripts only from this server, and inline only with this page's nonce.
        response.headers.set(
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self' 'nonce-\(nonce)'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        )
        // No other site may frame the pages (clickjacking), for browsers without CSP 3 too.
        response.headers.set("X-Frame-Options", "DENY")
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("Referrer-Policy", "same-origin")
        return response
    }
}

/// A request that cannot be answered as asked: its status and what to tell the visitor.
/// The pages answer it with ``WebContext/errorPage(_:)``, which knows the visitor's way
/// back; on its own it is the same page for a visitor who is not signed in.
struct WebFailure: HTTPResponseError {
    var status: Int
    var message: String
    /// Seconds to wait before trying again (a 429's `Retry-After`).
    var retryAfter: Int?

    init(_ status: Int, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }

    var response: HTTPResponse {
        let nonce = PasswordGenerator.generate(length: 22)
        var response = HTTPResponse(
            status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"],
            body: Array(
                HTML.page(
                    title: "Error", nonce: nonce, csrf: nil, bridge: nil, body: page(back: "<a href=\"/\">Sign in</a>")
                )
                .utf8))
        if let retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
        return WebCalendar.secured(response, nonce: nonce)
    }

    /// The page's content: the status, the message and `back`, the way back.
    func page(back: String) -> String {
        "<main class=\"page\"><h1>\(status)</h1><p role=\"alert\">\(HTML.escape(message))</p><p>\(back)</p></main>"
    }

    init(_ error: StoreError) {
        switch error.code {
        case .notFound: self.init(404, error.message)
        case .forbidden: self.init(403, error.message)
        case .slotTaken: self.init(409, error.message)
        case .database:
            error.logDetails()
            self.init(503, error.clientMessage)
        case .insufficientStorage:
            error.logDetails()
            self.init(507, error.message)
        default: self.init(400, error.message)
        }
    }
}
