import Accounts
import CalendarStore
import HTTPTypes
import JSON

// Access tokens and app passwords: each user lists, makes and revokes their own, and an
// admin mints them for anyone (``APIContext/mintToken(for:)``).
extension APIContext {
    /// GET /tokens?limit&cursor: the user's API tokens (never their secrets), oldest first.
    func listTokens() throws(APIProblem) -> HTTPResponse {
        let page = try page(try query(allowing: ["limit", "cursor"]), listing: "tokens")
        let tokens = try attempt { () throws(StoreError) in try backend.appState.accessTokens(user: principal.user) }
        func key(_ token: AccessToken) -> String { String(token.created) + " " + token.id }
        func before(_ left: AccessToken, _ right: AccessToken) -> Bool {
            (left.created, left.id) < (right.created, right.id)
        }
        var listed = tokens.sorted(by: before)
        if let after = page.after {
            let parts = after.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let created = Int(parts[0]) else {
                throw APIProblem(.invalidQuery, "cursor is not one this listing gave", fields: ["cursor"])
            }
            listed.removeAll { ($0.created, $0.id) <= (created, String(parts[1])) }
        }
        return try pageAnswer("tokens", Array(listed.prefix(page.limit + 1)), page: page, listing: "tokens", key: key) {
            Self.json($0)
        }
    }

    /// POST /tokens: a token or app password of the caller's own (see
    /// ``createToken(for:)``). Only their password or web session may make one: a token
    /// making tokens would outlive its own revocation.
    func createOwnToken() throws(APIProblem) -> HTTPResponse {
        guard principal.token == nil else {
            throw APIProblem(.forbidden, "a token or app password cannot make another; sign in with your password")
        }
        return try createToken(for: try attempt { () throws(StoreError) in try backend.user(named: principal.user) })
    }

    /// A new token or app password for `owner` from the body: `name`, `scope`, `kind`
    /// (`token` or `app-password`), `calendars` (the only ones it may see), `expiresIn`
    /// seconds up to ``AccessToken/maxLifetime``, `rateLimit`. Answers 201 with its secret,
    /// shown this once.
    func createToken(for owner: User) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: ["name", "scope", "kind", "calendars", "expiresIn", "rateLimit"])
        guard case .string(let given)? = body["name"], !given.isEmpty, given.utf8.count <= 100 else {
            throw APIProblem(.invalidField, "a token needs a name of 1–100 bytes (what it is for)", fields: ["name"])
        }
        let label = try APIModel.checked(given, "name", allowingLineBreaks: false)
        var kind = AccessToken.Kind.token
        if let value = body["kind"] {
            guard case .string(let text) = value, let chosen = AccessToken.Kind(rawValue: text) else {
                throw APIProblem(.invalidField, "kind is token or app-password", fields: ["kind"])
            }
            kind = chosen
        }
        let scopes = kind == .appPassword ? [.read, .readWrite] : AccessToken.Scope.allCases
        guard case .string(let text)? = body["scope"], let scope = AccessToken.Scope(rawValue: text),
            scopes.contains(scope)
        else {
            throw APIProblem(
                .invalidField,
                "scope of a\(kind == .token ? " token" : "n app password") is one of \(scopes.map(\.rawValue).joined(separator: ", "))",
                fields: ["scope"])
        }
        guard scope != .admin || owner.role == .admin else {
            throw APIProblem(.invalidField, "only an admin's token may have the admin scope", fields: ["scope"])
        }
        var calendars: [String]?
        if let value = body["calendars"], value != .null {
            guard case .array(let items) = value, (1...AccessToken.maxCalendars).contains(items.count) else {
                throw APIProblem(
                    .invalidField, "calendars is a list of 1–\(AccessToken.maxCalendars) calendar ids (null: all)",
                    fields: ["calendars"])
            }
            calendars = try items.map { (item) throws(APIProblem) -> String in
                guard case .string(let id) = item, !id.isEmpty, id.utf8.count <= 100 else {
                    throw APIProblem(.invalidField, "calendars lists calendar ids", fields: ["calendars"])
                }
                return id
            }
            guard scope != .admin else {
                throw APIProblem(
                    .invalidField, "an admin token manages accounts: it cannot be limited to calendars",
                    fields: ["calendars"])
            }
        }
        var expires: Int?
        if let value = body["expiresIn"], value != .null {
            guard case .integer(let seconds) = value, (60...AccessToken.maxLifetime).contains(seconds) else {
                throw APIProblem(
                    .invalidField, "expiresIn is a number of seconds from 60 to \(AccessToken.maxLifetime) (366 days)",
                    fields: ["expiresIn"])
            }
            expires = configuration.now() + seconds
        }
        var rateLimit: Int?
        if let value = body["rateLimit"], value != .null {
            guard case .integer(let limit) = value, AccessToken.rateLimits.contains(limit) else {
                throw APIProblem(
                    .invalidField, "rateLimit is a number of requests a minute in \(AccessToken.rateLimits)",
                    fields: ["rateLimit"])
            }
            rateLimit = limit
        }
        let (id, secret) = APITokenSecret.generate()
        let token = AccessToken(
            id: id, user: owner.name, name: label, scope: scope, created: configuration.now(), rateLimit: rateLimit,
            expires: expires, kind: kind, calendars: calendars)
        do {
            try backend.appState.createAccessToken(token, secretHash: APITokenSecret.hash(secret))
        } catch  where error.code == .invalidArgument {
            // A calendar the owner does not see.
            throw APIProblem(.invalidField, error.message, fields: ["calendars"])
        } catch {
            throw APIProblem(error)
        }
        guard case .object(var members) = Self.json(token) else { return json(Self.json(token), status: 201) }
        members.append(("user", JSONValue.string(owner.name)))
        members.append(("token", JSONValue.string(secret)))
        return json(.object(members), status: 201)
    }

    /// DELETE /tokens/{id}: revokes one of the caller's own tokens (another's is 404).
    func revokeToken(_ id: String) throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        try attempt { () throws(StoreError) in try backend.appState.revokeAccessToken(id: id, user: principal.user) }
        return HTTPResponse(status: 204)
    }

    /// A token as the API lists it (never its secret).
    static func json(_ token: AccessToken) -> JSONValue {
        .object([
            ("id", .string(token.id)), ("name", .string(token.name)), ("kind", .string(token.kind.rawValue)),
            ("scope", .string(token.scope.rawValue)),
            ("calendars", token.calendars.map { JSONValue.array($0.map(JSONValue.string)) } ?? .null),
            ("createdAt", .string(Self.utc(token.created))),
            ("lastUsedAt", token.lastUsed.map { JSONValue.string(Self.utc($0)) } ?? .null),
            ("rateLimit", token.rateLimit.map(JSONValue.integer) ?? .null),
            ("expiresAt", token.expires.map { JSONValue.string(Self.utc($0)) } ?? .null),
        ])
    }
}
