import Accounts
import Bookings
import CalDAV
import CalendarStore
import Feeds
import Foundation
import HTTPServer
import HTTPTypes
import JSONAPI
import Outbound
import Recurrence
import Scheduling
import Subscriptions
import WebCalendar
import Webhooks

/// Whose CalDAV principals a signed-in user may see besides their own (the CalDAV
/// handler's setting, named here so the CLI and tests configure it through the server).
public typealias PrincipalVisibility = CalDAV.PrincipalVisibility

/// The server as one value: the store, authentication and the routes, wired onto
/// the HTTP transport. `almanac serve` makes one and runs it.
///
/// Routes so far:
/// - `GET /` — what this server is and where its CalDAV root is (no sign-in).
/// - `/.well-known/caldav` — a redirect to the CalDAV root (RFC 6764).
/// - `/dav/…` — the CalDAV tree; every request is authenticated (HTTP Basic).
/// - `/feeds/<token>.ics` — a calendar's subscription feed (the token is the key).
/// - `/api/v1/…` — the JSON API (Basic or a personal token as `Bearer`), with CORS
///   for the configured origins; `/api/v1/openapi.json` needs no sign-in.
/// - `/events/<id>.ics` — one event as a file to add (signed in).
public final class AlmanacServer: Sendable {
    public let backend: DatabaseBackend
    public let authenticator: Authenticator
    let router: Router
    let server: HTTPServer
    /// Delivers the webhook outbox while the server runs (nil: this process delivers none).
    public let webhookDispatcher: WebhookDispatcher?
    let holdSweeper: HoldSweeper
    /// Fetches subscribed calendars' feeds (nil: this process fetches none).
    public let subscriptionRefresher: SubscriptionRefresher?

    /// - Parameter allowedOrigins: web origins (`https://app.example.com`) whose pages may
    ///   call the JSON API from a browser (CORS); none by default.
    /// - Parameter visiblePrincipals: whose CalDAV principals a user may see besides their
    ///   own (listed, searched, read); only their own by default.
    /// - Parameter apiRateLimit: JSON API requests a minute per token (and per user for
    ///   Basic and web-session calls) unless a token has its own limit; 0 for none.
    /// - Parameter webhooks: how this process delivers webhooks (`serve` always does;
    ///   with nil it delivers none, and the API's URL checks and test pings use
    ///   `outbound`'s rules).
    /// - Parameter outbound: the rules for the server's own requests (by default none to
    ///   private or loopback addresses).
    /// - Parameter smtp: the relay iMIP invitations and answers go out through (`serve
    ///   --smtp`); nil: attendees outside the server are not reached.
    /// - Parameter subscriptions: how this process fetches subscribed feeds (`serve`
    ///   always does); with nil it fetches none and the API refuses new subscriptions.
    /// - Parameter now: the current time (Unix seconds), for minimum notice, "today",
    ///   sessions and rate limits; the system clock unless a test fixes it.
    public init(
        backend: DatabaseBackend, configuration: ServerConfiguration, allowedOrigins: [String] = [],
        visiblePrincipals: PrincipalVisibility = .onlySelf, apiRateLimit: Int = AlmanacServer.defaultAPIRateLimit,
        webhooks: WebhookDispatcher.Configuration? = nil, outbound: OutboundPolicy = OutboundPolicy(),
        subscriptions: SubscriptionRefresher.Configuration? = nil, smtp: SMTPClient.Relay? = nil,
        now: @escaping @Sendable () -> Int = AlmanacServer.systemNow
    ) {
        self.backend = backend
        var http = webhooks?.http ?? OutboundHTTPClient.Options()
        http.policy = outbound
        if var webhooks {
            webhooks.http = http
            webhookDispatcher = WebhookDispatcher(store: backend.webhooks, configuration: webhooks)
        } else {
            webhookDispatcher = nil
        }
        holdSweeper = HoldSweeper(store: backend.bookings, now: now)
        subscriptionRefresher = subscriptions.map {
            SubscriptionRefresher(store: backend.subscriptions, configuration: $0, now: now)
        }
        let authenticator = Authenticator(backend: backend)
        self.authenticator = authenticator
        let mail = smtp.flatMap { try? ServerMail(relay: $0) }
        var web = WebCalendar(
            backend: backend,
            verifyPassword: { user, password, address in
                authenticator.verify(BasicCredentials(user: user, password: password), address: address).map(\.name)
            },
            now: now)
        web.mail = mail
        router = Self.router(
            backend: backend, authenticator: authenticator, web: web, allowedOrigins: Set(allowedOrigins),
            visiblePrincipals: visiblePrincipals, apiRateLimit: apiRateLimit,
            webhookEndpoints: ServerWebhookEndpoints(options: http),
            feedRefusal: subscriptions.map { configuration in
                { @Sendable url in configuration.policy.refusal(for: url)?.description }
            }, mail: mail, now: now)
        let router = self.router
        server = HTTPServer(
            configuration: configuration, admission: Self.admission(authenticator: authenticator, web: web)
        ) { request in
            // Expansion for a client that went away stops at its next check (ExpansionBudget).
            ExpansionBudget.withCancellation(request.isClientGone) { router.respond(to: request) }
        }
    }

