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
import Push
import Recurrence
import Reminders
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
/// Every route is in one table (``ServerRoutes``): its method, path template, who may
/// call it and what answers it; `docs/design.md` lists them.
public final class AlmanacServer: Sendable {
    public let backend: DatabaseBackend
    public let authenticator: Authenticator
    let routes: ServerRoutes
    let server: HTTPServer
    /// The address listened on.
    let host: String
    /// Delivers the webhook outbox while the server runs (nil: this process delivers none).
    public let webhookDispatcher: WebhookDispatcher?
    let holdSweeper: HoldSweeper
    /// Fetches subscribed calendars' feeds (nil: this process fetches none).
    public let subscriptionRefresher: SubscriptionRefresher?
    /// Fires alarms while the server runs (nil: this process fires none).
    public let alarmScheduler: AlarmScheduler?
    /// Sends iMIP and booking mail through the relay (nil: `serve` has no `--smtp`).
    let mail: ServerMail?
    /// Sends WebDAV-Push messages while the server runs (nil: WebDAV-Push is off).
    public let pushDispatcher: PushDispatcher?

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
    /// - Parameter push: how this process sends WebDAV-Push messages (`serve` does unless
    ///   `--no-push`); nil: calendars advertise no push and take no registrations.
    /// - Parameter alarms: how this process fires alarms (`serve` does unless `--no-alarms`);
    ///   nil: it fires none.
    /// - Parameter smtp: the relay iMIP invitations and answers go out through (`serve
    ///   --smtp`); nil: attendees outside the server are not reached.
    /// - Parameter subscriptions: how this process fetches subscribed feeds (`serve`
    ///   always does); with nil it fetches none and the API refuses new subscriptions.
    /// - Parameter directory: the LDAP directory that checks the passwords of users who
    ///   have none stored here (`serve --ldap-url …`); nil: only stored passwords.
    /// - Parameter identity: the OpenID Connect provider whose access tokens the API
    ///   accepts and whose sign-in the web pages offer (`serve --oidc-issuer …`); nil: none.
    /// - Parameter identityPolicy: the outbound rules for requests to that provider (by
    ///   default none to private or loopback addresses: `--allow-private-identity`).
    /// - Parameter now: the current time (Unix seconds), for minimum notice, "today",
    ///   sessions and rate limits; the system clock unless a test fixes it.
    public init(
        backend: DatabaseBackend, configuration: ServerConfiguration, allowedOrigins: [String] = [],
        visiblePrincipals: PrincipalVisibility = .onlySelf, apiRateLimit: Int = AlmanacServer.defaultAPIRateLimit,
        webhooks: WebhookDispatcher.Configuration? = nil, outbound: OutboundPolicy = OutboundPolicy(),
        subscriptions: SubscriptionRefresher.Configuration? = nil, alarms: AlarmScheduler.Configuration? = nil,
        push: PushDispatcher.Configuration? = nil, smtp: SMTPClient.Relay? = nil,
        directory: LDAPDirectory? = nil, identity: OpenIDProvider.Configuration? = nil,
        identityPolicy: OutboundPolicy = OutboundPolicy(permission: "--allow-private-identity"),
        now: @escaping @Sendable () -> Int = AlmanacServer.systemNow
    ) {
        self.backend = backend
        host = configuration.host
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
        let provider = identity.map {
            OpenIDProvider($0, transport: ServerIdentityTransport(policy: identityPolicy), now: now)
        }
        let authenticator = Authenticator(backend: backend, directory: directory, identityProvider: provider, now: now)
        self.authenticator = authenticator
        let mail = smtp.flatMap { try? ServerMail(relay: $0) }
        self.mail = mail
        alarmScheduler = alarms.map { alarms in
            var alarms = alarms
            alarms.mailSender = alarms.mailSender ?? smtp?.envelopeSender
            let scheduler = AlarmScheduler(store: backend.reminders, configuration: alarms, now: now)
            scheduler.mailer = mail
            return scheduler
        }
        var web = WebCalendar(
            backend: backend,
            verifyPassword: { user, password, address in
                authenticator.verify(BasicCredentials(user: user, password: password), address: address).map(\.name)
            },
            now: now)
        web.mail = mail
        web.identity = provider.map { provider in
            WebIdentitySignIn(
                name: provider.displayName,
                begin: { signIn, redirectURI in
                    provider.authorizationURL(for: signIn, redirectURI: redirectURI).mapError { refusal in
                        authenticator.logProblem("OpenID Connect", refusal.message)
                        return .unavailable(reason: "the identity provider cannot be reached now; try again shortly")
                    }
                },
                finish: { signIn, state, code, redirectURI in
                    switch provider.finish(signIn, state: state, code: code, redirectURI: redirectURI) {
                    case .unavailable(let reason):
                        authenticator.logProblem("OpenID Connect", reason)
                        return .failure(
                            .unavailable(reason: "the identity provider cannot be reached now; try again shortly"))
                    case .refused(let reason): return .failure(.invalidToken(reason))
                    case .verified(let claims): return authenticator.account(for: claims, provider).map(\.name)
                    }
                })
        }
        pushDispatcher = push.flatMap { configuration in
            do {
                return PushDispatcher(
                    store: backend.push, keys: try PushKeys.load(from: backend.push), configuration: configuration)
            } catch {
                FileHandle.standardError.write(Data("almanac: WebDAV-Push is off: \(error)\n".utf8))
                return nil
            }
        }
        let pushSupport = pushDispatcher.map { dispatcher in
            let policy = dispatcher.configuration.http.policy
            return WebDAVPushSupport(
                vapidPublicKey: dispatcher.keys.vapid.publicKey, topicKey: dispatcher.keys.topicKey,
                refusal: { url in policy.refusalWithoutResolving(for: url)?.description }, now: now)
        }
        let routes = ServerRoutes(
            backend: backend, authenticator: authenticator, web: web, allowedOrigins: Set(allowedOrigins),
            visiblePrincipals: visiblePrincipals, apiRateLimit: apiRateLimit,
            webhookEndpoints: ServerWebhookEndpoints(options: http),
            feedRefusal: subscriptions.map { configuration in
                { @Sendable url in configuration.policy.refusalWithoutResolving(for: url)?.description }
            }, push: pushSupport, mail: mail, now: now)
        self.routes = routes
        server = HTTPServer(
            configuration: configuration,
            admission: Self.admission(routes: routes, authenticator: authenticator, web: web)
        ) { request in
            // Expansion for a client that went away stops at its next check (ExpansionBudget).
            ExpansionBudget.withCancellation(request.isClientGone) { routes.respond(to: request) }
        }
    }

