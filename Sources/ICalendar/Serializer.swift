/// Writes components as iCalendar text (RFC 5545 §3.1): CRLF line endings,
/// lines folded at 75 octets and never inside a UTF-8 sequence, names in upper
/// case, parameter values quoted only where they must be and caret-escaped
/// (RFC 6868) where they hold a newline, a caret or a double quote.
///
/// Parsing canonical input and serializing it gives back the same bytes.
public struct ICalendarSerializer {
    /// The output so far.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: buffer.storage, count: buffer.count)) }
    private var buffer: OutputBuffer
    /// Octets on the current physical line, to fold at 75.
    private var lineLength = 0

    public init(reservingCapacity capacity: Int = 0) {
        buffer = OutputBuffer(capacity: max(capacity, 256))
    }

    /// Takes the output, leaving the serializer empty.
    mutating func takeBytes() -> [UInt8] {
        let result = [UInt8](unsafeUninitializedCapacity: buffer.count) { target, count in
            if buffer.count > 0 { target.baseAddress!.update(from: buffer.storage, count: buffer.count) }
            count = buffer.count
        }
        buffer.count = 0
        return result
    }

    /// Appends a component and everything inside it.
    public mutating func write(_ component: Component) {
        writeLine(name: "BEGIN", value: component.name)
        // Reading fields through a pointer borrows them; a for-in loop or an element
        // read would copy each property (four retains and releases).
        component.properties.withUnsafeBufferPointer { properties in
            guard let base = properties.baseAddress else { return }
            for index in properties.indices { write(at: base + index) }
        }
        component.components.withUnsafeBufferPointer { children in
            for index in children.indices { write(children[index]) }
        }
        writeLine(name: "END", value: component.name)
    }

    /// Appends one property as a (folded) content line.
    public mutating func write(_ property: Property) {
        withUnsafePointer(to: property) { write(at: $0) }
    }

    private mutating func write(at property: UnsafePointer<Property>) {
        lineLength = 0
        append(property.pointee.name)
        property.pointee.parameters.withUnsafeBufferPointer { parameters in
            for index in parameters.indices {
                appendByte(UInt8(ascii: ";"))
                append(parameters[index].name)
                appendByte(UInt8(ascii: "="))
                var first = true
                parameters[index].forEachValue { value in
                    if !first { appendByte(UInt8(ascii: ",")) }
                    first = false
                    appendParameterValue(value)
                }
            }
        }
        appendByte(UInt8(ascii: ":"))
        property.pointee.storage.withBytes { appendFolded($0) }
        buffer.append(0x0D, 0x0A)
    }

    private mutating func writeLine(name: String, value: String) {
        lineLength = 0
        append(name)
        appendByte(UInt8(ascii: ":"))
        append(value)
        buffer.append(0x0D, 0x0A)
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
        buffer.append(byte)
        lineLength += 1
    }

    private mutating func fold() {
        buffer.append(0x0D, 0x0A)
        buffer.append(0x20)
        lineLength = 1
    }

    /// Appends whole UTF-8 text, folding so no physical line passes 75 octets
    /// and no fold falls inside a UTF-8 sequence (RFC 5545 §3.1).
    private mutating func appendFolded(_ chunk: UnsafeBufferPointer<UInt8>) {
        var start = 0
        while start < chunk.count {
            let room = 75 - lineLength
            if chunk.count - start <= room {
                buffer.append(chunk.baseAddress! + start, chunk.count - start)
                lineLength += chunk.count - start
                return
            }
            var cut = start + room
            while cut > start, chunk[cut] & 0xC0 == 0x80 { cut -= 1 }
            buffer.append(chunk.baseAddress! + start, cut - start)
            fold()
            start = cut
        }
    }

    /// A close upper estimate of the serialized size of `component`, to reserve once.
    static func estimatedSize(of component: Component) -> Int {
        var size = 2 * (component.name.utf8.count + 8)
        // Fields read through the array, with no closures, so no property is copied.
        for index in component.properties.indices {
            var length = component.properties[index].name.utf8.count + component.properties[index].storage.byteCount + 3
            for parameter in component.properties[index].parameters.indices {
                length += component.properties[index].parameters[parameter].name.utf8.count + 4
                    + component.properties[index].parameters[parameter].writtenLength
            }
            size += length + length / 74 * 3
        }
        for index in component.components.indices { size += estimatedSize(of: component.components[index]) }
        return size
    }
}

/// A growable byte buffer with one capacity check per append, for the serializer's hot path.
struct OutputBuffer {
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    var count = 0
    private let owner: Owner

    /// Frees the storage when the last copy of the buffer goes away.
    final class Owner {
        var pointer: UnsafeMutablePointer<UInt8>
        init(_ pointer: UnsafeMutablePointer<UInt8>) { self.pointer = pointer }
        deinit { pointer.deallocate() }
    }

    init(capacity: Int) {
        storage = .allocate(capacity: capacity)
        self.capacity = capacity
        owner = Owner(storage)
    }

    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private mutating func grow(_ needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.update(from: storage, count: count)
        storage.deallocate()
        storage = newStorage
        owner.pointer = newStorage
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        storage[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ first: UInt8, _ second: UInt8) {
        reserve(2)
        storage[count] = first
        storage[count + 1] = second
        count += 2
    }

    @inline(__always)
    mutating func append(_ source: UnsafePointer<UInt8>, _ length: Int) {
        reserve(length)
        (storage + count).update(from: source, count: length)
        count += length
    }
}

extension Component {
    /// This component as iCalendar bytes.
    public func serialized() -> [UInt8] {
        var serializer = ICalendarSerializer(reservingCapacity: ICalendarSerializer.estimatedSize(of: self))
        serializer.write(self)
        return serializer.takeBytes()
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
        return serializer.takeBytes()
    }
}