    /// The system clock, Unix seconds.
    public static let systemNow: @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }

    /// The largest body a request may send without being signed in: the sign-in form, a
    /// booking form, a booking link's cancel or reschedule.
    static let unauthenticatedBodyLimit = 16 << 10

    /// Who may send a body, and how much, decided when the headers arrive and before any
    /// of it is read: a signed-in principal (Basic, a token, or a web session) up to the
    /// server's limit; a sign-in form, booking form or booking link's request (whose
    /// token is in the body) up to 16 KiB, announced with Content-Length (a chunked body
    /// from someone not signed in is 411, so nothing unauthenticated streams in).
    /// Anyone else gets their 401 at once, so no unauthenticated upload is ever buffered.
    static func admission(authenticator: Authenticator, web: WebCalendar) -> HTTPAdmission {
        { request in
            let isForm = request.path == "/login" || request.path.hasPrefix("/book/")
            if isForm || JSONAPIHandler.isBookerRequest(request) {
                guard let length = request.headers["Content-Length"].flatMap({ Int($0) }) else {
                    return .answer(
                        .text(
                            411, "411 Length Required: a request that is not signed in announces its length\n"))
                }
                guard length <= unauthenticatedBodyLimit else {
                    return .answer(
                        .text(
                            413,
                            "413 Content Too Large: a sign-in form, booking form or booking link's request is at most \(unauthenticatedBodyLimit) bytes\n"
                        ))
                }
                return .read(upTo: unauthenticatedBodyLimit)
            }
            let isAPI = request.path.hasPrefix(JSONAPIHandler.prefix + "/") || request.path.hasPrefix("/events/")
            if request.headers["Authorization"] == nil, web.session(for: request) != nil { return .read(upTo: .max) }
            if isAPI {
                if case .failure(let failure) = authenticator.authenticateAPI(request) {
                    return .answer(JSONAPIHandler.response(for: failure))
                }
                return .read(upTo: .max)
            }
            if case .failure(let failure) = authenticator.authenticate(request) {
                return .answer(CalDAVHandler.response(for: failure))
            }
            return .read(upTo: .max)
        }
    }

    /// Answers a request in process, as the listening server would.
    public func respond(to request: HTTPRequest) -> HTTPResponse { router.respond(to: request) }

    static func router(
        backend: DatabaseBackend, authenticator: Authenticator, web: WebCalendar, allowedOrigins: Set<String>,
        visiblePrincipals: PrincipalVisibility, apiRateLimit: Int, webhookEndpoints: ServerWebhookEndpoints,
        feedRefusal: (@Sendable (String) -> String?)?, mail: (any IMIPSender)?, now: @escaping @Sendable () -> Int
    ) -> Router {
        var router = Router()
        let caldav = CalDAVHandler(backend: backend, visiblePrincipals: visiblePrincipals, mail: mail, now: now)
        let dav: HTTPResponder = { request in
            switch authenticator.authenticate(request) {
            case .failure(let failure):
                return CalDAVHandler.response(for: failure)
            case .success(let user):
                return caldav.respond(to: request, as: user)
            }
        }
        // The web calendar: `/` is the sign-in form (or the calendar, signed in).
        let pages: HTTPResponder = { request in web.respond(to: request) }
        router.add("/", methods: ["GET", "HEAD"], pages)
        for path in ["/login", "/logout", "/settings"] { router.add(path, pages) }
        router.addPrefix("/calendar", pages)
        router.addPrefix("/book/", Middleware.bookingThrottle(RateLimiter(now: now), web: web)(pages))
        router.addPrefix("/static/", methods: ["GET", "HEAD"], pages)
        // Clients that are given only the server's address start discovery at `/`, and
        // conformance checkers search for principals there too.
        router.add("/", methods: ["PROPFIND", "OPTIONS", "REPORT"], dav)
        router.addPrefix("/.well-known/caldav") { _ in
            HTTPResponse(status: 301, headers: ["Location": "/dav/"])
        }
        router.addPrefix("/dav", dav)
        router.addPrefix(FeedHandler.prefix, methods: ["GET", "HEAD"]) { request in
            FeedHandler.respond(to: request, backend: backend, now: now)
        }

        let api = JSONAPIHandler(
            backend: backend,
            configuration: APIConfiguration(
                webhooks: webhookEndpoints, feedRefusal: feedRefusal, mail: mail, now: now))
        // The API's middleware, outermost first: CORS for the allowed browser origins, then
        // who is calling (credentials, the web session with its CSRF token, or a booker).
        let signedInAPI = Middleware.cors(allowing: allowedOrigins)(
            Middleware.apiCaller(
                authenticator: authenticator, web: web, api: api,
                limit: Middleware.RateLimit(perMinute: apiRateLimit, now: now)))
        router.addPrefix(JSONAPIHandler.prefix + "/", signedInAPI)
        router.addPrefix("/events/", methods: ["GET", "HEAD"], signedInAPI)
        return router
    }

    /// Starts listening and delivering webhooks (returns at once).
    public func start() throws(ServerError) {
        try server.start()
        startDeliveries()
    }

    /// Starts delivering webhooks, expiring holds and fetching feeds without listening (a
    /// server answered in process).
    public func startDeliveries() {
        webhookDispatcher?.start()
        holdSweeper.start()
        subscriptionRefresher?.start()
    }

    /// The port listened on.
    public var port: UInt16 { server.port }

    /// JSON API requests a minute per token or user unless set (`serve --api-rate-limit`).
    public static let defaultAPIRateLimit = RateLimiter.defaultPerMinute

    /// Stops gracefully: requests in progress finish first (those still running after
    /// the grace period are left to the ending process when `abandoning`), then webhook
    /// deliveries in progress.
    public func stop(gracePeriod: Double = 10, abandoning: Bool = false) {
        server.stop(gracePeriod: gracePeriod, abandoning: abandoning)
        stopDeliveries()
    }

    /// Stops delivering webhooks, expiring holds and fetching feeds (a server answered in process).
    public func stopDeliveries() {
        webhookDispatcher?.stop()
        holdSweeper.stop()
        subscriptionRefresher?.stop()
    }

    /// Makes sure someone can sign in: when the store has no users, creates `name`
    /// with a generated password and returns both (to print once).
    public static func ensureFirstUser(in backend: DatabaseBackend, name: String) throws(StoreError) -> (
        user: String, password: String
    )? {
        guard try backend.users().isEmpty else { return nil }
        let password = PasswordGenerator.generate()
        do {
            try backend.createUser(
                named: name, displayName: nil, passwordHash: PasswordHash(password: password).description)
        } catch  where error.code == .alreadyExists {
            return nil  // another process sharing the database created it first
        }
        return (name, password)
    }
}
