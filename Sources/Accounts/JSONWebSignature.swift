import COpenSSL
import Foundation
import JSON

/// Base64url without padding (RFC 4648 §5), as JOSE and the API's cursors write bytes.
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The bytes, or nil when `text` is not base64url (padding and other alphabets refused).
    public static func decode(_ text: Substring) -> [UInt8]? {
        guard
            text.utf8.allSatisfy({ byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }), text.utf8.count % 4 != 1
        else { return nil }
        var padded = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while padded.utf8.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map(Array.init)
    }
}

/// Why a JSON Web Signature was not accepted.
public struct JOSEError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Not three base64url parts of JSON, or a key that is no key.
        case malformed
        /// `none`, an HMAC or any algorithm not in ``JSONWebKey/Algorithm``.
        case unsupportedAlgorithm
        /// No key of the set has the token's `kid` (or fits its algorithm).
        case unknownKey
        /// The signature does not verify.
        case badSignature
    }

    public var kind: Kind
    public var description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// A public key from a JSON Web Key (RFC 7517): RSA of at least 2048 bits, EC P-256 or
/// P-384, or Ed25519, held as an OpenSSL key.
public final class JSONWebKey: @unchecked Sendable {
    /// The signature algorithms accepted (RFC 7518 §3, RFC 8037): never `none` and never
    /// an HMAC, whose "key" would be public.
    public enum Algorithm: String, Sendable, CaseIterable {
        case rs256 = "RS256"
        case rs384 = "RS384"
        case rs512 = "RS512"
        case es256 = "ES256"
        case es384 = "ES384"
        case edDSA = "EdDSA"

        /// The SHA-2 size, 0 for EdDSA.
        var digest: Int32 {
            switch self {
            case .rs256, .es256: 256
            case .rs384, .es384: 384
            case .rs512: 512
            case .edDSA: 0
            }
        }
    }

    /// `kid`, if the key has one.
    public let id: String?
    /// The algorithms this key verifies: its `alg` if it names one, else every one of its type.
    public let algorithms: Set<Algorithm>
    let key: OpaquePointer
    /// The size of r and s in an ECDSA signature, 0 for other keys.
    let ecdsaHalf: Int

    deinit { EVP_PKEY_free(key) }

    /// The key `jwk` describes; throws for a private-only, symmetric, too small or
    /// malformed key, or one whose `use` is not `sig`.
    public init(_ jwk: JSONValue) throws(JOSEError) {
        func field(_ name: String) -> String? {
            if case .string(let value)? = jwk[name] { return value }
            return nil
        }
        func bytes(_ name: String) throws(JOSEError) -> [UInt8] {
            guard let text = field(name), let decoded = Base64URL.decode(Substring(text)), !decoded.isEmpty else {
                throw JOSEError(.malformed, "the key's \(name) is not base64url")
            }
            return decoded
        }
        if let use = field("use"), use != "sig" { throw JOSEError(.malformed, "the key is for \(use), not signatures") }
        id = field("kid")
        let named = field("alg")
        let family: [Algorithm]
        var half = 0
        var made: OpaquePointer?
        switch field("kty") {
        case "RSA":
            family = [.rs256, .rs384, .rs512]
            let n = try bytes("n")
            let e = try bytes("e")
            made = copenssl_rsa_public_key(n, n.count, e, e.count)
            if let made, copenssl_key_bits(made) < 2048 {
                EVP_PKEY_free(made)
                throw JOSEError(.malformed, "an RSA key needs at least 2048 bits")
            }
        case "EC":
            let curves: [String: (Algorithm, Int)] = ["P-256": (.es256, 32), "P-384": (.es384, 48)]
            guard let curve = field("crv"), let (algorithm, size) = curves[curve] else {
                throw JOSEError(.malformed, "an EC key is on P-256 or P-384")
            }
            family = [algorithm]
            half = size
            let x = try bytes("x")
            let y = try bytes("y")
            guard x.count == size, y.count == size else {
                throw JOSEError(.malformed, "the EC key's x or y has the wrong length")
            }
            let point = [0x04] + x + y
            made = copenssl_ec_public_key(curve, point, point.count)
        case "OKP":
            guard field("crv") == "Ed25519" else { throw JOSEError(.malformed, "an OKP key is Ed25519") }
            family = [.edDSA]
            let x = try bytes("x")
            guard x.count == 32 else { throw JOSEError(.malformed, "an Ed25519 key is 32 bytes") }
            made = copenssl_ed25519_public_key(x, x.count)
        default:
            throw JOSEError(.unsupportedAlgorithm, "keys of type \(field("kty") ?? "(none)") are not accepted")
        }
        guard let made else { throw JOSEError(.malformed, "the key's numbers are no valid public key") }
        if let named {
            guard let algorithm = Algorithm(rawValue: named), family.contains(algorithm) else {
                EVP_PKEY_free(made)
                throw JOSEError(.unsupportedAlgorithm, "the key's alg \(named) is not accepted for it")
            }
            algorithms = [algorithm]
        } else {
            algorithms = Set(family)
        }
        key = made
        ecdsaHalf = half
    }

