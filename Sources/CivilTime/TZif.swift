/// Reads TZif files (RFC 8536), the compiled form of the IANA time zone
/// database found under `/usr/share/zoneinfo`.
///
/// Versions 1, 2, 3 and 4 (RFC 9636) are read. When a version 2+ file has
/// its 64-bit data block, that block is used and the 32-bit one skipped; the
/// footer's POSIX TZ string then governs instants after the last transition.
/// Files of the `right/` kind, whose times count leap seconds, are converted
/// to Unix time with their leap-second table.
///
/// Every structural rule of RFC 8536 §3 is checked, so truncated or garbled
/// bytes throw a ``TZifError`` naming the problem and the byte offset; they
/// never trap.
public enum TZif {
    /// Parses the bytes of a TZif file into zone rules named `identifier`.
    ///
    /// - Throws: ``TZifError`` when the bytes are not a well-formed TZif file.
    public static func parse(_ bytes: [UInt8], identifier: String) throws(TZifError) -> ZoneRules {
        var reader = TZifReader(bytes: bytes, identifier: identifier)
        let first = try reader.header()
        if first.version == 0 {
            try reader.validate(first)
            return try reader.dataBlock(first, timeSize: 4).rules(identifier: identifier, footer: nil)
        }
        // Version 2+: skip the 32-bit block, read the second header and the 64-bit block.
        try reader.skip(first.dataBlockLength(timeSize: 4), what: "version 1 data block")
        let second = try reader.header()
        guard second.version == first.version else {
            throw reader.error(
                .invalidHeader, "second header has version \(second.version), the first \(first.version)",
                at: second.start + 4)
        }
        try reader.validate(second)
        let block = try reader.dataBlock(second, timeSize: 8)
        let footer = try reader.footer()
        return block.rules(identifier: identifier, footer: footer)
    }
}

/// Why bytes could not be read as a TZif file, and where.
public struct TZifError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem.
    public enum Code: String, Sendable, Hashable {
        /// The bytes end before a part the header promised.
        case truncated
        /// The file does not start with `TZif`.
        case badMagic
        /// The version byte is not NUL, `2`, `3` or `4`.
        case unsupportedVersion
        /// Counts in a header break RFC 8536 §3.1 (no local time types, mismatched indicator counts).
        case invalidHeader
        /// The data block breaks RFC 8536 §3.2 (unsorted transitions, an index out of range, a bad offset).
        case invalidData
        /// The footer is missing its newlines or is not a POSIX TZ string (RFC 8536 §3.3).
        case invalidFooter
    }

    /// What kind of problem.
    public var code: Code
    /// The zone identifier the bytes were read for.
    public var identifier: String
    /// The byte offset where the problem was found.
    public var offset: Int
    /// A sentence for a person.
    public var message: String

    /// Creates an error.
    public init(code: Code, identifier: String, offset: Int, message: String) {
        self.code = code
        self.identifier = identifier
        self.offset = offset
        self.message = message
    }

    /// `TZif Europe/Berlin: truncated at byte 44: …`.
    public var description: String { "TZif \(identifier): \(code.rawValue) at byte \(offset): \(message)" }
}

/// The six counts of a TZif header and the version (0 for version 1).
struct TZifHeader {
    /// The byte offset of the header in the file.
    var start: Int
    var version: Int
    var isUTCCount: Int
    var isStandardCount: Int
    var leapCount: Int
    var timeCount: Int
    var typeCount: Int
    var characterCount: Int

    /// The bytes of the data block that follows, for transition times of `timeSize` bytes.
    func dataBlockLength(timeSize: Int) -> Int {
        timeCount * timeSize + timeCount + typeCount * 6 + characterCount + leapCount * (timeSize + 4)
            + isStandardCount + isUTCCount
    }
}

/// A parsed data block: local time types, transitions and leap seconds.
struct TZifDataBlock {
    struct LocalTimeType {
        var offset: Int
        var isDaylightSaving: Bool
        var abbreviation: String
    }

    var times: [Int]
    var typeIndices: [Int]
    var types: [LocalTimeType]
    /// (occurrence, correction) pairs, in the file's time scale.
    var leapSeconds: [(occurrence: Int, correction: Int)]

