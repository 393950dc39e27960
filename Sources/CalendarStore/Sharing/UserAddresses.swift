/// Users' e-mail addresses: what `calendar-user-address-set` lists as `mailto:` URIs, and
/// how a sharing invitation or (later) a scheduling message names a user.
extension DatabaseBackend {
    /// The most addresses one user has.
    public static let maxAddresses = 20

    /// See ``StoreBackend/addresses(ofUser:)``; `notFound` when there is no such user.
    public func addresses(ofUser name: String) throws(StoreError) -> [String] {
        try database.read { (connection) throws(StoreError) -> [String] in
            let id = try connection.userRowID(named: name)
            return try connection.rows(
                "SELECT address FROM user_addresses WHERE user_id = ? ORDER BY position", [.integer(id)]
            ) { $0.string(0) }
        }
    }

    /// See ``StoreBackend/setAddresses(_:forUser:)``; duplicates are dropped, and one that is no e-mail
    /// address, or more than ``maxAddresses``, is `invalidArgument`.
    public func setAddresses(_ addresses: [String], forUser name: String) throws(StoreError) {
        var normalized: [String] = []
        for address in addresses {
            guard let clean = EmailAddress.normalized(address) else {
                throw StoreError(.invalidArgument, "\(address) is not an e-mail address", resource: address)
            }
            if !normalized.contains(clean) { normalized.append(clean) }
        }
        guard normalized.count <= Self.maxAddresses else {
            throw StoreError(.invalidArgument, "a user has at most \(Self.maxAddresses) e-mail addresses")
        }
        try database.write { (connection) throws(StoreError) in
            let id = try connection.userRowID(named: name)
            try connection.run("DELETE FROM user_addresses WHERE user_id = ?", [.integer(id)])
            for (order, address) in normalized.enumerated() {
                if let other = try connection.firstRow(
                    "SELECT u.name FROM user_addresses a JOIN users u ON u.id = a.user_id WHERE a.address = ?",
                    [.text(address)], { $0.string(0) })
                {
                    throw StoreError(.alreadyExists, "\(address) is \(other)'s address", resource: address)
                }
                try connection.run(
                    "INSERT INTO user_addresses (address, user_id, position) VALUES (?, ?, ?)",
                    [.text(address), .integer(id), .int(order)])
            }
        }
    }

    /// See ``StoreBackend/user(withAddress:)``; nil too for text that is no e-mail address.
    public func user(withAddress address: String) throws(StoreError) -> User? {
        guard let clean = EmailAddress.normalized(address) else { return nil }
        return try database.read { (connection) throws(StoreError) -> User? in
            try connection.firstRow(
                """
                SELECT u.name, u.display_name, u.password_hash, u.id FROM user_addresses a JOIN users u ON u.id = a.user_id
                WHERE a.address = ?
                """, [.text(clean)]
            ) { row in
                User(
                    name: row.string(0), displayName: row.optionalString(1), passwordHash: row.optionalString(2),
                    storeID: row.int64(3))
            }
        }
    }

}

extension SQLConnection {
    /// The row id of the user with this name; `notFound` when there is none.
    func userRowID(named name: String) throws(StoreError) -> Int64 {
        guard let id = try firstRow("SELECT id FROM users WHERE name = ?", [.text(name)], { $0.int64(0) })
        else { throw StoreError(.notFound, "no user \(name)", resource: name) }
        return id
    }
}

/// E-mail addresses: the server's one set of rules for what it takes as an address
/// (a user's, the relay's sender, a booker's), strict enough that an address can go into
/// a `mailto:` URI, an iCalendar parameter or a mail header without escaping.
public enum EmailAddress {
    /// `address` (optionally `mailto:`, any case) as stored: lowercased, one `@` between a
    /// local part and a domain, printable ASCII without spaces, quotes, angle brackets,
    /// parentheses, square brackets, commas, semicolons, colons or backslashes, at most
    /// 254 bytes; nil for anything else.
    public static func normalized(_ address: String) -> String? {
        var text = Substring(address)
        if text.lowercased().hasPrefix("mailto:") { text = text.dropFirst(7) }
        let lowered = text.lowercased()
        return parts(of: Array(lowered.utf8)) == nil ? nil : lowered
    }

    /// Whether `text`, as a stranger typed it (a booker), is an address to write to: the
    /// rules of ``normalized(_:)`` (without `mailto:`), at most `maxBytes`, and a domain
    /// with a dot inside it.
    public static func isDeliverable(_ text: String, maxBytes: Int) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= maxBytes, let (_, domain) = parts(of: bytes) else { return false }
        return domain.count >= 3 && domain.dropFirst().dropLast().contains(UInt8(ascii: "."))
            && domain.first != UInt8(ascii: ".") && domain.last != UInt8(ascii: ".")
    }

    /// The local part and the domain of an address that keeps the character rules.
    private static func parts(of bytes: [UInt8]) -> (local: ArraySlice<UInt8>, domain: ArraySlice<UInt8>)? {
        guard bytes.count <= 254, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !forbidden.contains($0) }),
            let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1,
            bytes.lastIndex(of: UInt8(ascii: "@")) == at
        else { return nil }
        return (bytes[..<at], bytes[(at + 1)...])
    }

    private static let forbidden = Set("\"<>(),;:[]\\".utf8)
}
