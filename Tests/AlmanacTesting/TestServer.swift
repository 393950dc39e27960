// AlmanacTesting: the real server for tests, so a suite reads as a scenario.
//
// `TestServer` runs `AlmanacServer` over a `DatabaseBackend`: SQLite in a temporary
// directory, or PostgreSQL in a schema of its own when the suite runs under
// `scripts/with-test-postgres` (which sets `ALMANAC_TEST_POSTGRES`). A request reaches it
// in process (`AlmanacServer.respond(to:)`) or over a real socket on 127.0.0.1 (a port the
// system picks, started and stopped with the test), chosen by a `ServerSetup` argument, so
// one test body checks both. Users are created with passwords and requests are signed in
// with HTTP Basic, as a client would.
//
// On top of it, `DAVClient` returns parsed values (a multistatus as responses with their
// hrefs, statuses and properties per propstat status; a DAV error as its status and
// precondition), read with FoundationXML's `XMLDocument`, a parser independent of the
// product's own XML reader; `APIClient` returns the JSON API's answers as JSON values.
//
// The pure helpers (seeded randomness, the corpus generator, temporary directories) stay
// in AlmanacTestSupport, which low-level suites and the benchmarks use without a server.

import Accounts
import AlmanacServer
import AlmanacTestSupport
import CalDAV
import CalendarStore
import Foundation
import HTTPServer
import HTTPTypes
import Outbound
import Push
import Reminders
import Subscriptions
import Webhooks

/// Which database a test server keeps its data in.
public enum StoreKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A SQLite file in a temporary directory.
    case sqlite
    /// A fresh schema of the cluster `ALMANAC_TEST_POSTGRES` names.
    case postgres

    /// SQLite always; PostgreSQL too when a test cluster is running.
    public static var available: [StoreKind] { TestPostgres.url == nil ? [.sqlite] : [.sqlite, .postgres] }

    /// The kinds a test can open here (``available``), so `@Test(arguments: StoreKind.allCases)`
    /// runs on PostgreSQL only when a cluster is running.
    public static var allCases: [StoreKind] { available }

    public var description: String { rawValue }

    /// A new, empty backend of this kind (in `directory` for SQLite).
    public func openBackend(in directory: TemporaryDirectory) throws -> DatabaseBackend {
        switch self {
        case .sqlite: try DatabaseBackend(directory: directory.path)
        case .postgres: try DatabaseBackend(postgresURL: try TestPostgres.freshURL())
        }
    }
}

/// How requests reach a test server.
public enum Transport: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `AlmanacServer.respond(to:)`: the routes and authentication, no socket.
    case inProcess
    /// HTTP/1.1 over a TCP connection to the listening server on 127.0.0.1.
    case loopback

    public var description: String { rawValue }
}

/// A store and a transport: what a scenario runs on. Pass a list of them as a test's
/// `arguments:` to run one test body on each.
public struct ServerSetup: Sendable, Hashable, CustomStringConvertible {
    /// Where the data is kept.
    public var store: StoreKind
    /// How requests reach the server.
    public var transport: Transport

    public init(_ store: StoreKind = .sqlite, _ transport: Transport = .inProcess) {
        self.store = store
        self.transport = transport
    }

    /// SQLite, in process: the cheapest setup.
    public static let inProcess = ServerSetup(.sqlite, .inProcess)
    /// SQLite, over a loopback socket.
    public static let loopback = ServerSetup(.sqlite, .loopback)

    /// Every transport on SQLite, and PostgreSQL in process when a test cluster runs.
    public static var all: [ServerSetup] {
        [.inProcess, .loopback] + (StoreKind.available.contains(.postgres) ? [ServerSetup(.postgres, .inProcess)] : [])
    }

    /// Every available store, in process.
    public static var everyStore: [ServerSetup] { StoreKind.available.map { ServerSetup($0, .inProcess) } }

    /// Both transports, on SQLite.
    public static var everyTransport: [ServerSetup] { [.inProcess, .loopback] }

    public var description: String { "\(store) \(transport)" }
}

