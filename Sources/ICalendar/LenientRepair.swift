/// What lenient parsing rewrites, and how: the near-misses real exporters
/// write, each turned into the form RFC 5545 requires, or nothing when the
/// producer's meaning cannot be told. `docs/icalendar-diagnostics.md` lists
/// each recovery.
enum LenientRepair {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// A value lenient mode can read after all.
    enum ValueRepair: Equatable {
        /// The value as RFC 5545 writes it, and what was changed.
        case replace(String, message: String)
        /// The property carries nothing (an empty `RRULE:`) and is dropped.
        case drop(message: String)
    }

    /// Properties whose empty value means "no instances" rather than a broken one.
    static let droppableWhenEmpty: Set<String> = ["RRULE", "EXRULE", "RDATE", "EXDATE"]

    /// The repair of an invalid `value` of a known property, or nil when there is none.
    static func repair(name: String, kind: PropertyKind, type explicitType: ValueType?, value: Bytes) -> ValueRepair? {
        if value.allSatisfy({ $0 == 0x20 || $0 == 0x09 }), droppableWhenEmpty.contains(name) {
            return .drop(message: "\(name) with an empty value (dropped; the component is kept)")
        }
        let type = explicitType ?? kind.defaultType
        switch type {
        case .recur:
            return rule(value).map { .replace($0.text, message: "\(name) " + $0.message) }
        case .dateTime, .date:
            var items: [String] = []
            for item in ValueSyntax.splitList(value, honoringEscapes: false) {
                let valid = type == .date ? ValueSyntax.date(item) != nil : ValueSyntax.dateTime(item) != nil
                if valid {
                    items.append(String(decoding: item, as: UTF8.self))
                    continue
                }
                guard let repaired = dateTime(item, asDate: type == .date) else { return nil }
                items.append(repaired)
            }
            let text = items.joined(separator: ",")
            if kind.requiresUTC, !text.hasSuffix("Z") { return nil }
            let shape = type == .date ? "YYYYMMDD" : "YYYYMMDDTHHMMSS"
            return .replace(
                text, message: "\(name) value \"\(String(decoding: value, as: UTF8.self))\" read as \(text) (\(shape))")
        case .duration:
            return duration(value).map {
                let why =
                    $0.contains("T")
                    ? "hours or seconds need a T before them" : "a T with no hours, minutes or seconds after it"
                return .replace(
                    $0, message: "\(name) value \"\(String(decoding: value, as: UTF8.self))\" read as \($0) (\(why))")
            }
        default:
            return nil
        }
    }

    /// A DURATION near-miss in its RFC 5545 §3.3.6 form: a `T` that nothing follows
    /// (`P1DT`, which `dur-time = "T" (dur-hour / dur-minute / dur-second)` does not
    /// allow) dropped, when what is left is a valid duration. Nil otherwise: `PT` alone
    /// stays invalid, for it says no length at all.
    ///
    /// Also a time without its `T`: `-P300S` (calcurse writes every alarm so) is read as
    /// `-PT300S`, and `P2H` as `PT2H`. Only seconds or hours, after nothing but the sign
    /// and `P`: `P5M` stays invalid, for in ISO 8601 it means five months.
    static func duration(_ value: Bytes) -> String? {
        guard let last = value.last else { return nil }
        if last | 0x20 == UInt8(ascii: "t") {
            let trimmed = Bytes(rebasing: value[..<(value.count - 1)])
            guard ValueSyntax.duration(trimmed) != nil else { return nil }
            return String(decoding: trimmed, as: UTF8.self)
        }
        guard last | 0x20 == UInt8(ascii: "s") || last | 0x20 == UInt8(ascii: "h"),
            let p = value.firstIndex(where: { $0 | 0x20 == UInt8(ascii: "p") }),
            value[..<p].allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") }), p <= 1,
            value[(p + 1)..<(value.count - 1)].allSatisfy({ ValueSyntax.digit($0) != nil }), p + 1 < value.count - 1
        else { return nil }
        let text =
            String(decoding: value[...p], as: UTF8.self).uppercased() + "T"
            + String(decoding: value[(p + 1)...], as: UTF8.self).uppercased()
        let valid = Array(text.utf8).withUnsafeBufferPointer { ValueSyntax.duration($0) != nil }
        return valid ? text : nil
    }

