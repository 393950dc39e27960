#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parsed iCalendar data: the top-level components (normally one `VCALENDAR`)
/// and what lenient parsing recovered from.
public struct ICalendarDocument: Sendable, Hashable {
    /// The top-level components in input order.
    public var components: [Component]
    /// Problems the parser recovered from (empty after a clean strict parse).
    public var warnings: [ICalendarError]

    public init(components: [Component], warnings: [ICalendarError] = []) {
        self.components = components
        self.warnings = warnings
    }
}

/// Everything a parse found: the document when there was no error, and every
/// error and warning in the order found.
public struct ICalendarCheckResult: Sendable {
    public var document: ICalendarDocument?
    public var diagnostics: [ICalendarError]

    public var errors: [ICalendarError] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [ICalendarError] { diagnostics.filter { $0.severity == .warning } }
}

/// Reads iCalendar (RFC 5545) data from bytes.
///
/// The parser works on the input bytes directly: it unfolds content lines
/// only when a line is actually folded, validates UTF-8 once per line, and
/// makes a `String` only for names, parameter values and property values.
public enum ICalendarParser {
    /// Parses `bytes`; throws the first error found.
    ///
    /// - Throws: ``ICalendarError``; `docs/icalendar-diagnostics.md` lists the codes.
    public static func parse(_ bytes: [UInt8], options: ParseOptions = .strict) throws(ICalendarError)
        -> ICalendarDocument
    {
        let result = check(bytes, options: options)
        if let document = result.document { return document }
        throw result.diagnostics.first { $0.severity == .error }!
    }

    /// Parses the UTF-8 text of `text`; throws the first error found.
    public static func parse(_ text: String, options: ParseOptions = .strict) throws(ICalendarError)
        -> ICalendarDocument
    {
        try parse(Array(text.utf8), options: options)
    }

    /// Parses `bytes` and returns every diagnostic, so a tool can show them all.
    public static func check(_ bytes: [UInt8], options: ParseOptions = .strict) -> ICalendarCheckResult {
        bytes.withUnsafeBufferPointer { check($0, options: options) }
    }

    /// Parses the bytes in `buffer` and returns every diagnostic.
    ///
    /// A large calendar is read on every core (``ParallelParse``) when it parses
    /// without a diagnostic; the result is the same as reading it in one pass.
    public static func check(_ buffer: UnsafeBufferPointer<UInt8>, options: ParseOptions = .strict)
        -> ICalendarCheckResult
    {
        if buffer.count >= ParallelParse.minimumBytes, let document = ParallelParse.document(buffer, options: options) {
            return ICalendarCheckResult(document: document, diagnostics: [])
        }
        var parser = ContentParser(input: buffer, options: options)
        parser.run()
        let hasError = parser.diagnostics.contains { $0.severity == .error }
        let document = hasError ? nil : ICalendarDocument(components: parser.roots, warnings: parser.diagnostics)
        return ICalendarCheckResult(document: document, diagnostics: parser.diagnostics)
    }
}

/// The parser's state while reading one input.
struct ContentParser {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// A component being read, with what its rules need to know.
    struct Frame {
        var component: Component
        var beginLine: Int
        /// The component's index in ``ComponentRules/names``, if it has rules.
        var rules: Int?
        /// Properties that may occur once here (from ``ComponentRules``), 0 when the component has no rules.
        var once: UInt64
        /// Which ruled properties have been seen.
        var seen: UInt64 = 0
        /// Whether an RRULE has been seen (a second one is `duplicateProperty`).
        var sawRule = false
        /// A VCALENDAR lenient mode opened around a bare VEVENT (or VTODO...) at the top level.
        var isImplicit = false
    }

    /// Where a piece of an unfolded line came from, to report physical positions.
    struct Segment {
        var logicalStart: Int
        var line: Int
        /// Bytes between the physical line's start and this segment's first byte (1 after a fold's space).
        var columnShift: Int
    }

    struct Stop: Error {}

