/// Header fields in order, looked up without regard to case (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value of `name`, or nil.
    public subscript(_ name: String) -> String? {
        let wanted = name.lowercased()
        return fields.first { $0.name.lowercased() == wanted }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return fields.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// Adds a field (another value when `name` is already there).
    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }

    /// Replaces every value of `name` with one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name, value))
    }

    public mutating func remove(_ name: String) {
        let wanted = name.lowercased()
        fields.removeAll { $0.name.lowercased() == wanted }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}

/// A request as the transport read it: method, target, headers and the whole body.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path as sent, still %-encoded (`/dav/anna%40example.com/`), without the query.
    public var path: String
    /// The query string without `?`, or nil.
    public var query: String?
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The client's address (IPv4 or IPv6 text).
    public var remoteAddress: String
    /// Whether the client has closed its connection, so long work for it may stop (the
    /// transport answers; in process it is never gone). Cheap, but a system call: ask
    /// now and then, not per item.
    public var isClientGone: @Sendable () -> Bool = { false }

    public init(
        method: String, path: String, query: String? = nil, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1"
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The path with %-escapes decoded; nil when an escape is malformed or the bytes
    /// are not UTF-8.
    public var decodedPath: String? { PercentEncoding.decode(path) }

    /// `http://host[:port]` (`https` behind a proxy that says so) from the `Host` header,
    /// for links that leave the page (a booking's links in the booker's calendar); nil
    /// when the header is missing or holds more than a host name, an address and a port.
    public var origin: String? {
        guard let host = headers["Host"], (1...255).contains(host.utf8.count),
            host.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]")]
                        .contains(byte)
            })
        else { return nil }
        let scheme = headers["X-Forwarded-Proto"]?.lowercased() == "https" ? "https" : "http"
        return scheme + "://" + host
    }

    /// The query's `name=value` pairs, decoded (`+` as a space), in order.
    public var queryItems: [(name: String, value: String)] { Self.formItems(query ?? "") }

    /// The fields of an `application/x-www-form-urlencoded` body (a submitted form).
    public var formItems: [(name: String, value: String)] { Self.formItems(String(decoding: body, as: UTF8.self)) }

    /// `name=value&…` pairs, `+` as space, %-escapes decoded (malformed pairs left out).
    static func formItems(_ text: String) -> [(name: String, value: String)] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in PercentEncoding.decode(String(text.map { $0 == "+" ? " " : $0 })) }
            guard let name = decode(parts[0]) else { return nil }
            return (name, parts.count > 1 ? decode(parts[1]) ?? "" : "")
        }
    }

    /// The first value of a query parameter.
    public func queryValue(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }
}

/// A response to send: status, headers and body. Content-Length is set by the transport.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text response (`text/plain; charset=utf-8`).
    public static func text(_ status: Int, _ text: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.set("Content-Type", "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }
}

/// An error that ends a request early and knows how it reaches HTTP: its status and
/// the response it renders itself, in its protocol's own form (a DAV error body, an
/// RFC 9457 problem, a page). Nothing renders another protocol's errors, and nothing
/// reads a rendered body back.
public protocol HTTPResponseError: Error, Sendable {
    /// The HTTP status the error answers with.
    var status: Int { get }
    /// The whole response: status, headers and body.
    var response: HTTPResponse { get }
}

/// What answers requests. Called on the transport's worker threads, so it must be
/// `Sendable`; it may block (the store is synchronous).
public typealias HTTPResponder = @Sendable (HTTPRequest) -> HTTPResponse

/// What an ``HTTPAdmission`` decides about a request's body before a byte of it is read.
public enum AdmissionDecision: Sendable {
    /// Read the body, up to this many bytes: a longer one (whether its length was
    /// announced or it streams in chunks) is refused with 413 as soon as it passes it,
    /// and nothing past the limit is kept.
    case read(upTo: Int)
    /// Answer with this instead (a 401 for an unauthenticated upload); the body is not read.
    case answer(HTTPResponse)
}

/// Decides, when a request's headers have arrived and before a byte of its body is
/// read, whether and how much of the body may be read. The request it sees has an
/// empty body. It may block (it may check a password), and runs where the transport
/// runs responders.
public typealias HTTPAdmission = @Sendable (HTTPRequest) -> AdmissionDecision

/// RFC 3986 percent-encoding.
public enum PercentEncoding {
    /// Decodes `%XX` escapes; nil for a malformed escape or bytes that are not UTF-8.
    public static func decode<S: StringProtocol>(_ text: S) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Encodes every byte outside RFC 3986's unreserved set and `allowed`.
    public static func encode(_ text: String, allowing allowed: Set<UInt8> = []) -> String {
        func kept(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "~")
                || allowed.contains(byte)
        }
        // Most names need no escape: hand them back without copying.
        guard !text.utf8.allSatisfy(kept) else { return text }
        let digits = Array("0123456789ABCDEF".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count + 8)
        for byte in text.utf8 {
            if kept(byte) {
                result.append(byte)
            } else {
                result += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Reason phrases for the log and for plain-text error bodies.
public enum HTTPStatus {
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 207: "Multi-Status"
        case 301: "Moved Permanently"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 424: "Failed Dependency"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 507: "Insufficient Storage"
        default: "Status \(status)"
        }
    }
}

/// Who a request comes from, when a reverse proxy may stand between.
public enum ClientAddress {
    /// The client's address: the socket's, unless the socket is a trusted proxy; then
    /// the last `X-Forwarded-For` address that is not itself a trusted proxy (each proxy
    /// appends the address it saw, so the rightmost untrusted one is the first that no
    /// trusted party vouches for beyond). Anything before it may be made up by the client.
    public static func resolve(socket: String, forwardedFor headers: [String], trusted: Set<String>) -> String {
        guard trusted.contains(socket) else { return socket }
        let hops = headers.flatMap { $0.split(separator: ",") }.map { String($0.filter { $0 != " " && $0 != "\t" }) }
            .filter { !$0.isEmpty }
        for hop in hops.reversed() where !trusted.contains(hop) { return hop }
        return hops.first ?? socket
    }
}
