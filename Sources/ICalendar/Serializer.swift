import Dispatch

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

    /// A serializer writing into `target` until it is full, and into a buffer of its own after that.
    private init(writingInto target: UnsafeMutableBufferPointer<UInt8>) {
        buffer = OutputBuffer(writingInto: target)
    }

    /// Serializes with `write` straight into the returned array's storage when
    /// `estimate` bytes are enough (as ``estimatedSize(of:)`` sees to), so the
    /// output is never copied; otherwise into a growing buffer, copied once.
    static func serialize(estimate: Int, _ write: (inout ICalendarSerializer) -> Void) -> [UInt8] {
        var overflow: [UInt8]?
        let bytes = [UInt8](unsafeUninitializedCapacity: max(estimate, 256)) { target, count in
            var serializer = ICalendarSerializer(writingInto: target)
            write(&serializer)
            if serializer.buffer.isExternal {
                count = serializer.buffer.count
            } else {
                overflow = serializer.bytes
                count = 0
            }
        }
        return overflow ?? bytes
    }

    /// Appends a component and everything inside it.
    public mutating func write(_ component: Component) {
        writeOpening(component)
        component.components.withUnsafeBufferPointer { children in
            for index in children.indices { write(children[index]) }
        }
        writeLine(name: "END", value: component.name)
    }

    /// Appends a component's BEGIN line and its properties.
    mutating func writeOpening(_ component: Component) {
        writeLine(name: "BEGIN", value: component.name)
        // Reading fields through a pointer borrows them; a for-in loop or an element
        // read would copy each property (four retains and releases).
        component.properties.withUnsafeBufferPointer { properties in
            guard let base = properties.baseAddress else { return }
            for index in properties.indices { write(at: base + index) }
        }
    }

    /// Inputs estimated at this size or more are written on every core.
    static let parallelBytes = 1 << 20

    /// `component` written as ``write(_:)`` writes it, its children in runs on every
    /// core (`parts` of them) when it is large: each line ends the line state, so
    /// runs written apart and joined are the same bytes.
    /// `sizes` are the children's ``estimatedSize(of:)`` when the caller has them.
    static func serializeInParallel(_ component: Component, estimate: Int, sizes: [Int]? = nil, parts: Int? = nil)
        -> [UInt8]?
    {
        let cores = ParallelParse.onlineCores
        let wanted = parts ?? (estimate >= parallelBytes && cores > 1 ? cores * 2 : 1)
        let children = component.components
        guard wanted > 1, children.count >= 2 else { return nil }
        let sizes = sizes ?? children.map { estimatedSize(of: $0) }
        let target = max(1, sizes.reduce(0, +) / wanted)
        var runs: [Range<Int>] = []
        var start = 0
        var size = 0
        for index in children.indices {
            size += sizes[index]
            if size >= target && runs.count < wanted - 1 {
                runs.append(start..<index + 1)
                start = index + 1
                size = 0
            }
        }
        if start < children.count { runs.append(start..<children.count) }
        let pieces = UnsafeMutableBufferPointer<[UInt8]>.allocate(capacity: runs.count + 2)
        pieces.initialize(repeating: [])
        defer {
            pieces.deinitialize()
            pieces.deallocate()
        }
        var opening = component
        opening.components = []
        pieces[0] = serialize(estimate: estimatedSize(of: opening)) { $0.writeOpening(component) }
        pieces[runs.count + 1] = serialize(estimate: component.name.utf8.count + 8) {
            $0.writeLine(name: "END", value: component.name)
        }
        nonisolated(unsafe) let slots = pieces
        let ranges = runs
        DispatchQueue.concurrentPerform(iterations: ranges.count) { index in
            let run = ranges[index]
            // Each slot is written by its own iteration only.
            slots[index + 1] = serialize(estimate: sizes[run].reduce(0, +)) { serializer in
                for child in run { serializer.write(children[child]) }
            }
        }
        let total = pieces.reduce(0) { $0 + $1.count }
        return [UInt8](unsafeUninitializedCapacity: total) { target, count in
            for piece in pieces {
                piece.withUnsafeBufferPointer { source in
                    guard let base = source.baseAddress else { return }
                    (target.baseAddress! + count).update(from: base, count: source.count)
                }
                count += piece.count
            }
        }
    }

    /// Appends a content line that is no property as it came (its bytes, folded).
    mutating func writeUnparsed(_ line: UnsafeBufferPointer<UInt8>) {
        lineLength = 0
        appendFolded(line)
        buffer.append(0x0D, 0x0A)
    }

    /// Appends one property as a (folded) content line.
    public mutating func write(_ property: Property) {
        withUnsafePointer(to: property) { write(at: $0) }
    }

    private mutating func write(at property: UnsafePointer<Property>) {
        lineLength = 0
        append(property.pointee.name)
        // Most properties have none; looking first spares a retain of the empty array.
        if !property.pointee.parameters.isEmpty { writeParameters(of: property) }
        appendByte(UInt8(ascii: ":"))
        property.pointee.storage.withBytes { appendFolded($0) }
        buffer.append(0x0D, 0x0A)
    }

    private mutating func writeParameters(of property: UnsafePointer<Property>) {
        property.pointee.parameters.withUnsafeBufferPointer { parameters in
            guard let base = parameters.baseAddress else { return }
            for index in parameters.indices {
                let parameter = base + index
                appendByte(UInt8(ascii: ";"))
                append(parameter.pointee.name)
                appendByte(UInt8(ascii: "="))
                appendParameterValue(parameter.pointee.first)
                if !parameter.pointee.rest.isEmpty {
                    for value in parameter.pointee.rest {
                        appendByte(UInt8(ascii: ","))
                        appendParameterValue(value)
                    }
                }
            }
        }
    }

    private mutating func writeLine(name: String, value: String) {
        lineLength = 0
        append(name)
        appendByte(UInt8(ascii: ":"))
        append(value)
        buffer.append(0x0D, 0x0A)
    }

    private mutating func appendParameterValue(_ value: String) {
        // The class bits of every byte, or'ed: `,` `;` `:` need quotes; CR, LF, `"` and `^` need carets.
        let classes = value.withUTF8Bytes { bytes in
            bytes.reduce(0 as UInt8) { $0 | ByteClass.table[Int($1)] }
        }
        let needsQuotes = classes & ByteClass.parameterEnd != 0
        let needsCaret = classes & ByteClass.caret != 0
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
        // Fields read through a pointer, so no property is copied (or retained).
        component.properties.withUnsafeBufferPointer { properties in
            guard let base = properties.baseAddress else { return }
            for index in properties.indices {
                let property = base + index
                var length = property.pointee.name.utf8.count + property.pointee.storage.byteCount + 3
                if !property.pointee.parameters.isEmpty {
                    property.pointee.parameters.withUnsafeBufferPointer { parameters in
                        for index in parameters.indices {
                            let parameter = parameters.baseAddress! + index
                            length += parameter.pointee.name.utf8.count + 4 + parameter.pointee.writtenLength
                        }
                    }
                }
                size += length + length / 74 * 3
            }
        }
        for index in component.components.indices { size += estimatedSize(of: component.components[index]) }
        return size
    }
}