    let input: Bytes
    let options: ParseOptions
    let strict: Bool
    var position = 0
    var lineNumber = 1
    /// The innermost open component; with nothing open, the document, whose
    /// components are the top-level ones. Kept out of ``stack`` so the hot path
    /// (adding a property) reaches it directly.
    var current = Frame(component: Component(uncheckedName: ""), beginLine: 0, rules: nil, once: 0)
    /// The frames enclosing ``current``, outermost (the document) first: as
    /// many as there are open components.
    var stack: [Frame] = []
    /// The top-level components read so far.
    var roots: [Component] { stack.first?.component.components ?? current.component.components }
    var diagnostics: [ICalendarError] = []
    var componentCount = 0
    var propertyCount = 0
    var warnedLineEnding = false
    /// Bad line endings seen in the current logical line, reported after its content.
    var pendingLineEndings: [(line: Int, message: String)] = []
    var lastLineWasProperty = false
    /// Whether the line being parsed is a lenient rewrite of the input's line (which is not rewritten again).
    var repairingLine = false
    /// Whether a CR ends a line without an LF somewhere in the input (see ``physicalLineEnd(from:)``).
    let hasBareCarriageReturn: Bool
    var nextCarriageReturn = -1
    /// The physical line the current logical line starts on.
    var logicalLineNumber = 1
    /// The pieces of the current logical line when it is folded; empty when it is not.
    var segments: [Segment] = []
    var scratch: [UInt8] = []
    /// How many bytes past the current line's end may still be read (the rest
    /// of the input, or the padding after an unfolded line), so a name lookup
    /// near the end of a short line can load whole words.
    var readableAfterLine = 0
    var arena: ByteArena
    var recentParameters = RecentStrings()
    /// How many properties the last component closed at each depth had.
    var propertiesAtDepth = [Int](repeating: 0, count: 8)
    let propertyNames = PropertyKind.names
    let propertyKinds = PropertyKind.all
    let componentNames = ComponentRules.names
    let componentRules = ComponentRules.all
    /// What may stand inside a VCALENDAR: a bare one of these at the top level is read as if inside one in lenient mode.
    static let calendarMembers: Set<String> = ["VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE"]
    let parameterNames = ParameterName.names
    let structureNames = StructureName.names
    let valueParameter = ParameterName.valueIndex
    /// DURATION, DTEND and DUE, which exclude each other (globals cost a lazy-init check per read).
    let endBits = PropertyKind.durationBit | PropertyKind.dtendBit | PropertyKind.dueBit
    let classes = ByteClass.table

    init(input: Bytes, options: ParseOptions) {
        self.input = input
        self.arena = ByteArena(inputSize: input.count)
        self.options = options
        self.strict = options.mode == .strict
        self.hasBareCarriageReturn = Self.hasBareCarriageReturn(input)
    }

    // MARK: Diagnostics

    /// Records a problem. Codes that are errors only in strict mode become
    /// warnings in lenient mode. Throws `Stop` when parsing cannot go on.
    mutating func report(
        _ code: ICalendarError.Code, _ message: String, line: Int, column: Int?, property: String? = nil,
        component: String? = nil
    ) throws(Stop) {
        let severity: ICalendarError.Severity
        switch code {
        case .invalidName, .invalidParameter, .unterminatedQuote, .limitExceeded, .emptyInput, .invalidJCal:
            severity = .error
        case .emptyLine:
            severity = .warning
        default:
            severity = strict ? .error : .warning
        }
        diagnostics.append(
            ICalendarError(
                code, message, severity: severity, line: line, column: column,
                component: component ?? (stack.isEmpty ? nil : current.component.name), property: property))
        if code == .limitExceeded { throw Stop() }
        if diagnostics.count >= options.limits.maxDiagnostics {
            diagnostics.append(
                ICalendarError(
                    .limitExceeded, "too many problems; stopped after \(options.limits.maxDiagnostics)",
                    line: line, column: nil))
            throw Stop()
        }
    }

    /// Where a value starts: an offset in the current logical line, or a place
    /// given outright; turned into a line and column only when a problem is reported.
    enum Position {
        case offset(Int)
        case place(line: Int, column: Int)
    }

    func place(_ position: Position) -> (line: Int, column: Int) {
        switch position {
        case .offset(let offset): location(offset)
        case .place(let line, let column): (line, column)
        }
    }

    /// The physical line and column of a byte offset in the current logical line.
    func location(_ offset: Int) -> (line: Int, column: Int) {
        guard var segment = segments.first else { return (logicalLineNumber, offset + 1) }
        for candidate in segments.dropFirst() where candidate.logicalStart <= offset { segment = candidate }
        return (segment.line, offset - segment.logicalStart + segment.columnShift + 1)
    }

    // MARK: Lines

    mutating func run() {
        do {
            if input.count >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF { position = 3 }
            while position < input.count {
                try readLogicalLine()
            }
            try finish()
        } catch {
            return
        }
    }

    /// The end of the physical line starting at `start` and where the next one starts.
    mutating func physicalLineEnd(from start: Int) throws(Stop) -> (end: Int, next: Int) {
        // Without a bare CR in the input, a line ends at the next LF; only old Mac
        // files pay for the second search. The next CR is remembered, so each byte
        // is searched once (memchr), even in a file with only one of the two.
        let lineFeed = find(0x0A, from: start)
        if hasBareCarriageReturn {
            if nextCarriageReturn < start { nextCarriageReturn = find(0x0D, from: start) }
            if nextCarriageReturn < lineFeed - 1 {
                try noteBadLineEnding("a line ends in a bare CR; iCalendar lines end in CRLF")
                return (nextCarriageReturn, nextCarriageReturn + 1)
            }
        }
        guard lineFeed < input.count else {
            // The last line may lack its CRLF, or end in a CR alone.
            let end = input.count > start && input[input.count - 1] == 0x0D ? input.count - 1 : input.count
            return (end, input.count)
        }
        if lineFeed > start && input[lineFeed - 1] == 0x0D { return (lineFeed - 1, lineFeed + 1) }
        try noteBadLineEnding("a line ends in a bare LF; iCalendar lines end in CRLF")
        return (lineFeed, lineFeed + 1)
    }

