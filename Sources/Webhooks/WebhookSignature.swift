import Accounts
import Foundation

/// The `Almanac-Signature` header of a delivery: `t=<Unix seconds>,v1=<hex>`, where the
/// hex is HMAC-SHA256 (OpenSSL's) keyed with the subscription's secret (its UTF-8 bytes)
/// over the bytes `<t>.<body>`. Signing the time with the body lets a receiver refuse an
/// old delivery replayed at it; see docs/webhooks.md for verifying it, with a test vector.
public enum WebhookSignature {
    /// The header value for `body` sent at `timestamp`.
    public static func header(secret: String, timestamp: Int, body: [UInt8]) -> String {
        "t=\(timestamp),v1=" + Crypto.hex(digest(secret: secret, timestamp: timestamp, body: body))
    }

    static func digest(secret: String, timestamp: Int, body: [UInt8]) -> [UInt8] {
        Crypto.hmacSHA256(key: Array(secret.utf8), Array("\(timestamp).".utf8) + body)
    }

    /// Whether `header` signs `body` with `secret`, made within `tolerance` seconds of
    /// `now`. Any one `v1=` of several (during a change of secret) may match.
    public static func isValid(header: String, body: [UInt8], secret: String, now: Int, tolerance: Int = 300) -> Bool {
        var timestamp: Int?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { return false }
            if pair[0] == "t" { timestamp = Int(pair[1]) } else if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance else { return false }
        let expected = Array(Crypto.hex(digest(secret: secret, timestamp: timestamp, body: body)).utf8)
        return signatures.contains { Crypto.constantTimeEqual(Array($0.lowercased().utf8), expected) }
    }
}
