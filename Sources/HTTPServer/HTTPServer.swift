import CMicroHTTPD
import HTTPTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the server listens and what it accepts.
public struct ServerConfiguration: Sendable {
    /// An IPv4 or IPv6 literal (`127.0.0.1`, `::1`, `0.0.0.0`).
    public var host: String
    /// 0 picks a free port (read it back from `HTTPServer.port`).
    public var port: UInt16
    /// N > 0 (the default: one per core): a pool of N transport threads, each polling its
    /// share of the connections with epoll, reading requests and writing answers, and
    /// handing every request to the ``workers`` to answer. 0: each connection on its own
    /// thread, which also answers its requests (no workers).
    public var threads: Int
    /// The threads that answer requests when ``threads`` is above 0 (the default: two
    /// per core, at least four), shared fairly between client addresses: the address
    /// with the fewest requests being answered goes first, so one address's flood (of
    /// sign-ins to check, of slow requests) waits behind others, not they behind it.
    public var workers: Int
    /// The largest request body accepted; a larger one gets 413.
    public var maxBodySize: Int
    /// Seconds a connection may stay idle (also between keep-alive requests) before it is closed.
    public var connectionTimeout: Int
    /// Connections served at once; more wait in the kernel's backlog.
    public var connectionLimit: Int
    /// Connections one client address may hold at once (0: no limit of its own), so
    /// that one address cannot take every connection. Behind a reverse proxy every
    /// connection comes from the proxy: give 0 there (``trustedProxies`` does by default).
    public var connectionsPerAddress: Int
    /// Addresses of reverse proxies whose `X-Forwarded-For` names the client. From any
    /// other address the header is ignored and the socket's address is the client's.
    public var trustedProxies: Set<String>
    /// Whether to write one access-log line per request to standard error.
    public var accessLog: Bool

    public init(
        host: String = "127.0.0.1", port: UInt16 = 8080, threads: Int? = nil, workers: Int? = nil,
        maxBodySize: Int = 16 << 20,
        connectionTimeout: Int = 60, connectionLimit: Int = 1_024, connectionsPerAddress: Int? = nil,
        trustedProxies: Set<String> = [],
        accessLog: Bool = true
    ) {
        self.host = host
        self.port = port
        let cores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        self.threads = max(0, threads ?? cores)
        self.workers = max(1, workers ?? max(4, 2 * cores))
        self.maxBodySize = maxBodySize
        self.connectionTimeout = connectionTimeout
        self.connectionLimit = connectionLimit
        self.connectionsPerAddress = connectionsPerAddress ?? (trustedProxies.isEmpty ? 128 : 0)
        self.trustedProxies = trustedProxies
        self.accessLog = accessLog
    }
}

/// Why the server did not start.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// An HTTP/1.1 server on libmicrohttpd: keep-alive, a pool of transport threads with fair
/// request workers (or a thread per connection),
/// bodies read in full up to a limit (413 past it), idle timeouts, graceful
/// shutdown, and an access log. Requests and responses are plain values; the
/// layers above never see libmicrohttpd.
public final class HTTPServer: Sendable {
    let context: ServerContext
    /// The running daemon's address (0 when stopped); a number, so the lock holds a Sendable value.
    private let daemon = Mutex<UInt>(0)
    private let boundPort = Atomic<UInt16>(0)

    /// - Parameter admission: asked when the headers of a request with a body arrive,
    ///   before the body is read (see ``HTTPAdmission``).
    public init(configuration: ServerConfiguration, admission: HTTPAdmission? = nil, responder: @escaping HTTPResponder)
    {
        context = ServerContext(configuration: configuration, admission: admission, responder: responder)
    }

    /// The port the server listens on (after `start`).
    public var port: UInt16 { boundPort.load(ordering: .acquiring) }