    /// The offset of the next `byte` at or after `start`, or the input's length.
    func find(_ byte: UInt8, from start: Int) -> Int { Self.find(byte, in: input, from: start) }

    static func find(_ byte: UInt8, in input: Bytes, from start: Int) -> Int {
        guard start < input.count, let found = memchr(input.baseAddress! + start, Int32(byte), input.count - start)
        else {
            return input.count
        }
        return UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - input.baseAddress!
    }

    /// Whether a CR in `input` is followed by anything but LF (a CR as the last byte ends the input as CRLF would).
    static func hasBareCarriageReturn(_ input: Bytes) -> Bool {
        var carriageReturn = find(0x0D, in: input, from: 0)
        while carriageReturn + 1 < input.count {
            if input[carriageReturn + 1] != 0x0A { return true }
            carriageReturn = find(0x0D, in: input, from: carriageReturn + 2)
        }
        return false
    }

    mutating func noteBadLineEnding(_ message: String) throws(Stop) {
        pendingLineEndings.append((lineNumber, message))
    }

    /// Reports the line endings noted while reading a logical line, after the problems in its content.
    mutating func reportLineEndings() throws(Stop) {
        for (line, message) in pendingLineEndings {
            if strict {
                try report(.invalidLineEnding, message, line: line, column: nil)
            } else if !warnedLineEnding {
                warnedLineEnding = true
                try report(.invalidLineEnding, message + " (accepted)", line: line, column: nil)
            }
        }
        pendingLineEndings.removeAll(keepingCapacity: true)
    }

