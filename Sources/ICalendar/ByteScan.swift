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

    /// One pass over a value: the first control character other than HTAB
    /// (RFC 5545 §3.1 keeps them out of values) and the first byte of the first
    /// ill-formed UTF-8 sequence.
    ///
    /// Runs of printable ASCII go eight bytes at a time, and a well-formed
    /// multibyte character is checked in one four-byte load; a value with a
    /// problem (rare) is scanned again byte by byte to find both positions.
    static func scanValue(_ bytes: UnsafeBufferPointer<UInt8>) -> (control: Int?, invalidUTF8: Int?) {
        guard let base = bytes.baseAddress else { return (nil, nil) }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                // A byte below 0x20 borrows, 0x7F carries into its high bit, and
                // 0x80 and up have it already: the lowest such byte always shows.
                if ((word &- ones &* 0x20) | (word &+ ones) | word) & highs == 0 {
                    index += 8
                    continue
                }
            }
            // About eight bytes one at a time before the next word test, so mixed
            // text (ASCII between multibyte characters) is not tested word by word at every byte.
            let stop = min(index + 8, count)
            while index < stop {
                let lead = base[index]
                if lead < 0x80 {
                    if (lead < 0x20 && lead != 0x09) || lead == 0x7F { return scanSlowly(bytes) }
                    index += 1
                } else {
                    let length = sequenceLength(bytes, at: index)
                    if length == 0 { return scanSlowly(bytes) }
                    index += length
                }
            }
        }
        return (nil, nil)
    }

    /// The length of the well-formed UTF-8 sequence at the start of `word`
    /// (four bytes, the first in the low byte) whose lead byte is 0x80 or above, or 0.
    @inline(__always)
    private static func sequenceLength(_ word: UInt32) -> Int {
        // C2…DF, then a continuation byte.
        if word & 0xC0E0 == 0x80C0 { return word & 0x1E != 0 ? 2 : 0 }
        // E0…EF and two continuation bytes; not E0 with 80…9F (overlong) nor ED with A0…BF (a UTF-16 surrogate).
        if word & 0xC0_C0F0 == 0x80_80E0 {
            let bits = word & 0x200F
            return bits != 0 && bits != 0x200D ? 3 : 0
        }
        // F0…F4 and three continuation bytes, for planes 1 to 16.
        if word & 0xC0C0_C0F8 == 0x8080_80F0 {
            let plane = (word & 0x07) << 2 | (word >> 12) & 0x03
            return plane >= 1 && plane <= 16 ? 4 : 0
        }
        return 0
    }

    /// ``scanValue(_:)`` one byte at a time, going on past the first problem to find the other kind too.
    private static func scanSlowly(_ bytes: UnsafeBufferPointer<UInt8>) -> (control: Int?, invalidUTF8: Int?) {
        let base = bytes.baseAddress!
        let count = bytes.count
        var control: Int?
        var invalid: Int?
        var index = 0
        while index < count && (control == nil || invalid == nil) {
            let lead = base[index]
            if lead < 0x80 {
                if control == nil && ((lead < 0x20 && lead != 0x09) || lead == 0x7F) { control = index }
                index += 1
                continue
            }
            let length = sequenceLength(bytes, at: index)
            if length == 0 {
                if invalid == nil { invalid = index }
                index += 1
            } else {
                index += length
            }
        }
        return (control, invalid)
    }

    /// The length of the well-formed UTF-8 sequence at `index` (whose lead byte
    /// is 0x80 or above), or 0. Four bytes are loaded at once; near the end
    /// they are zero-padded, and a zero byte is no continuation byte.
    @inline(__always)
    private static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        if index + 4 <= bytes.count {
            let word = UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: index, as: UInt32.self)
            return sequenceLength(UInt32(littleEndian: word))
        }
        var word: UInt32 = 0
        for offset in 0..<(bytes.count - index) { word |= UInt32(bytes[index + offset]) << UInt32(offset * 8) }
        return sequenceLength(word)
    }
}

/// What each byte is to the content-line scanner, so a scan tests one table
/// entry per byte instead of a chain of comparisons.
enum ByteClass {
    /// `A`–`Z`, `a`–`z`, `0`–`9` and `-`: the bytes of names.
    static let name: UInt8 = 1
    /// `,`, `;` and `:`: where an unquoted parameter value ends.
    static let parameterEnd: UInt8 = 2
    /// `"`.
    static let quote: UInt8 = 4
    /// Control characters other than HTAB, and DEL: never allowed in parameter values.
    static let control: UInt8 = 8
    /// CR, LF, `"` and `^`: written caret-escaped in parameter values (RFC 6868).
    static let caret: UInt8 = 16

    /// Whether `byte` may be part of a property, parameter or component name.
    @inline(__always)
    static func isName(_ byte: UInt8) -> Bool { table[Int(byte)] & name != 0 }

    /// The class bits of every byte value, built once and never freed: read-only
    /// once built, so sharing it between threads is safe. A raw pointer
    /// because reading it then needs no bounds check.
    nonisolated(unsafe) static let table: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for byte in 0..<256 {
            var bits: UInt8 = 0
            switch UInt8(byte) {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D: bits |= name
            case 0x2C, 0x3B, 0x3A: bits |= parameterEnd
            case 0x22: bits |= quote | caret
            case 0x5E: bits |= caret
            case 0x09: break
            case 0x0A, 0x0D: bits |= control | caret
            case 0x00...0x1F, 0x7F: bits |= control
            default: break
            }
            table[byte] = bits
        }
        return UnsafePointer(table)
    }()
}
