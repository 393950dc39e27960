import Accounts
import CalendarStore
import HTTPTypes
import JSON
import Scheduling

// The provisioning API: an admin creates, lists, changes and removes accounts and mints
// tokens for them. Every route needs an admin (a password or session of one, or one of
// their tokens with the admin scope); an admin cannot disable, demote or remove
// themselves, so the server always keeps the admin who is calling.
extension APIContext {
    /// Refuses (403) a principal whose user is not an admin, and any token but one with
    /// the admin scope (a read-write token of an admin manages calendars, not accounts).
    func requireAdmin() throws(APIProblem) {
        if principal.token != nil, principal.scope != .admin {
            throw APIProblem(.forbidden, "only a token with the admin scope may manage accounts")
        }
        let caller = try attempt { () throws(StoreError) in try backend.user(named: principal.user) }
        guard caller.role == .admin, !caller.isDisabled else {
            throw APIProblem(.forbidden, "only an admin may manage accounts")
        }
    }

    static let userFields: Set<String> = ["name", "displayName", "emails", "password", "role", "disabled", "quota"]

    /// A user as the provisioning API shows it (never the password hash).
    func json(_ user: User) throws(APIProblem) -> JSONValue {
        let emails = try attempt { () throws(StoreError) in try backend.addresses(ofUser: user.name) }
        return .object([
            ("name", .string(user.name)), ("displayName", user.displayName.map(JSONValue.string) ?? .null),
            ("emails", .array(emails.map(JSONValue.string))), ("role", .string(user.role.rawValue)),
            ("disabled", .bool(user.isDisabled)), ("hasPassword", .bool(user.passwordHash != nil)),
            ("identity", user.identity.map(JSONValue.string) ?? .null),
            (
                "quota",
                .object([
                    ("maxObjects", user.quota.maxObjects.map(JSONValue.integer) ?? .null),
                    ("maxBytes", user.quota.maxBytes.map(JSONValue.integer) ?? .null),
                ])
            ),
        ])
    }

    /// GET /admin/users?limit&cursor: every account, by name.
    func listUsers() throws(APIProblem) -> HTTPResponse {
        let page = try page(try query(allowing: ["limit", "cursor"]), listing: "users")
        let users = try attempt { () throws(StoreError) in
            try backend.users(after: page.after, limit: page.limit + 1)
        }
        var rendered: [String: JSONValue] = [:]
        for user in users.prefix(page.limit) { rendered[user.name] = try json(user) }
        return try pageAnswer("users", users, page: page, listing: "users", key: \.name) { rendered[$0.name] ?? .null }
    }

