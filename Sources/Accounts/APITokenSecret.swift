/// Personal API tokens: `alm_<id>_<secret>`, where the id names the token in listings
/// and the secret (32 characters from the password alphabet, about 185 bits) proves
/// it. Only a SHA-256 hash of the whole token is stored: tokens are long and random,
/// so a slow password hash would add nothing.
public enum APITokenSecret {
    /// A new token and its id.
    public static func generate() -> (id: String, token: String) {
        let id = PasswordGenerator.generate(length: 8)
        return (id, "alm_" + id + "_" + PasswordGenerator.generate(length: 32))
    }

    /// The hash the store keeps, lowercase hex.
    public static func hash(_ token: String) -> String { Crypto.hex(Crypto.sha256(Array(token.utf8))) }

    /// Whether `text` has a token's shape (before looking it up).
    public static func isWellFormed(_ text: String) -> Bool {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0] == "alm" && parts[1].count == 8 && parts[2].count == 32
    }
}