    /// Starts listening; returns at once (the server runs on its own threads).
    public func start() throws(ServerError) {
        let configuration = context.configuration
        context.queue?.start()
        let unmanaged = Unmanaged.passUnretained(context).toOpaque()
        let started = cmhd_start(
            configuration.host, configuration.port, UInt32(configuration.threads),
            UInt32(configuration.connectionTimeout),
            UInt32(configuration.connectionLimit), UInt32(configuration.connectionsPerAddress), handleAccess, unmanaged,
            handleCompletion, unmanaged)
        guard let started else {
            context.queue?.stop()
            throw ServerError(
                description:
                    "cannot listen on \(configuration.host) port \(configuration.port) (in use, or not an address of this machine)"
            )
        }
        daemon.withLock { $0 = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(started))) }
        boundPort.store(cmhd_bound_port(started), ordering: .releasing)
    }

    /// Stops accepting connections, lets requests in progress finish (up to
    /// `gracePeriod` seconds), then closes every connection. Responders still running
    /// after that are waited for, unless `abandoning` (the process is about to end): then
    /// they are left running with their connections open (libmicrohttpd cannot stop
    /// while a request waits for its answer).
    public func stop(gracePeriod: Double = 10, abandoning: Bool = false) {
        let address = daemon.withLock { daemon -> UInt in
            defer { daemon = 0 }
            return daemon
        }
        guard let running = OpaquePointer(bitPattern: address) else { return }
        let listener = MHD_quiesce_daemon(running)
        let deadline = Self.now() + gracePeriod
        while context.inFlight.load(ordering: .acquiring) > 0 && Self.now() < deadline { usleep(10_000) }
        // libmicrohttpd may not stop with a connection suspended: requests still waiting
        // for a worker are answered 503, those being answered finish (each is bounded)
        // within what is left of the grace period, or are abandoned with the daemon.
        if let queue = context.queue, !queue.stop(within: abandoning ? max(0, deadline - Self.now()) : .infinity) {
            let note = "almanac: requests still being answered after \(gracePeriod) s; not waiting for them\n"
            _ = note.withCString { write(2, $0, strlen($0)) }
            // The daemon's threads keep calling into the context: it must outlive this server.
            _ = Unmanaged.passRetained(context)
            if listener >= 0 { close(listener) }
            return
        }
        MHD_stop_daemon(running)
        if listener >= 0 { close(listener) }
    }

    /// Requests being served right now.
    public var requestsInFlight: Int { context.inFlight.load(ordering: .acquiring) }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    deinit { stop(gracePeriod: 0, abandoning: false) }
}

/// What the C callbacks reach through their context pointer; lives as long as the server.
final class ServerContext: Sendable {
    let configuration: ServerConfiguration
    let admission: HTTPAdmission?
    let responder: HTTPResponder
    let inFlight = Atomic<Int>(0)
    /// Where requests are answered with a pool of transport threads; nil with a thread
    /// per connection.
    let queue: RequestQueue?

    /// How much of a body past its limit is read (and dropped) before the connection is
    /// closed: enough for a client to see its 413 after an ordinary overshoot.
    static let drainAllowance = 1 << 20

    init(configuration: ServerConfiguration, admission: HTTPAdmission?, responder: @escaping HTTPResponder) {
        self.configuration = configuration
        self.admission = admission
        self.responder = responder
        queue = configuration.threads > 0 ? RequestQueue(workers: configuration.workers) : nil
    }

    /// `method path status bytes ms`, as one line on standard error.
    func log(_ state: RequestState) {
        guard configuration.accessLog else { return }
        let milliseconds = (HTTPServer.now() - state.startedAt) * 1000
        let line =
            "\(state.remoteAddress) \(state.method) \(state.target) \(state.status) \(state.bytesSent) \((milliseconds * 10).rounded() / 10)ms\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }
}

/// One request being read and answered; owned by libmicrohttpd's connection between
/// the first call and the completion callback, and used by one thread at a time (a
/// worker while the connection is suspended, the transport's otherwise: suspending and
/// resuming hand it over).
final class RequestState: @unchecked Sendable {
    let method: String
    let path: String
    let query: String?
    let headers: HTTPHeaders
    let remoteAddress: String
    let startedAt = HTTPServer.now()
    /// The connection's address (an `MHD_Connection *`).
    var connection: UInt = 0
    var body: [UInt8] = []
    /// The most body bytes kept (the admission may lower the server's limit).
    var bodyLimit = 0
    /// Bytes past the limit that were read and dropped.
    var discarded = 0
    var tooLarge = false
    var status = 0
    var bytesSent = 0

    /// Where the request is while its connection is suspended.
    enum Phase {
        case receiving
        /// The admission runs on a worker; ``decision`` holds what it decided.
        case admitting
        /// The responder runs on a worker; ``response`` holds its answer.
        case responding
    }

    var phase = Phase.receiving
    var decision: AdmissionDecision?
    var response: HTTPResponse?

    init(method: String, path: String, query: String?, headers: HTTPHeaders, remoteAddress: String) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.remoteAddress = remoteAddress
    }

    var target: String { query.map { path + "?" + $0 } ?? path }
}