    /// A DATE or DATE-TIME near-miss in its RFC 5545 form: dashes and colons of
    /// ISO 8601 removed, `t`/`z` upper-cased, missing seconds (or minutes and
    /// seconds) taken as zero, fractions of a second dropped. Nil when the result
    /// is still not a valid value (or nothing needed changing).
    static func dateTime(_ item: Bytes, asDate: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(item.count + 4)
        var index = 0
        while index < item.count {
            let byte = item[index]
            switch byte {
            case UInt8(ascii: "-"), UInt8(ascii: ":"):
                break
            case UInt8(ascii: "t"): bytes.append(UInt8(ascii: "T"))
            case UInt8(ascii: "z"): bytes.append(UInt8(ascii: "Z"))
            case UInt8(ascii: "."):
                // A fraction of a second: skip its digits.
                while index + 1 < item.count, ValueSyntax.digit(item[index + 1]) != nil { index += 1 }
            default: bytes.append(byte)
            }
            index += 1
        }
        let isUTC = bytes.last == UInt8(ascii: "Z")
        if isUTC { bytes.removeLast() }
        if asDate {
            guard bytes.count == 8 else { return nil }
        } else {
            guard bytes.count >= 11, bytes[8] == UInt8(ascii: "T") else { return nil }
            switch bytes.count {
            case 11: bytes += Array("0000".utf8)
            case 13: bytes += Array("00".utf8)
            case 15: break
            default: return nil
            }
            if isUTC { bytes.append(UInt8(ascii: "Z")) }
        }
        let valid = bytes.withUnsafeBufferPointer {
            asDate ? ValueSyntax.date($0) != nil : ValueSyntax.dateTime($0) != nil
        }
        guard valid, !bytes.elementsEqual(item) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An RRULE with its invalid parts dropped (a near-miss UNTIL repaired), when
    /// what is left is a valid rule that means what the producer meant: FREQ must be
    /// readable, a rule that had COUNT or UNTIL keeps a valid one (dropping never makes
    /// a series endless), and only parts whose loss changes no instance may go: a
    /// repeat of a part kept, an invalid INTERVAL (read as 1, as readers do), an invalid
    /// COUNT beside a valid UNTIL or the reverse. An invalid BY… part, WKST, RSCALE or
    /// SKIP is refused: without it the rule makes other instances (`BYDAY=+1,3MO`
    /// dropped would repeat every month on every day). Parts kept are kept as written.
    static func rule(_ value: Bytes) -> (text: String, message: String)? {
        var parts: [[UInt8]] = []
        var start = 0
        while start <= value.count {
            var end = start
            while end < value.count, value[end] != UInt8(ascii: ";") { end += 1 }
            if end > start { parts.append(Array(value[start..<end])) }
            start = end + 1
        }
        func name(_ part: [UInt8]) -> String {
            let equals = part.firstIndex(of: UInt8(ascii: "=")) ?? part.count
            return String(decoding: part[..<equals], as: UTF8.self).uppercased()
        }
        func parses(_ text: [UInt8]) -> Bool {
            text.withUnsafeBufferPointer { bytes in
                if case .success = RecurrenceRule.parse(bytes, strict: false) { return true }
                return false
            }
        }
        guard let frequency = parts.first(where: { name($0) == "FREQ" }), parses(frequency) else { return nil }
        var kept: [[UInt8]] = []
        var seen: Set<String> = []
        var notes: [String] = []
        var dropped: [[UInt8]] = []
        for var part in parts {
            let partName = name(part)
            if partName == "UNTIL", let equals = part.firstIndex(of: UInt8(ascii: "=")) {
                let until = Array(part[(equals + 1)...])
                let valid = until.withUnsafeBufferPointer {
                    ValueSyntax.dateOrDateTime($0, type: nil, tzid: nil) != nil
                }
                if !valid, let repaired = until.withUnsafeBufferPointer({ dateTime($0, asDate: false) }) {
                    part = Array("UNTIL=".utf8) + Array(repaired.utf8)
                    notes.append("UNTIL read as \(repaired)")
                }
            }
            let candidate = partName == "FREQ" ? part : frequency + [UInt8(ascii: ";")] + part
            if !parses(candidate) || !seen.insert(partName).inserted {
                notes.append("dropped \(String(decoding: part, as: UTF8.self))")
                dropped.append(part)
                continue
            }
            kept.append(part)
        }
        let wasBounded = parts.contains { ["COUNT", "UNTIL"].contains(name($0)) }
        let isBounded = kept.contains { ["COUNT", "UNTIL"].contains(name($0)) }
        guard !notes.isEmpty, !wasBounded || isBounded else { return nil }
        let keepsMeaning = dropped.allSatisfy { part in
            switch name(part) {
            case "INTERVAL", "COUNT", "UNTIL": return true
            default: return kept.contains(part)
            }
        }
        guard keepsMeaning else { return nil }
        let text = kept.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ";")
        let valid = Array(text.utf8).withUnsafeBufferPointer { bytes in
            if case .success = RecurrenceRule.parse(bytes, strict: true) { return true }
            return false
        }
        guard valid else { return nil }
        return (text, "read as \(text) (" + notes.joined(separator: ", ") + ")")
    }

