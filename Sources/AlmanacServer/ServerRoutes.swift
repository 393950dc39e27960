import Accounts
import CalDAV
import CalendarStore
import Feeds
import HTTPTypes
import JSONAPI
import Scheduling
import WebCalendar

/// What the server's table keeps per route: who may call it, and what answers it (the
/// protocol's responder inside the middleware that access needs).
struct Endpoint: Sendable {
    var access: RouteAccess
    var responder: HTTPResponder
}

/// The server's one route table: every protocol mounted at its paths with the access its
/// callers need. A protocol with routes of its own (the API, the web pages) routes within
/// its mount by the same table type, answering its own 404 and 405 in its own format; a
/// path or method no mount takes is answered here.
struct ServerRoutes: Sendable {
    let table: RouteTable<Endpoint>

    init(
        backend: DatabaseBackend, authenticator: Authenticator, web: WebCalendar, allowedOrigins: Set<String>,
        visiblePrincipals: PrincipalVisibility, apiRateLimit: Int, webhookEndpoints: ServerWebhookEndpoints,
        feedRefusal: (@Sendable (String) -> String?)?, push: WebDAVPushSupport?, mail: (any IMIPSender)?,
        now: @escaping @Sendable () -> Int
    ) {
        var handler = CalDAVHandler(backend: backend, visiblePrincipals: visiblePrincipals, mail: mail, now: now)
        handler.push = push
        let caldav = handler
        let dav: HTTPResponder = { request in
            switch authenticator.authenticate(request) {
            case .failure(let failure): return CalDAVHandler.response(for: failure)
            case .success(let signIn):
                return caldav.respond(to: request, as: signIn.user, appPassword: signIn.appPassword)
            }
        }
        let pages: HTTPResponder = { request in web.respond(to: request) }
        let bookingPages = Middleware.bookingThrottle(RateLimiter(now: now), web: web)(pages)
        let identityPages = Middleware.identitySignInThrottle(RateLimiter(now: now), web: web)(pages)
        let api = JSONAPIHandler(
            backend: backend,
            configuration: APIConfiguration(webhooks: webhookEndpoints, feedRefusal: feedRefusal, mail: mail, now: now))
        // The API's middleware, outermost first: CORS for the allowed browser origins, then
        // who is calling (credentials, or the web session with its CSRF token).
        let cors = Middleware.cors(allowing: allowedOrigins)
        let limit = Middleware.RateLimit(perMinute: apiRateLimit, now: now)
        let signedIn = Middleware.apiCaller(authenticator: authenticator, web: web, api: api, limit: limit)
        let booker = Middleware.bookingCaller(web: web, api: api, limit: limit, account: signedIn)

        func route(_ method: String, _ template: String, _ access: RouteAccess, _ responder: @escaping HTTPResponder)
            -> RouteTable<Endpoint>.Route
        {
            .init(method, template, Endpoint(access: access, responder: responder))
        }
        table = RouteTable([
            // The web calendar: `/` is the sign-in form (or the calendar, signed in).
            route("GET", "/", .anyone, pages),
            // Clients given only the server's address start discovery at `/`, and
            // conformance checkers search for principals there too.
            route("PROPFIND", "/", .basic, dav),
            route("OPTIONS", "/", .basic, dav),
            route("REPORT", "/", .basic, dav),
            route("POST", "/login", .anyone, pages),
            route("GET", "/login/oidc", .anyone, identityPages),
            route("GET", "/login/oidc/callback", .anyone, identityPages),
            route("POST", "/logout", .session, pages),
            route("POST", "/settings", .session, pages),
            route("*", "/calendar/{page...}", .session, pages),
            route("*", "/book/{page...}", .booker, bookingPages),
            route("GET", "/static/{file...}", .anyone, pages),
            route("GET", "/favicon.ico", .anyone, pages),
            // RFC 6764 discovery.
            route("*", "/.well-known/caldav/{rest...}", .anyone) { _ in
                HTTPResponse(status: 301, headers: ["Location": "/dav/"])
            },
            route("*", "/dav/{path...}", .basic, dav),
            route("GET", "/feeds/{file...}", .anyone) { request in
                FeedHandler.respond(to: request, backend: backend, now: now)
            },
            route("GET", "/api/v1/openapi.json", .anyone, cors(JSONAPIHandler.openAPIResponse)),
            // A booking link's cancel and reschedule: its token in the body proves a booker
            // (a POST; other methods are the API's to refuse).
            route("*", "/api/v1/bookings/{id}/cancel", .booker, cors(booker)),
            route("*", "/api/v1/bookings/{id}/reschedule", .booker, cors(booker)),
            route("*", "/api/v1/{path...}", .token, cors(signedIn)),
            route("GET", "/events/{file...}", .token, cors(signedIn)),
        ])
    }

    /// Who may call the route `request` is for; nil when no route takes it.
    func access(for request: HTTPRequest) -> RouteAccess? {
        guard case .found(let route, _) = table.match(method: request.method, path: request.path) else { return nil }
        return route.payload.access
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        switch table.match(method: request.method, path: request.path) {
        case .found(let route, _):
            return route.payload.responder(request)
        case .methodNotAllowed(let allow):
            let methods = allow.contains("GET") ? allow + ["HEAD"] : allow
            return .text(405, "405 Method Not Allowed\n", headers: ["Allow": methods.sorted().joined(separator: ", ")])
        case .notFound:
            return .text(404, "404 Not Found\n")
        }
    }
}
