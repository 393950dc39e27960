/// iCalendar text in its canonical form, line by line and without reading it as a
/// document: what `almanac ics format` prints. Every content line is unfolded and
/// written again as the serializer writes it (CRLF, folded at 75 octets, names in upper
/// case, parameter values quoted only where they must be and caret-escaped), its value
/// byte for byte. Nothing is repaired, added, moved or dropped: a bare VEVENT stays
/// bare, a line the grammar does not describe (`ORGANIZER;CN="Acme SE"` without a
/// colon) is written as it came, a value the reader would rewrite keeps its bytes, and
/// a rule with RFC 7529 parts keeps them all. Only what carries nothing goes: empty
/// lines, and the line endings and folds, which become canonical.
///
/// For valid input this is what parsing and serializing gives; for everything else it
/// is what was there. Repairs that change content belong to reading (expansion,
/// import, a PUT), where they are reported.
public enum CanonicalText {
    /// The canonical text of `bytes`.
    public static func format(_ bytes: [UInt8]) -> [UInt8] {
        var serializer = ICalendarSerializer(reservingCapacity: bytes.count + bytes.count / 16)
        for line in logicalLines(bytes) {
            if let property = property(line) {
                serializer.write(property)
            } else {
                line.withUnsafeBufferPointer { serializer.writeUnparsed($0) }
            }
        }
        return serializer.bytes
    }

    /// The content lines of `bytes`, unfolded: physical lines end in CRLF, LF or CR; one
    /// that starts with a space or a tab continues the one before (which loses that
    /// character); empty lines carry nothing, and a fold may go on after them (as old
    /// Mozilla exports write it).
    static func logicalLines(_ bytes: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var current: [UInt8]?
        var index = 0
        while index < bytes.count {
            var end = index
            while end < bytes.count, bytes[end] != 0x0D, bytes[end] != 0x0A { end += 1 }
            let physical = bytes[index..<end]
            // Past the line ending: CRLF, or a lone CR or LF.
            index = end + (end + 1 < bytes.count && bytes[end] == 0x0D && bytes[end + 1] == 0x0A ? 2 : 1)
            guard let first = physical.first else { continue }
            if first == 0x20 || first == 0x09, current != nil {
                current?.append(contentsOf: physical.dropFirst())
            } else {
                if let current { lines.append(current) }
                current = Array(physical)
            }
        }
        if let current { lines.append(current) }
        return lines
    }

    /// The property a content line is (`NAME *(";" param) ":" value`, RFC 5545 §3.1),
    /// or nil when the line is not one, or is not UTF-8: it is then written as it came.
    static func property(_ line: [UInt8]) -> Property? {
        guard String(validating: line, as: UTF8.self) != nil else { return nil }
        var index = 0
        func name() -> String? {
            let start = index
            while index < line.count, ByteClass.isName(line[index]) { index += 1 }
            guard index > start else { return nil }
            return upper(line[start..<index])
        }
        guard let propertyName = name() else { return nil }
        var parameters: [Parameter] = []
        while index < line.count, line[index] == UInt8(ascii: ";") {
            index += 1
            guard let parameterName = name(), index < line.count, line[index] == UInt8(ascii: "=") else { return nil }
            index += 1
            var values: [String] = []
            repeat {
                if index < line.count, line[index] == UInt8(ascii: ",") { index += 1 }
                let value: ArraySlice<UInt8>
                if index < line.count, line[index] == 0x22 {
                    let start = index + 1
                    guard let close = line[start...].firstIndex(of: 0x22) else { return nil }
                    value = line[start..<close]
                    index = close + 1
                } else {
                    let start = index
                    while index < line.count, ByteClass.table[Int(line[index])] & ByteClass.parameterEnd == 0 {
                        if line[index] == 0x22 { return nil }
                        index += 1
                    }
                    value = line[start..<index]
                }
                guard !value.contains(where: { ByteClass.table[Int($0)] & ByteClass.control != 0 }) else { return nil }
                let text = String(decoding: value, as: UTF8.self)
                values.append(value.contains(0x5E) ? text.withUTF8Bytes { TextEscaping.decodeCaret($0) } : text)
            } while index < line.count && line[index] == UInt8(ascii: ",")
            parameters.append(Parameter(name: parameterName, values: values))
        }
        guard index < line.count, line[index] == UInt8(ascii: ":") else { return nil }
        var value = String(decoding: line[(index + 1)...], as: UTF8.self)
        if (propertyName == "BEGIN" || propertyName == "END") && parameters.isEmpty {
            value = upper(Array(value.utf8)[...])
        }
        return Property(uncheckedName: propertyName, parameters: parameters, value: value)
    }

    /// ASCII letters in upper case (names are case-insensitive, RFC 5545 §2).
    static func upper(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
    }
}
