import Accounts
import CalendarStore
import HTTPTypes
import ICalendar
import JSON

/// An RFC 9457 problem: a stable `type` per kind of error, its status, and a detail
/// for people.
struct APIProblem: HTTPResponseError {
    enum Kind: String, CaseIterable {
        case unauthorized
        case tooManyRequests = "too-many-requests"
        case notFound = "not-found"
        case forbidden
        case methodNotAllowed = "method-not-allowed"
        case invalidBody = "invalid-body"
        case unknownField = "unknown-field"
        case invalidField = "invalid-field"
        case invalidQuery = "invalid-query"
        case rangeTooLong = "range-too-long"
        case unsupportedMediaType = "unsupported-media-type"
        case preconditionFailed = "precondition-failed"
        case preconditionRequired = "precondition-required"
        case conflict
        case slotTaken = "slot-taken"
        case alreadyExists = "already-exists"
        case invalidCalendarData = "invalid-calendar-data"
        case unsupportedComponent = "unsupported-component"
        case unavailable
        case insufficientStorage = "insufficient-storage"
        case resyncRequired = "resync-required"
        case idempotencyKeyInUse = "idempotency-key-in-use"
        case idempotencyKeyReused = "idempotency-key-reused"

        var status: Int {
            switch self {
            case .unauthorized: 401
            case .tooManyRequests: 429
            case .notFound: 404
            case .forbidden: 403
            case .methodNotAllowed: 405
            case .invalidBody, .unknownField, .invalidField, .invalidQuery, .rangeTooLong: 400
            case .unsupportedMediaType: 415
            case .preconditionFailed: 412
            case .preconditionRequired: 428
            case .conflict, .slotTaken, .alreadyExists, .idempotencyKeyInUse: 409
            case .invalidCalendarData, .unsupportedComponent, .idempotencyKeyReused: 422
            case .unavailable: 503
            case .insufficientStorage: 507
            case .resyncRequired: 410
            }
        }

        var title: String {
            switch self {
            case .unauthorized: "Sign-in required"
            case .tooManyRequests: "Too many requests"
            case .notFound: "Not found"
            case .forbidden: "Forbidden"
            case .methodNotAllowed: "Method not allowed"
            case .invalidBody: "The body is not valid"
            case .unknownField: "Unknown field"
            case .invalidField: "A field has a wrong value"
            case .invalidQuery: "A query parameter has a wrong value"
            case .rangeTooLong: "The range is too long"
            case .unsupportedMediaType: "Unsupported media type"
            case .preconditionFailed: "The resource has changed"
            case .preconditionRequired: "If-Match is required"
            case .conflict: "The event conflicts with busy time"
            case .slotTaken: "The slot is no longer free"
            case .alreadyExists: "It already exists"
            case .invalidCalendarData: "The calendar data is not valid"
            case .unsupportedComponent: "The calendar does not take this component"
            case .unavailable: "The store is unavailable"
            case .insufficientStorage: "There is no room for this"
            case .resyncRequired: "The sync token is no longer valid; sync again from the start"
            case .idempotencyKeyInUse: "A request with this Idempotency-Key is still running"
            case .idempotencyKeyReused: "The Idempotency-Key was used for another request"
            }
        }

        /// The stable problem type URI.
        var type: String { "urn:almanac:problem:" + rawValue }
    }

    var kind: Kind
    var detail: String
    /// The fields at fault (unknown or invalid), when known.
    var fields: [String] = []
    /// For 405: the methods that are allowed.
    var allow: [String] = []
    /// Extra members (conflicts, for 409).
    var extra: [(key: String, value: JSONValue)] = []
    /// Headers the answer carries besides (a sign-in challenge, Retry-After).
    var headers: HTTPHeaders = [:]

    init(
        _ kind: Kind, _ detail: String, fields: [String] = [], allow: [String] = [],
        extra: [(key: String, value: JSONValue)] = []
    ) {
        self.kind = kind
        self.detail = detail
        self.fields = fields
        self.allow = allow
        self.extra = extra
    }

    /// The problem a store error calls for.
    init(_ error: StoreError) {
        switch error.code {
        case .notFound: self.init(.notFound, error.message)
        case .forbidden: self.init(.forbidden, error.message)
        case .preconditionFailed: self.init(.preconditionFailed, error.message)
        case .uidConflict, .alreadyExists: self.init(.alreadyExists, error.message)
        case .slotTaken: self.init(.slotTaken, error.message)
        case .invalidCalendarData, .invalidCalendarObject: self.init(.invalidCalendarData, error.message)
        case .unsupportedComponent: self.init(.unsupportedComponent, error.message)
        case .invalidSyncToken: self.init(.resyncRequired, error.message)
        case .invalidArgument: self.init(.invalidField, error.message)
        case .expansionLimit: self.init(.rangeTooLong, error.message)
        case .database:
            error.logDetails()
            self.init(.unavailable, error.clientMessage)
        case .insufficientStorage:
            error.logDetails()
            self.init(.insufficientStorage, error.message)
        }
    }

    /// A failed sign-in: 401 with the Basic challenge, 429 while throttled, 503 when
    /// nothing could be checked; when to try again where waiting helps.
    init(_ failure: AuthenticationFailure) {
        let kind: Kind =
            switch failure {
            case .throttled: .tooManyRequests
            case .unavailable: .unavailable
            case .insufficientScope: .forbidden
            case .missingCredentials, .wrongCredentials, .unknownToken, .expiredToken, .invalidToken: .unauthorized
            }
        self.init(kind, failure.message)
        if failure.asksForCredentials {
            headers.set("WWW-Authenticate", failure.bearerChallenge ?? AuthenticationFailure.basicChallenge)
        }
        if let wait = failure.retryAfter { headers.set("Retry-After", String(wait)) }
    }

    var status: Int { kind.status }

    var response: HTTPResponse {
        var members: [(key: String, value: JSONValue)] = [
            ("type", .string(kind.type)), ("title", .string(kind.title)), ("status", .integer(kind.status)),
            ("detail", .string(detail)),
        ]
        if !fields.isEmpty { members.append(("fields", .array(fields.map { .string($0) }))) }
        members += extra
        var response = HTTPResponse(
            status: kind.status, headers: ["Content-Type": "application/problem+json", "Cache-Control": "no-store"],
            body: Array(JSONValue.object(members).jsonText.utf8))
        if !allow.isEmpty { response.headers.set("Allow", allow.joined(separator: ", ")) }
        for (name, value) in headers { response.headers.set(name, value) }
        // The store comes back by itself (a PostgreSQL restart): say when to try again.
        if kind == .unavailable, response.headers["Retry-After"] == nil { response.headers.set("Retry-After", "5") }
        return response
    }
}
