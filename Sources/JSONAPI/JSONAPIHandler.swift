import Accounts
import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import JSON
import Scheduling

/// Who is asking: a signed-in user, through their password or session (full access),
/// or through a personal API token (its scope limits what it may do).
public struct APIPrincipal: Sendable {
    public var user: String
    public var token: AccessToken?

    public init(user: String, token: AccessToken? = nil) {
        self.user = user
        self.token = token
    }

    var scope: AccessToken.Scope { token?.scope ?? .readWrite }
}

/// Limits and settings of the JSON API.
public struct APIConfiguration: Sendable {
    /// The longest range a query may ask for, in days.
    public var maxRangeDays: Int
    /// The most items (occurrences, alarm firings, free slots) one answer lists. A longer
    /// answer is cut there and says so: `"truncated": true` and `"continueFrom"`, the
    /// time of the first item left out (ask again from there for the rest).
    public var maxItems: Int
    /// The current time (Unix seconds), for minimum notice in availability.
    public var now: @Sendable () -> Int
    /// The server's webhook delivery (URL checks and test pings); nil where there is
    /// none, and the webhook routes that need it answer 503.
    public var webhooks: (any WebhookEndpoints)?
    /// Why the server will not fetch a feed URL (its outbound rules), or nil; nil where
    /// the server fetches no feeds, and subscribing answers 503.
    public var feedRefusal: (@Sendable (String) -> String?)?
    /// The relay iMIP mail goes out through (nil: none).
    public var mail: (any IMIPSender)?

    public init(
        maxRangeDays: Int = 366, maxItems: Int = 10_000,
        webhooks: (any WebhookEndpoints)? = nil, feedRefusal: (@Sendable (String) -> String?)? = nil,
        mail: (any IMIPSender)? = nil, now: @escaping @Sendable () -> Int
    ) {
        self.webhooks = webhooks
        self.feedRefusal = feedRefusal
        self.mail = mail
        self.maxRangeDays = maxRangeDays
        self.maxItems = max(1, maxItems)
        self.now = now
    }
}

/// The JSON API under `/api/v1` (and the single-event `.ics` at `/events/{id}.ics`), as
/// a pure function from a request and the principal behind it to a response, over the
/// store. Errors are RFC 9457 problem documents.
public struct JSONAPIHandler: Sendable {
    public let backend: any StoreBackend
    public let configuration: APIConfiguration
    let cursors: CursorSigner

    public init(backend: any StoreBackend, configuration: APIConfiguration) {
        self.backend = backend
        self.configuration = configuration
        cursors = CursorSigner(appState: backend.appState)
    }

    public static let prefix = "/api/v1"

    /// The API's path of an event.
    static func eventPath(_ identifier: String) -> String { prefix + "/events/" + PercentEncoding.encode(identifier) }

    /// Answers `request` for `principal`, already authenticated (the server's middleware
    /// checks a cookie session's CSRF token and the principal's rate limit first).
    public func respond(to request: HTTPRequest, as principal: APIPrincipal) -> HTTPResponse {
        answer(request, as: principal)
    }

    /// 429 as the API answers it: an RFC 9457 problem with `Retry-After`.
    public static func tooManyRequests(_ message: String, retryAfter: Int) -> HTTPResponse {
        var problem = APIProblem(.tooManyRequests, message)
        problem.headers.set("Retry-After", String(retryAfter))
        return problem.response
    }

    /// A change sent with `Idempotency-Key` is carried out once: its key commits with
    /// its first write (``IdempotencyClaim``), and a retry of the same request within a
    /// day gets the first answer again (`Idempotent-Replayed: true`). The request is
    /// authorized first, replay or not (a read-only token's key gets 403 like its
    /// request would). A key is bound to who sent it (the user, and the token, so its
    /// scope), the method, the target and a hash of the body: the same key with any of
    /// them different is 422; while the first request still runs, 409.
    private func answer(_ request: HTTPRequest, as principal: APIPrincipal) -> HTTPResponse {
        do throws(APIProblem) {
            let context = try context(request, as: principal)
            guard Self.changingMethods.contains(request.method), let key = request.headers["Idempotency-Key"] else {
                return try context.route()
            }
            return try idempotent(context, key: key)
        } catch {
            return error.response
        }
    }

    static let changingMethods: Set<String> = ["POST", "PUT", "PATCH", "DELETE"]

