import Foundation
import JSON
import Synchronization

/// How the server reaches an identity provider: GETs and a form POST through its
/// outbound client and rules (the server supplies it; Accounts makes no connection).
public protocol IdentityTransport: Sendable {
    /// GETs `url`; at most `maxBytes` of body.
    func get(_ url: String, maxBytes: Int) -> IdentityResponse
    /// POSTs `fields` form-encoded to `url` with HTTP Basic client authentication
    /// (RFC 6749 §2.3.1); at most `maxBytes` of body.
    func postForm(_ url: String, fields: [(String, String)], user: String, password: String, maxBytes: Int)
        -> IdentityResponse
}

/// What one request to the identity provider came to.
public struct IdentityResponse: Sendable {
    /// The status, when an answer arrived.
    public var status: Int?
    /// Why no answer arrived (or the answer broke off).
    public var error: String?
    /// Response headers by lowercased name.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int?, error: String?, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.error = error
        self.headers = headers
        self.body = body
    }
}

/// Sign-in through an OpenID Connect provider (Keycloak, Authentik, Google): its
/// metadata from `/.well-known/openid-configuration`, its keys from `jwks_uri` (kept
/// as long as its `Cache-Control` says, fetched again when a token names a key not yet
/// seen), access tokens and ID tokens verified with ``VerifiedJWS`` and
/// ``TokenClaimsCheck``, and the authorization code flow with PKCE (RFC 7636), `state`
/// and `nonce`.
///
/// Requests to the provider go one at a time, and at most
/// ``Configuration/concurrentChecks`` sign-ins wait for one: a provider that hangs holds
/// some request workers and never all, and a flood of tokens naming unknown keys
/// causes one fetch of the key set per ``Configuration/refreshInterval``.
public final class OpenIDProvider: Sendable {
    public struct Configuration: Sendable {
        /// The issuer, exactly as its tokens' `iss` says (`https://id.example.com/realms/staff`).
        public var issuer: String
        public var clientID: String
        public var clientSecret: String
        /// What an API access token's `aud` must contain; the client ID when nil.
        public var audience: String?
        /// The claim that names the Almanac user.
        public var userClaim: UserClaim = .preferredUsername
        /// Whether a user without an account gets one at their first sign-in.
        public var createsUsers = false
        /// What precedes Almanac's scopes in an access token's `scope` (`almanac:read-write`).
        public var scopePrefix = "almanac:"
        /// Sign-ins that may wait on the provider at once (`serve` uses half its workers).
        public var concurrentChecks = 2
        /// The least seconds between fetches of the key set that tokens naming unknown
        /// keys cause (the first such fetch comes at once: a key just rotated in works).
        public var refreshInterval = 30

        public init(issuer: String, clientID: String, clientSecret: String) {
            self.issuer = issuer
            self.clientID = clientID
            self.clientSecret = clientSecret
        }

        /// Why this configuration cannot work, for `serve` to refuse at start; nil when sound.
        public var problem: String? {
            guard let url = URL(string: issuer), let scheme = url.scheme?.lowercased(),
                ["https", "http"].contains(scheme),
                url.host?.isEmpty == false, url.query == nil, url.fragment == nil
            else { return "--oidc-issuer is the provider's https:// URL, such as https://id.example.com/realms/staff" }
            guard !clientID.isEmpty, clientID.utf8.count <= 256 else { return "--oidc-client-id is 1 to 256 bytes" }
            guard !clientSecret.isEmpty else { return "the file --oidc-client-secret-file names holds no secret" }
            if let audience, audience.isEmpty { return "--oidc-audience is not empty" }
            return nil
        }
    }

    /// The claim of a token that names its Almanac user.
    public enum UserClaim: String, Sendable, CaseIterable {
        /// The name the person signs in to the provider with.
        case preferredUsername = "preferred_username"
        /// The e-mail address, accepted only when `email_verified` is true.
        case email
        /// The provider's stable identifier for the person.
        case sub
    }

    /// A verified token's verdict.
    public enum Verdict: Sendable {
        /// The signature verified and the claims are acceptable: the claims.
        case verified(JSONValue)
        /// The token is not acceptable; why (for the client).
        case refused(String)
        /// The provider could not be asked (its keys or metadata are out of reach).
        case unavailable(String)
    }

    /// The endpoints discovery found.
    struct Metadata: Sendable {
        var authorizationEndpoint: String?
        var tokenEndpoint: String?
        var jwksURI: String
    }

