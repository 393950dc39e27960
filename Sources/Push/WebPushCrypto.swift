import Accounts
import COpenSSL
import JSON
import Outbound

/// What went wrong making a Web Push message: a key that is no key, or OpenSSL failing.
public struct WebPushError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// A P-256 key (OpenSSL's EVP_PKEY), private or public only.
final class P256Key: @unchecked Sendable {
    let key: OpaquePointer

    init(owning key: OpaquePointer) { self.key = key }

    deinit { EVP_PKEY_free(key) }

    /// A fresh key pair.
    static func generate() throws(WebPushError) -> P256Key {
        guard let key = copenssl_p256_generate() else { throw WebPushError("OpenSSL made no P-256 key") }
        return P256Key(owning: key)
    }

    /// A public key from its uncompressed point (65 bytes), nil when it is no point of the curve.
    static func publicKey(_ point: [UInt8]) -> P256Key? {
        guard point.count == 65, point.first == 4 else { return nil }
        return copenssl_ec_public_key("P-256", point, point.count).map(P256Key.init(owning:))
    }

    /// A private key from PEM, nil when the text holds none (or another kind of key).
    static func privateKey(pem: String) -> P256Key? {
        let bytes = Array(pem.utf8)
        guard let key = copenssl_private_key_from_pem(bytes, bytes.count) else { return nil }
        let wrapped = P256Key(owning: key)
        return wrapped.publicPoint.count == 65 ? wrapped : nil
    }

    /// The public point, uncompressed (0x04 || x || y).
    var publicPoint: [UInt8] {
        var point = [UInt8](repeating: 0, count: 133)
        let length = copenssl_ec_public_point(key, &point, point.count)
        return Array(point.prefix(length))
    }

    /// The private key as PKCS#8 PEM.
    var pem: String {
        var length = 0
        guard let text = copenssl_private_key_pem(key, &length) else { return "" }
        defer { free(text) }
        return String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
    }

    /// The ECDH secret with `peer`'s public key (32 bytes).
    func sharedSecret(with peer: P256Key) throws(WebPushError) -> [UInt8] {
        var secret = [UInt8](repeating: 0, count: 64)
        let length = copenssl_ecdh(key, peer.key, &secret, secret.count)
        guard length == 32 else { throw WebPushError("ECDH failed") }
        return Array(secret.prefix(32))
    }

    /// An ES256 signature (r || s) of `message`.
    func signES256(_ message: [UInt8]) throws(WebPushError) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 64)
        guard copenssl_es256_sign(key, message, message.count, &signature) == 1 else {
            throw WebPushError("ECDSA signing failed")
        }
        return signature
    }
}

/// Message encryption for Web Push (RFC 8291) in the `aes128gcm` content coding (RFC
/// 8188): a fresh key pair and salt for every message, so no two bodies are alike.
public enum WebPushEncryption {
    /// The record size written in the header: one record holds any WebDAV-Push message.
    static let recordSize = 4_096

