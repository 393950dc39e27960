import Accounts

/// The links a booker gets: `bkc_` (cancel) or `bkr_` (reschedule) and 32 random hex
/// digits (128 bits), usable without signing in. Only their SHA-256 is stored, as for
/// API tokens.
public enum BookingToken {
    /// A new cancel token and a new reschedule token.
    public static func generate() -> (cancel: String, reschedule: String) {
        ("bkc_" + Crypto.hex(Crypto.randomBytes(16)), "bkr_" + Crypto.hex(Crypto.randomBytes(16)))
    }

    /// The hash the store keeps.
    public static func hash(_ token: String) -> String { APITokenSecret.hash(token) }

    /// Whether `text` has a token's shape, and which it is (before looking it up).
    public static func purpose(of text: String) -> Purpose? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36,
            bytes[4...].allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        switch text.prefix(4) {
        case "bkc_": return .cancel
        case "bkr_": return .reschedule
        default: return nil
        }
    }

    public enum Purpose: Sendable {
        case cancel
        case reschedule
    }
}
