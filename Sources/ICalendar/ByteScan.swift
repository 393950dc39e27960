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
    /// ill-formed UTF-8 sequence. Runs of ASCII without controls go eight bytes
    /// at a time.
    static func scanValue(_ bytes: UnsafeBufferPointer<UInt8>) -> (control: Int?, invalidUTF8: Int?) {
        guard let base = bytes.baseAddress else { return (nil, nil) }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var control: Int?
        var invalid: Int?
        var index = 0
        while index < count {
            if index + 8 <= count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                if word & highs == 0 && !hasBelow(word, 0x20) && !has(word, 0x7F) {
                    index += 8
                    continue
                }
            }
            // A block of about eight bytes one at a time before the next word test, so mixed
            // text (ASCII between multibyte characters) is not tested word by word at every byte.
            let stop = min(index + 8, count)
            while index < stop {
                let lead = base[index]
                if lead < 0x80 {
                    if control == nil && ((lead < 0x20 && lead != 0x09) || lead == 0x7F) {
                        control = index
                        if invalid != nil { return (control, invalid) }
                    }
                    index += 1
                    continue
                }
                let length = sequenceLength(base, index, count, lead)
                if length == 0 {
                    if invalid == nil {
                        invalid = index
                        if control != nil { return (control, invalid) }
                    }
                    index += 1
                } else {
                    index += length
                }
            }
        }
        return (control, invalid)
    }

    /// The length of the well-formed UTF-8 sequence starting with `lead` at `index`, or 0.
    @inline(__always)
    private static func sequenceLength(_ base: UnsafePointer<UInt8>, _ index: Int, _ count: Int, _ lead: UInt8) -> Int {
        @inline(__always) func inRange(_ offset: Int, _ low: UInt8, _ high: UInt8) -> Bool {
            index + offset < count && base[index + offset] >= low && base[index + offset] <= high
        }
        switch lead {
        case 0xC2...0xDF:
            return inRange(1, 0x80, 0xBF) ? 2 : 0
        case 0xE0...0xEF:
            // E0 needs A0…BF (no overlong forms); ED needs 80…9F (no UTF-16 surrogates).
            let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
            let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
            return inRange(1, low, high) && inRange(2, 0x80, 0xBF) ? 3 : 0
        case 0xF0...0xF4:
            let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
            let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
            return inRange(1, low, high) && inRange(2, 0x80, 0xBF) && inRange(3, 0x80, 0xBF) ? 4 : 0
        default:
            return 0
        }
    }
}
