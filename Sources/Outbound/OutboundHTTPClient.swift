import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An HTTP client on libcurl for the server's own requests (webhook deliveries, feed
/// fetches, test pings): TLS verification on, redirects off, no proxy from the
/// environment, `http` and `https` only, short deadlines (to connect, for the first
/// byte of the answer, for the whole exchange) so that a receiver that accepts and never
/// answers costs seconds, a cap on the response read, and the ``OutboundPolicy``
/// checked against every address a connection is made to.
///
/// One client is one libcurl handle, which keeps connections alive between requests to
/// the same host: confine it to one thread (each dispatcher worker has its own).
public final class OutboundHTTPClient {
    public struct Options: Sendable {
        /// To open the connection (TLS included).
        public var connectTimeoutMilliseconds = 3_000
        /// From the start until the first byte of the answer arrives (a tarpit that
        /// accepts and waits is given up after this).
        public var firstByteTimeoutMilliseconds = 5_000
        /// For the whole exchange.
        public var timeoutMilliseconds = 10_000
        /// The most bytes of a response body read; a longer answer fails the attempt.
        public var maxResponseBytes = 64 << 10
        public var policy = OutboundPolicy()
        public var userAgent = "Almanac-Webhooks/1"

        public init(policy: OutboundPolicy = OutboundPolicy()) {
            self.policy = policy
        }
    }

    /// What one request came to: a status when an answer arrived, an error otherwise (or
    /// besides, when the answer broke off), and for a GET the body and headers.
    public struct Response: Sendable {
        public var status: Int?
        public var error: String?
        public var durationMilliseconds: Int
        /// The body read (a GET's, and a POST's that asked to keep it; else only counted).
        public var body: [UInt8] = []
        /// The response headers, by lowercased name (the last of each).
        public var headers: [String: String] = [:]
    }

    private let handle: UnsafeMutableRawPointer
    private let options: Options
    private let sink = Sink()

    /// The context both C callbacks receive.
    private final class Sink {
        var received = 0
        var cap = 0
        var overflow = false
        var keepsBody = false
        var body: [UInt8] = []
        var headers: [String: String] = [:]
        var policy = OutboundPolicy()
        var refusal: OutboundRefusal?
        /// When the request started (monotonic milliseconds), whether any of the answer
        /// arrived, and how long the first byte may take.
        var started = 0
        var answered = false
        var firstByteTimeout = 0
        var gaveUpWaiting = false
    }

