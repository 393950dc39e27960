import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client of an Almanac server's JSON API (`/api/v1`), over `URLSession`.
///
/// Every method is `async` and throws ``AlmanacError``. Writes send a fresh
/// `Idempotency-Key` (a UUID) unless the caller passes one, so a caller that retries
/// after a lost answer passes the same key and the change is carried out once. Reads
/// return ETags (``Event/etag``, ``AlmanacCalendar/etag``); updates and deletions take
/// `ifMatch:` and fail with ``ProblemType/preconditionFailed`` when it is stale.
///
/// ```swift
/// let client = AlmanacClient(baseURL: URL(string: "https://cal.example.com")!, credentials: .bearer(token))
/// let trainings = try await client.findOrCreateCalendar(titled: "Trainings")
/// ```
public struct AlmanacClient: Sendable {
    /// The server's root (`https://cal.example.com`); paths `/api/v1/…` are appended to it.
    public var baseURL: URL
    /// How every request signs in.
    public var credentials: Credentials
    /// The session requests go through (on Linux and Windows, a session made from its
    /// configuration: see ``init(baseURL:credentials:session:retryPolicy:)``).
    public let session: URLSession
    /// Which failed calls are sent again, and how long the client waits for them.
    public var retryPolicy: RetryPolicy
    /// Whether credentials may go over plain `http://` to a host other than this machine
    /// (loopback). False by default: such a call fails before anything is sent, so a
    /// token or password is never readable on the network. Set it only behind a network
    /// you trust.
    public var allowsInsecureHTTP = false
    /// What sends the requests.
    let transport: Transport

    /// A client of the server at `baseURL`, signed in with `credentials`.
    ///
    /// On Linux and Windows (FoundationNetworking), requests go through a session made
    /// from `session`'s configuration whose delegate refuses HTTP authentication
    /// challenges: FoundationNetworking's `URLSession` otherwise waits forever on a 401
    /// that carries `WWW-Authenticate` (swift-corelibs-foundation issue 5456). Such a 401
    /// is then thrown as ``ProblemType/unauthorized`` without the server's `detail`.
    ///
    /// - Parameter retryPolicy: ``RetryPolicy/none`` by default: every failure is thrown.
    public init(
        baseURL: URL, credentials: Credentials, session: URLSession = .shared, retryPolicy: RetryPolicy = .none
    ) {
        self.baseURL = baseURL
        self.credentials = credentials
        self.session = session
        self.retryPolicy = retryPolicy
        transport = Transport(session)
    }
}

/// The session requests are sent with.
///
/// On Apple platforms it is the caller's, and each request has a delegate of its own
/// that refuses redirects. FoundationNetworking consults only a session's own delegate
/// (about an authentication challenge, and about a redirect) and, without one, leaves
/// a request answered 401 with `WWW-Authenticate` waiting forever; so there the client
/// makes a session of the caller's configuration with a delegate that refuses every
/// challenge (the request then fails as cancelled) and every redirect, and invalidates
/// it when the last copy of the client goes away.
///
/// No redirect is followed: the API answers where it is asked, and a redirect (a
/// misconfigured proxy, a hostile network) would carry the `Authorization` header to
/// wherever it points. It comes back as ``AlmanacError/Kind/unexpectedAnswer(status:body:reason:)``.
final class Transport: Sendable {
    let session: URLSession
    /// True when ``session`` refuses challenges: a cancellation the caller did not ask
    /// for is then a 401.
    let refusesChallenges: Bool

    init(_ session: URLSession) {
        #if canImport(FoundationNetworking)
            self.session = URLSession(
                configuration: session.configuration, delegate: Refusals(), delegateQueue: nil)
            refusesChallenges = true
        #else
            self.session = session
            refusesChallenges = false
        #endif
    }

    deinit {
        if refusesChallenges { session.finishTasksAndInvalidate() }
    }
}

/// Refuses every redirect (the redirect answer becomes the request's answer) and, on
/// FoundationNetworking, every authentication challenge, so a 401 ends the request
/// instead of suspending it (the credentials were sent with the request already).
final class Refusals: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    #if canImport(FoundationNetworking)
        func urlSession(
            _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
            completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
        ) {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    #endif
}

/// How a client signs in.
public enum Credentials: Sendable, Hashable {
    /// A personal API token (`alm_<id>_<secret>`, from `almanac token create`), sent as
    /// `Authorization: Bearer`.
    case bearer(String)
    /// An Almanac user's name and password, sent as HTTP Basic (RFC 7617).
    case basic(user: String, password: String)