    /// The system clock, Unix seconds.
    public static let systemNow: @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }

    /// The largest body a request may send without being signed in: the sign-in form, a
    /// booking form, a booking link's cancel or reschedule.
    static let unauthenticatedBodyLimit = 16 << 10

    /// Who may send a body, and how much, decided by the route's access (``RouteAccess``)
    /// when the headers arrive and before any of it is read: a signed-in principal (Basic,
    /// a token, or a web session, as the route takes) up to the server's limit; anyone
    /// else on a route open to them (a sign-in form, a booking form, a booking link's
    /// request) up to 16 KiB, announced with Content-Length (a chunked body from someone
    /// not signed in is 411, so nothing unauthenticated streams in). Anyone else gets
    /// their 401, and a request no route takes its 404 or 405, at once: no body is read
    /// for nothing.
    static func admission(routes: ServerRoutes, authenticator: Authenticator, web: WebCalendar) -> HTTPAdmission {
        { request in
            guard let access = routes.access(for: request) else { return .answer(routes.respond(to: request)) }
            switch access {
            case .anyone,
                .booker where request.headers["Authorization"] == nil:
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
            case .session:
                // Without a session the pages answer with their sign-in form: no body needed.
                return web.session(for: request) == nil ? .answer(web.respond(to: request)) : .read(upTo: .max)
            case .basic:
                if case .failure(let failure) = authenticator.authenticate(request) {
                    return .answer(CalDAVHandler.response(for: failure))
                }
                return .read(upTo: .max)
            case .token, .booker:
                if request.headers["Authorization"] == nil, web.session(for: request) != nil {
                    return .read(upTo: .max)
                }
                if case .failure(let failure) = authenticator.authenticateAPI(request) {
                    return .answer(JSONAPIHandler.response(for: failure))
                }
                return .read(upTo: .max)
            }
        }
    }

    /// Answers a request in process, as the listening server would.
    public func respond(to request: HTTPRequest) -> HTTPResponse { routes.respond(to: request) }

    /// Starts listening and delivering webhooks (returns at once).
    public func start() throws(ServerError) {
        try server.start()
        alarmScheduler?.listening(at: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
        startDeliveries()
    }

    /// Starts delivering webhooks, expiring holds, fetching feeds and firing alarms without listening (a
    /// server answered in process).
    public func startDeliveries() {
        webhookDispatcher?.start()
        holdSweeper.start()
        subscriptionRefresher?.start()
        alarmScheduler?.start()
        pushDispatcher?.start()
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

    /// Stops delivering webhooks, expiring holds, fetching feeds and firing alarms, and sends the mail
    /// still queued (a server answered in process).
    public func stopDeliveries() {
        mail?.stop()
        webhookDispatcher?.stop()
        holdSweeper.stop()
        subscriptionRefresher?.stop()
        alarmScheduler?.stop()
        pushDispatcher?.stop()
    }

    /// Makes sure someone can sign in: when the store has no users, creates `name` (an
    /// admin) with a generated password and returns both (to print once).
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
        // The first user runs the server: an admin.
        try backend.setRole(.admin, forUser: name)
        return (name, password)
    }
}
