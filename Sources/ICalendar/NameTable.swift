/// A read-only set of ASCII names looked up by the name's bytes, ignoring
/// case, so the parser can identify a property or component without making
/// or hashing a `String`. A lookup answers an index into ``names`` (and into
/// any array the owner keeps in the same order).
struct NameTable: Sendable {
    /// The canonical (upper-case) names, in index order.
    let names: [String]
    private let bucketStarts: [Int32]
    /// Per bucket slot: the name's index and its length.
    private let slots: [(index: Int32, count: Int32)]
    /// Per slot: the name's first 16 bytes as two little-endian words, zero-padded.
    private let words: [(UInt64, UInt64)]
    /// Names longer than 16 bytes are compared in full against this.
    private let pool: [UInt8]
    private let poolStarts: [Int32]

    private static func bucket(count: Int, first: UInt8) -> Int {
        (count & 31) << 5 | Int(first & 31)
    }

    init(_ names: [String]) {
        self.names = names
        var buckets = [[Int]](repeating: [], count: 1024)
        for (index, name) in names.enumerated() {
            buckets[Self.bucket(count: name.utf8.count, first: name.utf8.first!)].append(index)
        }
        var starts: [Int32] = []
        var slots: [(index: Int32, count: Int32)] = []
        var words: [(UInt64, UInt64)] = []
        var pool: [UInt8] = []
        var poolStarts: [Int32] = []
        for bucket in buckets {
            starts.append(Int32(slots.count))
            for index in bucket {
                let bytes = Array(names[index].utf8)
                slots.append((Int32(index), Int32(bytes.count)))
                words.append(Self.words(bytes.withUnsafeBufferPointer { $0 }))
                poolStarts.append(Int32(pool.count))
                pool.append(contentsOf: bytes)
            }
        }
        starts.append(Int32(slots.count))
        bucketStarts = starts
        self.slots = slots
        self.words = words
        self.pool = pool
        self.poolStarts = poolStarts
    }

    /// The first 16 bytes of `bytes` as two little-endian words, zero-padded, upper-cased.
    @inline(__always)
    static func words(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        var low: UInt64 = 0
        var high: UInt64 = 0
        let count = min(bytes.count, 16)
        withUnsafeMutableBytes(of: &low) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[0..<min(count, 8)]))
        }
        if count > 8 {
            withUnsafeMutableBytes(of: &high) { target in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[8..<count]))
            }
        }
        return (upper(low), upper(high))
    }

    /// ASCII lower-case letters to upper case, eight bytes at once.
    @inline(__always)
    static func upper(_ word: UInt64) -> UInt64 {
        let sevenBits = word & 0x7F7F_7F7F_7F7F_7F7F
        let atLeastA = sevenBits &+ 0x1F1F_1F1F_1F1F_1F1F  // high bit set where byte >= 0x61
        let aboveZ = sevenBits &+ 0x0505_0505_0505_0505  // high bit set where byte >= 0x7B
        let lower = atLeastA & ~aboveZ & ~word & 0x8080_8080_8080_8080
        return word &- (lower >> 2)
    }

    /// The index of the name spelled by `bytes`, compared without regard to ASCII case.
    @inline(__always)
    func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = bytes.first else { return nil }
        let bucket = Self.bucket(count: bytes.count, first: first)
        let end = Int(bucketStarts[bucket + 1])
        var slot = Int(bucketStarts[bucket])
        guard slot < end else { return nil }
        let key = Self.words(bytes)
        while slot < end {
            let (index, count) = slots[slot]
            if Int(count) == bytes.count, words[slot] == key {
                if count <= 16 { return Int(index) }
                let start = Int(poolStarts[slot])
                let rest = pool[(start + 16)..<(start + Int(count))]
                if zip(rest, bytes[16...]).allSatisfy({ $0 == ($1 >= 0x61 && $1 <= 0x7A ? $1 - 0x20 : $1) }) {
                    return Int(index)
                }
            }
            slot += 1
        }
        return nil
    }

    /// The index of a name given as a string.
    func index(of name: String) -> Int? {
        name.withUTF8Bytes { index(of: $0) }
    }
}
