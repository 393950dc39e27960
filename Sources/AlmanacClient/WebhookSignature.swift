import Foundation

/// Webhook signatures: how a receiver checks that a delivery came from the server and
/// was not changed or replayed, and how a test signs one.
///
/// Every delivery carries `Almanac-Signature: t=<unix seconds>,v1=<hex>`, where the hex
/// is the lowercase HMAC-SHA256 (RFC 2104), keyed with the webhook secret's UTF-8 bytes
/// (`whsec_…` whole), of the bytes `<t>.<body>`. While a secret is rotated the header
/// has several `v1=` entries; one matching is enough.
///
/// ```swift
/// // In a Swift backend's handler for POST /hooks/almanac:
/// let event = try WebhookSignature.verify(
///     body: request.body, signatureHeader: request.headers["Almanac-Signature"] ?? "", secret: secret)
/// guard !alreadySeen(event.id) else { return .ok }   // deliveries may come more than once
/// ```
public enum WebhookSignature {
    /// The header carrying the signature.
    public static let signatureHeader = "Almanac-Signature"
    /// The header carrying the delivery's id (`dl_…`).
    public static let deliveryHeader = "Almanac-Delivery"
    /// The header carrying the delivery's type (`event.created`).
    public static let eventHeader = "Almanac-Event"
    /// The header carrying the attempt's number (1 for the first).
    public static let attemptHeader = "Almanac-Attempt"

    /// Checks `body` against `signatureHeader` with `secret` and decodes it.
    ///
    /// - Parameters:
    ///   - body: the request body exactly as received (not re-encoded).
    ///   - signatureHeader: the `Almanac-Signature` header's value.
    ///   - secret: the webhook's secret (`whsec_…`), as ``NewWebhook/secret`` gave it.
    ///   - tolerance: how far the signature's time may be from `now`, in seconds either
    ///     way (5 minutes by default), so a captured delivery cannot be replayed later.
    ///   - now: the receiver's clock.
    /// - Throws: ``WebhookSignatureError`` when the header is malformed, its time is
    ///   outside the tolerance, no signature matches, or the signed body is not a delivery.
    public static func verify(
        body: Data, signatureHeader: String, secret: String, tolerance: TimeInterval = 300, now: Date = Date()
    ) throws(WebhookSignatureError) -> WebhookEvent {
        try verifySignature(
            body: body, signatureHeader: signatureHeader, secret: secret, tolerance: tolerance, now: now)
        do {
            return try JSONDecoder.almanac().decode(WebhookEvent.self, from: body)
        } catch {
            throw WebhookSignatureError(.undecodableBody, detail: "\(error)")
        }
    }

    /// Checks `body` against `signatureHeader` with `secret`, without decoding the body
    /// (for a receiver that decodes it itself); throws as ``verify(body:signatureHeader:secret:tolerance:now:)``.
    public static func verifySignature(
        body: Data, signatureHeader: String, secret: String, tolerance: TimeInterval = 300, now: Date = Date()
    ) throws(WebhookSignatureError) {
        var timestamp: Int?
        var signatures: [[UInt8]] = []
        for part in signatureHeader.split(separator: ",") {
            let entry = part.trimmingCharacters(in: .whitespaces)
            guard let equals = entry.firstIndex(of: "=") else {
                throw WebhookSignatureError(.malformedHeader, detail: "an entry without =: \(entry)")
            }
            let name = entry[..<equals]
            let value = entry[entry.index(after: equals)...]
            switch name {
            case "t":
                guard timestamp == nil, let seconds = Int(value), seconds >= 0 else {
                    throw WebhookSignatureError(.malformedHeader, detail: "t must be one number of seconds")
                }
                timestamp = seconds
            case "v1":
                guard let bytes = unhex(value), bytes.count == SHA256.digestCount else {
                    throw WebhookSignatureError(.malformedHeader, detail: "v1 must be 64 hexadecimal digits")
                }
                signatures.append(bytes)
            default:
                continue  // another scheme's entry (a later version): ignored, as it cannot be checked
            }
        }
        guard let timestamp else { throw WebhookSignatureError(.malformedHeader, detail: "no t= entry") }
        guard !signatures.isEmpty else { throw WebhookSignatureError(.malformedHeader, detail: "no v1= entry") }
        let age = now.timeIntervalSince1970 - TimeInterval(timestamp)
        guard abs(age) <= tolerance else {
            throw WebhookSignatureError(
                .timestampOutsideTolerance,
                detail: "signed at \(timestamp), \(Int(age)) seconds from now; at most \(Int(tolerance)) allowed")
        }
        let expected = code(body: body, secret: secret, timestamp: timestamp)
        var matched = false
        for signature in signatures where constantTimeEqual(signature, expected) { matched = true }
        guard matched else {
            throw WebhookSignatureError(.noMatchingSignature, detail: "no v1 signature matches the body and secret")
        }
    }

    /// The `Almanac-Signature` value the server sends for `body`: one `v1=` per secret
    /// (several while rotating), signed at `timestamp`. For tests of a receiver.
    public static func header(body: Data, secrets: [String], timestamp: Date = Date()) -> String {
        let seconds = Int(timestamp.timeIntervalSince1970.rounded(.down))
        return (["t=\(seconds)"] + secrets.map { "v1=" + hex(code(body: body, secret: $0, timestamp: seconds)) })
            .joined(separator: ",")
    }

    /// HMAC-SHA256 under the secret's UTF-8 bytes of `<timestamp>.<body>`.
    static func code(body: Data, secret: String, timestamp: Int) -> [UInt8] {
        HMACSHA256.authenticationCode(for: Array("\(timestamp).".utf8) + body, key: Array(secret.utf8))
    }

    /// Compares in time that depends only on the lengths, not on where the bytes differ.
    static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Hexadecimal digits (either case) as bytes, or nil.
    static func unhex(_ text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}

/// Why a webhook delivery was refused.
public struct WebhookSignatureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Kind: Sendable, Hashable {
        /// The header is not `t=<seconds>,v1=<64 hex digits>[,v1=…]`.
        case malformedHeader
        /// The signature's time is further from now than the tolerance: a replay, or a
        /// clock far off.
        case timestampOutsideTolerance
        /// No `v1=` signature matches the body under the secret.
        case noMatchingSignature
        /// The signature matched, but the body is not a delivery this client can read.
        case undecodableBody
    }

    /// What was wrong.
    public var kind: Kind
    /// The particulars, for a log.
    public var detail: String

    /// An error of `kind`.
    public init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The kind and the particulars.
    public var description: String { "\(kind): \(detail)" }
}