    private func idempotent(_ context: APIContext, key: String) throws(APIProblem) -> HTTPResponse {
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw APIProblem(
                .invalidField, "Idempotency-Key is 1 to 255 visible ASCII characters (a UUID, say)",
                fields: ["Idempotency-Key"])
        }
        let (route, parameters) = try context.authorizedRoute()
        let request = context.request
        let principal = context.principal
        let sender = principal.token.map { "token \($0.id) \($0.scope.rawValue)" } ?? "user"
        var identity = Array("\(sender)\n\(request.method) \(request.path)?\(request.query ?? "")\n".utf8)
        identity += request.body
        let hash = Crypto.hex(Crypto.sha256(identity))
        let now = configuration.now()
        let appState = backend.appState
        let record: IdempotencyRecord?
        do {
            record = try appState.idempotencyRecord(user: principal.user, key: key, now: now)
        } catch {
            throw APIProblem(error)
        }
        if let record {
            guard record.requestHash == hash else {
                throw APIProblem(
                    .idempotencyKeyReused,
                    "Idempotency-Key \(key) was used for another request (by another token, or with another method, target or body); use a new key"
                )
            }
            guard let kept = record.answer else { throw Self.unanswered(key) }
            var replay = HTTPResponse(status: kept.status, headers: ["Cache-Control": "no-store"], body: kept.body)
            if let type = kept.contentType { replay.headers.set("Content-Type", type) }
            if let location = kept.location { replay.headers.set("Location", location) }
            if let etag = kept.etag { replay.headers.set("ETag", etag) }
            replay.headers.set("Idempotent-Replayed", "true")
            return replay
        }
        let claim = IdempotencyClaim(user: principal.user, key: key, requestHash: hash, now: now)
        let response = IdempotencyClaim.$current.withValue(claim) { () -> HTTPResponse in
            do throws(APIProblem) {
                return try route.payload.handler(context, parameters)
            } catch {
                return error.response
            }
        }
        if claim.wasTaken { throw Self.unanswered(key) }
        // An answer after a committed write is kept for retries; a 5xx then says nothing kept
        // it, and a retry is told so rather than carried out again.
        if claim.wasRecorded, response.status < 500 {
            let answer = IdempotencyRecord.Answer(
                status: response.status, contentType: response.headers["Content-Type"],
                location: response.headers["Location"], etag: response.headers["ETag"], body: response.body)
            do {
                try appState.keepIdempotentAnswer(answer, user: principal.user, key: key)
            } catch {
                // The change stands; its retries will hear that its answer was lost.
                error.logDetails()
            }
        }
        return response
    }

    /// The key is taken by a request whose answer is not (yet) kept.
    static func unanswered(_ key: String) -> APIProblem {
        var problem = APIProblem(
            .idempotencyKeyInUse,
            "a request with Idempotency-Key \(key) is still running, or it was carried out and its answer lost; try again shortly, then read the resource"
        )
        problem.headers.set("Retry-After", "1")
        return problem
    }

    private func context(_ request: HTTPRequest, as principal: APIPrincipal) throws(APIProblem) -> APIContext {
        let store: any EventStore
        do {
            store = try backend.eventStore(for: principal.user, limitedTo: principal.token?.calendars)
        } catch {
            throw APIProblem(error)
        }
        return APIContext(
            store: store, backend: backend, principal: principal, request: request, configuration: configuration,
            cursors: cursors)
    }

    /// The problem document for a request that could not be signed in.
    public static func response(for failure: AuthenticationFailure) -> HTTPResponse { APIProblem(failure).response }

    /// The 403 problem document for what the server refuses before a request reaches
    /// the API (a change from the web pages without their CSRF token, a CORS preflight
    /// from an origin that may not call it).
    public static func forbidden(_ detail: String) -> HTTPResponse { APIProblem(.forbidden, detail).response }

    /// Every route: its method and path template, one entry per pair (what the OpenAPI
    /// document describes).
    public static var routeTable: [(method: String, template: String)] {
        APIContext.routes.map { ($0.method, $0.template.description) }
    }

    /// The OpenAPI document (no sign-in needed to read it).
    public static func openAPIResponse(to request: HTTPRequest) -> HTTPResponse {
        OpenAPIDocument.document.response(to: request)
    }
}

/// One request being answered.
struct APIContext {
    let store: any EventStore
    let backend: any StoreBackend
    let principal: APIPrincipal
    let request: HTTPRequest
    let configuration: APIConfiguration
    let cursors: CursorSigner

    // MARK: Access

