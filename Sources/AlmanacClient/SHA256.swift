// SHA-256 (FIPS 180-4 §6.2) and HMAC (RFC 2104) in Swift, for webhook signatures:
// CryptoKit is not on Linux and the client depends on nothing but Foundation. Checked
// against the NIST and RFC 4231 vectors, and against OpenSSL on random inputs.

/// SHA-256, fed in pieces.
struct SHA256 {
    /// The digest's length in bytes.
    static let digestCount = 32
    /// The block's length in bytes.
    static let blockCount = 64

    /// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of
    /// the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// §5.3.3: the first 32 bits of the fractional parts of the square roots of the first
    /// 8 primes.
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes not yet making a whole block.
    private var pending: [UInt8] = []
    /// How many bytes were fed in all.
    private var length: UInt64 = 0

    init() { pending.reserveCapacity(Self.blockCount) }

    /// The digest of `bytes`.
    static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// Feeds `bytes`.
    mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            pending.append(byte)
            if pending.count == Self.blockCount {
                compress(pending)
                pending.removeAll(keepingCapacity: true)
            }
            length &+= 1
        }
    }

    /// The digest of everything fed (§5.1.1: a 1 bit, zeros to 56 bytes mod 64, then the
    /// length in bits, big-endian).
    consuming func finalize() -> [UInt8] {
        let bits = length &* 8
        var tail = pending
        tail.append(0x80)
        while tail.count % Self.blockCount != 56 { tail.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> shift)) }
        for start in stride(from: 0, to: tail.count, by: Self.blockCount) {
            compress(tail[start..<(start + Self.blockCount)])
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(Self.digestCount)
        for word in state {
            for shift in stride(from: 24, through: 0, by: -8) {
                digest.append(UInt8(truncatingIfNeeded: word >> shift))
            }
        }
        return digest
    }

    /// §6.2.2: one 64-byte block into the state.
    private mutating func compress(_ block: some RandomAccessCollection<UInt8>) {
        var schedule = [UInt32](repeating: 0, count: 64)
        var index = block.startIndex
        for word in 0..<16 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                value = value << 8 | UInt32(block[index])
                index = block.index(after: index)
            }
            schedule[word] = value
        }
        for word in 16..<64 {
            let s0 = rotate(schedule[word - 15], 7) ^ rotate(schedule[word - 15], 18) ^ (schedule[word - 15] >> 3)
            let s1 = rotate(schedule[word - 2], 17) ^ rotate(schedule[word - 2], 19) ^ (schedule[word - 2] >> 10)
            schedule[word] = schedule[word - 16] &+ s0 &+ schedule[word - 7] &+ s1
        }
        var a = state[0]
        var b = state[1]
        var c = state[2]
        var d = state[3]
        var e = state[4]
        var f = state[5]
        var g = state[6]
        var h = state[7]
        for round in 0..<64 {
            let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choice = (e & f) ^ (~e & g)
            let temp1 = h &+ sum1 &+ choice &+ Self.roundConstants[round] &+ schedule[round]
            let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temp2 = sum0 &+ majority
            h = g
            g = f
            f = e
            e = d &+ temp1
            d = c
            c = b
            b = a
            a = temp1 &+ temp2
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    private func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value >> count | value << (32 - count) }
}

/// HMAC-SHA256 (RFC 2104 §2): H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ message)), a key longer
/// than a block hashed first.
enum HMACSHA256 {
    /// The MAC of `message` under `key`.
    static func authenticationCode(for message: some Sequence<UInt8>, key: some Collection<UInt8>) -> [UInt8] {
        var block = key.count > SHA256.blockCount ? SHA256.hash(key) : Array(key)
        block += [UInt8](repeating: 0, count: SHA256.blockCount - block.count)
        var inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let innerDigest = inner.finalize()
        var outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(innerDigest)
        return outer.finalize()
    }
}
