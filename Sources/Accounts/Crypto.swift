import COpenSSL

/// The few primitives accounts need, from OpenSSL's libcrypto.
public enum Crypto {
    /// `count` bytes from OpenSSL's CSPRNG.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        precondition(status == 1, "OpenSSL's RAND_bytes failed")
        return bytes
    }

    /// PBKDF2-HMAC-SHA256.
    public static func pbkdf2SHA256(password: [UInt8], salt: [UInt8], iterations: Int, length: Int = 32) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: length)
        let status = password.withUnsafeBufferPointer { passwordBytes in
            passwordBytes.withMemoryRebound(to: CChar.self) { passwordChars in
                output.withUnsafeMutableBufferPointer { out in
                    copenssl_pbkdf2_sha256(
                        passwordChars.baseAddress, Int32(passwordBytes.count), salt, Int32(salt.count),
                        Int32(iterations), out.baseAddress,
                        Int32(length))
                }
            }
        }
        precondition(status == 1, "OpenSSL's PBKDF2 failed")
        return output
    }

    /// SHA-256.
    public static func sha256(_ data: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        let status = data.withUnsafeBytes { bytes in
            output.withUnsafeMutableBufferPointer { copenssl_sha256(bytes.baseAddress, bytes.count, $0.baseAddress) }
        }
        precondition(status == 1, "OpenSSL's SHA-256 failed")
        return output
    }

    /// HMAC-SHA256.
    public static func hmacSHA256(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        let status = output.withUnsafeMutableBufferPointer { out in
            copenssl_hmac_sha256(key, Int32(key.count), data, data.count, out.baseAddress)
        }
        precondition(status == 1, "OpenSSL's HMAC failed")
        return output
    }

    /// Compares in time that does not depend on where the inputs differ.
    public static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        guard left.count == right.count else { return false }
        return left.withUnsafeBytes { l in
            right.withUnsafeBytes { r in CRYPTO_memcmp(l.baseAddress, r.baseAddress, left.count) == 0 }
        }
    }

    /// `bytes` as lowercase hex digits: the server's one hex encoder.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func unhex(_ text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }
}