    struct State: Sendable {
        var metadata: Metadata?
        /// Unix seconds after which the metadata is fetched again.
        var metadataExpires = 0
        var keys: [JSONWebKey] = []
        var keysExpire = 0
        /// When the keys were last fetched (Unix seconds; 0: never).
        var keysFetched = 0
        /// When a token naming an unknown key last caused a fetch (0: never).
        var unknownKeyFetched = 0
        /// Why the last fetch failed, and until when (Unix seconds) no other is tried.
        var failure: IdentityRefusal?
        var failureUntil = 0
        var waiting = 0
    }

    /// Seconds after a failed fetch before the provider is asked again: meanwhile what
    /// was fetched before keeps working and anything else is unavailable at once,
    /// instead of every sign-in waiting for a provider that is away.
    static let retryAfterFailure = 30

    /// Why fetching failed a moment ago, while no other fetch is tried.
    private func recentFailure() -> IdentityRefusal? {
        state.withLock { $0.failureUntil > now() ? $0.failure : nil }
    }

    private func noteFailure(_ reason: IdentityRefusal) {
        state.withLock {
            $0.failure = reason
            $0.failureUntil = now() + Self.retryAfterFailure
        }
    }

    public let configuration: Configuration
    let transport: any IdentityTransport
    let now: @Sendable () -> Int
    private let state = Mutex(State())
    /// Held while a request to the provider is made: they go one at a time.
    private let fetching = NSLock()

    /// The most bytes of a discovery document, key set or token answer read.
    static let maxDocumentBytes = 256 << 10

    public init(
        _ configuration: Configuration, transport: any IdentityTransport,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.now = now
    }

    /// The issuer's host, for the sign-in page's button.
    public var displayName: String { URL(string: configuration.issuer)?.host ?? configuration.issuer }

    // MARK: Tokens

    /// Verifies an access token presented to the API: signed by one of the issuer's
    /// keys, issued by it, for ``Configuration/audience``, and valid now.
    public func verifyAccessToken(_ token: String) -> Verdict {
        verify(token, audience: configuration.audience ?? configuration.clientID, nonce: nil)
    }

    /// Verifies `token` against the issuer's keys (fetched again once when it names one
    /// not seen) and the claims checks.
    func verify(_ token: String, audience: String, nonce: String?) -> Verdict {
        var keys: [JSONWebKey]
        switch currentKeys(refreshing: false) {
        case .failure(let reason): return .unavailable(reason.message)
        case .success(let found): keys = found
        }
        var verified: VerifiedJWS
        do throws(JOSEError) {
            verified = try VerifiedJWS(token, keys: keys)
        } catch  where error.kind == .unknownKey {
            // The provider may have rotated its keys: look once more (not more often
            // than the refresh interval, whatever the tokens name).
            switch currentKeys(refreshing: true) {
            case .failure(let reason): return .unavailable(reason.message)
            case .success(let found): keys = found
            }
            do throws(JOSEError) {
                verified = try VerifiedJWS(token, keys: keys)
            } catch {
                return .refused(error.description)
            }
        } catch {
            return .refused(error.description)
        }
        var check = TokenClaimsCheck(issuer: configuration.issuer, audience: audience)
        check.nonce = nonce
        if let problem = check.problem(with: verified.payload, now: now()) { return .refused(problem) }
        return .verified(verified.payload)
    }

