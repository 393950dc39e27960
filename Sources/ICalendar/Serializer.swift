/// Writes components as iCalendar text (RFC 5545 §3.1): CRLF line endings,
/// lines folded at 75 octets and never inside a UTF-8 sequence, names in upper
/// case, parameter values quoted only where they must be and caret-escaped
/// (RFC 6868) where they hold a newline, a caret or a double quote.
///
/// Parsing canonical input and serializing it gives back the same bytes.
public struct ICalendarSerializer {
    /// The output so far.
    public private(set) var bytes: [UInt8] = []
    /// Octets on the current physical line, to fold at 75.
    private var lineLength = 0

    public init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends a component and everything inside it.
    public mutating func write(_ component: Component) {
        writeLine(name: "BEGIN", value: component.name)
        for property in component.properties { write(property) }
        for child in component.components { write(child) }
        writeLine(name: "END", value: component.name)
    }

    /// Appends one property as a (folded) content line.
    public mutating func write(_ property: Property) {
        lineLength = 0
        append(property.name)
        for parameter in property.parameters {
            appendByte(UInt8(ascii: ";"))
            append(parameter.name)
            appendByte(UInt8(ascii: "="))
            for (index, value) in parameter.values.enumerated() {
                if index > 0 { appendByte(UInt8(ascii: ",")) }
                appendParameterValue(value)
            }
        }
        appendByte(UInt8(ascii: ":"))
        append(property.value)
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    private mutating func writeLine(name: String, value: String) {
        lineLength = 0
        append(name)
        appendByte(UInt8(ascii: ":"))
        append(value)
        bytes.append(0x0D)
        bytes.append(0x0A)
    }

    private mutating func appendParameterValue(_ value: String) {
        var needsQuotes = false
        var needsCaret = false
        for byte in value.utf8 {
            switch byte {
            case 0x2C, 0x3A, 0x3B: needsQuotes = true
            case 0x0A, 0x0D, 0x22, 0x5E: needsCaret = true
            default: break
            }
        }
        if needsQuotes { appendByte(0x22) }
        if needsCaret {
            var escaped: [UInt8] = []
            var previousWasCR = false
            for byte in value.utf8 {
                switch byte {
                case 0x5E: escaped.append(contentsOf: [0x5E, 0x5E])
                case 0x22: escaped.append(contentsOf: [0x5E, UInt8(ascii: "'")])
                case 0x0D: escaped.append(contentsOf: [0x5E, UInt8(ascii: "n")])
                case 0x0A: if !previousWasCR { escaped.append(contentsOf: [0x5E, UInt8(ascii: "n")]) }
                default: escaped.append(byte)
                }
                previousWasCR = byte == 0x0D
            }
            escaped.withUnsafeBufferPointer { appendFolded($0) }
        } else {
            append(value)
        }
        if needsQuotes { appendByte(0x22) }
    }

    private mutating func append(_ text: String) {
        text.withUTF8Bytes { appendFolded($0) }
    }

    private mutating func appendByte(_ byte: UInt8) {
        if lineLength == 75 { fold() }
        bytes.append(byte)
        lineLength += 1
    }

    private mutating func fold() {
        bytes.append(0x0D)
        bytes.append(0x0A)
        bytes.append(0x20)
        lineLength = 1
    }

    /// Appends whole UTF-8 text, folding so no physical line passes 75 octets
    /// and no fold falls inside a UTF-8 sequence (RFC 5545 §3.1).
    private mutating func appendFolded(_ chunk: UnsafeBufferPointer<UInt8>) {
        var start = 0
        while start < chunk.count {
            let room = 75 - lineLength
            if chunk.count - start <= room {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start...]))
                lineLength += chunk.count - start
                return
            }
            var cut = start + room
            while cut > start, chunk[cut] & 0xC0 == 0x80 { cut -= 1 }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[start..<cut]))
            fold()
            start = cut
        }
    }

    /// A close upper estimate of the serialized size of `component`, to reserve once.
    static func estimatedSize(of component: Component) -> Int {
        var size = 2 * (component.name.utf8.count + 8)
        for property in component.properties {
            var length = property.name.utf8.count + property.value.utf8.count + 3
            for parameter in property.parameters {
                length += parameter.name.utf8.count + 4
                for value in parameter.values { length += value.utf8.count + 3 }
            }
            size += length + length / 74 * 3
        }
        for child in component.components { size += estimatedSize(of: child) }
        return size
    }
}

extension Component {
    /// This component as iCalendar bytes.
    public func serialized() -> [UInt8] {
        var serializer = ICalendarSerializer(reservingCapacity: ICalendarSerializer.estimatedSize(of: self))
        serializer.write(self)
        return serializer.bytes
    }

    /// This component as iCalendar text.
    public var icalendarText: String { String(decoding: serialized(), as: UTF8.self) }
}

extension ICalendarDocument {
    /// Every top-level component as iCalendar bytes, one after the other.
    public func serialized() -> [UInt8] {
        var serializer = ICalendarSerializer(
            reservingCapacity: components.reduce(0) { $0 + ICalendarSerializer.estimatedSize(of: $1) })
        for component in components { serializer.write(component) }
        return serializer.bytes
    }
}
