import Accounts
import CalendarStore
import Foundation
import HTTPTypes
import ICalendar
import JSON
import Testing

/// One failed sign-in, rendered by each protocol in its own form: CalDAV as plain text
/// with the Basic challenge, the API as an RFC 9457 problem with the same challenge,
/// the web as its sign-in page. The status and the wait are the same everywhere.
extension APITests {
    func attempt(_ method: String, _ path: String, password: String, body: String = "") -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        if path == "/login" {
            headers.set("Content-Type", "application/x-www-form-urlencoded")
        } else {
            headers.set("Authorization", BasicCredentials(user: "dora", password: password).authorization)
        }
        if method == "PROPFIND" { headers.set("Depth", "0") }
        return server.server.respond(
            to: HTTPRequest(
                method: method, path: path, headers: headers, body: Array(body.utf8), remoteAddress: "203.0.113.5"))
    }

    @Test func aFailedSignInIsAnsweredInEachProtocolsOwnForm() throws {
        try backend.createUser(
            named: "dora", displayName: nil,
            passwordHash: PasswordHash(password: "right one", iterations: 1_000).description)
        let dav = attempt("PROPFIND", "/dav/", password: "wrong")
        #expect(dav.status == 401)
        #expect(dav.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(dav.headers["WWW-Authenticate"] == "Basic realm=\"Almanac\", charset=\"UTF-8\"")
        #expect(String(decoding: dav.body, as: UTF8.self) == "401 Unauthorized: wrong user name or password\n")

        let api = attempt("GET", "/api/v1/calendars", password: "wrong")
        #expect(api.status == 401)
        #expect(api.headers["Content-Type"] == "application/problem+json")
        #expect(api.headers["WWW-Authenticate"] == "Basic realm=\"Almanac\", charset=\"UTF-8\"")
        let problem = try JSONValue(parsing: api.body)
        #expect(problem["type"] == .string("urn:almanac:problem:unauthorized"))
        #expect(problem["status"] == .integer(401))
        #expect(problem["detail"] == .string("wrong user name or password"))

        let web = attempt("POST", "/login", password: "", body: "user=dora&password=wrong")
        #expect(web.status == 401)
        #expect(web.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(String(decoding: web.body, as: UTF8.self).contains("wrong user name or password"))

        // Two more failures make five from this address: then each protocol says when to retry.
        for _ in 0..<2 { _ = attempt("PROPFIND", "/dav/", password: "wrong") }
        let throttled = [
            attempt("PROPFIND", "/dav/", password: "right one"),
            attempt("GET", "/api/v1/calendars", password: "right one"),
            attempt("POST", "/login", password: "", body: "user=dora&password=right+one"),
        ]
        #expect(throttled.map(\.status) == [429, 429, 429])
        #expect(throttled.allSatisfy { Int($0.headers["Retry-After"] ?? "") ?? 0 > 0 })
        #expect(String(decoding: throttled[0].body, as: UTF8.self).hasPrefix("429 Too Many Requests: too many"))
        #expect(try JSONValue(parsing: throttled[1].body)["type"] == .string("urn:almanac:problem:too-many-requests"))
        #expect(String(decoding: throttled[2].body, as: UTF8.self).contains("too many failed sign-ins"))
    }

    @Test func noCredentialsAskForThemWithoutCountingAsAFailure() throws {
        let dav = server.server.respond(to: HTTPRequest(method: "PROPFIND", path: "/dav/"))
        #expect(dav.status == 401 && dav.headers["WWW-Authenticate"] != nil)
        #expect(String(decoding: dav.body, as: UTF8.self).contains("sign in with your Almanac user name and password"))
        let api = server.server.respond(to: HTTPRequest(method: "GET", path: "/api/v1/calendars"))
        #expect(api.status == 401 && api.headers["WWW-Authenticate"] != nil)
        #expect(try JSONValue(parsing: api.body)["type"] == .string("urn:almanac:problem:unauthorized"))
    }

    /// A disabled user signs in by no method (CalDAV, the API, the web; even with a
    /// password that worked a moment ago) and their tokens answer RFC 6750's
    /// `invalid_token`, as an expired token does; enabled again, all of it works.
    @Test func disabledUsersAndExpiredTokensAreRefused() throws {
        try backend.createUser(
            named: "dora", displayName: nil,
            passwordHash: PasswordHash(password: "right one", iterations: 1_000).description)
        func token(expires: Int?) throws -> String {
            let (id, secret) = APITokenSecret.generate()
            try backend.appState.createAccessToken(
                AccessToken(id: id, user: "dora", name: "app", scope: .read, created: 0, expires: expires),
                secretHash: APITokenSecret.hash(secret))
            return secret
        }
        func bearer(_ secret: String) -> HTTPResponse {
            server.server.respond(
                to: HTTPRequest(
                    method: "GET", path: "/api/v1/calendars", headers: ["Authorization": "Bearer " + secret],
                    remoteAddress: "203.0.113.6"))
        }
        let lasting = try token(expires: nil)
        let soon = try token(expires: 1_796_083_200 + 60)
        #expect(attempt("PROPFIND", "/dav/", password: "right one").status == 207)
        #expect(bearer(lasting).status == 200 && bearer(soon).status == 200)
        // Past its expiry (the server's clock is fixed at 1_796_083_200).
        let gone = try token(expires: 1_796_083_200)
        let expired = bearer(gone)
        #expect(expired.status == 401)
        #expect(
            expired.headers["WWW-Authenticate"]?.hasPrefix("Bearer realm=\"Almanac\", error=\"invalid_token\"") == true)
        #expect(
            try JSONValue(parsing: expired.body)["detail"]
                == .string("the API token has expired or its user is disabled"))

        try backend.setDisabled(true, forUser: "dora")
        #expect(attempt("PROPFIND", "/dav/", password: "right one").status == 401)
        #expect(attempt("GET", "/api/v1/calendars", password: "right one").status == 401)
        #expect(attempt("POST", "/login", password: "", body: "user=dora&password=right+one").status == 401)
        let refused = bearer(lasting)
        #expect(refused.status == 401 && refused.headers["WWW-Authenticate"]?.contains("invalid_token") == true)

        try backend.setDisabled(false, forUser: "dora")
        #expect(attempt("PROPFIND", "/dav/", password: "right one").status == 207)
        #expect(bearer(lasting).status == 200)
        #expect(try backend.user(named: "dora").role == .user)
        try backend.setRole(.admin, forUser: "dora")
        #expect(try backend.user(named: "dora").role == .admin)
        #expect(throws: StoreError.self) { try backend.setRole(.admin, forUser: "nobody") }
    }
}
