/// TEXT escaping (RFC 5545 §3.3.11) and parameter caret escaping (RFC 6868).
public enum TextEscaping {
    /// Escapes text for a TEXT value: `\` `;` `,` and newlines.
    public static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x3B || $0 == 0x2C || $0 == 0x0A || $0 == 0x0D }) else {
            return text
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 8)
        var previousWasCR = false
        for byte in text.utf8 {
            switch byte {
            case 0x5C, 0x3B, 0x2C:
                bytes.append(0x5C)
                bytes.append(byte)
            case 0x0D:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "n"))
            case 0x0A:
                // CRLF is one newline.
                if !previousWasCR {
                    bytes.append(0x5C)
                    bytes.append(UInt8(ascii: "n"))
                }
            default:
                bytes.append(byte)
            }
            previousWasCR = byte == 0x0D
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a TEXT value: `\n`/`\N` become a newline, `\\` `\;` `\,` their
    /// character. A backslash before anything else is dropped and the character
    /// kept (the lenient reading of an invalid escape such as `\:`).
    public static func unescape(_ text: String) -> String {
        text.withUTF8Bytes { unescape($0) }
    }

    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(0x5C) else { return String(decoding: bytes, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x5C, index + 1 < bytes.count {
                let next = bytes[index + 1]
                output.append(next == UInt8(ascii: "n") || next == UInt8(ascii: "N") ? 0x0A : next)
                index += 2
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Splits a multi-valued TEXT value (CATEGORIES, RESOURCES) on unescaped commas and unescapes each item.
    public static func splitList(_ text: String) -> [String] {
        text.withUTF8Bytes { splitList($0) }
    }

    static func splitList(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        ValueSyntax.splitList(bytes, honoringEscapes: true).map { unescape($0) }
    }

    /// Where a TEXT value breaks RFC 5545's escaping rules, if anywhere: the
    /// byte offset and what is wrong. `singleValued` also rejects an unescaped `,`.
    static func problem(in bytes: UnsafeBufferPointer<UInt8>, singleValued: Bool) -> (offset: Int, message: String)? {
        var index = ByteScan.firstTextSpecial(bytes, from: 0)
        while index < bytes.count {
            switch bytes[index] {
            case 0x5C:
                if let problem = invalidEscape(at: index, in: bytes) { return problem }
                index += 2
            case 0x3B:
                return (index, "unescaped ';' in a TEXT value; write \\;")
            case 0x2C where singleValued:
                return (index, "unescaped ',' in a single-valued TEXT property; write \\,")
            default:
                index += 1
            }
            index = ByteScan.firstTextSpecial(bytes, from: index)
        }
        return nil
    }

    /// Where a TEXT value holds an escape RFC 5545 §3.3.11 does not define (a backslash
    /// before anything but `\\ ; , n N`, or at the end), if anywhere. Unlike an unescaped
    /// separator, such a value has no one reading: `\"` is `"` to some readers and `\"`
    /// to others.
    static func escapeProblem(in bytes: UnsafeBufferPointer<UInt8>) -> (offset: Int, message: String)? {
        var index = 0
        while index < bytes.count {
            guard bytes[index] == 0x5C else {
                index += 1
                continue
            }
            if let problem = invalidEscape(at: index, in: bytes) { return problem }
            index += 2
        }
        return nil
    }

    /// What is wrong with the escape starting at `index` (a backslash), nil when it is one
    /// of RFC 5545 §3.3.11's `\\ \; \, \n \N` (two bytes long).
    static func invalidEscape(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (offset: Int, message: String)? {
        guard index + 1 < bytes.count else {
            return (index, "a TEXT value ends with a lone backslash; write \\\\ for a backslash")
        }
        switch bytes[index + 1] {
        case 0x5C, 0x3B, 0x2C, UInt8(ascii: "n"), UInt8(ascii: "N"): return nil
        default:
            let shown = String(decoding: [bytes[index + 1]], as: UTF8.self)
            return (index, "invalid TEXT escape \\\(shown); only \\\\ \\; \\, \\n and \\N are allowed")
        }
    }

    /// Escapes the unescaped `,` and `;` of a single-valued TEXT value, leaving the rest as written.
    static func repairSeparators(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 4)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x5C, index + 1 < bytes.count {
                output.append(byte)
                output.append(bytes[index + 1])
                index += 2
                continue
            }
            if byte == 0x2C || byte == 0x3B { output.append(0x5C) }
            output.append(byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes RFC 6868 caret escapes in a parameter value: `^n` newline, `^^` caret, `^'` double quote.
    static func decodeCaret(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(0x5E) else { return String(decoding: bytes, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x5E, index + 1 < bytes.count {
                switch bytes[index + 1] {
                case UInt8(ascii: "n"):
                    output.append(0x0A)
                    index += 2
                    continue
                case 0x5E:
                    output.append(0x5E)
                    index += 2
                    continue
                case UInt8(ascii: "'"):
                    output.append(0x22)
                    index += 2
                    continue
                default: break  // RFC 6868 §3: any other ^ is kept as it is.
                }
            }
            output.append(byte)
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}

/// Which characters a value may carry into iCalendar bytes (RFC 5545 §3.1: a content
/// line holds no control character but HTAB), for the writers that build values from
/// what people and programs send.
public enum ValueCharacters {
    /// The first character of `text` that no value may hold: a control character
    /// (U+0000–U+001F but HTAB, and U+007F). With `allowingLineBreaks`, CR and LF pass
    /// too: TEXT escapes them as `\n`.
    public static func forbidden(in text: String, allowingLineBreaks: Bool) -> Unicode.Scalar? {
        text.unicodeScalars.first { scalar in
            let value = scalar.value
            guard value < 0x20 || value == 0x7F else { return false }
            if value == 0x09 { return false }
            return !(allowingLineBreaks && (value == 0x0A || value == 0x0D))
        }
    }

    /// `U+000A`: how a message names a character.
    public static func name(of scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// `text` with each line break (CRLF, CR or LF) written as the TEXT escape `\n`.
    public static func withoutLineBreaks(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 8)
        var previousWasCR = false
        for byte in text.utf8 {
            switch byte {
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0A where previousWasCR: break
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            default: bytes.append(byte)
            }
            previousWasCR = byte == 0x0D
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