/// A request the harness could not make or an answer it could not read.
public struct TestServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The real `AlmanacServer` on a fresh store, reached in process or over loopback.
/// The listening server (loopback) is stopped when the value goes away.
public final class TestServer: @unchecked Sendable {
    /// The store and transport this server runs on.
    public let setup: ServerSetup
    /// Holds the SQLite file (and nothing for PostgreSQL); removed with the server.
    public let directory: TemporaryDirectory
    /// The store, to set up or check what a scenario stored.
    public let backend: DatabaseBackend
    /// The real server, as `almanac serve` runs it.
    public let server: AlmanacServer
    private let lock = NSLock()
    private var passwords: [String: String] = [:]

    /// A server on a new store with `users` (each with a password, see ``password(for:)``).
    ///
    /// - Parameter now: the server's clock (Unix seconds); the system clock if nil.
    /// - Parameter allowedOrigins: web origins allowed to call the API from a browser.
    /// - Parameter visiblePrincipals: whose principals a user sees (`almanac serve --visible-principals`).
    /// - Parameter subscriptions: fetches subscribed feeds with this configuration (its
    ///   timer's interval is the first wait: tests call `refreshDue()` themselves); the API
    ///   refuses subscriptions when nil.
    /// - Parameter webhooks: delivers webhooks (to loopback too, as `serve
    ///   --allow-private-webhooks`) with this configuration; none when nil. The API still
    ///   checks URLs then, allowing loopback.
    /// - Parameter ldap: the LDAP directory for users without a stored password.
    /// - Parameter alarms: fires alarms with this configuration (on the server's clock);
    ///   none when nil.
    /// - Parameter push: offers WebDAV-Push and sends its messages with this
    ///   configuration; none when nil.
    public init(
        _ setup: ServerSetup = .inProcess, users: [String] = ["anna", "bob"], allowedOrigins: [String] = [],
        visiblePrincipals: PrincipalVisibility = .onlySelf, webhooks: WebhookDispatcher.Configuration? = nil,
        outbound: OutboundPolicy = OutboundPolicy(allowsPrivateAddresses: true),
        subscriptions: SubscriptionRefresher.Configuration? = nil, ldap: LDAPDirectory? = nil,
        alarms: AlarmScheduler.Configuration? = nil, push: PushDispatcher.Configuration? = nil,
        now: (@Sendable () -> Int)? = nil
    ) throws {
        self.setup = setup
        directory = try TemporaryDirectory()
        backend = try setup.store.openBackend(in: directory)
        server = AlmanacServer(
            backend: backend, configuration: ServerConfiguration(port: 0, threads: 2, accessLog: false),
            allowedOrigins: allowedOrigins, visiblePrincipals: visiblePrincipals, webhooks: webhooks,
            outbound: outbound, subscriptions: subscriptions, alarms: alarms, push: push, directory: ldap,
            now: now ?? AlmanacServer.systemNow)
        for user in users { try createUser(user) }
        if setup.transport == .loopback {
            do {
                try server.start()
            } catch {
                throw TestServerError("the server did not start on a loopback port: \(error)")
            }
        } else {
            server.startDeliveries()
        }
    }

    deinit {
        if setup.transport == .loopback { server.stop(gracePeriod: 0) } else { server.stopDeliveries() }
    }

    /// The port the server listens on (loopback only).
    public var port: UInt16 { server.port }

    /// Creates `name` with `password` (by default one derived from the name). The hash
    /// takes few iterations: tests sign in often and are not about hashing.
    public func createUser(_ name: String, password: String? = nil, displayName: String? = nil) throws {
        let password = password ?? "\(name) password"
        try backend.createUser(
            named: name, displayName: displayName,
            passwordHash: PasswordHash(password: password, iterations: 1_000).description)
        lock.withLock { passwords[name] = password }
    }

    /// A personal API token for `user` with `scope`; returns the secret a client sends
    /// as `Authorization: Bearer <secret>`.
    public func createAPIToken(
        for user: String, scope: AccessToken.Scope, name: String? = nil, rateLimit: Int? = nil
    ) throws -> String {
        let (id, secret) = APITokenSecret.generate()
        try backend.appState.createAccessToken(
            AccessToken(
                id: id, user: user, name: name ?? scope.rawValue, scope: scope, created: 0, rateLimit: rateLimit),
            secretHash: APITokenSecret.hash(secret))
        return secret
    }