    /// The Almanac scope an access token grants (its `scope` string or `scp` list, each
    /// value after ``Configuration/scopePrefix``): the broadest of `admin`, `read-write`,
    /// then `read` or `add` (`add-only`), where `read` wins over `add`; nil when it names
    /// none of them. The answer is the scope's name as tokens have it (`add-only`).
    public func scope(of claims: JSONValue) -> String? {
        var values: [String] = []
        if case .string(let text)? = claims["scope"] { values += text.split(separator: " ").map(String.init) }
        switch claims["scp"] {
        case .string(let text)?: values += text.split(separator: " ").map(String.init)
        case .array(let items)?:
            for case .string(let text) in items { values.append(text) }
        default: break
        }
        let prefix = configuration.scopePrefix
        let named = Set(values.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
        for scope in ["admin", "read-write", "read"] where named.contains(scope) { return scope }
        return named.contains("add") || named.contains("add-only") ? "add-only" : nil
    }

    /// Who `claims` name, by ``Configuration/userClaim``, and the identity (issuer and
    /// `sub`) the account is bound to; or why they name no one.
    public func person(in claims: JSONValue) -> Result<Person, IdentityRefusal> {
        guard case .string(let subject)? = claims["sub"], !subject.isEmpty, subject.utf8.count <= 255 else {
            return .failure(IdentityRefusal("the token has no subject (sub)"))
        }
        func text(_ name: String) -> String? {
            if case .string(let value)? = claims[name], !value.isEmpty { return value }
            return nil
        }
        var verifiedEmail: String?
        if let address = text("email"), case .bool(true)? = claims["email_verified"] { verifiedEmail = address }
        let name: String?
        switch configuration.userClaim {
        case .preferredUsername: name = text("preferred_username")
        case .sub: name = subject
        case .email:
            guard let verifiedEmail else {
                return .failure(IdentityRefusal("the token's e-mail address is missing or not verified"))
            }
            name = verifiedEmail.lowercased()
        }
        guard let name else {
            return .failure(IdentityRefusal("the token has no \(configuration.userClaim.rawValue) claim"))
        }
        return .success(
            Person(
                name: name, identity: configuration.issuer + " " + subject, displayName: text("name"),
                email: verifiedEmail?.lowercased()))
    }

    /// The person a token names.
    public struct Person: Sendable, Hashable {
        /// The Almanac user name the claim gives.
        public var name: String
        /// The issuer and subject, which an account is bound to at its first sign-in.
        public var identity: String
        public var displayName: String?
        /// The e-mail address, when the provider verified it.
        public var email: String?
    }

    // MARK: The authorization code flow

    /// What one sign-in in a browser is made of, derived from a random secret the
    /// browser keeps in a cookie until it comes back: the `state` (checked on return),
    /// the `nonce` (the ID token must carry) and the PKCE verifier (RFC 7636, S256).
    public struct BrowserSignIn: Sendable {
        public let secret: String

        /// A new sign-in with a fresh secret.
        public init() { secret = Base64URL.encode(Crypto.randomBytes(32)) }
        /// The sign-in a returning browser's cookie names.
        public init(secret: String) { self.secret = secret }

        func derived(_ label: String) -> String {
            Base64URL.encode(Crypto.sha256(Array((label + ":" + secret).utf8)))
        }
        public var state: String { derived("state") }
        var nonce: String { derived("nonce") }
        var verifier: String { derived("pkce") }
        var challenge: String { Base64URL.encode(Crypto.sha256(Array(verifier.utf8))) }
    }

    /// Where to send a browser to sign in, returning to `redirectURI`.
    public func authorizationURL(for signIn: BrowserSignIn, redirectURI: String) -> Result<String, IdentityRefusal> {
        let metadata: Metadata
        switch currentMetadata() {
        case .failure(let reason): return .failure(reason)
        case .success(let found): metadata = found
        }
        guard let endpoint = metadata.authorizationEndpoint, var components = URLComponents(string: endpoint) else {
            return .failure(IdentityRefusal("the provider names no authorization endpoint"))
        }
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "client_id", value: configuration.clientID),
                URLQueryItem(name: "redirect_uri", value: redirectURI),
                URLQueryItem(name: "scope", value: "openid profile email"),
                URLQueryItem(name: "state", value: signIn.state),
                URLQueryItem(name: "nonce", value: signIn.nonce),
                URLQueryItem(name: "code_challenge", value: signIn.challenge),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
        // `+` in a value would read as a space on the other side.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.string else { return .failure(IdentityRefusal("the authorization URL is invalid")) }
        return .success(url)
    }