    mutating func readLogicalLine() throws(Stop) {
        let firstLine = lineNumber
        let start = position
        var (end, next) = try physicalLineEnd(from: start)
        lineNumber += 1
        position = next
        if end == start {
            try report(.emptyLine, "empty line (skipped)", line: firstLine, column: nil)
            return try reportLineEndings()
        }
        logicalLineNumber = firstLine
        if !segments.isEmpty { segments.removeAll(keepingCapacity: true) }
        var length = end - start
        var folded = false
        // Continuation lines start with a space or a tab (RFC 5545 §3.1).
        while position < input.count {
            if input[position] != 0x20 && input[position] != 0x09 {
                guard !strict, try blankLinesBeforeFold() else { break }
            }
            if !folded {
                folded = true
                segments.append(Segment(logicalStart: 0, line: firstLine, columnShift: 0))
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: Bytes(rebasing: input[start..<end]))
            }
            let continuationStart = position + 1
            segments.append(Segment(logicalStart: scratch.count, line: lineNumber, columnShift: 1))
            (end, next) = try physicalLineEnd(from: position)
            lineNumber += 1
            if continuationStart < end { scratch.append(contentsOf: Bytes(rebasing: input[continuationStart..<end])) }
            position = next
            length = scratch.count
            if length > options.limits.maxContentLineLength { break }
        }
        if length > options.limits.maxContentLineLength {
            try report(
                .limitExceeded,
                "content line longer than \(options.limits.maxContentLineLength) bytes", line: firstLine, column: nil)
        }
        if folded {
            let count = scratch.count
            scratch.append(contentsOf: repeatElement(0, count: 16))
            readableAfterLine = 16
            let line = scratch
            try line.withUnsafeBufferPointer { (bytes) throws(Stop) in
                try parseContentLine(Bytes(rebasing: bytes[0..<count]))
            }
        } else {
            readableAfterLine = input.count - end
            try parseContentLine(Bytes(rebasing: input[start..<end]))
        }
        if !pendingLineEndings.isEmpty { try reportLineEndings() }
    }

    /// In lenient mode, skips the empty lines between a line and its continuation
    /// (old Mozilla exports wrote them) and says whether a continuation follows.
    mutating func blankLinesBeforeFold() throws(Stop) -> Bool {
        var probe = position
        var blank = 0
        while probe < input.count, input[probe] == 0x0D || input[probe] == 0x0A {
            if input[probe] == 0x0A || probe + 1 >= input.count || input[probe + 1] != 0x0A { blank += 1 }
            probe += 1
        }
        guard blank > 0, probe < input.count, input[probe] == 0x20 || input[probe] == 0x09 else { return false }
        for offset in 0..<blank {
            try report(
                .emptyLine, "empty line inside a folded line (skipped; the fold continues)", line: lineNumber + offset,
                column: nil)
        }
        lineNumber += blank
        position = probe
        return true
    }

    /// A string of `bytes` (at `offset` in the current line); invalid UTF-8 is
    /// reported and each bad sequence becomes U+FFFD. Validation happens here,
    /// once, where a string is made: names are ASCII by construction.
    mutating func makeString(_ bytes: Bytes, at offset: Int) throws(Stop) -> String {
        if bytes.isEmpty { return "" }
        let string = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces each invalid sequence with U+FFFD, so the bytes come
        // back unchanged exactly when the input was valid UTF-8.
        let unchanged =
            string.utf8.count == bytes.count
            && string.withUTF8Bytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
        if unchanged { return string }
        let bad = UTF8Validation.firstInvalidByte(bytes) ?? 0
        try reportInvalidUTF8(bytes[bad], at: offset + bad)
        return string
    }

    /// Reports invalid UTF-8 in a line that fails for another reason, so garbage is named as such.
    mutating func reportInvalidUTF8(in line: Bytes) throws(Stop) {
        guard let bad = UTF8Validation.firstInvalidByte(line) else { return }
        try reportInvalidUTF8(line[bad], at: bad)
    }

    /// Reports an ill-formed UTF-8 sequence that starts with `byte` at `offset` in the current line.
    mutating func reportInvalidUTF8(_ byte: UInt8, at offset: Int, property: String? = nil) throws(Stop) {
        let (line, column) = location(offset)
        try report(
            .invalidUTF8, "invalid UTF-8 sequence starting with byte 0x\(String(byte, radix: 16, uppercase: true))",
            line: line, column: column, property: property)
    }

    /// A parameter value: caret escapes decoded (RFC 6868), UTF-8 checked.
    mutating func parameterString(_ bytes: Bytes, at offset: Int) throws(Stop) -> String {
        if bytes.count > 15, let cached = recentParameters.value(for: bytes) { return cached }
        let problems = diagnostics.count
        let string = try makeString(bytes, at: offset)
        let decoded = bytes.contains(0x5E) ? string.withUTF8Bytes { TextEscaping.decodeCaret($0) } : string
        // Strings of 15 bytes or fewer are stored inline and cost nothing to make again;
        // a value that needed repair is not kept, so every occurrence is reported.
        if bytes.count > 15 && diagnostics.count == problems { recentParameters.remember(bytes, decoded) }
        return decoded
    }

    // MARK: Content lines

    static func upperName(_ bytes: Bytes) -> String {
        if !bytes.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    mutating func parseContentLine(_ line: Bytes) throws(Stop) {
        let wasProperty = lastLineWasProperty
        lastLineWasProperty = false
        var index = 0
        while index < line.count, classes[Int(line[index])] & ByteClass.name != 0 { index += 1 }
        // A line with no ':' at all is missingColon, whatever else is wrong with it;
        // it is looked for only once the line has failed, not on every line.
        func hasColon() -> Bool { memchr(line.baseAddress!, 0x3A, line.count) != nil }
        if index == line.count || (line[index] != 0x3B && line[index] != 0x3A) {
            if try recoverLine(line, wasProperty: wasProperty) { return }
            try reportInvalidUTF8(in: line)
            if !hasColon() { return try missingColon(line, previousWasProperty: wasProperty) }
            // Words before the first ':' ("Call me at: 5") are prose, not a name: a fold that lost its space.
            if !strict, wasProperty, index > 0, line[index] == 0x20 || line[index] == 0x09 {
                var next = index
                while next < line.count, line[next] == 0x20 || line[next] == 0x09 { next += 1 }
                if next < line.count, ByteClass.isName(line[next]),
                    try appendAsFold(
                        line, code: .repairedLine,
                        message:
                            "line of words before its ':' appended to the previous property (a fold without its leading space)"
                    )
                {
                    return
                }
            }
            let (l, c) = location(index)
            return try report(
                .invalidName, "invalid character in a property name; names use letters, digits and '-'",
                line: l, column: c)
        }
        let nameBytes = Bytes(rebasing: line[0..<index])
        let readable = line.count + readableAfterLine
        let known = propertyNames.index(of: nameBytes, readable: readable)
        // BEGIN or END, which are not properties.
        let structure = known == nil ? structureNames.index(of: nameBytes, readable: readable) : nil
        let name =
            known.map { propertyNames.names[$0] } ?? structure.map { structureNames.names[$0] }
            ?? Self.upperName(nameBytes)
        var parameters: [Parameter] = []
        var valueType: ValueType?
        var sawValueParameter = false
        while line[index] == 0x3B {
            index += 1
            let nameStart = index
            while index < line.count, classes[Int(line[index])] & ByteClass.name != 0 { index += 1 }
            guard index > nameStart else {
                if try recoverLine(line, wasProperty: wasProperty) { return }
                if !hasColon() { return try missingColon(line, previousWasProperty: wasProperty) }
                let (l, c) = location(index)
                return try report(.invalidName, "empty or invalid parameter name", line: l, column: c, property: name)
            }
            guard index < line.count, line[index] == 0x3D else {
                if try recoverLine(line, wasProperty: wasProperty) { return }
                if !hasColon() { return try missingColon(line, previousWasProperty: wasProperty) }
                if index < line.count, line[index] != 0x3B, line[index] != 0x3A {
                    let (l, c) = location(index)
                    return try report(
                        .invalidName, "invalid character in a parameter name; names use letters, digits and '-'",
                        line: l, column: c, property: name)
                }
                let (l, c) = location(nameStart)
                return try report(
                    .invalidParameter, "parameter without '=': expected NAME=VALUE", line: l, column: c, property: name)
            }
            let parameterNameBytes = Bytes(rebasing: line[nameStart..<index])
            let knownParameter = parameterNames.index(of: parameterNameBytes, readable: readable - nameStart)
            let parameterName = knownParameter.map { parameterNames.names[$0] } ?? Self.upperName(parameterNameBytes)
            index += 1
            // Nearly every parameter has one value: the rest get an array only when there are any.
            var first: String?
            var rest: [String] = []
            while true {
                let value: String
                if index < line.count, line[index] == 0x22 {
                    let contentStart = index + 1
                    var close = contentStart
                    while close < line.count, classes[Int(line[close])] & (ByteClass.quote | ByteClass.control) == 0 {
                        close += 1
                    }
                    let control = close < line.count && line[close] != 0x22 ? close : nil
                    if control != nil {
                        while close < line.count, line[close] != 0x22 { close += 1 }
                    }
                    guard close < line.count else {
                        if try recoverLine(line, wasProperty: wasProperty) { return }
                        if !hasColon() { return try missingColon(line, previousWasProperty: wasProperty) }
                        let (l, c) = location(index)
                        return try report(
                            .unterminatedQuote, "quoted parameter value without its closing '\"'", line: l, column: c,
                            property: name)
                    }
                    if let control {
                        let (l, c) = location(control)
                        return try report(
                            .invalidParameter, "control character in a parameter value", line: l, column: c,
                            property: name)
                    }
                    value = try parameterString(Bytes(rebasing: line[contentStart..<close]), at: contentStart)
                    index = close + 1
                    guard index < line.count, line[index] == 0x2C || line[index] == 0x3B || line[index] == 0x3A else {
                        if try recoverLine(line, wasProperty: wasProperty) { return }
                        // `ORGANIZER;CN="Sixt SE"` and nothing after: a line without ':' at all.
                        if index >= line.count, !hasColon() {
                            return try missingColon(line, previousWasProperty: wasProperty)
                        }
                        let (l, c) = location(index)
                        return try report(
                            .invalidParameter, "expected ',', ';' or ':' after a quoted parameter value",
                            line: l, column: c, property: name)
                    }
                } else {
                    let valueStart = index
                    let stops = ByteClass.parameterEnd | ByteClass.quote | ByteClass.control
                    while index < line.count, classes[Int(line[index])] & stops == 0 { index += 1 }
                    if index < line.count, classes[Int(line[index])] & ByteClass.parameterEnd == 0 {
                        if try recoverLine(line, wasProperty: wasProperty) { return }
                        let (l, c) = location(index)
                        return try report(
                            .invalidParameter,
                            line[index] == 0x22
                                ? "'\"' inside an unquoted parameter value" : "control character in a parameter value",
                            line: l, column: c, property: name)
                    }
                    guard index < line.count else {
                        if try recoverLine(line, wasProperty: wasProperty) { return }
                        if !hasColon() { return try missingColon(line, previousWasProperty: wasProperty) }
                        let (l, c) = location(valueStart)
                        return try report(
                            .invalidParameter, "parameter value runs to the end of the line; expected ':' and a value",
                            line: l, column: c, property: name)
                    }
                    value = try parameterString(Bytes(rebasing: line[valueStart..<index]), at: valueStart)
                }
                if first == nil { first = value } else { rest.append(value) }
                if line[index] == 0x2C {
                    index += 1
                    continue
                }
                break
            }
            if knownParameter == valueParameter && !sawValueParameter {
                sawValueParameter = true
                valueType = ValueType(parameterValue: first ?? "") ?? .unknown
            }
            // A second parameter says there are several (ATTENDEE has half a dozen): room for them at once.
            if parameters.count == 1 { parameters.reserveCapacity(8) }
            parameters.append(Parameter(uncheckedName: parameterName, first: first ?? "", rest: rest))
            if parameters.count > options.limits.maxParametersPerProperty {
                try report(
                    .limitExceeded, "more than \(options.limits.maxParametersPerProperty) parameters on one property",
                    line: location(nameStart).line, column: nil, property: name)
            }
        }
        let valueStart = index + 1
        let value = Bytes(rebasing: line[valueStart...])
        if let known {
            try addProperty(name, propertyKinds[known], parameters, valueType, value, at: valueStart)
        } else if structure == StructureName.begin {
            try begin(value, at: valueStart)
        } else if structure == StructureName.end {
            try end(value, at: valueStart)
        } else {
            try addProperty(name, nil, parameters, valueType, value, at: valueStart)
        }
    }

    /// In lenient mode, reads a line that fails the grammar only by whitespace around
    /// its name, `;` and `=`, or by a backslash escape in a parameter value, as its
    /// producer meant it; true when it did (the line has then been parsed).
    mutating func recoverLine(_ line: Bytes, wasProperty: Bool) throws(Stop) -> Bool {
        guard !strict, !repairingLine, let tolerated = LenientRepair.tolerate(line), tolerated.hasValue,
            !tolerated.canonical.elementsEqual(line)
        else { return false }
        let what = [
            tolerated.sawWhitespace ? "whitespace around its name, ';', '=' or ','" : nil,
            tolerated.sawEscape ? "a backslash escape in a parameter value" : nil,
        ].compactMap { $0 }
        guard !what.isEmpty else { return false }
        try report(
            .repairedLine, "\(tolerated.name) line read past " + what.joined(separator: " and "),
            line: location(0).line,
            column: nil, property: tolerated.name)
        var canonical = tolerated.canonical
        let count = canonical.count
        canonical.append(contentsOf: repeatElement(0, count: 16))
        let readable = readableAfterLine
        readableAfterLine = 16
        repairingLine = true
        lastLineWasProperty = wasProperty
        defer {
            repairingLine = false
            readableAfterLine = readable
        }
        try canonical.withUnsafeBufferPointer { (bytes) throws(Stop) in
            try parseContentLine(Bytes(rebasing: bytes[0..<count]))
        }
        return true
    }

    mutating func missingColon(_ line: Bytes, previousWasProperty: Bool) throws(Stop) {
        let (l, _) = location(0)
        // A whole property line without its value (ORGANIZER;CN=Acme SE) is not text
        // that lost its fold: gluing it to the previous value would corrupt that value.
        if !strict, let tolerated = LenientRepair.tolerate(line), LenientRepair.isPropertyWithoutValue(tolerated) {
            return try report(
                .missingColon, "\(tolerated.name) line without ':' and a value (dropped)", line: l, column: nil,
                property: tolerated.name)
        }
        if !strict, previousWasProperty,
            try appendAsFold(
                line, code: .missingColon,
                message: "line without ':' appended to the previous property (a fold without its leading space)")
        {
            return
        }
        try report(
            .missingColon,
            strict ? "content line without ':'; expected NAME[;PARAM=VALUE]:VALUE" : "line without ':' skipped",
            line: l, column: nil)
    }

    /// Appends `line` to the value of the last property of the open component, as the
    /// fold its producer forgot; false when there is no such property.
    mutating func appendAsFold(_ line: Bytes, code: ICalendarError.Code, message: String) throws(Stop) -> Bool {
        let (l, _) = location(0)
        if !stack.isEmpty, let previous = current.component.properties.last {
            try report(code, message, line: l, column: nil)
            var combined = Array((previous.value + (try makeString(line, at: 0))).utf8)
            // The joined value is checked again: the appended text may hold what its type forbids.
            let valueType = previous[parameter: "VALUE"].map { ValueType(parameterValue: $0) ?? .unknown }
            let kind = propertyNames.index(of: previous.name).map { propertyKinds[$0] }
            let repaired = try combined.withUnsafeBufferPointer { (bytes) throws(Stop) in
                try checkValue(
                    previous.name, kind, valueType, bytes, control: ByteScan.scanValue(bytes).control,
                    at: .place(line: l, column: 1))
            }
            if case .replace(let repaired)? = repaired { combined = Array(repaired.utf8) }
            current.component.properties[current.component.properties.count - 1].value =
                String(decoding: combined, as: UTF8.self)
            lastLineWasProperty = true
            return true
        }
        return false
    }

    // MARK: Structure

    mutating func begin(_ value: Bytes, at offset: Int) throws(Stop) {
        let (line, column) = location(offset)
        guard !value.isEmpty, value.allSatisfy(ByteClass.isName) else {
            return try report(.invalidName, "BEGIN needs a component name", line: line, column: column)
        }
        let rulesIndex = componentNames.index(of: value, readable: value.count + readableAfterLine)
        let name = rulesIndex.map { componentNames.names[$0] } ?? Self.upperName(value)
        if stack.count >= options.limits.maxNestingDepth {
            try report(
                .limitExceeded, "components nested deeper than \(options.limits.maxNestingDepth)", line: line,
                column: column)
        }
        componentCount += 1
        if componentCount > options.limits.maxComponents {
            try report(
                .limitExceeded, "more than \(options.limits.maxComponents) components", line: line, column: column)
        }
        // A VCALENDAR after bare components read inside an implicit one ends that one.
        if name == "VCALENDAR", stack.count == 1, current.isImplicit { try close() }
        if stack.isEmpty && name != "VCALENDAR" {
            if !strict, Self.calendarMembers.contains(name) {
                try report(
                    .notCalendar, "top-level \(name) outside any VCALENDAR (read as if inside one)", line: line,
                    column: column, component: name)
                var calendar = Frame(
                    component: Component(uncheckedName: "VCALENDAR"), beginLine: line, rules: nil, once: 0)
                calendar.isImplicit = true
                swap(&calendar, &current)
                stack.append(calendar)
            } else {
                try report(
                    .notCalendar, "top-level component \(name); expected VCALENDAR", line: line, column: column,
                    component: name)
            }
        }
        var component = Component(uncheckedName: name)
        // Siblings tend to be alike (VEVENT after VEVENT): reserve what the last one at this depth held.
        if stack.count < propertiesAtDepth.count {
            component.properties.reserveCapacity(propertiesAtDepth[stack.count])
        }
        let once = rulesIndex.map { componentRules[$0].once } ?? 0
        var frame = Frame(component: component, beginLine: line, rules: rulesIndex, once: once)
        swap(&frame, &current)
        stack.append(frame)
    }

    mutating func end(_ value: Bytes, at offset: Int) throws(Stop) {
        let (line, column) = location(offset)
        let isName = value.allSatisfy(ByteClass.isName)
        let known = isName ? componentNames.index(of: value, readable: value.count + readableAfterLine) : nil
        let name = known.map { componentNames.names[$0] } ?? Self.upperName(value)
        // How many components to close: the innermost open one named `name` and those inside it.
        var closing = 1
        if stack.isEmpty || current.component.name != name {
            guard let match = stack.dropFirst().lastIndex(where: { $0.component.name == name }) else {
                // END:VTOOD for VTODO: a misspelling of the open component, not a stray END.
                // Names are compared only when short: the distance costs the product of their lengths.
                if !strict, !stack.isEmpty, known == nil, isName, (4...32).contains(value.count),
                    current.component.name.utf8.count <= 32,
                    LenientRepair.editDistance(name, current.component.name) <= 2
                {
                    try report(
                        .misspeltEnd, "END:\(name) read as END:\(current.component.name)", line: line, column: column)
                    return try close()
                }
                let expected = stack.isEmpty ? "BEGIN" : "END:\(current.component.name)"
                return try report(
                    .mismatchedEnd, "END:\(name) with no open \(name); expected \(expected)", line: line, column: column
                )
            }
            closing = stack.count - match + 1
            try report(
                .mismatchedEnd, "END:\(name) while \(current.component.name) is still open", line: line,
                column: column)
        }
        for _ in 0..<closing { try close() }
    }

    /// Closes the innermost open component, checking its required properties.
    mutating func close() throws(Stop) {
        var frame = stack.removeLast()
        swap(&frame, &current)
        if stack.count < propertiesAtDepth.count { propertiesAtDepth[stack.count] = frame.component.properties.count }
        if frame.once != 0, let index = frame.rules {
            let rules = componentRules[index]
            var missing = rules.missing(from: frame.seen)
            if frame.component.name == "VEVENT", frame.seen & PropertyKind.dtstartBit == 0,
                stack.isEmpty || current.seen & PropertyKind.methodBit == 0
            {
                missing.append("DTSTART")
            }
            if frame.component.name == "VTIMEZONE",
                !frame.component.components.contains(where: { $0.name == "STANDARD" || $0.name == "DAYLIGHT" })
            {
                missing.append("STANDARD or DAYLIGHT")
            }
            if !missing.isEmpty {
                try report(
                    .missingProperty, "\(frame.component.name) is missing \(missing.joined(separator: ", "))",
                    line: frame.beginLine, column: nil, component: frame.component.name)
            }
        }
        current.component.components.append(frame.component)
    }

    mutating func addProperty(
        _ name: consuming String, _ kind: PropertyKind?, _ parameters: consuming [Parameter], _ valueType: ValueType?,
        _ value: Bytes, at offset: Int
    ) throws(Stop) {
        guard !stack.isEmpty else {
            let (line, _) = location(0)
            return try report(
                .propertyOutsideComponent,
                "property \(name) outside any component" + (strict ? "" : " (dropped)"), line: line, column: nil,
                property: name)
        }
        propertyCount += 1
        if propertyCount > options.limits.maxProperties {
            try report(
                .limitExceeded, "more than \(options.limits.maxProperties) properties", line: location(0).line,
                column: nil)
        }
        let (control, invalidUTF8) = ByteScan.scanValue(value)
        var repaired: String?
        switch try checkValue(name, kind, valueType, value, control: control, at: .offset(offset)) {
        case .replace(let text)?: repaired = text
        case .drop?:
            lastLineWasProperty = true
            return
        case nil: break
        }
        if let kind { try checkOccurrence(name, kind, at: offset) }
        // Only RRULE and EXRULE are RECUR: most properties skip the name comparison.
        if kind?.defaultType == .recur, name == "RRULE",
            ["VEVENT", "VTODO", "VJOURNAL"].contains(current.component.name)
        {
            if current.sawRule {
                try report(
                    .duplicateProperty,
                    "a second RRULE: RFC 5545 says RRULE SHOULD NOT occur more than once (RFC 2445 allowed several)"
                        + (strict ? "" : "; the instances of every rule are used"),
                    line: location(0).line, column: nil, property: name)
            }
            current.sawRule = true
        }
        lastLineWasProperty = true
        // Built in place and moved into the component: no copy of its name, parameters or storage.
        if repaired == nil && invalidUTF8 == nil {
            return current.component.properties.append(
                Property(uncheckedName: name, parameters: parameters, storage: .span(arena.store(value))))
        }
        if let bad = invalidUTF8, repaired == nil {
            try reportInvalidUTF8(value[bad], at: offset + bad, property: name)
        }
        let text = repaired ?? String(decoding: value, as: UTF8.self)
        current.component.properties.append(Property(uncheckedName: name, parameters: parameters, value: text))
    }

    /// What lenient mode does with a value that failed its check.
    enum Recovery {
        /// Store this text instead.
        case replace(String)
        /// Drop the property.
        case drop
    }

    /// Checks a value against its property's type and reports what is wrong at
    /// `line`:`column` (the value's first byte). Returns what lenient mode does
    /// instead of keeping the value (nil: keep it as it is).
    mutating func checkValue(
        _ name: String, _ kind: PropertyKind?, _ valueType: ValueType?, _ value: Bytes, control: Int?,
        at position: Position
    ) throws(Stop) -> Recovery? {
        if let bad = control {
            let (line, column) = place(position)
            try report(
                .controlCharacter, "control character 0x\(String(value[bad], radix: 16, uppercase: true)) in a value",
                line: line, column: column, property: name)
            return nil
        }
        guard let kind, let problem = ValueValidation.problem(in: value, kind: kind, type: valueType)
        else { return nil }
        let (line, column) = place(position)
        if !strict, let repair = LenientRepair.repair(name: name, kind: kind, type: valueType, value: value) {
            switch repair {
            case .replace(let text, let message):
                try report(.repairedValue, message, line: line, column: column, property: name)
                return .replace(text)
            case .drop(let message):
                try report(.droppedProperty, message, line: line, column: column, property: name)
                return .drop
            }
        }
        // An escape §3.3.11 does not define is its own problem, wherever it is in the value:
        // unlike an unescaped separator, it has no one reading to repair it to.
        let isText = (valueType ?? kind.defaultType) == .text
        if isText, let escape = TextEscaping.escapeProblem(in: value) {
            try report(.invalidEscape, escape.message, line: line, column: column, property: name)
        } else {
            try report(.invalidValue, problem.message, line: line, column: column, property: name)
        }
        if !strict, kind.isProse, valueType == nil || valueType == .text {
            return .replace(TextEscaping.repairSeparators(value))
        }
        return nil
    }

    /// Reports a second occurrence of a once-only property and DTEND/DUE with DURATION.
    mutating func checkOccurrence(_ name: String, _ kind: PropertyKind, at offset: Int) throws(Stop) {
        guard kind.bit != 0, current.once != 0 else { return }
        let seen = current.seen
        current.seen |= kind.bit
        if current.once & kind.bit != 0, seen & kind.bit != 0 {
            let componentName = current.component.name
            try report(
                .duplicateProperty, "\(name) may appear only once in \(componentName)", line: location(0).line,
                column: nil, property: name)
        }
        guard kind.bit & endBits != 0 else { return }
        let duration = PropertyKind.durationBit
        let componentName = current.component.name
        let endName = componentName == "VEVENT" ? "DTEND" : componentName == "VTODO" ? "DUE" : nil
        if let endName {
            let end = endName == "DTEND" ? PropertyKind.dtendBit : PropertyKind.dueBit
            if (kind.bit == duration && seen & end != 0) || (kind.bit == end && seen & duration != 0) {
                try report(
                    .conflictingProperties, "\(componentName) must not have both \(endName) and DURATION",
                    line: location(0).line, column: nil, property: name)
            }
        }
    }

    mutating func finish() throws(Stop) {
        // A VCALENDAR opened around bare components closes with the input.
        if stack.count == 1, current.isImplicit { try close() }
        if !stack.isEmpty {
            let innermost = current
            try report(
                .unclosedComponent,
                "BEGIN:\(innermost.component.name) is never closed; expected END:\(innermost.component.name)",
                line: innermost.beginLine, column: nil, component: innermost.component.name)
            if !strict {
                while !stack.isEmpty { try close() }
            }
        }
        if roots.isEmpty && !diagnostics.contains(where: { $0.severity == .error }) {
            diagnostics.append(ICalendarError(.emptyInput, "no iCalendar component in the input", line: 1, column: nil))
        }
    }
}

