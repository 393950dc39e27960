/// Why a request could not be signed in, as a value each protocol renders in its own
/// form: CalDAV a plain 401 with a Basic challenge, the API an RFC 9457 problem, the
/// web its sign-in page. It carries the status they share and no response of any
/// form; ``message`` is for people.
public enum AuthenticationFailure: Error, Sendable, Hashable {
    /// No credentials came with the request.
    case missingCredentials
    /// A user name and password that do not match.
    case wrongCredentials
    /// A personal API token that is unknown or revoked.
    case unknownToken
    /// A personal API token past its expiry, or of a disabled user.
    case expiredToken
    /// A signed token (an OpenID Connect access token) that did not verify: why.
    case invalidToken(String)
    /// A token that verified but grants none of the scopes the request needs (403).
    case insufficientScope(String)
    /// Too many failed sign-ins from this address: try again in this many seconds.
    case throttled(retryAfter: Int)
    /// Nothing could be checked (the store did not answer, or no hashing turn came):
    /// nothing is known about the credentials, and trying again shortly may work.
    case unavailable(reason: String)

    /// What to tell the person signing in.
    public var message: String {
        switch self {
        case .missingCredentials: "sign in with your Almanac user name and password"
        case .wrongCredentials: "wrong user name or password"
        case .unknownToken: "the API token is unknown or revoked"
        case .expiredToken: "the API token has expired or its user is disabled"
        case .invalidToken(let reason): reason
        case .insufficientScope(let reason): reason
        case .throttled: "too many failed sign-ins; try again later"
        case .unavailable(let reason): reason
        }
    }

    /// Seconds to wait before trying again, when waiting helps.
    public var retryAfter: Int? {
        switch self {
        case .throttled(let seconds): seconds
        case .unavailable: 1
        case .missingCredentials, .wrongCredentials, .unknownToken, .expiredToken, .invalidToken, .insufficientScope:
            nil
        }
    }

    /// The HTTP status every protocol answers it with: 503 when nothing could be
    /// checked, 429 while throttled, 403 for a token without the scope, else 401.
    public var status: Int {
        switch self {
        case .unavailable: 503
        case .throttled: 429
        case .insufficientScope: 403
        case .missingCredentials, .wrongCredentials, .unknownToken, .expiredToken, .invalidToken: 401
        }
    }

    /// Whether credentials should be asked for (an HTTP `WWW-Authenticate` challenge):
    /// always, except when nothing could be checked.
    public var asksForCredentials: Bool {
        if case .unavailable = self { return false }
        return true
    }

    /// The challenge a protocol sends with a failure that ``asksForCredentials``
    /// (RFC 7617 §2: the realm and the charset of the user name and password).
    public static let basicChallenge = "Basic realm=\"Almanac\", charset=\"UTF-8\""

    /// The challenge for a bearer token that does not work (RFC 6750 §3.1), else nil.
    public var bearerChallenge: String? {
        switch self {
        case .unknownToken, .expiredToken, .invalidToken:
            "Bearer realm=\"Almanac\", error=\"invalid_token\", error_description=\"\(Self.quoted(message))\""
        case .insufficientScope:
            "Bearer realm=\"Almanac\", error=\"insufficient_scope\", error_description=\"\(Self.quoted(message))\""
        default: nil
        }
    }

    /// `text` fit for a quoted string of a challenge (RFC 6750 §3: printable ASCII without
    /// `"` and `\`).
    static func quoted(_ text: String) -> String {
        String(
            text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" }.map(
                Character.init))
    }
}