    /// The usable keys of a JWK Set (`{"keys": [...]}`); keys it cannot use are skipped.
    public static func set(_ jwks: JSONValue) -> [JSONWebKey] {
        guard case .array(let items)? = jwks["keys"] else { return [] }
        return items.prefix(100).compactMap { try? JSONWebKey($0) }
    }

    /// Whether `signature` signs `input` with this key and `algorithm`.
    func verifies(_ signature: [UInt8], of input: [UInt8], with algorithm: Algorithm) -> Bool {
        var signed = signature
        if ecdsaHalf > 0 {
            guard signature.count == 2 * ecdsaHalf else { return false }
            var der = [UInt8](repeating: 0, count: 2 * ecdsaHalf + 16)
            let length = copenssl_ecdsa_der(signature, ecdsaHalf, &der, der.count)
            guard length > 0 else { return false }
            signed = Array(der.prefix(length))
        }
        return copenssl_verify(key, algorithm.digest, input, input.count, signed, signed.count) == 1
    }
}

/// A JWS in compact form (RFC 7515 §7.1) whose signature verified: its header and its
/// payload as JSON (a JWT's claims).
public struct VerifiedJWS: Sendable {
    public var header: JSONValue
    public var payload: JSONValue
    public var algorithm: JSONWebKey.Algorithm
    /// The key that verified it.
    public var keyID: String?

    /// Verifies `compact` with one of `keys`: the one its `kid` names, else any that
    /// fits its `alg`. Only the algorithms of ``JSONWebKey/Algorithm`` are accepted, and
    /// only for keys of their type (an RSA public key never checks an HMAC).
    public init(_ compact: String, keys: [JSONWebKey]) throws(JOSEError) {
        guard compact.utf8.count <= 16_384 else { throw JOSEError(.malformed, "the token is longer than 16 KiB") }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
            let header = try? JSONValue(parsing: headerBytes, maxDepth: 8),
            let payload = try? JSONValue(parsing: payloadBytes, maxDepth: 16),
            case .object = header, case .object = payload
        else { throw JOSEError(.malformed, "not a signed JSON Web Token (three base64url parts of JSON)") }
        guard case .string(let name)? = header["alg"], let algorithm = JSONWebKey.Algorithm(rawValue: name) else {
            throw JOSEError(
                .unsupportedAlgorithm, "the token's algorithm is not one of RS256, ES256, EdDSA and their kin")
        }
        // RFC 7515 §4.1.11: an extension this code does not know must not be ignored.
        if header["crit"] != nil { throw JOSEError(.unsupportedAlgorithm, "the token has critical header extensions") }
        var kid: String?
        if case .string(let id)? = header["kid"] { kid = id }
        let candidates = keys.filter { $0.algorithms.contains(algorithm) && (kid == nil || $0.id == kid) }
        guard !candidates.isEmpty else {
            throw JOSEError(.unknownKey, "no key of the issuer has id \(kid ?? "(none)") for \(algorithm.rawValue)")
        }
        let input = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        guard let key = candidates.first(where: { $0.verifies(signature, of: input, with: algorithm) }) else {
            throw JOSEError(.badSignature, "the token's signature does not verify")
        }
        self.header = header
        self.payload = payload
        self.algorithm = algorithm
        self.keyID = key.id
    }
}

/// The checks RFC 7519 §4.1 and OpenID Connect Core §3.1.3.7 ask of a token's claims
/// once its signature verified: who issued it, for whom, and when it is valid.
public struct TokenClaimsCheck: Sendable {
    /// `iss` must be exactly this.
    public var issuer: String
    /// `aud` (a string or a list) must contain this.
    public var audience: String
    /// Seconds of clock difference allowed for `exp`, `nbf` and `iat`.
    public var skew = 60
    /// A `nonce` the token must carry (an ID token answering a sign-in); nil: not checked.
    public var nonce: String?

    public init(issuer: String, audience: String) {
        self.issuer = issuer
        self.audience = audience
    }

    /// Why `claims` are not acceptable at `now` (Unix seconds); nil when they are.
    public func problem(with claims: JSONValue, now: Int) -> String? {
        guard case .string(let issued)? = claims["iss"], issued == issuer else {
            return "the token was not issued by \(issuer)"
        }
        switch claims["aud"] {
        case .string(let single)? where single == audience: break
        case .array(let list)? where list.contains(.string(audience)): break
        default: return "the token is not meant for \(audience)"
        }
        guard case .integer(let expiry)? = claims["exp"] else { return "the token has no expiry" }
        guard now < expiry + skew else { return "the token has expired" }
        if let value = claims["nbf"] {
            guard case .integer(let notBefore) = value, now + skew >= notBefore else {
                return "the token is not valid yet"
            }
        }
        if let value = claims["iat"] {
            guard case .integer(let issuedAt) = value, issuedAt <= now + skew else {
                return "the token says it was issued in the future"
            }
        }
        if let nonce {
            guard case .string(let given)? = claims["nonce"],
                Crypto.constantTimeEqual(Array(given.utf8), Array(nonce.utf8))
            else { return "the token does not answer this sign-in (nonce)" }
        }
        return nil
    }
}