/// A growable byte buffer with one capacity check per append, for the serializer's hot path.
///
/// It starts either in storage of its own or in memory it is lent (an
/// array's, being initialized); it moves to storage of its own when that is full.
struct OutputBuffer {
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    var count = 0
    /// Owns ``storage``; nil while writing into lent memory.
    private var owner: Owner?

    var isExternal: Bool { owner == nil }

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

    init(writingInto target: UnsafeMutableBufferPointer<UInt8>) {
        storage = target.baseAddress!
        capacity = target.count
        owner = nil
    }

    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private mutating func grow(_ needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.update(from: storage, count: count)
        if let owner {
            storage.deallocate()
            owner.pointer = newStorage
        } else {
            owner = Owner(newStorage)
        }
        storage = newStorage
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
        ICalendarSerializer.serialize(estimate: ICalendarSerializer.estimatedSize(of: self)) { $0.write(self) }
    }

    /// This component as iCalendar text.
    public var icalendarText: String { String(decoding: serialized(), as: UTF8.self) }
}

extension ICalendarDocument {
    /// Every top-level component as iCalendar bytes, one after the other.
    public func serialized() -> [UInt8] {
        if components.count == 1, let only = components.first {
            // One calendar: its children's sizes, estimated once, decide and split a parallel write.
            let sizes = only.components.map { ICalendarSerializer.estimatedSize(of: $0) }
            var opening = only
            opening.components = []
            let estimate = ICalendarSerializer.estimatedSize(of: opening) + sizes.reduce(0, +)
            if let bytes = ICalendarSerializer.serializeInParallel(only, estimate: estimate, sizes: sizes) {
                return bytes
            }
            return ICalendarSerializer.serialize(estimate: estimate) { $0.write(only) }
        }
        let estimate = components.reduce(0) { $0 + ICalendarSerializer.estimatedSize(of: $1) }
        return ICalendarSerializer.serialize(estimate: estimate) { serializer in
            for component in components { serializer.write(component) }
        }
    }
}