    /// GET /admin/users/{name}.
    func readUser(_ name: String) throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        return json(try json(try attempt { () throws(StoreError) in try backend.user(named: name) }))
    }

    /// POST /admin/users: a new account (name; display name, e-mail addresses, password,
    /// role, quota optional). Nothing is made when any part is refused.
    func createUser() throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: Self.userFields.subtracting(["disabled"]))
        guard case .string(let name)? = body["name"] else {
            throw APIProblem(
                .invalidField, "a user needs a name (1–64 letters, digits, '.', '_', '-' or '@')", fields: ["name"])
        }
        var change = try userChange(body)
        let emails = try Self.emails(body["emails"]) ?? []
        let hash = try Self.passwordHash(body["password"])
        try attempt { () throws(StoreError) in
            for address in emails {
                if let other = try backend.user(withAddress: address) {
                    throw StoreError(.alreadyExists, "\(address) is \(other.name)'s address", resource: address)
                }
            }
            try backend.createUser(named: name, displayName: nil, passwordHash: hash ?? nil)
            do throws(StoreError) {
                change.isDisabled = false
                try backend.updateUser(named: name) { change.apply(to: &$0) }
                if !emails.isEmpty { try backend.setAddresses(emails, forUser: name) }
            } catch {
                // Taken meanwhile by another request: the account goes again.
                try? backend.removeUser(named: name)
                throw error
            }
        }
        var response = json(
            try json(try attempt { () throws(StoreError) in try backend.user(named: name) }), status: 201)
        response.headers.set("Location", JSONAPIHandler.prefix + "/admin/users/" + PercentEncoding.encode(name))
        return response
    }

    /// PATCH /admin/users/{name}: display name, e-mail addresses, password, role,
    /// `disabled` and quota, as given; `identity: null` unbinds the account from its
    /// OpenID Connect identity (the next sign-in through the provider binds it again).
    func updateUser(_ name: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: Self.userFields.subtracting(["name"]).union(["identity"]))
        let change = try userChange(body)
        if name == principal.user, change.role == .user || change.isDisabled == true {
            throw APIProblem(
                .conflict, "an admin cannot demote or disable themselves; another admin can",
                fields: change.role == .user ? ["role"] : ["disabled"])
        }
        let emails = try Self.emails(body["emails"])
        let hash = try Self.passwordHash(body["password"])
        let updated = try attempt { () throws(StoreError) -> User in
            _ = try backend.user(named: name)
            if let emails {
                for address in emails {
                    if let other = try backend.user(withAddress: address), other.name != name {
                        throw StoreError(.alreadyExists, "\(address) is \(other.name)'s address", resource: address)
                    }
                }
                try backend.setAddresses(emails, forUser: name)
            }
            if let hash { try backend.setPasswordHash(hash, forUser: name, revokingTokens: false) }
            return try backend.updateUser(named: name) { change.apply(to: &$0) }
        }
        return json(try json(updated))
    }

    /// DELETE /admin/users/{name}: the account and everything that is theirs. Events they
    /// organize are cancelled for their attendees, and those they attend declined to their
    /// organizers (RFC 6638 §3.2.1 as a deletion would), before the rows go in one
    /// transaction. With an `Idempotency-Key`, a retry answers the first 204.
    func deleteUser(_ name: String) throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        guard name != principal.user else {
            throw APIProblem(.conflict, "an admin cannot remove themselves; another admin can")
        }
        try attempt { () throws(StoreError) in
            // Disabled first: nothing of theirs changes while their scheduling is withdrawn.
            try backend.setDisabled(true, forUser: name)
        }
        schedulingAgent.withdrawAll(of: name)
        try attempt { () throws(StoreError) in try backend.removeUser(named: name) }
        return HTTPResponse(status: 204)
    }

    /// POST /admin/users/{name}/tokens: a token or app password for that user (see
    /// ``createToken(for:)``), its secret shown once.
    func mintToken(for name: String) throws(APIProblem) -> HTTPResponse {
        try createToken(for: try attempt { () throws(StoreError) in try backend.user(named: name) })
    }

    // MARK: Reading a user's fields

    /// What a create or PATCH body changes of a user.
    struct UserChange {
        var displayName: String??
        var role: User.Role?
        var isDisabled: Bool?
        var maxObjects: Int??
        var maxBytes: Int??
        var unbindsIdentity = false

        func apply(to user: inout User) {
            if unbindsIdentity { user.identity = nil }
            if let displayName { user.displayName = displayName }
            if let role { user.role = role }
            if let isDisabled { user.isDisabled = isDisabled }
            if let maxObjects { user.quota.maxObjects = maxObjects }
            if let maxBytes { user.quota.maxBytes = maxBytes }
        }
    }

    func userChange(_ body: [String: JSONValue]) throws(APIProblem) -> UserChange {
        var change = UserChange()
        if let value = body["displayName"] {
            if let text = try APIModel.optionalString(value, "displayName") {
                guard text.utf8.count <= 256 else {
                    throw APIProblem(.invalidField, "displayName is at most 256 bytes", fields: ["displayName"])
                }
                change.displayName = .some(try APIModel.checked(text, "displayName", allowingLineBreaks: false))
            } else {
                change.displayName = .some(nil)
            }
        }
        if let value = body["role"] {
            guard case .string(let text) = value, let role = User.Role(rawValue: text) else {
                throw APIProblem(.invalidField, "role is admin or user", fields: ["role"])
            }
            change.role = role
        }
        if let value = body["disabled"] {
            guard case .bool(let disabled) = value else { throw APIModel.wrongType("disabled", "true or false") }
            change.isDisabled = disabled
        }
        if let value = body["identity"] {
            // Only the provider binds an identity (at a sign-in); an admin may only unbind one.
            guard case .null = value else {
                throw APIModel.wrongType("identity", "null (unbinds the account; its next sign-in binds it again)")
            }
            change.unbindsIdentity = true
        }
        if let value = body["quota"] {
            guard case .object(let members) = value else {
                throw APIModel.wrongType("quota", "an object of maxObjects and maxBytes (null: the server's)")
            }
            for (key, limit) in members {
                let field = "quota." + key
                let number: Int?
                switch limit {
                case .null: number = nil
                case .integer(let value) where value >= 0 && value <= 1 << 50: number = value
                default: throw APIModel.wrongType(field, "a number from 0 to 2^50, or null for the server's")
                }
                switch key {
                case "maxObjects": change.maxObjects = .some(number)
                case "maxBytes": change.maxBytes = .some(number)
                default: throw APIProblem(.unknownField, "unknown field \(field)", fields: [field])
                }
            }
        }
        return change
    }

    /// The e-mail addresses of a body (at most 16, each an address), or nil without any.
    static func emails(_ value: JSONValue?) throws(APIProblem) -> [String]? {
        guard let value else { return nil }
        guard case .array(let items) = value, items.count <= 16 else {
            throw APIModel.wrongType("emails", "a list of at most 16 e-mail addresses")
        }
        var emails: [String] = []
        for item in items {
            guard case .string(let text) = item, text.utf8.count <= 254, EmailAddress.normalized(text) != nil else {
                throw APIProblem(
                    .invalidField, "emails holds something that is not an e-mail address", fields: ["emails"])
            }
            emails.append(text)
        }
        return emails
    }

    /// The hash of a body's password (8 to 1,024 bytes), nil when it gives none.
    static func passwordHash(_ value: JSONValue?) throws(APIProblem) -> String? {
        guard let value, value != .null else { return nil }
        guard case .string(let password) = value, (8...1024).contains(password.utf8.count) else {
            throw APIProblem(.invalidField, "password is 8 to 1,024 bytes", fields: ["password"])
        }
        return PasswordHash(password: password).description
    }
}
