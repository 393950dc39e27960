import Foundation

/// Why a call failed: the server's problem document, a transport failure, or an answer
/// the client could not read; with the request it was for.
///
/// Switch on ``kind``, or on ``problem``'s ``Problem/type`` for the server's reasons:
///
/// ```swift
/// do {
///     try await client.updateEvent(id: event.id, changes, ifMatch: event.etag)
/// } catch let error {
///     switch error.problem?.type {
///     case .preconditionFailed?: // someone else changed it: read it again
///     case .notFound?: // gone
///     default: throw error
///     }
/// }
/// ```
public struct AlmanacError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable {
        /// The server refused the request with an RFC 9457 problem document.
        case problem(Problem)
        /// The request did not complete: no connection, a timeout, a TLS failure, or the
        /// calling task was cancelled (`CancellationError` or `URLError.cancelled`).
        case transport(any Error)
        /// The server answered, but not as the API does: a status without a problem
        /// document, or a body that does not decode as the documented shape (`reason`).
        case unexpectedAnswer(status: Int, body: Data, reason: String)
    }

    /// What went wrong.
    public var kind: Kind
    /// The request's method (`PATCH`).
    public var method: String
    /// The URL the request went to.
    public var url: URL
    /// The answer's `Retry-After` in seconds (429, 503, a 409 while a twin request runs),
    /// or nil.
    public var retryAfter: TimeInterval?

    /// An error of `kind` for the request `method` `url`.
    public init(_ kind: Kind, method: String, url: URL, retryAfter: TimeInterval? = nil) {
        self.kind = kind
        self.method = method
        self.url = url
        self.retryAfter = retryAfter
    }

    /// The problem document, when the server sent one.
    public var problem: Problem? {
        if case .problem(let problem) = kind { problem } else { nil }
    }

    /// The HTTP status, when the server answered.
    public var status: Int? {
        switch kind {
        case .problem(let problem): problem.status
        case .unexpectedAnswer(let status, _, _): status
        case .transport: nil
        }
    }

    /// True when the call stopped because its task was cancelled.
    public var isCancelled: Bool {
        guard case .transport(let error) = kind else { return false }
        return error is CancellationError || (error as? URLError)?.code == .cancelled
    }

    /// The method, URL and what went wrong, in one line.
    public var description: String {
        let request = "\(method) \(url.absoluteString)"
        switch kind {
        case .problem(let problem):
            return "\(request): \(problem.status) \(problem.type.rawValue): \(problem.detail)"
        case .transport(let error):
            return "\(request): \(error)"
        case .unexpectedAnswer(let status, let body, let reason):
            return "\(request): \(status), \(reason): \(String(decoding: body.prefix(200), as: UTF8.self))"
        }
    }
}

/// An RFC 9457 problem document, as every error of the API is.
public struct Problem: Sendable, Hashable, Codable {
    /// A stable URI for the kind of problem (`urn:almanac:problem:not-found`).
    public var type: ProblemType
    /// A short summary of the kind.
    public var title: String
    /// The HTTP status.
    public var status: Int
    /// What happened to this request, for a person.
    public var detail: String
    /// The request's members or query parameters at fault (`["start"]`); empty when the
    /// problem names none.
    public var fields: [String]
    /// With `conflict` from `createEvent(_:rejectConflicts: true)`: what the event
    /// collides with.
    public var conflicts: [Conflict]?
    /// Beside `conflicts`: the proposed event had more occurrences than were checked.
    public var truncated: Bool?

    /// A problem with the given members.
    public init(
        type: ProblemType, title: String, status: Int, detail: String, fields: [String] = [],
        conflicts: [Conflict]? = nil, truncated: Bool? = nil
    ) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.fields = fields
        self.conflicts = conflicts
        self.truncated = truncated
    }

    enum CodingKeys: String, CodingKey {
        case type, title, status, detail, fields, conflicts, truncated
    }

    /// Reads a problem document; members other than `type` and `status` may be absent
    /// (RFC 9457 §3.1 makes every member optional; `about:blank` is the default type).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeIfPresent(ProblemType.self, forKey: .type) ?? ProblemType("about:blank")
        title = try container.decodeIfPresent(String.self, forKey: .title) ?? ""
        status = try container.decode(Int.self, forKey: .status)
        detail = try container.decodeIfPresent(String.self, forKey: .detail) ?? ""
        fields = try container.decodeIfPresent([String].self, forKey: .fields) ?? []
        conflicts = try container.decodeIfPresent([Conflict].self, forKey: .conflicts)
        truncated = try container.decodeIfPresent(Bool.self, forKey: .truncated)
    }
}

/// A problem's `type`: `urn:almanac:problem:<kind>`, stable per kind. Compare with the
/// constants (`case .preconditionFailed:`); a type this client does not know is kept as
/// received.
public struct ProblemType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The URI as sent.
    public var rawValue: String

    /// The type `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The type `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// `urn:almanac:problem:<kind>`.
    public static func almanac(_ kind: String) -> ProblemType { ProblemType("urn:almanac:problem:" + kind) }

    /// 401: no credentials, wrong ones, or a revoked token.
    public static let unauthorized = almanac("unauthorized")
    /// 403: the token's scope does not allow the call.
    public static let forbidden = almanac("forbidden")
    /// 404: no such resource (other users' calendars and events too).
    public static let notFound = almanac("not-found")
    /// 405: the path does not take the method.
    public static let methodNotAllowed = almanac("method-not-allowed")
    /// 400: the body is not a JSON object.
    public static let invalidBody = almanac("invalid-body")
    /// 400: a member the API does not know (``Problem/fields`` names it).
    public static let unknownField = almanac("unknown-field")
    /// 400: a member with a wrong value (``Problem/fields`` names it).
    public static let invalidField = almanac("invalid-field")
    /// 400: a query parameter with a wrong value.
    public static let invalidQuery = almanac("invalid-query")
    /// 400: a range longer than the server allows (366 days by default).
    public static let rangeTooLong = almanac("range-too-long")
    /// 415: the body was not sent as `application/json`.
    public static let unsupportedMediaType = almanac("unsupported-media-type")
    /// 412: `If-Match` named an ETag that is no longer current.
    public static let preconditionFailed = almanac("precondition-failed")
    /// 409: the change collides (with busy time, or with the resource's state).
    public static let conflict = almanac("conflict")
    /// 409: something with that name or UID exists.
    public static let alreadyExists = almanac("already-exists")
    /// 409: a request with the same `Idempotency-Key` still runs.
    public static let idempotencyKeyInUse = almanac("idempotency-key-in-use")
    /// 422: the `Idempotency-Key` was used by another token or for another request.
    public static let idempotencyKeyReused = almanac("idempotency-key-reused")
    /// 422: the calendar data cannot be stored.
    public static let invalidCalendarData = almanac("invalid-calendar-data")
    /// 422: the calendar does not take that kind of component.
    public static let unsupportedComponent = almanac("unsupported-component")
    /// 429: past the rate limit or the sign-in throttle (``AlmanacError/retryAfter``).
    public static let tooManyRequests = almanac("too-many-requests")
    /// 503: the store cannot answer now (``AlmanacError/retryAfter``).
    public static let unavailable = almanac("unavailable")
    /// 507: the user's quota, or the disk, is full.
    public static let insufficientStorage = almanac("insufficient-storage")
    /// 410: a sync token that is no longer valid: sync again without one.
    public static let resyncRequired = almanac("resync-required")

    /// Reads the type from a JSON string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Writes the type as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The URI.
    public var description: String { rawValue }
}
