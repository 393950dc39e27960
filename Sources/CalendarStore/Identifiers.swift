import Accounts

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fresh identifiers: random (version 4) UUIDs in their usual text form.
enum Identifiers {
    /// `count` random bytes from glibc's arc4random_buf (a CSPRNG): one call, no
    /// syscall per word once seeded.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in arc4random_buf(buffer.baseAddress!, buffer.count) }
        return bytes
    }

    /// `count` random bytes as lowercase hex digits.
    static func randomHex(bytes count: Int) -> String { Crypto.hex(randomBytes(count)) }

    static func newUUID() -> String {
        var bytes = randomBytes(16)
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let digits = Array("0123456789ABCDEF".utf8)
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A UID for a new event (RFC 5545 §3.8.4.7 suggests a globally unique text).
    static func newUID() -> String { newUUID() }

    /// A resource name for a UID: the UID where it is safe in a URL path segment,
    /// else a new UUID, with `.ics`.
    static func resourceName(forUID uid: String) -> String {
        let safe =
            uid.utf8.count <= 200 && !uid.isEmpty
            && uid.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "@")
            }
            && !uid.hasPrefix(".")
        return (safe ? uid : newUUID()) + ".ics"
    }

    /// A strong ETag for stored bytes written at a change sequence: the sequence makes
    /// it change on every write, the content hash (FNV-1a, 64 bits) ties it to the bytes.
    static func etag(for data: [UInt8], sequence: Int) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return "\"\(sequence)-\(String(hash, radix: 16).leftPadded(to: 16))\""
    }
}

extension String {
    /// Padded with zeros on the left to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