    // MARK: Content lines

    /// A content line read past whitespace around its name, `;`, `=` and `,`, and
    /// past backslash escapes in unquoted parameter values, written back in RFC 5545
    /// form (such a value quoted when it holds `;`, `,` or `:`).
    struct ToleratedLine {
        var name: String
        /// Whether the name was written in upper case, as exporters write property names.
        var nameIsUpperCase: Bool
        var parameterCount: Int
        /// The line in RFC 5545 form (without the value when there was no `:`).
        var canonical: [UInt8]
        /// Whether the line had a `:` before its value.
        var hasValue: Bool
        var sawWhitespace: Bool
        var sawEscape: Bool
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }

    /// Reads `line` the tolerant way, or nil when it is not a content line even so
    /// (free text: words separated by spaces, a control character, a stray quote).
    static func tolerate(_ line: Bytes) -> ToleratedLine? {
        var index = 0
        var sawWhitespace = false
        var sawEscape = false
        // A name: name characters, with whitespace allowed only beside a '-' or at either end.
        func readName(stoppingAt stops: Set<UInt8>) -> [UInt8]? {
            var name: [UInt8] = []
            var pendingSpace = false
            while index < line.count, !stops.contains(line[index]) {
                let byte = line[index]
                if isSpace(byte) {
                    pendingSpace = true
                    sawWhitespace = true
                } else {
                    guard ByteClass.isName(byte) else { return nil }
                    // "Call me" is two words, not a name; "REFRESH - INTERVAL" is one.
                    if pendingSpace, let last = name.last, last != UInt8(ascii: "-"), byte != UInt8(ascii: "-") {
                        return nil
                    }
                    pendingSpace = false
                    name.append(byte)
                }
                index += 1
            }
            return name.isEmpty ? nil : name
        }
        guard let name = readName(stoppingAt: [UInt8(ascii: ";"), UInt8(ascii: ":")]) else { return nil }
        var canonical = name
        var parameterCount = 0
        while index < line.count, line[index] == UInt8(ascii: ";") {
            index += 1
            guard let parameterName = readName(stoppingAt: [UInt8(ascii: "="), UInt8(ascii: ";"), UInt8(ascii: ":")]),
                index < line.count, line[index] == UInt8(ascii: "=")
            else { return nil }
            index += 1
            canonical.append(UInt8(ascii: ";"))
            canonical += parameterName
            canonical.append(UInt8(ascii: "="))
            parameterCount += 1
            var values: [[UInt8]] = []
            while true {
                while index < line.count, isSpace(line[index]) {
                    index += 1
                    sawWhitespace = true
                }
                var value: [UInt8] = []
                if index < line.count, line[index] == 0x22 {
                    index += 1
                    while index < line.count, line[index] != 0x22 {
                        guard line[index] >= 0x20 || line[index] == 0x09, line[index] != 0x7F else { return nil }
                        value.append(line[index])
                        index += 1
                    }
                    guard index < line.count else { return nil }
                    index += 1
                    while index < line.count, isSpace(line[index]) {
                        index += 1
                        sawWhitespace = true
                    }
                } else {
                    while index < line.count {
                        let byte = line[index]
                        if byte == UInt8(ascii: "\\"), index + 1 < line.count,
                            [UInt8(ascii: ";"), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "\\")].contains(
                                line[index + 1])
                        {
                            value.append(line[index + 1])
                            sawEscape = true
                            index += 2
                            continue
                        }
                        if byte == UInt8(ascii: ";") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") { break }
                        guard byte != 0x22, byte >= 0x20 || byte == 0x09, byte != 0x7F else { return nil }
                        value.append(byte)
                        index += 1
                    }
                    while let last = value.last, isSpace(last) {
                        value.removeLast()
                        sawWhitespace = true
                    }
                }
                values.append(value)
                guard index < line.count, line[index] == UInt8(ascii: ",") else { break }
                index += 1
            }
            for (position, value) in values.enumerated() {
                if position > 0 { canonical.append(UInt8(ascii: ",")) }
                let needsQuotes = value.contains {
                    $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: ":")
                }
                if needsQuotes { canonical.append(0x22) }
                canonical += value
                if needsQuotes { canonical.append(0x22) }
            }
        }
        let hasValue = index < line.count && line[index] == UInt8(ascii: ":")
        if hasValue {
            canonical += Array(line[index...])
        } else if index < line.count {
            return nil
        }
        return ToleratedLine(
            name: name.withUnsafeBufferPointer { ContentParser.upperName($0) },
            nameIsUpperCase: !name.contains { $0 >= 0x61 && $0 <= 0x7A }, parameterCount: parameterCount,
            canonical: canonical, hasValue: hasValue, sawWhitespace: sawWhitespace, sawEscape: sawEscape)
    }

    /// Whether a line without `:` is a property someone wrote without its value
    /// (`ORGANIZER;CN=Acme SE`) rather than text that lost its fold: its name is
    /// in upper case, as exporters write names, and is a known property, an `X-`
    /// name, or carries parameters.
    static func isPropertyWithoutValue(_ tolerated: ToleratedLine) -> Bool {
        guard !tolerated.hasValue, tolerated.nameIsUpperCase else { return false }
        return PropertyKind.lookup(tolerated.name) != nil || tolerated.name.hasPrefix("X-")
            || tolerated.parameterCount > 0
            || tolerated.name == "BEGIN" || tolerated.name == "END"
    }

    /// The optimal string alignment distance of two names (a swap of neighbours counts once).
    static func editDistance(_ left: String, _ right: String) -> Int {
        let a = Array(left.utf8)
        let b = Array(right.utf8)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var best = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    best = min(best, table[i - 2][j - 2] + 1)
                }
                table[i][j] = best
            }
        }
        return table[a.count][b.count]
    }
}

extension Component {
    /// A UID for a component that has none, derived from its content: the same
    /// component always gets the same UID, so importing a file twice updates the
    /// events it made instead of duplicating them (`derived-` and 32 hex digits of
    /// a 128-bit FNV-1a hash of the component's serialization). DTSTAMP is left out:
    /// it says when a feed was generated, not what the event is.
    public var derivedUID: String {
        var content = self
        content.removeProperties(named: "DTSTAMP")
        var hash: UInt128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d
        let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B
        for byte in content.serialized() {
            hash ^= UInt128(byte)
            hash = hash &* prime
        }
        let hex = String(hash, radix: 16)
        return "derived-" + String(repeating: "0", count: 32 - hex.count) + hex
    }
}