    /// Requires that the principal may see this event: every scope but add-only may; an
    /// add-only token only the events it created.
    func requireVisible(event identifier: String) throws(APIProblem) {
        guard principal.scope == .addOnly, let token = principal.token else { return }
        let created = try attempt { () throws(StoreError) in try backend.appState.eventsCreated(byToken: token.id) }
        if !created.contains(identifier) { throw APIProblem(.notFound, "no event \(identifier)") }
    }

    // MARK: Responses

    /// A listing under `key`, cut at the configured maximum: the first `maxItems` of
    /// `items` (in order), with `truncated` and `continueFrom` (the first left out's
    /// `time`) when there were more. `extra` members come first.
    func listing<Item>(
        _ key: String, _ items: [Item], extra: [(key: String, value: JSONValue)] = [], time: (Item) -> Int,
        _ render: (Item) -> JSONValue
    ) -> HTTPResponse {
        var members = extra
        members.append((key, .array(items.prefix(configuration.maxItems).map(render))))
        let truncated = items.count > configuration.maxItems
        members.append(("truncated", .bool(truncated)))
        if truncated { members.append(("continueFrom", .string(Self.utc(time(items[configuration.maxItems]))))) }
        return json(.object(members))
    }

    /// A series a bound of expansion cut (the `TruncatedSeries` schema).
    static func json(_ series: TruncatedEvent) -> JSONValue {
        .object([
            ("eventId", .string(series.eventIdentifier)), ("calendarId", .string(series.calendarIdentifier)),
            ("uid", .string(series.externalIdentifier)), ("title", series.title.map(JSONValue.string) ?? .null),
            ("listed", .integer(series.listed)),
            ("lastListedStart", series.lastListedStart.map { .string(Self.utc($0)) } ?? .null),
        ])
    }

    static func utc(_ seconds: Int) -> String { CivilDateTime(secondsSinceEpoch: seconds).description + "Z" }

    func json(_ value: JSONValue, status: Int = 200, etag: String? = nil) -> HTTPResponse {
        var response = HTTPResponse(
            status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: Array(value.jsonText.utf8))
        if let etag { response.headers.set("ETag", etag) }
        return response
    }

    // MARK: Request bodies and queries

    /// The body as a JSON object whose members are all among `allowed`; 400 naming the
    /// unknown ones otherwise.
    func body(allowing allowed: Set<String>) throws(APIProblem) -> [String: JSONValue] {
        guard !request.body.isEmpty else { throw APIProblem(.invalidBody, "the request needs a JSON object body") }
        // A JSON body says so: a form post from another site's page (text/plain, no
        // preflight) is never read as one.
        let type = request.headers["Content-Type"]?.lowercased() ?? ""
        guard type.hasPrefix("application/json") || type.hasPrefix("application/merge-patch+json") else {
            throw APIProblem(
                .unsupportedMediaType,
                type.isEmpty
                    ? "the body needs Content-Type: application/json" : "the body must be application/json, not \(type)"
            )
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: request.body, maxDepth: 32)
        } catch {
            throw APIProblem(.invalidBody, "the body is not JSON: \(error.message) at byte \(error.offset)")
        }
        guard case .object(let members) = value else {
            throw APIProblem(.invalidBody, "the body must be a JSON object")
        }
        var result: [String: JSONValue] = [:]
        var unknown: [String] = []
        for (key, value) in members {
            if !allowed.contains(key) { unknown.append(key) }
            if result[key] != nil { throw APIProblem(.invalidBody, "the member \(key) appears twice") }
            result[key] = value
        }
        if !unknown.isEmpty {
            throw APIProblem(
                .unknownField, "unknown field\(unknown.count == 1 ? "" : "s"): \(unknown.joined(separator: ", "))",
                fields: unknown)
        }
        return result
    }

    /// Query parameters by name (the last of repeated ones wins); unknown names are refused.
    func query(allowing allowed: Set<String>) throws(APIProblem) -> [String: String] {
        var result: [String: String] = [:]
        var unknown: [String] = []
        for (name, value) in request.queryItems {
            if !allowed.contains(name) { unknown.append(name) }
            result[name] = value
        }
        if !unknown.isEmpty {
            throw APIProblem(
                .unknownField,
                "unknown query parameter\(unknown.count == 1 ? "" : "s"): \(unknown.joined(separator: ", "))",
                fields: unknown)
        }
        return result
    }

    /// A store call whose errors become problems.
    func attempt<T>(_ body: () throws(StoreError) -> T) throws(APIProblem) -> T {
        do {
            return try body()
        } catch {
            throw APIProblem(error)
        }
    }
}
