import Accounts
import Foundation
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
    let router: Router
    let server: HTTPServer

    public init(backend: SQLiteBackend, configuration: ServerConfiguration) {
        self.backend = backend
        let authenticator = Authenticator(backend: backend)
        self.authenticator = authenticator
        router = Self.router(backend: backend, authenticator: authenticator)
        server = HTTPServer(configuration: configuration, responder: router.responder)
    }

    /// Answers a request in process, as the listening server would.
    public func respond(to request: HTTPRequest) -> HTTPResponse { router.respond(to: request) }

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
        router.addPrefix("/feeds/", methods: ["GET", "HEAD"]) { request in feed(request, backend: backend) }
        return router
    }

    /// `GET /feeds/<token>.ics`: a calendar's read-only subscription, no sign-in. A wrong
    /// or revoked token is a plain 404 that says nothing about what exists.
    static func feed(_ request: HTTPRequest, backend: SQLiteBackend) -> HTTPResponse {
        let notFound = HTTPResponse.text(404, "404 Not Found\n")
        let file = request.path.dropFirst("/feeds/".count)
        guard file.hasSuffix(".ics"), let token = PercentEncoding.decode(file.dropLast(4)), !token.contains("/"),
            let published = try? backend.feed(token: token), let store = try? backend.eventStore(for: published.owner),
            let calendar = try? store.calendar(withIdentifier: published.calendar)
        else { return notFound }
        let etag = "\"feed-" + calendar.ctag.filter { $0 != "\"" } + "\""
        var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "private, max-age=300"]
        if let wanted = request.headers["If-None-Match"], wanted.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }).contains(where: { $0 == etag || $0 == "*" }) {
            return HTTPResponse(status: 304, headers: headers)
        }
        guard let export = try? CalendarExport.icalendar(of: calendar, in: store, anchorFloatingTimes: true) else {
            return .text(503, "503 Service Unavailable\n")
        }
        headers.set("Content-Type", "text/calendar; charset=utf-8")
        headers.set("Content-Disposition", "inline; filename=\"calendar.ics\"")
        return HTTPResponse(status: 200, headers: headers, body: export.bytes)
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
