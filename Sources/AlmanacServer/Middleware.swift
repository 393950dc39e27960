import Accounts
import HTTPTypes
import JSONAPI
import WebCalendar

/// What wraps a responder: one concern around the next one, composed once when the
/// server is made. Nothing here reads a request's body to find out who is calling.
enum Middleware {
    /// CORS for browsers on `origins` (RFC 9110 has none; the Fetch standard's): an
    /// OPTIONS preflight is answered here (403 for any other origin), and every answer to
    /// an allowed origin says it may read it and which headers it may see.
    static func cors(allowing origins: Set<String>) -> @Sendable (@escaping HTTPResponder) -> HTTPResponder {
        { next in
            { request in
                if request.method == "OPTIONS" { return preflight(request, allowedOrigins: origins) }
                var response = next(request)
                if let origin = request.headers["Origin"], origins.contains(origin) {
                    response.headers.set("Access-Control-Allow-Origin", origin)
                    response.headers.set(
                        "Access-Control-Expose-Headers",
                        "ETag, Location, Retry-After, Idempotent-Replayed, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy"
                    )
                    response.headers.set("Vary", "Origin")
                }
                return response
            }
        }
    }

    /// A CORS preflight (no sign-in): allowed for the configured origins only.
    static func preflight(_ request: HTTPRequest, allowedOrigins: Set<String>) -> HTTPResponse {
        guard let origin = request.headers["Origin"], allowedOrigins.contains(origin) else {
            return JSONAPIHandler.forbidden("this origin may not call the API from a browser")
        }
        return HTTPResponse(
            status: 204,
            headers: [
                "Access-Control-Allow-Origin": origin, "Access-Control-Allow-Methods": "GET, POST, PUT, PATCH, DELETE",
                "Access-Control-Allow-Headers": "Authorization, Content-Type, If-Match, Idempotency-Key, X-CSRF-Token",
                "Access-Control-Max-Age": "600",
                "Vary": "Origin",
            ])
    }

    /// Who calls the API, from the request's head alone, then the API as them:
    /// - `Authorization` (Basic or a Bearer token) for apps and scripts;
    /// - else the web pages' session cookie, a change carrying the page's `X-CSRF-Token`.
    /// Then each principal's requests count against its rate limit (`limit`).
    static func apiCaller(authenticator: Authenticator, web: WebCalendar, api: JSONAPIHandler, limit: RateLimit)
        -> HTTPResponder
    {
        { request in
            if request.headers["Authorization"] == nil, let session = web.session(for: request) {
                let principal = APIPrincipal(user: session.user)
                let safe = request.method == "GET" || request.method == "HEAD"
                guard safe || carriesCSRF(request, session.csrfToken) else {
                    return JSONAPIHandler.forbidden("a change from the web pages needs the page's X-CSRF-Token")
                }
                return limit.apply(to: principal) { api.respond(to: request, as: principal) }
            }
            switch authenticator.authenticateAPI(request) {
            case .failure(let failure): return JSONAPIHandler.response(for: failure)
            case .success(let signedIn):
                let principal = APIPrincipal(user: signedIn.user, token: signedIn.token)
                return limit.apply(to: principal) { api.respond(to: request, as: principal) }
            }
        }
    }

    /// Who calls a booking link's cancel or reschedule: a request with `Authorization`,
    /// or not a POST, is an account's (`account` answers it); else the API tells a booker,
    /// whose link's token is in the body, from the owner signed in to the web pages (with
    /// their CSRF token). A booker is not counted against a rate limit; an owner is.
    static func bookingCaller(web: WebCalendar, api: JSONAPIHandler, limit: RateLimit, account: @escaping HTTPResponder)
        -> HTTPResponder
    {
        { request in
            guard request.method == "POST", request.headers["Authorization"] == nil else { return account(request) }
            guard let session = web.session(for: request) else { return api.respondToBooker(request) }
            let principal = APIPrincipal(user: session.user)
            return limit.apply(to: principal) {
                api.respondToBooker(
                    request, session: (principal, mayChange: carriesCSRF(request, session.csrfToken)))
            }
        }
    }

    /// The API's rate limit: each principal's requests a minute (its token's own limit, else
    /// `perMinute`; 0: none). Past it, 429 with `Retry-After`; every answer carries
    /// `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds until the
    /// allowance is whole again), and `RateLimit-Policy` (`1200;w=60`: 1,200 requests in a
    /// window of 60 seconds).
    struct RateLimit: Sendable {
        let perMinute: Int
        let limiter: RateLimiter

        init(perMinute: Int, now: @escaping @Sendable () -> Int) {
            self.perMinute = max(0, perMinute)
            limiter = RateLimiter(now: now)
        }

        func apply(to principal: APIPrincipal, _ next: () -> HTTPResponse) -> HTTPResponse {
            guard perMinute > 0 else { return next() }
            let key = principal.token.map { "token:" + $0.id } ?? "user:" + principal.user
            let decision = limiter.take(key, perMinute: principal.token?.rateLimit ?? perMinute)
            var response =
                decision.retryAfter.map { wait in
                    JSONAPIHandler.tooManyRequests(
                        "this \(principal.token == nil ? "user" : "token") may send \(decision.limit) requests a minute; try again in \(wait) s",
                        retryAfter: wait)
                } ?? next()
            response.headers.set("RateLimit-Limit", String(decision.limit))
            response.headers.set("RateLimit-Remaining", String(decision.remaining))
            response.headers.set("RateLimit-Reset", String(decision.reset))
            response.headers.set("RateLimit-Policy", "\(decision.limit);w=60")
            return response
        }
    }

    /// Page views and form posts a minute from one address on the public booking pages.
    static let bookingViewsPerMinute = 120
    static let bookingPostsPerMinute = 10

    /// The public booking pages' throttle: every GET, HEAD or POST under `/book/` counts
    /// against its address's allowance, found or not; past it, the pages' 429.
    static func bookingThrottle(_ limiter: RateLimiter, web: WebCalendar)
        -> @Sendable (@escaping HTTPResponder) -> HTTPResponder
    {
        { next in
            { request in
                guard ["GET", "HEAD", "POST"].contains(request.method) else { return next(request) }
                let post = request.method == "POST"
                let decision = limiter.take(
                    (post ? "post:" : "view:") + IPAddress.clientKey(request.remoteAddress),
                    perMinute: post ? bookingPostsPerMinute : bookingViewsPerMinute)
                guard let wait = decision.retryAfter else { return next(request) }
                return web.tooManyRequests(request, retryAfter: wait)
            }
        }
    }

    /// Steps of sign-ins through the identity provider a minute from one address (a
    /// sign-in is two: the start and the provider's answer, which costs a request to it).
    static let identitySignInsPerMinute = 20

    /// The identity provider's sign-in pages' throttle, per address; past it, the pages' 429.
    static func identitySignInThrottle(_ limiter: RateLimiter, web: WebCalendar)
        -> @Sendable (@escaping HTTPResponder) -> HTTPResponder
    {
        { next in
            { request in
                let decision = limiter.take(
                    "oidc:" + IPAddress.clientKey(request.remoteAddress), perMinute: identitySignInsPerMinute)
                guard let wait = decision.retryAfter else { return next(request) }
                return web.tooManyRequests(request, retryAfter: wait)
            }
        }
    }

    /// Whether a request from the web pages carries its session's CSRF token.
    static func carriesCSRF(_ request: HTTPRequest, _ token: String) -> Bool {
        Crypto.constantTimeEqual(Array((request.headers["X-CSRF-Token"] ?? "").utf8), Array(token.utf8))
    }
}