    /// Monotonic milliseconds.
    static func milliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec) * 1_000 + Int(now.tv_nsec) / 1_000_000
    }

    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init(options: Options = Options()) throws(OutboundRefusal) {
        guard Self.initialized, let handle = curl_easy_init() else {
            throw OutboundRefusal("libcurl could not be initialised")
        }
        self.handle = handle
        self.options = options
    }

    deinit { curl_easy_cleanup(handle) }

    /// Counts the answer's bytes (keeping them for a GET); past the cap it stops the transfer.
    private static let write: ccurl_write_callback = { data, size, count, context in
        guard let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        sink.received += length
        if sink.received > sink.cap {
            sink.overflow = true
            return 0
        }
        if sink.keepsBody, let data {
            data.withMemoryRebound(to: UInt8.self, capacity: length) {
                sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
            }
        }
        return length
    }

    /// Keeps each `Name: value` header line (a new status line, after a 100 or a redirect
    /// answer, starts over); at most 64 KiB of them.
    private static let header: ccurl_write_callback = { data, size, count, context in
        guard let context, let data else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        sink.answered = true
        let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
        if line.hasPrefix("HTTP/") {
            sink.headers = [:]
        } else if let colon = line.firstIndex(of: ":"), sink.headers.count < 200, length < 65_536 {
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t", "\r", "\n"])
            sink.headers[name] = value
        }
        return length
    }

    /// Gives up when no byte of the answer came within the first-byte deadline.
    private static let progress: ccurl_progress_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        guard !sink.answered, milliseconds() - sink.started > sink.firstByteTimeout else { return 0 }
        sink.gaveUpWaiting = true
        return 1
    }

    private static let openSocket: ccurl_opensocket_callback = { context, purpose, address in
        guard let context, let address else { return ccurl_socket_bad() }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let offset = MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr) ?? 16
        if let refusal = sink.policy.refusal(for: UnsafeRawPointer(address).advanced(by: offset)) {
            sink.refusal = refusal
            return ccurl_socket_bad()
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }

    /// POSTs `body` to `url` with `headers` (name, value) and waits for the answer, of
    /// which only the status is kept, or with `keepingBody` also its body and headers.
    public func post(_ url: String, headers: [(String, String)], body: [UInt8], keepingBody: Bool = false) -> Response {
        perform(url, headers: headers, keepingBody: keepingBody, maxBytes: options.maxResponseBytes) { handle in
            var code = ccurl_setopt_long(handle, CURLOPT_POST, 1)
            if code == CURLE_OK {
                code = body.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        ccurl_setopt_body(handle, $0.baseAddress, curl_off_t(buffer.count))
                    }
                }
            }
            return code
        }
    }

    /// GETs `url` with `headers` and keeps the body (at most `maxBytes`; a longer
    /// answer fails) and the response headers.
    public func get(_ url: String, headers: [(String, String)], maxBytes: Int) -> Response {
        perform(url, headers: headers, keepingBody: true, maxBytes: maxBytes) { handle in
            ccurl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        }
    }

    private func perform(
        _ url: String, headers: [(String, String)], keepingBody: Bool, maxBytes: Int,
        method: (UnsafeMutableRawPointer) -> CURLcode
    ) -> Response {
        let started = Self.milliseconds()
        func elapsed() -> Int { Self.milliseconds() - started }
        if case .failure(let refusal) = OutboundPolicy.target(of: url) {
            return Response(status: nil, error: refusal.description, durationMilliseconds: 0)
        }
        sink.received = 0
        sink.cap = maxBytes
        sink.overflow = false
        sink.keepsBody = keepingBody
        sink.body = []
        sink.headers = [:]
        sink.policy = options.policy
        sink.refusal = nil
        sink.started = started
        sink.answered = false
        sink.firstByteTimeout = options.firstByteTimeoutMilliseconds
        sink.gaveUpWaiting = false
        let context = Unmanaged.passUnretained(sink).toOpaque()

        var list: UnsafeMutablePointer<curl_slist>?
        // Without this, libcurl sends `Expect: 100-continue` for bodies over 1 KiB and waits.
        for line in headers.map({ "\($0.0): \($0.1)" }) + ["Expect:"] {
            list = curl_slist_append(list, line)
        }
        defer { curl_slist_free_all(list) }

        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        set(ccurl_setopt_string(handle, CURLOPT_URL, url))
        set(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        set(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        set(ccurl_setopt_string(handle, CURLOPT_PROXY, ""))
        set(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        set(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        set(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMilliseconds))
        set(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, options.timeoutMilliseconds))
        set(ccurl_setopt_string(handle, CURLOPT_USERAGENT, options.userAgent))
        set(ccurl_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)))
        set(method(handle))
        set(ccurl_setopt_write(handle, Self.write, context))
        set(ccurl_setopt_header(handle, Self.header, context))
        set(ccurl_setopt_opensocket(handle, Self.openSocket, context))
        set(ccurl_setopt_progress(handle, Self.progress, context))
        guard code == CURLE_OK else {
            let message = String(cString: curl_easy_strerror(code))
            return Response(status: nil, error: "libcurl: \(message)", durationMilliseconds: 0)
        }
        let result = curl_easy_perform(handle)
        var status = 0
        _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        let answered = status > 0 ? status : nil
        var error: String?
        if let refusal = sink.refusal {
            error = "refused: " + refusal.description
        } else if sink.gaveUpWaiting {
            error = "no answer within \(options.firstByteTimeoutMilliseconds / 1_000) s"
        } else if sink.overflow {
            error = "the answer was longer than \(maxBytes) bytes"
        } else if result != CURLE_OK {
            error = String(cString: curl_easy_strerror(result))
        }
        return Response(
            status: answered, error: error, durationMilliseconds: elapsed(), body: sink.body, headers: sink.headers)
    }
}
