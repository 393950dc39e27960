import Accounts
import AlmanacTestSupport
import Foundation
import JSON
import Testing

/// JWS verification against signatures the `openssl` command makes (an oracle outside
/// this code: its own key generation, its own signing path): RS256/384, ES256, EdDSA
/// verify; a changed payload, `none`, an HMAC keyed with the public key, an unknown
/// `kid`, a small RSA key and a point off the curve do not.
struct OracleError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite struct JSONWebSignatureTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    @discardableResult
    func openssl(_ arguments: [String], input: [UInt8]? = nil) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        if let input {
            let path = directory.path + "/input"
            try Data(input).write(to: URL(fileURLWithPath: path))
            // `dgst` reads a file named last; `pkeyutl` one named by -in.
            process.arguments = arguments + (arguments.first == "dgst" ? [path] : ["-in", path])
        }
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OracleError("openssl \(arguments): \(String(decoding: message, as: UTF8.self))")
        }
        return Array(data)
    }

    /// A key pair made by openssl: its PEM path and the public key as a JWK.
    func key(_ kind: String, id: String, extra: [(String, JSONValue)] = []) throws -> (pem: String, jwk: JSONValue) {
        let pem = directory.path + "/\(id).pem"
        switch kind {
        case "RSA", "RSA1024":
            let bits = kind == "RSA" ? "2048" : "1024"
            try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)", "-out", pem])
            let text = String(decoding: try openssl(["rsa", "-in", pem, "-noout", "-modulus"]), as: UTF8.self)
            let hex = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("Modulus=".count))
            let modulus = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(hex[$0..<$0 + 2]), radix: 16)! }
            return (
                pem,
                .object(
                    [
                        ("kty", .string("RSA")), ("kid", .string(id)), ("n", .string(Base64URL.encode(modulus))),
                        ("e", .string(Base64URL.encode([1, 0, 1]))),
                    ] + extra)
            )
        case "P-256":
            try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", pem])
            let point = Array(try openssl(["pkey", "-in", pem, "-pubout", "-outform", "DER"]).suffix(65))
            return (
                pem,
                .object(
                    [
                        ("kty", .string("EC")), ("crv", .string("P-256")), ("kid", .string(id)),
                        ("x", .string(Base64URL.encode(Array(point[1..<33])))),
                        ("y", .string(Base64URL.encode(Array(point[33..<65])))),
                    ] + extra)
            )
        default:
            try openssl(["genpkey", "-algorithm", "ED25519", "-out", pem])
            let raw = Array(try openssl(["pkey", "-in", pem, "-pubout", "-outform", "DER"]).suffix(32))
            return (
                pem,
                .object(
                    [
                        ("kty", .string("OKP")), ("crv", .string("Ed25519")), ("kid", .string(id)),
                        ("x", .string(Base64URL.encode(raw))),
                    ] + extra)
            )
        }
    }

    /// A compact JWS of `claims` signed by openssl with `pem` as `alg` says.
    func token(_ alg: String, kid: String?, claims: String, pem: String) throws -> String {
        var header = #"{"alg":"\#(alg)","typ":"JWT""#
        if let kid { header += #","kid":"\#(kid)""# }
        header += "}"
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature: [UInt8]
        switch alg {
        case "EdDSA":
            signature = try openssl(["pkeyutl", "-sign", "-inkey", pem, "-rawin"], input: Array(input.utf8))
        case "ES256":
            signature = Self.raw(fromDER: try openssl(["dgst", "-sha256", "-sign", pem], input: Array(input.utf8)))
        default:
            signature = try openssl(["dgst", "-sha\(alg.suffix(3))", "-sign", pem], input: Array(input.utf8))
        }
        return input + "." + Base64URL.encode(signature)
    }

    /// r || s, 32 bytes each, from a DER ECDSA signature (SEQUENCE of two INTEGERs).
    static func raw(fromDER der: [UInt8]) -> [UInt8] {
        var index = der[1] & 0x80 == 0 ? 2 : 3
        var result: [UInt8] = []
        for _ in 0..<2 {
            let length = Int(der[index + 1])
            var integer = Array(der[(index + 2)..<(index + 2 + length)])
            while integer.count > 32, integer.first == 0 { integer.removeFirst() }
            result += [UInt8](repeating: 0, count: 32 - integer.count) + integer
            index += 2 + length
        }
        return result
    }

    let claims = #"{"iss":"https://id.example","sub":"lena","aud":"almanac","exp":1900000000}"#

    @Test(arguments: [("RSA", "RS256"), ("RSA", "RS384"), ("RSA", "RS512"), ("P-256", "ES256"), ("Ed25519", "EdDSA")])
    func signaturesOpenSSLMadeVerify(_ kind: String, _ alg: String) throws {
        let (pem, jwk) = try key(kind, id: "k1")
        let (_, other) = try key(kind, id: "k2")
        let keys = [try JSONWebKey(other), try JSONWebKey(jwk)]
        let compact = try token(alg, kid: "k1", claims: claims, pem: pem)
        let verified = try VerifiedJWS(compact, keys: keys)
        #expect(verified.payload["sub"] == .string("lena"))
        #expect(verified.algorithm.rawValue == alg)
        #expect(verified.keyID == "k1")
        // Without a kid, the key that verifies is found among the set.
        #expect(try VerifiedJWS(try token(alg, kid: nil, claims: claims, pem: pem), keys: keys).keyID == "k1")

        // A changed payload, the other key's kid, a kid nobody has.
        let parts = compact.split(separator: ".")
        let forged = Base64URL.encode(Array(claims.replacing("lena", with: "anna").utf8))
        #expect(throws: JOSEError.self) { _ = try VerifiedJWS("\(parts[0]).\(forged).\(parts[2])", keys: keys) }
        #expect(Self.kind { _ = try VerifiedJWS(compact, keys: [try JSONWebKey(other)]) } == .unknownKey)
        let renamed = try token(alg, kid: "k2", claims: claims, pem: pem)
        #expect(Self.kind { _ = try VerifiedJWS(renamed, keys: keys) } == .badSignature)
        #expect(
            Self.kind { _ = try VerifiedJWS(try token(alg, kid: "k9", claims: claims, pem: pem), keys: keys) }
                == .unknownKey)
    }

    static func kind(_ body: () throws -> Void) -> JOSEError.Kind? {
        do {
            try body()
            return nil
        } catch let error as JOSEError {
            return error.kind
        } catch {
            return nil
        }
    }

    /// `alg: none` and HS256 with the RSA public key as the HMAC secret (the classic
    /// confusion) are refused whatever their "signature"; so is ES256 on an RSA key.
    @Test func noneAndHMACAreRefused() throws {
        let (pem, jwk) = try key("RSA", id: "k1")
        let keys = [try JSONWebKey(jwk)]
        let body = Base64URL.encode(Array(claims.utf8))
        let none = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + body + "."
        #expect(Self.kind { _ = try VerifiedJWS(none, keys: keys) } == .unsupportedAlgorithm)
        let hsHeader = Base64URL.encode(Array(#"{"alg":"HS256","kid":"k1"}"#.utf8))
        let publicPEM = try openssl(["pkey", "-in", pem, "-pubout"])
        let mac = try openssl(
            [
                "dgst", "-sha256", "-mac", "HMAC", "-macopt",
                "hexkey:" + publicPEM.map { String(format: "%02x", $0) }.joined(), "-binary",
            ],
            input: Array((hsHeader + "." + body).utf8))
        #expect(
            Self.kind { _ = try VerifiedJWS(hsHeader + "." + body + "." + Base64URL.encode(mac), keys: keys) }
                == .unsupportedAlgorithm)
        let (ecPEM, _) = try key("P-256", id: "e1")
        #expect(
            Self.kind { _ = try VerifiedJWS(try token("ES256", kid: "k1", claims: claims, pem: ecPEM), keys: keys) }
                == .unknownKey)
        #expect(Self.kind { _ = try VerifiedJWS("a.b", keys: keys) } == .malformed)
        #expect(Self.kind { _ = try VerifiedJWS(String(repeating: "a", count: 20_000), keys: keys) } == .malformed)
    }

    /// Keys that are not usable are refused when read, and skipped in a set.
    @Test func unusableKeysAreRefused() throws {
        let (_, small) = try key("RSA1024", id: "small")
        #expect(Self.kind { _ = try JSONWebKey(small) } == .malformed)
        let (_, encryption) = try key("P-256", id: "enc", extra: [("use", .string("enc"))])
        #expect(Self.kind { _ = try JSONWebKey(encryption) } == .malformed)
        let (_, ec) = try key("P-256", id: "ec")
        guard case .object(var members) = ec, let index = members.firstIndex(where: { $0.key == "y" }),
            case .string(let y) = members[index].value, var bytes = Base64URL.decode(Substring(y))
        else { throw OracleError("no y") }
        bytes[31] ^= 1
        members[index].value = .string(Base64URL.encode(bytes))
        #expect(Self.kind { _ = try JSONWebKey(.object(members)) } == .malformed)
        let hmac = JSONValue.object([("kty", .string("oct")), ("k", .string("c2VjcmV0"))])
        #expect(Self.kind { _ = try JSONWebKey(hmac) } == .unsupportedAlgorithm)
        let (_, good) = try key("Ed25519", id: "good")
        let set = JSONWebKey.set(.object([("keys", .array([small, encryption, hmac, good]))]))
        #expect(set.map(\.id) == ["good"])
        let (_, pinned) = try key("RSA", id: "pinned", extra: [("alg", .string("RS384"))])
        #expect(try JSONWebKey(pinned).algorithms == [.rs384])
    }
}