    /// The `Authorization` header's value.
    public var authorization: String {
        switch self {
        case .bearer(let token): "Bearer " + token
        case .basic(let user, let password): "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        }
    }
}

/// Which failed calls a client sends again by itself: only answers that say when to
/// come back (`Retry-After`): 429 (rate limit), 503 (unavailable), and 409 with
/// `Retry-After` (a twin request with the same idempotency key is still running). A
/// write sent again keeps its idempotency key, so it is never carried out twice.
///
/// Nothing else is retried: a transport failure is thrown, and the caller who wants to
/// send the write again passes the same `idempotencyKey:` itself.
public struct RetryPolicy: Sendable, Hashable {
    /// How many times one call is sent again at most (0: never).
    public var maximumRetries: Int
    /// The longest `Retry-After` the client waits for; an answer asking for longer is
    /// thrown at once.
    public var maximumWait: TimeInterval

    /// At most `maximumRetries` further attempts, each after the answer's `Retry-After`
    /// when it is at most `maximumWait` seconds.
    public init(maximumRetries: Int, maximumWait: TimeInterval = 30) {
        self.maximumRetries = maximumRetries
        self.maximumWait = maximumWait
    }

    /// Never send a call again.
    public static let none = RetryPolicy(maximumRetries: 0, maximumWait: 0)

    /// Up to `times` further attempts, waiting as `Retry-After` says (at most 30 s).
    public static func retry(times: Int, maximumWait: TimeInterval = 30) -> RetryPolicy {
        RetryPolicy(maximumRetries: times, maximumWait: maximumWait)
    }
}

// MARK: - Requests

/// One answer as received: status, headers and body.
struct Answer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
    var method: String
    var url: URL

    /// The header `name`, compared without case.
    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

extension AlmanacClient {
    /// The API's path prefix.
    static let prefix = "/api/v1"

    /// The URL of `path` (from the server's root, `/api/v1/…`, already percent-encoded)
    /// with `query` (names and values as given; encoded here).
    func url(_ path: String, query: [(String, String?)] = []) -> URL {
        var text = baseURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += path
        let pairs = query.compactMap { name, value in value.map { Self.escape(name) + "=" + Self.escape($0) } }
        if !pairs.isEmpty { text += (path.contains("?") ? "&" : "?") + pairs.joined(separator: "&") }
        guard let url = URL(string: text) else { preconditionFailure("not a URL: \(text)") }
        return url
    }

    /// The URL a listing's `next` link names: a path from the server's root is appended
    /// to ``baseURL`` as every call's path is; an absolute URL is taken as it is.
    func url(following next: String) -> URL? {
        if next.hasPrefix("/") {
            var text = baseURL.absoluteString
            while text.hasSuffix("/") { text.removeLast() }
            return URL(string: text + next)
        }
        return URL(string: next, relativeTo: baseURL)?.absoluteURL
    }

    /// `text` percent-encoded for one path segment or query component: everything but
    /// RFC 3986's unreserved characters.
    static func escape(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += (byte < 16 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
            }
        }
        return output
    }

    /// `/api/v1/` and the segments, each percent-encoded.
    static func path(_ segments: String...) -> String {
        prefix + segments.map { "/" + escape($0) }.joined()
    }

