/// A read-only set of ASCII names looked up by the name's bytes, ignoring
/// case, so the parser can identify a property or component without making
/// or hashing a `String`. A lookup answers an index into ``names`` (and into
/// any array the owner keeps in the same order).
struct NameTable: Sendable {
    /// The canonical (upper-case) names, in index order.
    let names: [String]
    /// An open-addressing hash table of the names, keyed by their first 16
    /// bytes and length; a power of two in size and at most a quarter full, so
    /// a lookup nearly always reads one slot.
    private let slots: [Slot]
    private let mask: Int
    /// Names longer than 16 bytes are compared in full against this.
    private let pool: [UInt8]

    private struct Slot {
        /// The name's first 16 bytes as two little-endian words, zero-padded.
        var low: UInt64 = 0
        var high: UInt64 = 0
        /// The name's length; 0 marks an empty slot.
        var count: Int32 = 0
        var index: Int32 = 0
        var poolStart: Int32 = 0
    }

    @inline(__always)
    private static func hash(_ low: UInt64, _ high: UInt64, _ count: Int) -> Int {
        let mixed = (low ^ high &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: count)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> 32)
    }

    init(_ names: [String]) {
        self.names = names
        var size = 16
        while size < names.count * 4 { size *= 2 }
        var slots = [Slot](repeating: Slot(), count: size)
        var pool: [UInt8] = []
        for (index, name) in names.enumerated() {
            let bytes = Array(name.utf8)
            precondition(!bytes.isEmpty && bytes.count <= Int(Int32.max), "a name table's names are non-empty")
            let (low, high) = bytes.withUnsafeBufferPointer { Self.words($0) }
            var slot = Self.hash(low, high, bytes.count) & (size - 1)
            while slots[slot].count != 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Slot(
                low: low, high: high, count: Int32(bytes.count), index: Int32(index), poolStart: Int32(pool.count))
            pool.append(contentsOf: bytes)
        }
        self.slots = slots
        self.mask = size - 1
        self.pool = pool
    }

    /// The first 16 bytes of `bytes` as two little-endian words, zero-padded,
    /// with bit 5 of every byte set: for name bytes (letters, digits, `-`) that
    /// folds case and changes nothing else. With `readable` (at least 16)
    /// bytes readable from the start, the words are loaded whole and masked.
    @inline(__always)
    static func words(_ bytes: UnsafeBufferPointer<UInt8>, readable: Int = 0) -> (UInt64, UInt64) {
        let count = min(bytes.count, 16)
        var low: UInt64 = 0
        var high: UInt64 = 0
        if readable >= 16, let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        } else {
            for offset in 0..<count {
                let byte = UInt64(bytes[offset]) << UInt64(offset % 8 * 8)
                if offset < 8 { low |= byte } else { high |= byte }
            }
        }
        let lowMask: UInt64 = count >= 8 ? ~0 : (1 << UInt64(count * 8)) &- 1
        let highMask: UInt64 = count >= 16 ? ~0 : count <= 8 ? 0 : (1 << UInt64((count - 8) * 8)) &- 1
        return ((low | caseBits) & lowMask, (high | caseBits) & highMask)
    }

    private static let caseBits: UInt64 = 0x2020_2020_2020_2020

    /// The index of the name spelled by `bytes`, compared without regard to ASCII case.
    /// `bytes` must be name bytes (letters, digits and `-`, as the parser has
    /// checked); `readable`: how many bytes may be read from the start of
    /// `bytes` (the rest of the line a name is in), so whole words can be loaded.
    @inline(__always)
    func index(of bytes: UnsafeBufferPointer<UInt8>, readable: Int = 0) -> Int? {
        let count = bytes.count
        guard count > 0 else { return nil }
        let (low, high) = Self.words(bytes, readable: readable)
        var slot = Self.hash(low, high, count) & mask
        return slots.withUnsafeBufferPointer { slots in
            while true {
                let entry = slots[slot]
                if entry.count == 0 { return nil }
                if Int(entry.count) == count && entry.low == low && entry.high == high
                    && (count <= 16 || restMatches(bytes, at: Int(entry.poolStart)))
                {
                    return Int(entry.index)
                }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Whether the bytes of `bytes` after the first 16 spell the pooled name at `start`, ignoring case.
    private func restMatches(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        for offset in 16..<bytes.count where pool[start + offset] | 0x20 != bytes[offset] | 0x20 { return false }
        return true
    }

    /// The index of a name given as a string, of any characters.
    func index(of name: String) -> Int? {
        name.withUTF8Bytes { bytes in
            bytes.allSatisfy(ByteClass.isName) ? index(of: bytes) : nil
        }
    }
}