/// The claims checks, from RFC 7519 §4.1 and OpenID Connect Core §3.1.3.7, one rule per row.
@Suite struct TokenClaimsCheckTests {
    static let now = 1_800_000_000

    static func claims(_ members: [(String, JSONValue)]) -> JSONValue {
        var all: [(String, JSONValue)] = [
            ("iss", .string("https://id.example")), ("aud", .string("almanac")), ("exp", .integer(now + 300)),
        ]
        for (name, value) in members {
            all.removeAll { $0.0 == name }
            if value != .null { all.append((name, value)) }
        }
        return .object(all.map { (key: $0.0, value: $0.1) })
    }

    @Test(
        arguments: [
            ([], nil),
            ([("aud", JSONValue.array([.string("other"), .string("almanac")]))], nil),
            ([("iss", .string("https://id.example/"))], "issued by"),
            ([("iss", .null)], "issued by"),
            ([("aud", .string("other"))], "meant for"),
            ([("aud", .array([.string("other")]))], "meant for"),
            ([("exp", .null)], "no expiry"),
            ([("exp", .integer(now - 61))], "expired"),
            ([("exp", .integer(now - 59))], nil),
            ([("exp", .string("tomorrow"))], "no expiry"),
            ([("nbf", .integer(now + 61))], "not valid yet"),
            ([("nbf", .integer(now + 59))], nil),
            ([("iat", .integer(now + 61))], "future"),
            ([("iat", .integer(now - 3_600))], nil),
        ] as [([(String, JSONValue)], String?)])
    func claimsAreChecked(_ changes: [(String, JSONValue)], _ problem: String?) {
        let check = TokenClaimsCheck(issuer: "https://id.example", audience: "almanac")
        let found = check.problem(with: Self.claims(changes), now: Self.now)
        if let problem {
            #expect(found?.contains(problem) == true, "\(changes): \(found ?? "accepted")")
        } else {
            #expect(found == nil, "\(changes)")
        }
    }

    @Test func aSignInNeedsItsNonce() {
        var check = TokenClaimsCheck(issuer: "https://id.example", audience: "almanac")
        check.nonce = "n-0S6_WzA2Mj"
        #expect(check.problem(with: Self.claims([]), now: Self.now)?.contains("nonce") == true)
        #expect(
            check.problem(with: Self.claims([("nonce", .string("other"))]), now: Self.now)?.contains("nonce") == true)
        #expect(check.problem(with: Self.claims([("nonce", .string("n-0S6_WzA2Mj"))]), now: Self.now) == nil)
    }
}