enum UTF8Validation {
    /// The offset of the first byte that does not start a well-formed UTF-8 sequence, or `nil`.
    static func firstInvalidByte(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        while index < bytes.count {
            // Control characters are valid UTF-8: skip past any the scan stops at.
            let rest = UnsafeBufferPointer(rebasing: bytes[index...])
            let (control, invalid) = ByteScan.scanValue(rest)
            if let invalid { return index + invalid }
            guard let control else { return nil }
            index += control + 1
        }
        return nil
    }
}

/// The last few distinct long parameter values and their strings. Parameter
/// values repeat (TZID=America/New_York on every event, the same CN on every
/// invitation), and reusing a string saves an allocation and a UTF-8 check.
struct RecentStrings {
    private var keys: [[UInt8]] = []
    private var values: [String] = []
    private var next = 0
    private static let capacity = 8

    func value(for bytes: UnsafeBufferPointer<UInt8>) -> String? {
        for index in keys.indices where keys[index].count == bytes.count {
            let equal = keys[index].withUnsafeBufferPointer {
                memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0
            }
            if equal { return values[index] }
        }
        return nil
    }

    mutating func remember(_ bytes: UnsafeBufferPointer<UInt8>, _ string: String) {
        if keys.count < Self.capacity {
            keys.append(Array(bytes))
            values.append(string)
        } else {
            keys[next] = Array(bytes)
            values[next] = string
            next = (next + 1) % Self.capacity
        }
    }
}
