import Accounts
import Foundation
import JSON
import Synchronization
import Testing

/// A provider's answers, as the server's transport would bring them, with every request
/// counted; a request may be held until the test lets it go.
final class FakeIdentityTransport: IdentityTransport {
    struct Posted: Sendable {
        var url: String
        var fields: [String: String]
        var user: String
        var password: String
    }

    let answers: Mutex<[String: IdentityResponse]>
    let gets = Mutex<[String]>([])
    let posts = Mutex<[Posted]>([])
    /// When set, a GET signals `entered` and waits for `release`.
    let holding = Mutex(false)
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    init(_ answers: [String: IdentityResponse]) { self.answers = Mutex(answers) }

    func get(_ url: String, maxBytes: Int) -> IdentityResponse {
        gets.withLock { $0.append(url) }
        if holding.withLock({ $0 }) {
            entered.signal()
            release.wait()
        }
        return answers.withLock { $0[url] } ?? IdentityResponse(status: 404, error: nil)
    }

    func postForm(_ url: String, fields: [(String, String)], user: String, password: String, maxBytes: Int)
        -> IdentityResponse
    {
        posts.withLock {
            $0.append(
                Posted(
                    url: url, fields: Dictionary(fields, uniquingKeysWith: { $1 }), user: user, password: password))
        }
        return answers.withLock { $0[url] } ?? IdentityResponse(status: 404, error: nil)
    }
}

@Suite struct OpenIDProviderTests {
    static let issuer = "https://id.example.org/realms/staff"

    static func claims(_ text: String) -> JSONValue { (try? JSONValue(parsing: text)) ?? .null }

    static func json(_ text: String, cacheControl: String? = nil) -> IdentityResponse {
        IdentityResponse(
            status: 200, error: nil, headers: cacheControl.map { ["cache-control": $0] } ?? [:], body: Array(text.utf8))
    }

    static func discovery(issuer: String = issuer, jwks: String = issuer + "/certs") -> IdentityResponse {
        json(
            """
            {"issuer": "\(issuer)", "jwks_uri": "\(jwks)", "authorization_endpoint": "\(Self.issuer)/auth",
             "token_endpoint": "\(Self.issuer)/token"}
            """, cacheControl: "max-age=600")
    }

    static func provider(
        _ transport: FakeIdentityTransport, _ change: (inout OpenIDProvider.Configuration) -> Void = { _ in }
    )
        -> OpenIDProvider
    {
        var configuration = OpenIDProvider.Configuration(issuer: issuer, clientID: "almanac", clientSecret: "s3cret")
        change(&configuration)
        return OpenIDProvider(configuration, transport: transport, now: { 1_800_000_000 })
    }

    /// Cache-Control decides how long discovery and keys are kept, within a minute and a day.
    @Test func documentsAreKeptAsCacheControlSays() {
        let cases: [(String?, Int)] = [
            (nil, 3_600), ("max-age=600", 600), ("public, max-age=120, must-revalidate", 120), ("max-age=5", 60),
            ("max-age=9999999", 86_400), ("no-store", 60), ("no-cache, max-age=900", 60), ("max-age=abc", 3_600),
            ("MAX-AGE=300", 300),
        ]
        for (header, seconds) in cases {
            #expect(OpenIDProvider.maxAge(header) == seconds, "\(header ?? "(none)")")
        }
    }

