import Accounts
import CalendarStore
import Foundation
import HTTPTypes
import JSONAPI
import WebCalendar

/// HTTP Basic authentication against the users in the store (RFC 7617), with
/// throttling of failed logins per user and address. Every 401 carries
/// `WWW-Authenticate: Basic realm="Almanac"`.
public final class Authenticator: Sendable {
    let backend: any StoreBackend
    let throttle: LoginThrottle
    let verified: VerifiedPasswords
    let gate: HashingGate

    public init(
        backend: any StoreBackend, throttle: LoginThrottle = LoginThrottle(),
        verified: VerifiedPasswords = VerifiedPasswords(),
        gate: HashingGate = HashingGate()
    ) {
        self.backend = backend
        self.throttle = throttle
        self.verified = verified
        self.gate = gate
    }

    static let challenge: HTTPHeaders = ["WWW-Authenticate": "Basic realm=\"Almanac\", charset=\"UTF-8\""]

    /// The signed-in user's name, or the response to send instead (401, or 429 while throttled).
    public func authenticate(_ request: HTTPRequest) -> Result<String, HTTPResponseError> {
        guard let header = request.headers["Authorization"], let credentials = BasicCredentials(authorization: header)
        else {
            return .failure(
                HTTPResponseError(
                    .text(
                        401, "401 Unauthorized: sign in with your Almanac user name and password\n",
                        headers: Self.challenge)))
        }
        switch verify(credentials, address: request.remoteAddress) {
        case .success(let user): return .success(user)
        case .failure(let failure):
            var headers = Self.challenge
            if failure.isUnavailable {
                return .failure(
                    HTTPResponseError(
                        .text(503, "503 Service Unavailable: \(failure.message)\n", headers: ["Retry-After": "1"])))
            }
            if let wait = failure.retryAfter {
                headers.set("Retry-After", String(wait))
                return .failure(
                    HTTPResponseError(.text(429, "429 Too Many Requests: \(failure.message)\n", headers: headers)))
            }
            return .failure(HTTPResponseError(.text(401, "401 Unauthorized: \(failure.message)\n", headers: headers)))
        }
    }

    /// Checks a user name and password (throttled per user and address): the user's
    /// name, or why not and, while throttled, how many seconds to wait.
    ///
    /// A password that verified recently (a syncing client's every request) passes
    /// without hashing and without counting as an attempt, unless the user is throttled
    /// from this address: then nothing is checked. Any other attempt counts before the
    /// password is hashed (parallel guesses get no extra tries), an unknown user costs the
    /// same hash as a known one, and hashes run at most one per core at a time (503 when
    /// no turn comes).
    public func verify(_ credentials: BasicCredentials, address: String) -> Result<String, WebSignInFailure> {
        func lookUp() -> Result<User?, WebSignInFailure> {
            do {
                return .success(try backend.user(named: credentials.user))
            } catch  where error.code == .database {
                // Not a wrong password: the database did not answer (PostgreSQL restarting).
                return .failure(
                    WebSignInFailure(message: "the store is unavailable; try again shortly", isUnavailable: true))
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
                if let found, let stored = found.passwordHash, verified.contains(credentials, hash: stored) {
                    // A good sign-in forgets the earlier failures, as a hashed one does.
                    throttle.recordSuccess(user: credentials.user, address: address)
                    return .success(found.name)
                }
                user = found
                lookedUp = true
            }
        }
        if let wait = throttle.beginAttempt(user: credentials.user, address: address) {
            return .failure(
                WebSignInFailure(
                    message: "too many failed sign-ins; try again later", retryAfter: Int(wait.rounded(.up))))
        }
        if !lookedUp {
            switch lookUp() {
            case .success(let found): user = found
            case .failure(let failure):
                throttle.cancelAttempt(user: credentials.user, address: address)
                return .failure(failure)
            }
        }
        let stored = user?.passwordHash
        let hash = stored.flatMap(PasswordHash.init)
        let matches = gate.run { () -> Bool in
            guard let hash else {
                PasswordHash.verifyNothing(credentials.password)
                return false
            }
            return hash.verify(credentials.password)
        }
        guard let matches else {
            throttle.cancelAttempt(user: credentials.user, address: address)
            return .failure(
                WebSignInFailure(
                    message: "the server is busy checking passwords; try again shortly", isUnavailable: true))
        }
        guard matches, let user, let stored else {
            return .failure(WebSignInFailure(message: "wrong user name or password"))
        }
        verified.insert(credentials, hash: stored)
        throttle.recordSuccess(user: credentials.user, address: address)
        return .success(user.name)
    }

    /// Who an API request comes from: a personal token (`Authorization: Bearer …`) or
    /// a user and password (Basic). Failures are problem documents.
    ///
    /// A token is looked up before the throttle is asked: a valid token always works
    /// (and clears its address's failures), and only unknown tokens are throttled.
    public func authenticateAPI(_ request: HTTPRequest) -> Result<APIPrincipal, HTTPResponseError> {
        if let header = request.headers["Authorization"], header.lowercased().hasPrefix("bearer ") {
            let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            let address = "token " + request.remoteAddress
            var found: AccessToken?
            if APITokenSecret.isWellFormed(token) {
                do {
                    found = try backend.appState.accessToken(secretHash: APITokenSecret.hash(token))
                } catch {
                    return .failure(
                        HTTPResponseError(
                            JSONAPIHandler.problem(
                                status: 503, "the store is unavailable; try again shortly",
                                headers: ["Retry-After": "1"])))
                }
            }
            if let found {
                throttle.recordSuccess(user: "", address: address)
                return .success(APIPrincipal(user: found.user, token: found))
            }
            if let wait = throttle.beginAttempt(user: "", address: address) {
                return .failure(
                    HTTPResponseError(
                        JSONAPIHandler.problem(
                            status: 429, "too many failed sign-ins; try again later",
                            headers: ["Retry-After": String(Int(wait.rounded(.up)))])))
            }
            return .failure(
                HTTPResponseError(
                    JSONAPIHandler.problem(status: 401, "the API token is unknown or revoked", headers: Self.challenge))
            )
        }
        switch authenticate(request) {
        case .success(let user): return .success(APIPrincipal(user: user))
        case .failure(let failure):
            let detail =
                String(decoding: failure.response.body, as: UTF8.self).split(separator: ":", maxSplits: 1).last
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "sign in"
            return .failure(
                HTTPResponseError(
                    JSONAPIHandler.problem(status: failure.response.status, detail, headers: failure.response.headers)))
        }
    }
}