    /// Sends one request and returns the 2xx answer; any other status throws its problem.
    ///
    /// A write (any method but GET) carries `Idempotency-Key`: `idempotencyKey`, or a
    /// new UUID; every retry of the call sends the same key.
    func send(
        _ method: String, _ url: URL, body: Data? = nil, ifMatch: String? = nil, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> Answer {
        if url.scheme?.lowercased() != "https", !allowsInsecureHTTP, !Self.isLoopback(url) {
            throw AlmanacError(.transport(InsecureTransport(url: url)), method: method, url: url)
        }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        request.httpMethod = method
        request.setValue(credentials.authorization, forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let ifMatch { request.setValue(ifMatch, forHTTPHeaderField: "If-Match") }
        if method != "GET" {
            request.setValue(idempotencyKey ?? UUID().uuidString, forHTTPHeaderField: "Idempotency-Key")
        }
        var retries = 0
        while true {
            let answer: Answer
            do {
                #if canImport(FoundationNetworking)
                    let (data, response) = try await transport.session.data(for: request)
                #else
                    let (data, response) = try await transport.session.data(for: request, delegate: Refusals())
                #endif
                guard let http = response as? HTTPURLResponse else {
                    throw AlmanacError(
                        .unexpectedAnswer(status: 0, body: data, reason: "not an HTTP answer"), method: method,
                        url: url)
                }
                var headers: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name] = value }
                }
                answer = Answer(status: http.statusCode, headers: headers, body: data, method: method, url: url)
            } catch let error as AlmanacError {
                throw error
            } catch {
                let nsError = error as NSError
                if transport.refusesChallenges, !Task.isCancelled, nsError.domain == NSURLErrorDomain,
                    nsError.code == NSURLErrorCancelled
                {
                    // The challenge refused: the server did not take the credentials.
                    throw AlmanacError(
                        .problem(
                            Problem(
                                type: .unauthorized, title: "Unauthorized", status: 401,
                                detail: "the server refused the credentials (HTTP 401 with an authentication challenge)"
                            )),
                        method: method, url: url)
                }
                throw AlmanacError(.transport(error), method: method, url: url)
            }
            if (200..<300).contains(answer.status) { return answer }
            let failure = Self.failure(answer)
            let retryable =
                answer.status == 429 || answer.status == 503 || (answer.status == 409 && failure.retryAfter != nil)
            guard retryable, retries < retryPolicy.maximumRetries, let wait = failure.retryAfter,
                wait <= retryPolicy.maximumWait
            else { throw failure }
            retries += 1
            do {
                try await Task.sleep(nanoseconds: UInt64(max(0, wait) * 1_000_000_000))
            } catch {
                throw AlmanacError(.transport(error), method: method, url: url)
            }
        }
    }

    /// The error a non-2xx answer stands for: its problem document, else an unexpected
    /// answer.
    static func failure(_ answer: Answer) -> AlmanacError {
        let retryAfter = answer.header("Retry-After").flatMap(Self.seconds(retryAfter:))
        if let problem = try? JSONDecoder.almanac().decode(Problem.self, from: answer.body) {
            return AlmanacError(.problem(problem), method: answer.method, url: answer.url, retryAfter: retryAfter)
        }
        return AlmanacError(
            .unexpectedAnswer(status: answer.status, body: answer.body, reason: "no problem document"),
            method: answer.method, url: answer.url, retryAfter: retryAfter)
    }

    /// `Retry-After` (RFC 9110 §10.2.3) in seconds from now: a number of seconds, or an
    /// HTTP date.
    static func seconds(retryAfter text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return TimeInterval(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: trimmed).map { max(0, $0.timeIntervalSinceNow) }
    }

    /// Decodes a 2xx answer's body as `type`; an answer of another shape throws
    /// ``AlmanacError/Kind/unexpectedAnswer(status:body:reason:)``.
    func decode<Value: Decodable>(
        _ type: Value.Type, from answer: Answer, userInfo: [CodingUserInfoKey: String] = [:]
    ) throws(AlmanacError) -> Value {
        do {
            let decoder = JSONDecoder.almanac()
            for (key, value) in userInfo { decoder.userInfo[key] = value }
            return try decoder.decode(type, from: answer.body)
        } catch {
            throw AlmanacError(
                .unexpectedAnswer(status: answer.status, body: answer.body, reason: "\(error)"), method: answer.method,
                url: answer.url)
        }
    }

    /// `value` as a request body.
    func encode(_ value: some Encodable, method: String, url: URL) throws(AlmanacError) -> Data {
        do {
            return try JSONEncoder.almanac().encode(value)
        } catch {
            throw AlmanacError(.transport(error), method: method, url: url)
        }
    }

    /// GET `url`, decoded as `type`.
    func get<Value: Decodable>(_ type: Value.Type, _ url: URL) async throws(AlmanacError) -> Value {
        try decode(type, from: try await send("GET", url))
    }

    /// A write with a JSON body (or none), its answer decoded as `type`.
    func write<Value: Decodable>(
        _ type: Value.Type, _ method: String, _ url: URL, body: (some Encodable)?, ifMatch: String? = nil,
        idempotencyKey: String?
    ) async throws(AlmanacError) -> Value {
        let data = try body.map { (value) throws(AlmanacError) in try encode(value, method: method, url: url) }
        return try decode(
            type, from: try await send(method, url, body: data, ifMatch: ifMatch, idempotencyKey: idempotencyKey))
    }

    /// A write whose answer has no body (204).
    func write(
        _ method: String, _ url: URL, body: (some Encodable)? = JSONValue?.none, ifMatch: String? = nil,
        idempotencyKey: String?
    ) async throws(AlmanacError) {
        let data = try body.map { (value) throws(AlmanacError) in try encode(value, method: method, url: url) }
        _ = try await send(method, url, body: data, ifMatch: ifMatch, idempotencyKey: idempotencyKey)
    }
}

/// Why a call was not sent: its URL is plain `http://` to a host other than this machine,
/// and the client does not send credentials that way (``AlmanacClient/allowsInsecureHTTP``).
public struct InsecureTransport: Error, Sendable, CustomStringConvertible {
    public var url: URL

    public var description: String {
        "credentials are not sent over plain http:// to \(url.host ?? "another host"); use https://, or set allowsInsecureHTTP"
    }
}

extension AlmanacClient {
    /// Whether the URL's host is this machine: `localhost`, an address in 127.0.0.0/8 or
    /// `::1`; a name that merely starts like one (`127.example.com`) is not.
    static func isLoopback(_ url: URL) -> Bool {
        guard var host = url.host?.lowercased() else { return false }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: v6) { $0.elementsEqual([UInt8](repeating: 0, count: 15) + [1]) }
        }
        return host == "localhost"
    }
}
