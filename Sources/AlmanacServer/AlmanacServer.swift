import Accounts
import CalDAV
import CalendarStore
import HTTPServer

/// The server as one value: the store, authentication and the routes, wired onto
/// the HTTP transport. `almanac serve` makes one and runs it.
///
/// Routes so far:
/// - `GET /` — what this server is and where its CalDAV root is (no sign-in).
/// - `/.well-known/caldav` — a redirect to the CalDAV root (RFC 6764).
/// - `/dav/…` — the CalDAV tree; every request is authenticated (HTTP Basic).
public final class AlmanacServer: Sendable {
    public let backend: SQLiteBackend
    public let authenticator: Authenticator
    let server: HTTPServer

    public init(backend: SQLiteBackend, configuration: ServerConfiguration) {
        self.backend = backend
        let authenticator = Authenticator(backend: backend)
        self.authenticator = authenticator
        server = HTTPServer(configuration: configuration, responder: Self.router(backend: backend, authenticator: authenticator).responder)
    }

    static func router(backend: SQLiteBackend, authenticator: Authenticator) -> Router {
        var router = Router()
        let caldav = CalDAVHandler(backend: backend)
        let dav: HTTPResponder = { request in
            switch authenticator.authenticate(request) {
            case .failure(let error):
                return error.response
            case .success(let user):
                return caldav.respond(to: request, user: user)
            }
        }
        router.add("/", methods: ["GET", "HEAD"]) { _ in
            .text(200, "Almanac calendar server. CalDAV: /dav/ (sign in with your Almanac user).\n")
        }
        // Clients that are given only the server's address start discovery at `/`.
        router.add("/", methods: ["PROPFIND", "OPTIONS"], dav)
        router.addPrefix("/.well-known/caldav") { _ in
            HTTPResponse(status: 301, headers: ["Location": "/dav/"])
        }
        router.addPrefix("/dav", dav)
        return router
    }

    /// Starts listening (returns at once).
    public func start() throws(ServerError) { try server.start() }

    /// The port listened on.
    public var port: UInt16 { server.port }

    /// Stops gracefully: requests in progress finish first.
    public func stop(gracePeriod: Double = 10) { server.stop(gracePeriod: gracePeriod) }

    /// Makes sure someone can sign in: when the store has no users, creates `name`
    /// with a generated password and returns both (to print once).
    public static func ensureFirstUser(in backend: SQLiteBackend, name: String) throws(StoreError) -> (user: String, password: String)? {
        guard try backend.users().isEmpty else { return nil }
        let password = PasswordGenerator.generate()
        try backend.createUser(named: name, displayName: nil, passwordHash: PasswordHash(password: password).description)
        return (name, password)
    }
}
