import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The user name and password of an `Authorization: Basic` header (RFC 7617).
public struct BasicCredentials: Sendable, Hashable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Reads `Basic base64(user:password)`; nil for anything else.
    public init?(authorization: String) {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic", let decoded = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
            let text = String(validating: [UInt8](decoded), as: UTF8.self), let colon = text.firstIndex(of: ":")
        else { return nil }
        user = String(text[..<colon])
        password = String(text[text.index(after: colon)...])
    }

    /// The header value for these credentials.
    public var authorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }
}

/// Slows down password guessing: once `freeFailures` logins for one user from one
/// address have failed, further attempts are refused for a delay that starts at a
/// second and doubles with each failure (up to `maximumDelay` seconds). A success
/// clears the record.
public final class LoginThrottle: Sendable {
    private struct Record {
        var failures: Int
        var blockedUntil: Double
    }

    private let records = Mutex<[String: Record]>([:])
    public let freeFailures: Int
    public let maximumDelay: Double

    public init(freeFailures: Int = 5, maximumDelay: Double = 300) {
        self.freeFailures = freeFailures
        self.maximumDelay = maximumDelay
    }

    static func key(_ user: String, _ address: String) -> String { user.lowercased() + "\u{0}" + address }

    /// Seconds until `user` may try again from `address`; 0 when they may now.
    public func delay(user: String, address: String, now: Double = LoginThrottle.now()) -> Double {
        records.withLock { records in
            guard let record = records[Self.key(user, address)] else { return 0 }
            return max(0, record.blockedUntil - now)
        }
    }

    public func recordFailure(user: String, address: String, now: Double = LoginThrottle.now()) {
        records.withLock { records in
            var record = records[Self.key(user, address)] ?? Record(failures: 0, blockedUntil: 0)
            record.failures += 1
            if record.failures >= freeFailures {
                let exponent = min(record.failures - freeFailures, 20)
                record.blockedUntil = now + min(maximumDelay, Double(1 << exponent))
            }
            records[Self.key(user, address)] = record
            // Keep memory bounded under a flood of distinct names.
            if records.count > 100_000 { records.removeAll() }
        }
    }

    public func recordSuccess(user: String, address: String) {
        _ = records.withLock { $0.removeValue(forKey: Self.key(user, address)) }
    }

    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// Remembers passwords that verified recently, as HMACs under a key made at start,
/// so each request of a syncing client does not pay for PBKDF2 again.
public final class VerifiedPasswords: Sendable {
    private let key = Crypto.randomBytes(32)
    private let entries = Mutex<[String: (digest: [UInt8], until: Double)]>([:])
    public let lifetime: Double

    public init(lifetime: Double = 300) { self.lifetime = lifetime }

    func digest(_ credentials: BasicCredentials, hash: String) -> [UInt8] {
        Crypto.hmacSHA256(key: key, Array((credentials.password + "\u{0}" + hash).utf8))
    }

    /// Whether these credentials verified against `hash` within the lifetime.
    public func contains(_ credentials: BasicCredentials, hash: String, now: Double = LoginThrottle.now()) -> Bool {
        let wanted = digest(credentials, hash: hash)
        return entries.withLock { entries in
            guard let entry = entries[credentials.user], entry.until > now else { return false }
            return Crypto.constantTimeEqual(entry.digest, wanted)
        }
    }

    public func insert(_ credentials: BasicCredentials, hash: String, now: Double = LoginThrottle.now()) {
        let value = digest(credentials, hash: hash)
        entries.withLock { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[credentials.user] = (value, now + lifetime)
        }
    }
}