    /// Finishes a browser's sign-in: `state` must be the sign-in's, the code is
    /// exchanged (with the PKCE verifier) for an ID token, which must verify, be for
    /// this client (and, with several audiences, authorized for it) and carry the
    /// sign-in's nonce. The ID token's claims, or why not.
    public func finish(_ signIn: BrowserSignIn, state: String, code: String, redirectURI: String) -> Verdict {
        guard Crypto.constantTimeEqual(Array(state.utf8), Array(signIn.state.utf8)) else {
            return .refused("the sign-in does not match the one this browser began (state); start again")
        }
        guard !code.isEmpty, code.utf8.count <= 4_096 else { return .refused("the provider sent no usable code") }
        let metadata: Metadata
        switch currentMetadata() {
        case .failure(let reason): return .unavailable(reason.message)
        case .success(let found): metadata = found
        }
        guard let endpoint = metadata.tokenEndpoint else { return .unavailable("the provider names no token endpoint") }
        let answer = withTurn { () -> IdentityResponse in
            transport.postForm(
                endpoint,
                fields: [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI),
                    ("code_verifier", signIn.verifier), ("client_id", configuration.clientID),
                ], user: configuration.clientID, password: configuration.clientSecret, maxBytes: Self.maxDocumentBytes)
        }
        guard let answer else { return .unavailable("the identity provider is busy; try again shortly") }
        guard let status = answer.status else {
            return .unavailable("the identity provider did not answer (\(answer.error ?? "no answer"))")
        }
        let document = try? JSONValue(parsing: answer.body, maxDepth: 8)
        guard status == 200, let document, case .string(let idToken)? = document["id_token"] else {
            if case .string(let error)? = document?["error"] {
                return .refused("the provider refused the code (\(error))")
            }
            return .unavailable("the identity provider's token endpoint answered \(status)")
        }
        let verdict = verify(idToken, audience: configuration.clientID, nonce: signIn.nonce)
        if case .verified(let claims) = verdict, case .array(let audiences)? = claims["aud"], audiences.count > 1 {
            // OpenID Connect Core §3.1.3.7: with several audiences, `azp` names this client.
            guard case .string(let party)? = claims["azp"], party == configuration.clientID else {
                return .refused("the ID token is not authorized for this client (azp)")
            }
        }
        return verdict
    }

    // MARK: Metadata and keys

    /// The issuer's metadata, fetched when missing or expired (the old one kept while
    /// the provider cannot be reached).
    func currentMetadata() -> Result<Metadata, IdentityRefusal> {
        let (cached, fresh) = state.withLock { ($0.metadata, $0.metadataExpires > now()) }
        if let cached, fresh { return .success(cached) }
        if let failure = recentFailure() { return cached.map { .success($0) } ?? .failure(failure) }
        let fetched = withTurn { () -> Result<Metadata, IdentityRefusal> in
            // Another sign-in may have fetched it while this one waited for its turn.
            if let done = state.withLock({ $0.metadataExpires > now() ? $0.metadata : nil }) { return .success(done) }
            return fetchMetadata()
        }
        switch fetched {
        case .success(let metadata)?: return .success(metadata)
        case .failure(let reason)?: return cached.map { .success($0) } ?? .failure(reason)
        case nil: return cached.map { .success($0) } ?? .failure(IdentityRefusal("the identity provider is busy"))
        }
    }

    private func fetchMetadata() -> Result<Metadata, IdentityRefusal> {
        let fetched = fetchMetadataOnce()
        switch fetched {
        case .failure(let reason): noteFailure(reason)
        case .success: state.withLock { $0.failure = nil }
        }
        return fetched
    }

    private func fetchMetadataOnce() -> Result<Metadata, IdentityRefusal> {
        let issuer = configuration.issuer
        let url = (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
        let answer = transport.get(url, maxBytes: Self.maxDocumentBytes)
        let document: JSONValue
        switch Self.json(answer, what: "discovery document") {
        case .failure(let reason): return .failure(reason)
        case .success(let found): document = found
        }
        func endpoint(_ name: String) -> String? {
            guard case .string(let value)? = document[name], Self.isAcceptableEndpoint(value, issuer: issuer) else {
                return nil
            }
            return value
        }
        // OpenID Connect Discovery §4.3: the document is the issuer's own.
        guard case .string(let named)? = document["issuer"], named == issuer else {
            return .failure(IdentityRefusal("the discovery document names another issuer than \(issuer)"))
        }
        guard let jwks = endpoint("jwks_uri") else {
            return .failure(IdentityRefusal("the discovery document has no usable jwks_uri"))
        }
        let metadata = Metadata(
            authorizationEndpoint: endpoint("authorization_endpoint"), tokenEndpoint: endpoint("token_endpoint"),
            jwksURI: jwks)
        let lifetime = Self.maxAge(answer.headers["cache-control"])
        state.withLock {
            $0.metadata = metadata
            $0.metadataExpires = now() + lifetime
        }
        return .success(metadata)
    }

    /// The issuer's keys: the cached set while fresh, else fetched (for an unknown key
    /// once a refresh interval at most). The old set is kept while the provider cannot be
    /// reached.
    func currentKeys(refreshing: Bool) -> Result<[JSONWebKey], IdentityRefusal> {
        func due(_ current: State) -> Bool {
            current.keysFetched == 0 || current.keysExpire <= now()
                || (refreshing
                    && (current.unknownKeyFetched == 0
                        || current.unknownKeyFetched + configuration.refreshInterval <= now()))
        }
        let (cached, needed) = state.withLock { ($0.keys, due($0)) }
        guard needed else { return .success(cached) }
        if let failure = recentFailure() { return cached.isEmpty ? .failure(failure) : .success(cached) }
        let fetched = withTurn { () -> Result<[JSONWebKey], IdentityRefusal> in
            let current = state.withLock { $0 }
            guard due(current) else { return .success(current.keys) }
            let metadata: Metadata
            switch current.metadata.flatMap({ current.metadataExpires > now() ? $0 : nil }).map({
                Result<Metadata, IdentityRefusal>.success($0)
            }) ?? fetchMetadata() {
            case .failure(let reason): return .failure(reason)
            case .success(let found): metadata = found
            }
            let answer = transport.get(metadata.jwksURI, maxBytes: Self.maxDocumentBytes)
            let fetchedAt = now()
            if refreshing { state.withLock { $0.unknownKeyFetched = fetchedAt } }
            switch Self.json(answer, what: "key set") {
            case .failure(let reason):
                noteFailure(reason)
                return .failure(reason)
            case .success(let document):
                let keys = JSONWebKey.set(document)
                let lifetime = Self.maxAge(answer.headers["cache-control"])
                state.withLock {
                    $0.keys = keys
                    $0.keysFetched = fetchedAt
                    $0.keysExpire = fetchedAt + lifetime
                    $0.failure = nil
                }
                return .success(keys)
            }
        }
        switch fetched {
        case .success(let keys)?: return .success(keys)
        case .failure(let reason)?: return cached.isEmpty ? .failure(reason) : .success(cached)
        case nil:
            return cached.isEmpty ? .failure(IdentityRefusal("the identity provider is busy")) : .success(cached)
        }
    }

    /// Runs `work` (a request to the provider) in its turn, one at a time; nil at once
    /// when ``Configuration/concurrentChecks`` sign-ins already wait.
    private func withTurn<T>(_ work: () -> T) -> T? {
        let admitted = state.withLock { current -> Bool in
            guard current.waiting < configuration.concurrentChecks else { return false }
            current.waiting += 1
            return true
        }
        guard admitted else { return nil }
        defer { state.withLock { $0.waiting -= 1 } }
        fetching.lock()
        defer { fetching.unlock() }
        return work()
    }

    /// A JSON object answer with status 200, or why not.
    static func json(_ answer: IdentityResponse, what: String) -> Result<JSONValue, IdentityRefusal> {
        guard let status = answer.status else {
            return .failure(
                IdentityRefusal("the identity provider's \(what) could not be fetched (\(answer.error ?? "no answer"))")
            )
        }
        guard status == 200, answer.error == nil else {
            return .failure(IdentityRefusal("the identity provider's \(what) answered \(status)"))
        }
        guard let document = try? JSONValue(parsing: answer.body, maxDepth: 16), case .object = document else {
            return .failure(IdentityRefusal("the identity provider's \(what) is not a JSON object"))
        }
        return .success(document)
    }

    /// An endpoint is https, or http when the issuer itself is (a provider on loopback).
    static func isAcceptableEndpoint(_ value: String, issuer: String) -> Bool {
        let lowered = value.lowercased()
        return value.utf8.count <= 2_048
            && (lowered.hasPrefix("https://")
                || (lowered.hasPrefix("http://") && issuer.lowercased().hasPrefix("http://")))
    }

    /// How long a document may be kept by its `Cache-Control` (`max-age`, `no-store`,
    /// `no-cache`): within a minute and a day, an hour when it says nothing.
    public static func maxAge(_ header: String?) -> Int {
        guard let header else { return 3_600 }
        var seconds: Int?
        for directive in header.lowercased().split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts.first {
            case "no-store", "no-cache": seconds = 0
            case "max-age" where parts.count == 2: if seconds == nil { seconds = Int(parts[1]) }
            default: break
            }
        }
        return min(max(seconds ?? 3_600, 60), 86_400)
    }
}

/// Why a token names no one, or the provider could not be asked.
public struct IdentityRefusal: Error, Sendable, Hashable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
