import Accounts
import AlmanacTestSupport
import Foundation
import Testing

@testable import AlmanacClient

/// The client's own SHA-256 and HMAC-SHA256 (webhook signatures need them, and the client
/// may depend on Foundation only): the published vectors, then OpenSSL's answers on
/// random inputs.
@Suite struct CryptoTests {
    /// FIPS 180-4's examples (NIST's "SHA-256 examples" and the FIPS 180-2 appendix).
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func sha256Vectors(_ message: String, _ digest: String) {
        #expect(WebhookSignature.hex(SHA256.hash(Array(message.utf8))) == digest)
    }

    /// A million `a`s, fed in uneven pieces: blocks cross every piece boundary.
    @Test func sha256OfAMillionAs() {
        var hasher = SHA256()
        var fed = 0
        var piece = 1
        while fed < 1_000_000 {
            let count = min(piece, 1_000_000 - fed)
            hasher.update(repeatElement(UInt8(ascii: "a"), count: count))
            fed += count
            piece = piece % 997 + 13
        }
        #expect(
            WebhookSignature.hex(hasher.finalize())
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// RFC 4231 §4.2–4.8, test cases 1 to 7 (case 5 is compared on its first 128 bits, as
    /// the RFC gives it).
    @Test(
        arguments: [
            (
                [UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
                "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
            ),
            (
                Array(1...25), [UInt8](repeating: 0xcd, count: 50),
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
            ),
            (
                [UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8),
                "a3b6167473100ee06e0c796c2955552b"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131),
                Array(
                    ("This is a test using a larger than block-size key and a larger than block-size data. The key needs to"
                        + " be hashed before being used by the HMAC algorithm.").utf8),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ] as [([UInt8], [UInt8], String)])
    func hmacVectors(_ key: [UInt8], _ message: [UInt8], _ code: String) {
        #expect(WebhookSignature.hex(HMACSHA256.authenticationCode(for: message, key: key)).hasPrefix(code))
    }

    /// Random messages of 0 to 300 bytes and keys of 0 to 200 (a third longer than a
    /// block, so hashed first), against OpenSSL's SHA-256 and HMAC through Accounts.
    @Test func agreesWithOpenSSL() {
        var random = SplitMix64(seed: 0x5A17_C0DE)
        var longKeys = 0
        for round in 0..<3_000 {
            let message = (0..<Int.random(in: 0...300, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            let key = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random)
            }
            if key.count > SHA256.blockCount { longKeys += 1 }
            #expect(SHA256.hash(message) == Crypto.sha256(message), "round \(round): \(message.count) bytes")
            #expect(
                HMACSHA256.authenticationCode(for: message, key: key) == Crypto.hmacSHA256(key: key, message),
                "round \(round): key \(key.count) bytes, message \(message.count)")
        }
        #expect(longKeys > 1_000)
        // The lengths where padding changes: 55, 56, 63, 64 and 65 bytes, each byte value.
        for count in [55, 56, 63, 64, 65, 119, 120, 127, 128] {
            let message = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            #expect(SHA256.hash(message) == Crypto.sha256(message), "\(count) bytes")
            #expect(
                HMACSHA256.authenticationCode(for: message, key: message) == Crypto.hmacSHA256(key: message, message))
        }
    }
}
