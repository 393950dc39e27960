/// A stored password: PBKDF2-HMAC-SHA256 with a random salt, written as
/// `$pbkdf2-sha256$i=ITERATIONS$SALT$HASH` (salt and hash in lower-case hex).
public struct PasswordHash: Sendable, Hashable, CustomStringConvertible {
    /// OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256.
    public static let defaultIterations = 600_000

    /// The most iterations a stored hash may ask for (a hash is read from the store, and
    /// verifying one must not take minutes).
    public static let maxIterations = 10_000_000

    public var iterations: Int
    public var salt: [UInt8]
    public var hash: [UInt8]

    /// Hashes `password` with a fresh 16-byte salt.
    public init(password: String, iterations: Int = PasswordHash.defaultIterations) {
        self.iterations = iterations
        salt = Crypto.randomBytes(16)
        hash = Crypto.pbkdf2SHA256(password: Array(password.utf8), salt: salt, iterations: iterations)
    }

    /// Reads the stored form; nil when `text` is not one.
    public init?(_ text: String) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "pbkdf2-sha256", parts[2].hasPrefix("i="),
            let iterations = Int(parts[2].dropFirst(2)), (1...PasswordHash.maxIterations).contains(iterations),
            let salt = Crypto.unhex(parts[3]),
            let hash = Crypto.unhex(parts[4]), !salt.isEmpty, hash.count == 32
        else { return nil }
        self.iterations = iterations
        self.salt = salt
        self.hash = hash
    }

    /// Spends the time a verification at the default iterations takes, for a user who
    /// does not exist, so that the answer's timing does not tell which names do.
    public static func verifyNothing(_ password: String) {
        _ = decoy.verify(password)
    }

    private static let decoy = PasswordHash(password: PasswordGenerator.generate())

    /// Whether `password` is the one hashed (compared in constant time).
    public func verify(_ password: String) -> Bool {
        Crypto.constantTimeEqual(
            Crypto.pbkdf2SHA256(password: Array(password.utf8), salt: salt, iterations: iterations), hash)
    }

    public var description: String { "$pbkdf2-sha256$i=\(iterations)$\(Crypto.hex(salt))$\(Crypto.hex(hash))" }
}

/// Passwords for people to copy: 20 characters from an alphabet without look-alikes
/// (about 113 bits), from OpenSSL's random generator.
public enum PasswordGenerator {
    static let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")

    public static func generate(length: Int = 20) -> String {
        var result = ""
        while result.count < length {
            for byte in Crypto.randomBytes(length * 2) where result.count < length {
                // Rejection sampling keeps every character equally likely.
                let limit = 256 - 256 % alphabet.count
                if Int(byte) < limit { result.append(alphabet[Int(byte) % alphabet.count]) }
            }
        }
        return result
    }
}