    /// The broadest Almanac scope a token's `scope` or `scp` names, after the prefix.
    @Test func scopesMapToAlmanacScopes() {
        let provider = Self.provider(FakeIdentityTransport([:]))
        let cases: [(String, String?)] = [
            (#"{"scope": "openid almanac:read"}"#, "read"),
            (#"{"scope": "almanac:read almanac:read-write"}"#, "read-write"),
            (#"{"scope": "almanac:admin"}"#, "admin"),
            (#"{"scope": "almanac:add"}"#, "add-only"),
            (#"{"scope": "almanac:add almanac:read"}"#, "read"),
            (#"{"scp": ["almanac:read-write"]}"#, "read-write"),
            (#"{"scp": "almanac:read"}"#, "read"),
            (#"{"scope": "openid profile read-write"}"#, nil),
            (#"{"scope": "other:read-write"}"#, nil),
            ("{}", nil),
        ]
        for (claims, scope) in cases { #expect(provider.scope(of: Self.claims(claims)) == scope, "\(claims)") }
        let prefixed = Self.provider(FakeIdentityTransport([:])) { $0.scopePrefix = "https://cal.example.org/" }
        #expect(prefixed.scope(of: Self.claims(#"{"scope": "https://cal.example.org/read"}"#)) == "read")
    }

    /// The user claim names the account; an e-mail address counts only when verified;
    /// the identity is the issuer and `sub`.
    @Test func theUserClaimNamesThePerson() throws {
        let claims = Self.claims(
            #"{"sub": "f81d4fae", "preferred_username": "lena", "email": "Lena@Example.org", "email_verified": true, "name": "Lena Park"}"#
        )
        let byName = try Self.provider(FakeIdentityTransport([:])).person(in: claims).get()
        #expect(byName.name == "lena" && byName.identity == Self.issuer + " f81d4fae")
        #expect(byName.displayName == "Lena Park" && byName.email == "lena@example.org")
        let bySub = try Self.provider(FakeIdentityTransport([:])) { $0.userClaim = .sub }.person(in: claims).get()
        #expect(bySub.name == "f81d4fae")
        let byEmail = Self.provider(FakeIdentityTransport([:])) { $0.userClaim = .email }
        #expect(try byEmail.person(in: claims).get().name == "lena@example.org")
        let unverified = Self.claims(
            #"{"sub": "f81d4fae", "preferred_username": "lena", "email": "lena@example.org", "email_verified": false}"#)
        #expect(throws: IdentityRefusal.self) { try byEmail.person(in: unverified).get() }
        #expect(try Self.provider(FakeIdentityTransport([:])).person(in: unverified).get().email == nil)
        #expect(throws: IdentityRefusal.self) {
            try Self.provider(FakeIdentityTransport([:])).person(in: Self.claims(#"{"preferred_username": "lena"}"#))
                .get()
        }
        #expect(throws: IdentityRefusal.self) {
            try Self.provider(FakeIdentityTransport([:])).person(in: Self.claims(#"{"sub": "f81d4fae"}"#)).get()
        }
    }

    /// A discovery document for another issuer, or endpoints on plain http for an https
    /// issuer, are not used; a good one is fetched once while fresh.
    @Test func discoveryIsCheckedAndCached() {
        let url = Self.issuer + "/.well-known/openid-configuration"
        let foreign = FakeIdentityTransport([url: Self.discovery(issuer: "https://evil.example.net")])
        guard case .unavailable(let reason) = Self.provider(foreign).verifyAccessToken("a.b.c") else {
            Issue.record("a foreign discovery document was used")
            return
        }
        #expect(reason.contains("another issuer"))
        let plain = FakeIdentityTransport([url: Self.discovery(jwks: "http://id.example.org/certs")])
        guard case .unavailable(let why) = Self.provider(plain).verifyAccessToken("a.b.c") else {
            Issue.record("a key set on plain http was fetched for an https issuer")
            return
        }
        #expect(why.contains("jwks_uri") && plain.gets.withLock { $0 } == [url])

        let good = FakeIdentityTransport([
            url: Self.discovery(), Self.issuer + "/certs": Self.json(#"{"keys": []}"#, cacheControl: "max-age=600"),
        ])
        let provider = Self.provider(good)
        for _ in 0..<3 {
            guard case .refused = provider.verifyAccessToken("eyJhbGciOiJSUzI1NiJ9.e30.c2ln") else {
                Issue.record("a token no key verifies was not refused")
                return
            }
        }
        // Discovery once; the key set once, and once more for the first unknown key only.
        #expect(good.gets.withLock { $0 } == [url, Self.issuer + "/certs", Self.issuer + "/certs"])
    }

    /// The authorization URL carries the state, nonce and an S256 challenge; finishing
    /// with another state asks the provider nothing, and the code is exchanged with the
    /// client's secret and the verifier whose SHA-256 is the challenge.
    @Test func theCodeFlowBindsTheBrowsersSignIn() throws {
        let url = Self.issuer + "/.well-known/openid-configuration"
        let transport = FakeIdentityTransport([
            url: Self.discovery(), Self.issuer + "/token": Self.json(#"{"error": "invalid_grant"}"#),
        ])
        let provider = Self.provider(transport)
        let signIn = OpenIDProvider.BrowserSignIn()
        let redirect = "https://cal.example.org/login/oidc/callback"
        let address = try provider.authorizationURL(for: signIn, redirectURI: redirect).get()
        let query = Dictionary(
            (URLComponents(string: address)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
            uniquingKeysWith: { $1 })
        #expect(address.hasPrefix(Self.issuer + "/auth?"))
        #expect(query["state"] == signIn.state && query["redirect_uri"] == redirect && query["client_id"] == "almanac")
        #expect(query["code_challenge_method"] == "S256" && query["response_type"] == "code")
        #expect(query["scope"] == "openid profile email" && (query["nonce"]?.isEmpty == false))
        #expect(query["nonce"] != query["state"])

        guard case .refused = provider.finish(signIn, state: "forged", code: "c", redirectURI: redirect) else {
            Issue.record("another state was accepted")
            return
        }
        #expect(transport.posts.withLock { $0 }.isEmpty)
        guard case .refused(let why) = provider.finish(signIn, state: signIn.state, code: "c0de", redirectURI: redirect)
        else {
            Issue.record("a refused code signed someone in")
            return
        }
        #expect(why.contains("invalid_grant"))
        let posted = try #require(transport.posts.withLock { $0 }.first)
        #expect(posted.url == Self.issuer + "/token" && posted.user == "almanac" && posted.password == "s3cret")
        #expect(posted.fields["grant_type"] == "authorization_code" && posted.fields["code"] == "c0de")
        #expect(posted.fields["redirect_uri"] == redirect)
        let verifier = try #require(posted.fields["code_verifier"])
        #expect((43...128).contains(verifier.count))
        #expect(Base64URL.encode(Crypto.sha256(Array(verifier.utf8))) == query["code_challenge"])
        // Another browser's sign-in has another state.
        #expect(OpenIDProvider.BrowserSignIn().state != signIn.state)
    }

    /// While a request to the provider hangs, at most `concurrentChecks` sign-ins wait for
    /// it; the next is told at once that the provider is busy.
    @Test func aHangingProviderHoldsABoundedNumberOfSignIns() {
        let url = Self.issuer + "/.well-known/openid-configuration"
        let transport = FakeIdentityTransport([url: Self.discovery()])
        transport.holding.withLock { $0 = true }
        let provider = Self.provider(transport) { $0.concurrentChecks = 1 }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = provider.verifyAccessToken("a.b.c")
            done.signal()
        }
        transport.entered.wait()
        guard case .unavailable(let reason) = provider.verifyAccessToken("a.b.c") else {
            Issue.record("a second sign-in waited for a hanging provider")
            return
        }
        #expect(reason.contains("busy"))
        transport.holding.withLock { $0 = false }
        transport.release.signal()
        done.wait()
    }

    /// A provider that is away is asked once, then not again for 30 s: meanwhile sign-ins
    /// are unavailable at once instead of each waiting for it.
    @Test func aProviderThatIsAwayIsNotAskedByEverySignIn() {
        let url = Self.issuer + "/.well-known/openid-configuration"
        let transport = FakeIdentityTransport([url: IdentityResponse(status: nil, error: "connection refused")])
        let clock = Mutex(1_800_000_000)
        var configuration = OpenIDProvider.Configuration(issuer: Self.issuer, clientID: "almanac", clientSecret: "s")
        configuration.concurrentChecks = 2
        let provider = OpenIDProvider(configuration, transport: transport, now: { clock.withLock { $0 } })
        for _ in 0..<5 {
            guard case .unavailable(let reason) = provider.verifyAccessToken("a.b.c") else {
                Issue.record("a provider that is away verified a token")
                return
            }
            #expect(reason.contains("connection refused"))
        }
        #expect(transport.gets.withLock { $0.count } == 1)
        clock.withLock { $0 += 31 }
        _ = provider.verifyAccessToken("a.b.c")
        #expect(transport.gets.withLock { $0.count } == 2)
        // Back, with keys; then away again when they expire: the old keys keep working.
        transport.answers.withLock {
            $0[url] = Self.discovery()
            $0[Self.issuer + "/certs"] = Self.json(#"{"keys": []}"#, cacheControl: "max-age=60")
        }
        clock.withLock { $0 += 31 }
        guard case .refused = provider.verifyAccessToken("eyJhbGciOiJSUzI1NiJ9.e30.c2ln") else {
            Issue.record("the provider's keys were not used once it was back")
            return
        }
        let asked = transport.gets.withLock { $0.count }
        transport.answers.withLock { $0[Self.issuer + "/certs"] = IdentityResponse(status: 503, error: nil) }
        clock.withLock { $0 += 61 }
        for _ in 0..<3 {
            guard case .unavailable(let reason) = provider.verifyAccessToken("eyJhbGciOiJSUzI1NiJ9.e30.c2ln") else {
                Issue.record("a token was judged without keys while the provider is away")
                return
            }
            #expect(reason.contains("503"))
        }
        #expect(transport.gets.withLock { $0.count } == asked + 1)
    }

    /// `serve` refuses what cannot work, naming the option.
    @Test func badConfigurationsAreNamed() {
        func problem(_ issuer: String, client: String = "almanac", secret: String = "s") -> String? {
            OpenIDProvider.Configuration(issuer: issuer, clientID: client, clientSecret: secret).problem
        }
        #expect(problem(Self.issuer) == nil)
        #expect(problem("ftp://id.example.org")?.contains("--oidc-issuer") == true)
        #expect(problem("https://id.example.org/?x=1")?.contains("--oidc-issuer") == true)
        #expect(problem("id.example.org")?.contains("--oidc-issuer") == true)
        #expect(problem(Self.issuer, client: "")?.contains("--oidc-client-id") == true)
        #expect(problem(Self.issuer, secret: "")?.contains("secret") == true)
    }
}
