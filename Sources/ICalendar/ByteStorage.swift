/// Memory that parsed values point into, so parsing a property makes no
/// `String` and no allocation of its own: values are copied into large
/// chunks, and a property holds a span of one.
///
/// A chunk is written only by the parser that owns it, and only past the
/// spans it has handed out; once parsing returns, no chunk is written again.
/// That is why sharing chunks between threads is safe.
final class ByteChunk: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var used = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: max(capacity, 1))
    }

    deinit { base.deallocate() }

    var available: Int { capacity - used }

    /// Copies `bytes` in and returns their span; the caller checks ``available`` first.
    func append(_ bytes: UnsafeBufferPointer<UInt8>) -> ByteSpan {
        let start = used
        if let source = bytes.baseAddress, !bytes.isEmpty { (base + start).update(from: source, count: bytes.count) }
        used += bytes.count
        return ByteSpan(chunk: self, start: Int32(start), count: Int32(bytes.count))
    }
}

/// A run of bytes inside a ``ByteChunk``.
struct ByteSpan: Sendable {
    let chunk: ByteChunk
    let start: Int32
    let count: Int32
}

/// Hands out spans, starting a new chunk when the current one is full.
struct ByteArena {
    /// Below glibc's default mmap threshold (128 KiB), so chunks come from the
    /// heap and are reused across parses instead of being mapped and faulted in anew.
    static let chunkSize = 64 << 10
    // Not optional: binding an optional class reference costs a retain per value.
    private var current = ByteChunk(capacity: 0)
    /// The size of the next new chunk: no larger than the input, whose values
    /// (unfolded, so never longer) it holds, so a small parse that is kept
    /// (a cached calendar object) pins a small chunk, not 64 KiB.
    private var nextChunkSize: Int

    init(inputSize: Int) {
        nextChunkSize = min(Self.chunkSize, max(inputSize, 64))
    }

    mutating func store(_ bytes: UnsafeBufferPointer<UInt8>) -> ByteSpan {
        if current.available >= bytes.count { return current.append(bytes) }
        let chunk = ByteChunk(capacity: max(nextChunkSize, bytes.count))
        nextChunkSize = Self.chunkSize
        // A value larger than a chunk gets one of its own; the current chunk stays in use.
        if bytes.count < Self.chunkSize { current = chunk }
        return chunk.append(bytes)
    }
}

/// A property value: parsed bytes in a chunk, or a string set in code.
///
/// A flat struct rather than an enum: reading a borrowed field needs no
/// retain, while binding an enum payload copies it (a retain per property
/// on every read and every write-out). The span's first byte is kept as a
/// raw pointer beside the chunk that owns it, so reading the bytes never
/// touches (and so never retains) the chunk. Sendable for the reason
/// ``ByteChunk`` is: the bytes it points to are never written again.
struct ValueStorage: @unchecked Sendable {
    /// Keeps the span's bytes alive; nil for a string set in code.
    private let chunk: ByteChunk?
    private let base: UnsafePointer<UInt8>?
    /// The span's length in bytes.
    private let count: Int32
    private let text: String

    static func span(_ span: ByteSpan) -> ValueStorage {
        ValueStorage(chunk: span.chunk, base: span.chunk.base + Int(span.start), count: span.count, text: "")
    }

    static func string(_ text: String) -> ValueStorage {
        ValueStorage(chunk: nil, base: nil, count: 0, text: text)
    }

    private init(chunk: ByteChunk?, base: UnsafePointer<UInt8>?, count: Int32, text: String) {
        self.chunk = chunk
        self.base = base
        self.count = count
        self.text = text
    }

    @inline(__always)
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let base { return try body(UnsafeBufferPointer(start: base, count: Int(count))) }
        return try text.withUTF8Bytes(body)
    }

    var string: String {
        base == nil ? text : withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The value's length in UTF-8 bytes.
    var byteCount: Int { base == nil ? text.utf8.count : Int(count) }
}
