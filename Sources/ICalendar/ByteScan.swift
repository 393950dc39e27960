/// Word-at-a-time byte searches for the parser's per-value scans.
///
/// Each test looks at eight bytes at once with the classic "has zero byte"
/// bit trick, which answers exactly whether a word holds a matching byte;
/// only a word that does is looked at byte by byte.
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    @inline(__always)
    private static func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & highs != 0 }

    @inline(__always)
    private static func has(_ word: UInt64, _ byte: UInt8) -> Bool { hasZero(word ^ (ones &* UInt64(byte))) }

    @inline(__always)
    private static func hasBelow(_ word: UInt64, _ limit: UInt8) -> Bool {
        (word &- ones &* UInt64(limit)) & ~word & highs != 0
    }

    /// The first `\`, `;` or `,` at or after `start`, or `bytes.count`.
    static func firstTextSpecial(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        let count = bytes.count
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        while index + 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if has(word, 0x5C) || has(word, 0x3B) || has(word, 0x2C) { break }
            index += 8
        }
        while index < count {
            let byte = bytes[index]
            if byte == 0x5C || byte == 0x3B || byte == 0x2C { return index }
            index += 1
        }
        return count
    }

    /// The first control character other than HTAB (RFC 5545 §3.1 excludes them from values), or `nil`.
    static func firstControl(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        var index = 0
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        while index < count {
            if index + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if !hasBelow(word, 0x20) && !has(word, 0x7F) {
                    index += 8
                    continue
                }
            }
            let end = min(index + 8, count)
            while index < end {
                let byte = bytes[index]
                if (byte < 0x20 && byte != 0x09) || byte == 0x7F { return index }
                index += 1
            }
        }
        return nil
    }
}
