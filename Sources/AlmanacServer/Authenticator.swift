import Accounts
import CalendarStore
import Foundation
import HTTPTypes
import JSON

/// HTTP Basic authentication against the users in the store (RFC 7617) and their app
/// passwords, and personal API tokens, with throttling of failed logins per user and
/// address. A failure is an ``AuthenticationFailure`` that the protocol asked renders in
/// its own form.
public final class Authenticator: Sendable {
    let backend: any StoreBackend
    let throttle: LoginThrottle
    let verified: VerifiedPasswords
    let gate: HashingGate
    /// Unix seconds, for tokens' expiry.
    let now: @Sendable () -> Int
    /// The LDAP directory that checks the passwords of users who have none stored here.
    let directory: LDAPDirectory?
    /// The OpenID Connect provider whose access tokens the API accepts and whose
    /// sign-in the web pages offer.
    public let identityProvider: OpenIDProvider?

    public init(
        backend: any StoreBackend, throttle: LoginThrottle = LoginThrottle(),
        verified: VerifiedPasswords = VerifiedPasswords(),
        gate: HashingGate = HashingGate(), directory: LDAPDirectory? = nil, identityProvider: OpenIDProvider? = nil,
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }
    ) {
        self.backend = backend
        self.throttle = throttle
        self.verified = verified
        self.gate = gate
        self.directory = directory
        self.identityProvider = identityProvider
        self.now = now
    }

    /// What a password the directory verified is remembered against (in place of a
    /// stored hash): the directory it came from.
    var directoryKey: String? {
        directory.map { "ldap " + $0.configuration.url + " " + $0.configuration.baseDN }
    }

    /// Who signed in with HTTP Basic: the user as read from the store, and the app
    /// password they gave (nil: their own password).
    public struct BasicSignIn: Sendable {
        public var user: User
        public var appPassword: AccessToken?
    }

    /// The signed-in user (HTTP Basic, with their password or an app password), or why not.
    public func authenticate(_ request: HTTPRequest) -> Result<BasicSignIn, AuthenticationFailure> {
        guard let header = request.headers["Authorization"], let credentials = BasicCredentials(authorization: header)
        else { return .failure(.missingCredentials) }
        let address = IPAddress.clientKey(request.remoteAddress)
        if let signIn = appPassword(credentials, address: address) { return signIn }
        return verify(credentials, address: address).map { BasicSignIn(user: $0, appPassword: nil) }
    }

    /// The sign-in by an app password, when `credentials` give one of that user's: like a
    /// token it needs no hash and no throttle (its secret is not guessable), and works
    /// until it expires, is revoked or its user is disabled. Nil when the password is no
    /// app password of theirs: it is then checked as their password.
    func appPassword(_ credentials: BasicCredentials, address: String) -> Result<BasicSignIn, AuthenticationFailure>? {
        guard APITokenSecret.isWellFormed(credentials.password) else { return nil }
        do {
            guard
                let found = try backend.appState.accessToken(secretHash: APITokenSecret.hash(credentials.password)),
                found.kind == .appPassword, found.user == credentials.user
            else { return nil }
            let user = try backend.user(named: found.user)
            guard !found.hasExpired(at: now()), !user.isDisabled else { return .failure(.wrongCredentials) }
            // The last-use note is for the listing: failing to write it refuses no one.
            try? backend.appState.noteUse(ofToken: found, at: now())
            throttle.recordSuccess(user: credentials.user, address: address)
            return .success(BasicSignIn(user: user, appPassword: found))
        } catch {
            return .failure(.unavailable(reason: "the store is unavailable; try again shortly"))
        }
    }

    /// Checks a user name and password (throttled per user and address): the user as
    /// read from the store, or why not and, while throttled, how many seconds to wait.
    ///
    /// A password that verified recently (a syncing client's every request) passes
    /// without hashing and without counting as an attempt, unless the user is throttled
    /// from this address: then nothing is checked. Any other attempt counts before the
    /// password is hashed (parallel guesses get no extra tries), an unknown user costs the
    /// same hash as a known one, and hashes run at most one per core at a time (503 when
    /// no turn comes).
    public func verify(_ credentials: BasicCredentials, address: String) -> Result<User, AuthenticationFailure> {
        func lookUp() -> Result<User?, AuthenticationFailure> {
            do {
                return .success(try backend.user(named: credentials.user))
            } catch  where error.code == .database {
                // Not a wrong password: the database did not answer (PostgreSQL restarting).
                return .failure(.unavailable(reason: "the store is unavailable; try again shortly"))
            } catch {
                return .success(nil)
            }
        }
        var user: User?
        var lookedUp = false
        if throttle.delay(user: credentials.user, address: address) == 0 {
            switch lookUp() {
            case .failure(let failure): return .failure(failure)
            case .success(let found):
                if let found, let stored = found.passwordHash ?? directoryKey,
                    verified.contains(credentials, hash: stored)
                {
                    // A disabled user signs in by no method, even with a password that worked.
                    guard !found.isDisabled else { return .failure(.wrongCredentials) }
                    // A good sign-in forgets the earlier failures, as a hashed one does.
                    throttle.recordSuccess(user: credentials.user, address: address)
                    return .success(found)
                }
                user = found
                lookedUp = true
            }
        }
        if let wait = throttle.beginAttempt(user: credentials.user, address: address) {
            return .failure(.throttled(retryAfter: Int(wait.rounded(.up))))
        }
        if !lookedUp {
            switch lookUp() {
            case .success(let found): user = found
            case .failure(let failure):
                throttle.cancelAttempt(user: credentials.user, address: address)
                return .failure(failure)
            }
        }
        if let directory, user?.passwordHash == nil {
            return verifyWithDirectory(directory, credentials, user: user, address: address)
        }
        let stored = user?.passwordHash
        let hash = stored.flatMap(PasswordHash.init)
        let matches = gate.run(for: address) { () -> Bool in
            guard let hash else {
                PasswordHash.verifyNothing(credentials.password)
                return false
            }
            return hash.verify(credentials.password)
        }
        guard let matches else {
            throttle.cancelAttempt(user: credentials.user, address: address)
            return .failure(.unavailable(reason: "the server is busy checking passwords; try again shortly"))
        }
        guard matches, let user, let stored, !user.isDisabled else {
            return .failure(.wrongCredentials)
        }
        verified.insert(credentials, hash: stored)
        throttle.recordSuccess(user: credentials.user, address: address)
        return .success(user)
    }

    /// The directory's answer for a user with no password stored here (the attempt
    /// already counted by the throttle): a user it verifies signs in (their account made
    /// at the first sign-in when ``LDAPDirectory/Configuration/createsUsers``, with the
    /// entry's name and `mail` addresses no other user has), and the password is
    /// remembered like a hashed one. A directory that cannot be asked is 503, and only
    /// the passwords remembered from before keep working.
    func verifyWithDirectory(
        _ directory: LDAPDirectory, _ credentials: BasicCredentials, user: User?, address: String
    ) -> Result<User, AuthenticationFailure> {
        guard user != nil || directory.configuration.createsUsers, DatabaseBackend.isValidUserName(credentials.user)
        else { return .failure(.wrongCredentials) }
        let entry: LDAPDirectory.Entry
        switch directory.verify(user: credentials.user, password: credentials.password) {
        case .refused: return .failure(.wrongCredentials)
        case .unavailable(let reason):
            // The reason is for the server's operator (it may name the directory's
            // configuration); the client hears only that it cannot sign in now.
            logProblem("LDAP sign-in", reason)
            throttle.cancelAttempt(user: credentials.user, address: address)
            return .failure(.unavailable(reason: "the directory cannot check passwords now; try again shortly"))
        case .verified(let found): entry = found
        }
        do throws(StoreError) {
            var account = user
            if account == nil {
                do throws(StoreError) {
                    account = try backend.createUser(
                        named: credentials.user, displayName: entry.displayName, passwordHash: nil)
                    var free: [String] = []
                    for address in entry.addresses where try backend.user(withAddress: address) == nil {
                        free.append(address)
                    }
                    try? backend.setAddresses(free, forUser: credentials.user)
                } catch  where error.code == .alreadyExists {
                    account = try backend.user(named: credentials.user)  // made by a sign-in beside this one
                }
            }
            guard let account, !account.isDisabled, account.passwordHash == nil, let key = directoryKey else {
                return .failure(.wrongCredentials)
            }
            verified.insert(credentials, hash: key)
            throttle.recordSuccess(user: credentials.user, address: address)
            return .success(account)
        } catch {
            return .failure(.unavailable(reason: "the store is unavailable; try again shortly"))
        }
    }

    /// Who an API request comes from: the user, and the personal token it used
    /// (`Authorization: Bearer …`), or nil for a user and password (Basic).
    ///
    /// A token is looked up before the throttle is asked: a valid token always works
    /// (and clears its address's failures), and only unknown tokens are throttled.
    public func authenticateAPI(_ request: HTTPRequest) -> Result<
        (user: String, token: AccessToken?), AuthenticationFailure
    > {
        guard let header = request.headers["Authorization"], header.lowercased().hasPrefix("bearer ") else {
            return authenticate(request).map { ($0.user.name, $0.appPassword) }
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        let address = "token " + IPAddress.clientKey(request.remoteAddress)
        var found: AccessToken?
        if APITokenSecret.isWellFormed(token) {
            do {
                // An app password is Basic's, never a bearer token.
                found = try backend.appState.accessToken(secretHash: APITokenSecret.hash(token)).flatMap {
                    $0.kind == .token ? $0 : nil
                }
            } catch {
                return .failure(.unavailable(reason: "the store is unavailable; try again shortly"))
            }
        }
        if found == nil, let identityProvider, token.utf8.count(where: { $0 == UInt8(ascii: ".") }) == 2 {
            return accessTokenOfProvider(token, identityProvider, address: address)
        }
        if let found {
            // A known token: expired, or of a disabled user, it is refused as such (and
            // not throttled: it was no guess).
            guard !found.hasExpired(at: now()) else { return .failure(.expiredToken) }
            do {
                guard try !backend.user(named: found.user).isDisabled else { return .failure(.expiredToken) }
            } catch {
                return .failure(.unavailable(reason: "the store is unavailable; try again shortly"))
            }
            try? backend.appState.noteUse(ofToken: found, at: now())
            throttle.recordSuccess(user: "", address: address)
            return .success((found.user, found))
        }
        if let wait = throttle.beginAttempt(user: "", address: address) {
            return .failure(.throttled(retryAfter: Int(wait.rounded(.up))))
        }
        return .failure(.unknownToken)
    }

    /// An API request with the identity provider's access token (a JWT): its user, and
    /// a token of the scope its `scope` claim grants (never more than the user's role
    /// allows), valid until the JWT's `exp`. All of a user's provider tokens share one
    /// rate limit. A token that does not verify counts as a failed attempt of its address.
    func accessTokenOfProvider(_ jwt: String, _ provider: OpenIDProvider, address: String) -> Result<
        (user: String, token: AccessToken?), AuthenticationFailure
    > {
        let claims: JSONValue
        switch provider.verifyAccessToken(jwt) {
        case .unavailable(let reason):
            logProblem("OpenID Connect", reason)
            return .failure(.unavailable(reason: "the identity provider cannot be asked now; try again shortly"))
        case .refused(let reason):
            if let wait = throttle.beginAttempt(user: "", address: address) {
                return .failure(.throttled(retryAfter: Int(wait.rounded(.up))))
            }
            return .failure(.invalidToken(reason))
        case .verified(let found): claims = found
        }
        let user: User
        switch account(for: claims, provider) {
        case .failure(let failure): return .failure(failure)
        case .success(let found): user = found
        }
        guard var scope = provider.scope(of: claims).flatMap(AccessToken.Scope.init(rawValue:)) else {
            return .failure(
                .insufficientScope(
                    "the token grants no Almanac scope (\(provider.configuration.scopePrefix)read, add, read-write or admin)"
                ))
        }
        if scope == .admin, user.role != .admin { scope = .readWrite }
        var issued = now()
        if case .integer(let iat)? = claims["iat"] { issued = iat }
        var expires: Int?
        if case .integer(let exp)? = claims["exp"] { expires = exp }
        throttle.recordSuccess(user: "", address: address)
        let token = AccessToken(
            id: "oidc:" + user.name, user: user.name, name: "OpenID Connect access token", scope: scope,
            created: issued,
            expires: expires)
        return .success((user.name, token))
    }

    /// The account the provider's verified `claims` name: found by the configured claim,
    /// made at the first sign-in when the provider creates users, and bound to the
    /// token's identity (issuer and subject), so that no other identity of the provider
    /// (someone who renamed themselves there) ever signs in as it. Disabled: refused.
    public func account(for claims: JSONValue, _ provider: OpenIDProvider) -> Result<User, AuthenticationFailure> {
        let person: OpenIDProvider.Person
        switch provider.person(in: claims) {
        case .failure(let refusal): return .failure(.invalidToken(refusal.message))
        case .success(let found): person = found
        }
        guard DatabaseBackend.isValidUserName(person.name) else {
            return .failure(.invalidToken("\(person.name) cannot be an Almanac user name"))
        }
        do throws(StoreError) {
            var user: User
            do throws(StoreError) {
                user = try backend.user(named: person.name)
            } catch  where error.code == .notFound {
                guard provider.configuration.createsUsers else {
                    return .failure(.invalidToken("there is no Almanac account \(person.name); ask an admin for one"))
                }
                do throws(StoreError) {
                    user = try backend.createUser(
                        named: person.name, displayName: person.displayName, passwordHash: nil)
                    if let email = person.email, try backend.user(withAddress: email) == nil {
                        try? backend.setAddresses([email], forUser: person.name)
                    }
                } catch  where error.code == .alreadyExists {
                    user = try backend.user(named: person.name)  // made by a sign-in beside this one
                }
            }
            guard !user.isDisabled else { return .failure(.expiredToken) }
            if user.identity != person.identity {
                do throws(StoreError) {
                    user = try backend.bindIdentity(person.identity, toUser: person.name)
                } catch  where error.code == .forbidden {
                    return .failure(.invalidToken("the account \(person.name) belongs to another identity"))
                }
            }
            return .success(user)
        } catch {
            return .failure(.unavailable(reason: "the store is unavailable; try again shortly"))
        }
    }

    /// Writes why a directory or identity provider could not be asked to the server's
    /// log (it may name their configuration; the client hears only that it is unavailable).
    func logProblem(_ source: String, _ reason: String) {
        let line = Array("almanac: \(source): \(reason)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }
}
