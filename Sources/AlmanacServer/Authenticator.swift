import Accounts
import Foundation
import CalendarStore
import HTTPServer
import JSONAPI

/// HTTP Basic authentication against the users in the store (RFC 7617), with
/// throttling of failed logins per user and address. Every 401 carries
/// `WWW-Authenticate: Basic realm="Almanac"`.
public final class Authenticator: Sendable {
    let backend: any StoreBackend
    let throttle: LoginThrottle
    let verified: VerifiedPasswords

    public init(backend: any StoreBackend, throttle: LoginThrottle = LoginThrottle(), verified: VerifiedPasswords = VerifiedPasswords()) {
        self.backend = backend
        self.throttle = throttle
        self.verified = verified
    }

    static let challenge: HTTPHeaders = ["WWW-Authenticate": "Basic realm=\"Almanac\", charset=\"UTF-8\""]

    /// The signed-in user's name, or the response to send instead (401, or 429 while throttled).
    public func authenticate(_ request: HTTPRequest) -> Result<String, HTTPResponseError> {
        guard let header = request.headers["Authorization"], let credentials = BasicCredentials(authorization: header) else {
            return .failure(HTTPResponseError(.text(401, "401 Unauthorized: sign in with your Almanac user name and password\n", headers: Self.challenge)))
        }
        let wait = throttle.delay(user: credentials.user, address: request.remoteAddress)
        if wait > 0 {
            var headers = Self.challenge
            headers.set("Retry-After", String(Int(wait.rounded(.up))))
            return .failure(HTTPResponseError(.text(429, "429 Too Many Requests: too many failed sign-ins; try again later\n", headers: headers)))
        }
        guard let user = try? backend.user(named: credentials.user), let stored = user.passwordHash, let hash = PasswordHash(stored) else {
            throttle.recordFailure(user: credentials.user, address: request.remoteAddress)
            return .failure(HTTPResponseError(.text(401, "401 Unauthorized: wrong user name or password\n", headers: Self.challenge)))
        }
        if verified.contains(credentials, hash: stored) || hash.verify(credentials.password) {
            verified.insert(credentials, hash: stored)
            throttle.recordSuccess(user: credentials.user, address: request.remoteAddress)
            return .success(user.name)
        }
        throttle.recordFailure(user: credentials.user, address: request.remoteAddress)
        return .failure(HTTPResponseError(.text(401, "401 Unauthorized: wrong user name or password\n", headers: Self.challenge)))
    }

    /// Who an API request comes from: a personal token (`Authorization: Bearer …`) or
    /// a user and password (Basic). Failures are problem documents.
    public func authenticateAPI(_ request: HTTPRequest) -> Result<APIPrincipal, HTTPResponseError> {
        if let header = request.headers["Authorization"], header.lowercased().hasPrefix("bearer ") {
            let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
            let address = "token " + request.remoteAddress
            let wait = throttle.delay(user: "", address: address)
            if wait > 0 {
                return .failure(
                    HTTPResponseError(
                        JSONAPIHandler.problem(
                            status: 429, "too many failed sign-ins; try again later", headers: ["Retry-After": String(Int(wait.rounded(.up)))])))
            }
            guard APITokenSecret.isWellFormed(token), let found = try? backend.apiToken(secretHash: APITokenSecret.hash(token)) else {
                throttle.recordFailure(user: "", address: address)
                return .failure(HTTPResponseError(JSONAPIHandler.problem(status: 401, "the API token is unknown or revoked", headers: Self.challenge)))
            }
            return .success(APIPrincipal(user: found.user, token: found))
        }
        switch authenticate(request) {
        case .success(let user): return .success(APIPrincipal(user: user))
        case .failure(let failure):
            let detail = String(decoding: failure.response.body, as: UTF8.self).split(separator: ":", maxSplits: 1).last
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "sign in"
            return .failure(HTTPResponseError(JSONAPIHandler.problem(status: failure.response.status, detail, headers: failure.response.headers)))
        }
    }
}