    /// The password `user` was created with.
    public func password(for user: String) -> String {
        lock.withLock { passwords[user] } ?? "\(user) password"
    }

    /// `Authorization: Basic …` for `user`.
    public func basicAuthorization(for user: String) -> String {
        "Basic " + Data("\(user):\(password(for: user))".utf8).base64EncodedString()
    }

    /// `user`'s event store, to set up or check what a scenario stored.
    public func eventStore(for user: String) throws -> any EventStore { try backend.eventStore(for: user) }

    /// A CalDAV client signed in as `user` (or not signed in, when nil).
    public func dav(_ user: String? = "anna") -> DAVClient { DAVClient(server: self, user: user) }

    /// A JSON API client signed in as `user` with Basic.
    public func api(_ user: String) -> APIClient {
        APIClient(server: self, authorization: basicAuthorization(for: user))
    }

    /// A JSON API client that sends `Authorization: Bearer <token>`.
    public func api(bearer token: String) -> APIClient { APIClient(server: self, authorization: "Bearer " + token) }

    /// Sends one request as given (the target may carry a query) and returns the answer.
    /// `authorization` is sent as the `Authorization` header when not nil.
    public func send(
        _ method: String, _ target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        authorization: String? = nil
    ) throws -> TestResponse {
        var headers = headers
        if let authorization { headers.set("Authorization", authorization) }
        switch setup.transport {
        case .inProcess:
            let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            let request = HTTPRequest(
                method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : nil,
                headers: headers, body: body)
            let response = server.respond(to: request)
            return TestResponse(status: response.status, headers: response.headers, body: response.body)
        case .loopback:
            return try LoopbackClient.exchange(
                port: port, method: method, target: target, headers: headers, body: body)
        }
    }
}

/// An answer as a client sees it: status, headers (in order, repeated ones kept) and body.
public struct TestResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// HTTP/1.1 over one TCP connection per request (`Connection: close`), read back to the
/// end and parsed: the status line, every header line, and the body by its length or
/// its chunks.
enum LoopbackClient {
    static func exchange(port: UInt16, method: String, target: String, headers: HTTPHeaders, body: [UInt8]) throws
        -> TestResponse
    {
        var head = "\(method) \(target) HTTP/1.1\r\nConnection: close\r\n"
        if headers["Host"] == nil { head += "Host: 127.0.0.1:\(port)\r\n" }
        if headers["Content-Length"] == nil && (!body.isEmpty || !["GET", "HEAD", "OPTIONS"].contains(method)) {
            head += "Content-Length: \(body.count)\r\n"
        }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let received = try RawHTTP.exchangeBytes(port: port, Array((head + "\r\n").utf8) + body, timeout: 60)
        return try parse(received, method: method)
    }

    static func parse(_ raw: [UInt8], method: String) throws -> TestResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = raw.indices.first(where: { raw[$0...].starts(with: separator) }) else {
            throw TestServerError("no complete response head in \(raw.count) bytes")
        }
        let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw TestServerError("not a status line: \(lines[0])")
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw TestServerError("not a header line: \(line)") }
            headers.add(
                String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(raw[(end + 4)...])
        if method == "HEAD" || status == 204 || status == 304 {
            body = []
        } else if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body)
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            guard body.count >= length else {
                throw TestServerError("the body ended after \(body.count) of \(length) bytes")
            }
            body = Array(body.prefix(length))
        }
        return TestResponse(status: status, headers: headers, body: body)
    }

    static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = bytes[index...].firstIndex(of: 13), lineEnd + 1 < bytes.count else {
                throw TestServerError("a chunked body ended without its last chunk")
            }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw TestServerError("not a chunk size: \(sizeText)")
            }
            index = lineEnd + 2
            if size == 0 { return output }
            guard index + size <= bytes.count else { throw TestServerError("a chunk ended early") }
            output += bytes[index..<(index + size)]
            index += size + 2
        }
    }
}