    func rules(identifier: String, footer: POSIXTimeZone?) -> ZoneRules {
        var transitions: [ZoneTransition] = []
        transitions.reserveCapacity(times.count)
        var leapIndex = -1
        var previousOffset = types[0].offset
        for (time, typeIndex) in zip(times, typeIndices) {
            // A `right/` file counts leap seconds; Unix time does not.
            while leapIndex + 1 < leapSeconds.count && leapSeconds[leapIndex + 1].occurrence <= time { leapIndex += 1 }
            let unixTime = leapIndex >= 0 ? time - leapSeconds[leapIndex].correction : time
            let type = types[typeIndex]
            transitions.append(
                ZoneTransition(
                    instant: unixTime, offsetBefore: UTCOffset(seconds: previousOffset),
                    offsetAfter: UTCOffset(seconds: type.offset), isDaylightSaving: type.isDaylightSaving,
                    abbreviation: type.abbreviation))
            previousOffset = type.offset
        }
        // RFC 8536 §3.2: local time before the first transition is time type 0.
        return ZoneRules(
            identifier: identifier, initialOffset: UTCOffset(seconds: types[0].offset),
            initialAbbreviation: types[0].abbreviation, initialIsDaylightSaving: types[0].isDaylightSaving,
            transitions: transitions, footer: footer)
    }
}

/// Reads a TZif file from its bytes, advancing an index by what it consumed;
/// every read checks the length first.
struct TZifReader {
    let bytes: [UInt8]
    let identifier: String
    var index = 0

    init(bytes: [UInt8], identifier: String) {
        self.bytes = bytes
        self.identifier = identifier
    }

    func error(_ code: TZifError.Code, _ message: String, at offset: Int? = nil) -> TZifError {
        TZifError(code: code, identifier: identifier, offset: offset ?? index, message: message)
    }

    mutating func skip(_ count: Int, what: String) throws(TZifError) {
        try require(count, what: what)
        index += count
    }

    func require(_ count: Int, what: String) throws(TZifError) {
        guard count <= bytes.count - index else {
            throw error(.truncated, "\(what) needs \(count) bytes, \(bytes.count - index) remain")
        }
    }

    /// A 44-byte header (RFC 8536 §3.1).
    mutating func header() throws(TZifError) -> TZifHeader {
        let start = index
        try require(44, what: "header")
        guard bytes[index] == 0x54, bytes[index + 1] == 0x5A, bytes[index + 2] == 0x69, bytes[index + 3] == 0x66
        else { throw error(.badMagic, "expected \"TZif\"") }
        let version: Int
        switch bytes[index + 4] {
        case 0: version = 0
        case UInt8(ascii: "2"): version = 2
        case UInt8(ascii: "3"): version = 3
        case UInt8(ascii: "4"): version = 4
        case let other: throw error(.unsupportedVersion, "version byte \(other)", at: index + 4)
        }
        index += 20
        var counts = [Int](repeating: 0, count: 6)
        for slot in 0..<6 { counts[slot] = Int(readUInt32()) }
        return TZifHeader(
            start: start, version: version, isUTCCount: counts[0], isStandardCount: counts[1], leapCount: counts[2],
            timeCount: counts[3], typeCount: counts[4], characterCount: counts[5])
    }

    /// Checks the counts of a header whose data block is about to be used.
    /// (A version 2+ reader only skips the version 1 block, so its counts are not checked.)
    func validate(_ header: TZifHeader) throws(TZifError) {
        let start = header.start
        guard header.typeCount > 0 else { throw error(.invalidHeader, "typecnt is zero", at: start + 32) }
        guard header.characterCount > 0 else { throw error(.invalidHeader, "charcnt is zero", at: start + 40) }
        guard header.isUTCCount == 0 || header.isUTCCount == header.typeCount else {
            throw error(.invalidHeader, "isutcnt \(header.isUTCCount) is neither 0 nor typecnt", at: start + 20)
        }
        guard header.isStandardCount == 0 || header.isStandardCount == header.typeCount else {
            throw error(.invalidHeader, "isstdcnt \(header.isStandardCount) is neither 0 nor typecnt", at: start + 24)
        }
    }