    /// HKDF-SHA256 of `length` bytes.
    static func hkdf(salt: [UInt8], key: [UInt8], info: [UInt8], length: Int) throws(WebPushError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: length)
        guard copenssl_hkdf_sha256(salt, salt.count, key, key.count, info, info.count, &output, length) == 1 else {
            throw WebPushError("HKDF failed")
        }
        return output
    }

    /// Encrypts `payload` for the user agent whose P-256 public key (uncompressed) and
    /// authentication secret (16 bytes) its subscription gave; `senderKey` and `salt` are
    /// fresh unless a test fixes them (RFC 8291 §5's example).
    public static func encrypt(
        _ payload: [UInt8], userAgentKey: [UInt8], authSecret: [UInt8], senderKey fixedKey: P256KeyMaterial? = nil,
        salt fixedSalt: [UInt8]? = nil
    ) throws(WebPushError) -> [UInt8] {
        guard let userAgent = P256Key.publicKey(userAgentKey) else {
            throw WebPushError("the subscription's p256dh key is not a P-256 public key")
        }
        guard authSecret.count == 16 else { throw WebPushError("the subscription's auth secret is not 16 bytes") }
        guard payload.count + 17 <= recordSize else { throw WebPushError("the message is longer than one record") }
        let sender: P256Key
        if let fixedKey { sender = fixedKey.key } else { sender = try P256Key.generate() }
        let senderPoint = sender.publicPoint
        let secret = try sender.sharedSecret(with: userAgent)
        // RFC 8291 §3.3, 3.4: the input keying material from the ECDH secret and auth secret.
        let keyInfo = Array("WebPush: info".utf8) + [0] + userAgentKey + senderPoint
        let ikm = try hkdf(salt: authSecret, key: secret, info: keyInfo, length: 32)
        // RFC 8188 §2.2, 2.3: the content encryption key and nonce.
        let salt = fixedSalt ?? Crypto.randomBytes(16)
        let cek = try hkdf(salt: salt, key: ikm, info: Array("Content-Encoding: aes128gcm".utf8) + [0], length: 16)
        let nonce = try hkdf(salt: salt, key: ikm, info: Array("Content-Encoding: nonce".utf8) + [0], length: 12)
        // One record, the last: the payload and its delimiter 0x02, no padding.
        let plaintext = payload + [2]
        var sealed = [UInt8](repeating: 0, count: plaintext.count + 16)
        guard copenssl_aes128gcm_seal(cek, nonce, plaintext, plaintext.count, &sealed) == 1 else {
            throw WebPushError("AES-128-GCM failed")
        }
        let size = UInt32(recordSize)
        let header =
            salt + [UInt8(size >> 24), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
            + [UInt8(senderPoint.count)] + senderPoint
        return header + sealed
    }
}

/// A P-256 key pair held for the caller (a sender key fixed by a test, the VAPID key).
public struct P256KeyMaterial: Sendable {
    let key: P256Key

    /// A key pair from its private key in PEM, nil when the text holds none.
    public init?(pem: String) {
        guard let key = P256Key.privateKey(pem: pem) else { return nil }
        self.key = key
    }

    /// A fresh key pair.
    public static func generate() throws(WebPushError) -> P256KeyMaterial {
        P256KeyMaterial(key: try P256Key.generate())
    }

    init(key: P256Key) { self.key = key }

    /// The private key in PEM (PKCS#8), to be kept.
    public var pem: String { key.pem }

    /// The public key, uncompressed and base64url: what clients give a push service as
    /// the application server key.
    public var publicKey: String { Base64URL.encode(key.publicPoint) }
}

/// VAPID (RFC 8292): the server proves to a push service that it is the application
/// server a subscription was made for, with a JWT signed by its P-256 key.
public struct VAPID: Sendable {
    public let key: P256KeyMaterial
    /// Who runs the server (`sub`): a `mailto:` or `https:` URL, or nil.
    public let subject: String?

    public init(key: P256KeyMaterial, subject: String?) {
        self.key = key
        self.subject = subject
    }

    /// The `Authorization` header value for a message to `endpoint` at `now` (Unix
    /// seconds): `vapid t=<JWT>, k=<public key>` (§3), the JWT's audience the endpoint's
    /// origin, valid for 12 hours (under the 24 the RFC allows).
    public func authorization(for endpoint: String, now: Int) throws(WebPushError) -> String {
        guard let origin = Self.origin(of: endpoint) else { throw WebPushError("\(endpoint) has no origin") }
        let header = JSONValue.object([("typ", .string("JWT")), ("alg", .string("ES256"))])
        var claims: [(key: String, value: JSONValue)] = [("aud", .string(origin)), ("exp", .integer(now + 12 * 3_600))]
        if let subject { claims.append(("sub", .string(subject))) }
        let input =
            Base64URL.encode(Array(header.jsonText.utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(claims).jsonText.utf8))
        let signature = try key.key.signES256(Array(input.utf8))
        return "vapid t=\(input).\(Base64URL.encode(signature)), k=\(key.publicKey)"
    }

    /// `scheme://host[:port]` of a URL (no default port), nil when it is no http(s) URL.
    static func origin(of url: String) -> String? {
        guard case .success(let target) = OutboundPolicy.target(of: url) else { return nil }
        let host = target.host.contains(":") ? "[\(target.host.lowercased())]" : target.host.lowercased()
        let defaultPort = target.scheme == "https" ? 443 : 80
        return "\(target.scheme)://\(host)" + (target.port == defaultPort ? "" : ":\(target.port)")
    }
}