    /// A data block (RFC 8536 §3.2) with transition and leap times of `timeSize` bytes.
    mutating func dataBlock(_ header: TZifHeader, timeSize: Int) throws(TZifError) -> TZifDataBlock {
        try require(header.dataBlockLength(timeSize: timeSize), what: "data block")
        var times = [Int]()
        times.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let start = index
            let time = readTime(size: timeSize)
            if let previous = times.last, time <= previous {
                throw error(.invalidData, "transition times are not ascending (\(time) after \(previous))", at: start)
            }
            times.append(time)
        }
        var typeIndices = [Int]()
        typeIndices.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            let typeIndex = Int(bytes[index])
            guard typeIndex < header.typeCount else {
                throw error(.invalidData, "transition type \(typeIndex) with only \(header.typeCount) types")
            }
            typeIndices.append(typeIndex)
            index += 1
        }
        let typesStart = index
        let charactersStart = typesStart + header.typeCount * 6
        var types = [TZifDataBlock.LocalTimeType]()
        types.reserveCapacity(header.typeCount)
        for _ in 0..<header.typeCount {
            let start = index
            let offset = Int(Int32(bitPattern: readUInt32()))
            let isDaylightSaving = bytes[index]
            let designationIndex = Int(bytes[index + 1])
            index += 2
            // RFC 8536 §3.2: -2^31 is forbidden, and offsets SHOULD lie in -89999...93599.
            guard (-89_999...93_599).contains(offset) else {
                throw error(.invalidData, "UT offset \(offset) s is out of range", at: start)
            }
            guard isDaylightSaving <= 1 else {
                throw error(.invalidData, "isdst is \(isDaylightSaving)", at: start + 4)
            }
            guard designationIndex < header.characterCount else {
                throw error(.invalidData, "designation index \(designationIndex) past charcnt", at: start + 5)
            }
            let designationStart = charactersStart + designationIndex
            var designationEnd = designationStart
            while designationEnd < charactersStart + header.characterCount && bytes[designationEnd] != 0 {
                designationEnd += 1
            }
            guard designationEnd < charactersStart + header.characterCount else {
                throw error(.invalidData, "time zone designation is not NUL-terminated", at: designationStart)
            }
            types.append(
                .init(
                    offset: offset, isDaylightSaving: isDaylightSaving == 1,
                    abbreviation: String(decoding: bytes[designationStart..<designationEnd], as: UTF8.self)))
        }
        index = charactersStart + header.characterCount
        var leapSeconds: [(occurrence: Int, correction: Int)] = []
        leapSeconds.reserveCapacity(header.leapCount)
        for _ in 0..<header.leapCount {
            let start = index
            let occurrence = readTime(size: timeSize)
            let correction = Int(Int32(bitPattern: readUInt32()))
            if let previous = leapSeconds.last, occurrence <= previous.occurrence {
                throw error(.invalidData, "leap-second records are not ascending", at: start)
            }
            leapSeconds.append((occurrence, correction))
        }
        // Standard/wall and UT/local indicators only matter for POSIX TZ
        // strings applied to a file without a footer (a legacy of `posixrules`);
        // check them and move on.
        for _ in 0..<(header.isStandardCount + header.isUTCCount) {
            guard bytes[index] <= 1 else { throw error(.invalidData, "indicator byte is \(bytes[index])") }
            index += 1
        }
        return TZifDataBlock(times: times, typeIndices: typeIndices, types: types, leapSeconds: leapSeconds)
    }

    /// The footer of a version 2+ file: `\n`, a POSIX TZ string (possibly empty), `\n` (RFC 8536 §3.3).
    mutating func footer() throws(TZifError) -> POSIXTimeZone? {
        guard index < bytes.count else { throw error(.truncated, "the footer is missing") }
        guard bytes[index] == 0x0A else { throw error(.invalidFooter, "the footer does not start with a newline") }
        let start = index + 1
        var end = start
        while end < bytes.count && bytes[end] != 0x0A { end += 1 }
        guard end < bytes.count else { throw error(.truncated, "the footer has no closing newline", at: start) }
        index = end + 1
        guard end > start else { return nil }
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        guard let zone = POSIXTimeZone(text) else {
            throw error(.invalidFooter, "\"\(text)\" is not a POSIX TZ string", at: start)
        }
        return zone
    }

    private mutating func readUInt32() -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 8 | UInt32(bytes[index + offset]) }
        index += 4
        return value
    }

    private mutating func readTime(size: Int) -> Int {
        if size == 4 { return Int(Int32(bitPattern: readUInt32())) }
        let high = UInt64(readUInt32())
        let low = UInt64(readUInt32())
        return Int(Int64(bitPattern: high << 32 | low))
    }
}
