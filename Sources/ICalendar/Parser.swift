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
    public static func check(_ buffer: UnsafeBufferPointer<UInt8>, options: ParseOptions = .strict)
        -> ICalendarCheckResult
    {
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
        /// Properties that may occur once here (from ``ComponentRules``), 0 when the component has no rules.
        var once: UInt64
        /// Which ruled properties have been seen.
        var seen: UInt64 = 0
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
    var roots: [Component] = []
    var stack: [Frame] = []
    var diagnostics: [ICalendarError] = []
    var componentCount = 0
    var propertyCount = 0
    var warnedLineEnding = false
    /// Bad line endings seen in the current logical line, reported after its content.
    var pendingLineEndings: [(line: Int, message: String)] = []
    var lastLineWasProperty = false
    var segments: [Segment] = []
    var scratch: [UInt8] = []

    init(input: Bytes, options: ParseOptions) {
        self.input = input
        self.options = options
        self.strict = options.mode == .strict
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
                component: component ?? stack.last?.component.name, property: property))
        if code == .limitExceeded { throw Stop() }
        if diagnostics.count >= options.limits.maxDiagnostics {
            diagnostics.append(
                ICalendarError(
                    .limitExceeded, "too many problems; stopped after \(options.limits.maxDiagnostics)",
                    line: line, column: nil))
            throw Stop()
        }
    }

    /// The physical line and column of a byte offset in the current logical line.
    func location(_ offset: Int) -> (line: Int, column: Int) {
        var segment = segments[0]
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

    /// The end of the physical line starting at `start` and the length of its terminator.
    mutating func physicalLineEnd(from start: Int) throws(Stop) -> (end: Int, next: Int) {
        let base = input.baseAddress! + start
        let remaining = input.count - start
        let newline = memchr(base, 0x0A, remaining).map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - input.baseAddress! }
        let searchLength = (newline ?? input.count) - start
        let carriageReturn = searchLength > 0
            ? memchr(base, 0x0D, searchLength).map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - input.baseAddress! }
            : nil
        if let carriageReturn {
            if carriageReturn + 1 == newline { return (carriageReturn, carriageReturn + 2) }
            // A bare CR ends the line (old Mac files).
            try noteBadLineEnding("a line ends in a bare CR; iCalendar lines end in CRLF")
            return (carriageReturn, carriageReturn + 1)
        }
        if let newline {
            try noteBadLineEnding("a line ends in a bare LF; iCalendar lines end in CRLF")
            return (newline, newline + 1)
        }
        return (input.count, input.count)  // the last line may lack its CRLF
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
        segments.removeAll(keepingCapacity: true)
        segments.append(Segment(logicalStart: 0, line: firstLine, columnShift: 0))
        var length = end - start
        var folded = false
        // Continuation lines start with a space or a tab (RFC 5545 §3.1).
        while position < input.count, input[position] == 0x20 || input[position] == 0x09 {
            if !folded {
                folded = true
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
            let line = scratch
            try line.withUnsafeBufferPointer { (bytes) throws(Stop) in try parseContentLine(bytes) }
        } else {
            try parseContentLine(Bytes(rebasing: input[start..<end]))
        }
        if !pendingLineEndings.isEmpty { try reportLineEndings() }
    }

    /// A string of `bytes` (at `offset` in the current line); invalid UTF-8 is
    /// reported and each bad sequence becomes U+FFFD. Validation happens here,
    /// once, where a string is made: names are ASCII by construction.
    mutating func makeString(_ bytes: Bytes, at offset: Int) throws(Stop) -> String {
        if bytes.isEmpty { return "" }
        let string = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces each invalid sequence with U+FFFD, so the bytes come
        // back unchanged exactly when the input was valid UTF-8.
        let unchanged = string.utf8.count == bytes.count
            && string.withUTF8Bytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
        if unchanged { return string }
        let bad = UTF8Validation.firstInvalidByte(bytes) ?? 0
        let (line, column) = location(offset + bad)
        try report(
            .invalidUTF8,
            "invalid UTF-8 sequence starting with byte 0x\(String(bytes[bad], radix: 16, uppercase: true))",
            line: line, column: column)
        return string
    }

    /// Reports invalid UTF-8 in a line that fails for another reason, so garbage is named as such.
    mutating func reportInvalidUTF8(in line: Bytes) throws(Stop) {
        guard let bad = UTF8Validation.firstInvalidByte(line) else { return }
        let (l, c) = location(bad)
        try report(
            .invalidUTF8, "invalid UTF-8 sequence starting with byte 0x\(String(line[bad], radix: 16, uppercase: true))",
            line: l, column: c)
    }

    /// A parameter value: caret escapes decoded (RFC 6868), UTF-8 checked.
    mutating func parameterString(_ bytes: Bytes, at offset: Int) throws(Stop) -> String {
        let string = try makeString(bytes, at: offset)
        return bytes.contains(0x5E) ? string.withUTF8Bytes { TextEscaping.decodeCaret($0) } : string
    }

    // MARK: Content lines

    @inline(__always)
    static func isNameByte(_ byte: UInt8) -> Bool {
        (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D
    }

    static func upperName(_ bytes: Bytes) -> String {
        if !bytes.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    mutating func parseContentLine(_ line: Bytes) throws(Stop) {
        let wasProperty = lastLineWasProperty
        lastLineWasProperty = false
        guard memchr(line.baseAddress!, 0x3A, line.count) != nil else {
            try reportInvalidUTF8(in: line)
            return try missingColon(line, previousWasProperty: wasProperty)
        }
        var index = 0
        while index < line.count, Self.isNameByte(line[index]) { index += 1 }
        if index == 0 || (line[index] != 0x3B && line[index] != 0x3A) {
            try reportInvalidUTF8(in: line)
            let (l, c) = location(index)
            return try report(
                .invalidName, "invalid character in a property name; names use letters, digits and '-'",
                line: l, column: c)
        }
        let name = Self.upperName(Bytes(rebasing: line[0..<index]))
        var parameters: [Parameter] = []
        var valueType: ValueType?
        var sawValueParameter = false
        while line[index] == 0x3B {
            index += 1
            let nameStart = index
            while index < line.count, Self.isNameByte(line[index]) { index += 1 }
            guard index > nameStart else {
                let (l, c) = location(index)
                return try report(.invalidName, "empty or invalid parameter name", line: l, column: c, property: name)
            }
            guard index < line.count, line[index] == 0x3D else {
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
            let parameterName = Self.upperName(Bytes(rebasing: line[nameStart..<index]))
            index += 1
            var values: [String] = []
            while true {
                if index < line.count, line[index] == 0x22 {
                    let contentStart = index + 1
                    var close = contentStart
                    while close < line.count, line[close] != 0x22 { close += 1 }
                    guard close < line.count else {
                        let (l, c) = location(index)
                        return try report(
                            .unterminatedQuote, "quoted parameter value without its closing '\"'", line: l, column: c,
                            property: name)
                    }
                    let content = Bytes(rebasing: line[contentStart..<close])
                    if let bad = ValueValidation.controlCharacter(in: content) {
                        let (l, c) = location(contentStart + bad)
                        return try report(
                            .invalidParameter, "control character in a parameter value", line: l, column: c,
                            property: name)
                    }
                    values.append(try parameterString(content, at: contentStart))
                    index = close + 1
                    guard index < line.count, line[index] == 0x2C || line[index] == 0x3B || line[index] == 0x3A else {
                        let (l, c) = location(index)
                        return try report(
                            .invalidParameter, "expected ',', ';' or ':' after a quoted parameter value",
                            line: l, column: c, property: name)
                    }
                } else {
                    let valueStart = index
                    while index < line.count, line[index] != 0x2C, line[index] != 0x3B, line[index] != 0x3A {
                        let byte = line[index]
                        if byte == 0x22 || (byte < 0x20 && byte != 0x09) || byte == 0x7F {
                            let (l, c) = location(index)
                            return try report(
                                .invalidParameter,
                                byte == 0x22
                                    ? "'\"' inside an unquoted parameter value" : "control character in a parameter value",
                                line: l, column: c, property: name)
                        }
                        index += 1
                    }
                    guard index < line.count else {
                        let (l, c) = location(valueStart)
                        return try report(
                            .invalidParameter, "parameter value runs to the end of the line; expected ':' and a value",
                            line: l, column: c, property: name)
                    }
                    values.append(try parameterString(Bytes(rebasing: line[valueStart..<index]), at: valueStart))
                }
                if line[index] == 0x2C {
                    index += 1
                    continue
                }
                break
            }
            if parameterName == "VALUE" && !sawValueParameter {
                sawValueParameter = true
                valueType = ValueType(parameterValue: values.first ?? "") ?? .unknown
            }
            parameters.append(Parameter(uncheckedName: parameterName, values: values))
            if parameters.count > options.limits.maxParametersPerProperty {
                try report(
                    .limitExceeded, "more than \(options.limits.maxParametersPerProperty) parameters on one property",
                    line: location(nameStart).line, column: nil, property: name)
            }
        }
        let valueStart = index + 1
        let value = Bytes(rebasing: line[valueStart...])
        switch name {
        case "BEGIN": try begin(value, at: valueStart)
        case "END": try end(value, at: valueStart)
        default: try addProperty(name, parameters, valueType, value, at: valueStart)
        }
    }

    mutating func missingColon(_ line: Bytes, previousWasProperty: Bool) throws(Stop) {
        let (l, _) = location(0)
        if !strict, previousWasProperty, let top = stack.indices.last, !stack[top].component.properties.isEmpty {
            try report(
                .missingColon, "line without ':' appended to the previous property (a fold without its leading space)",
                line: l, column: nil)
            let last = stack[top].component.properties.count - 1
            let previous = stack[top].component.properties[last]
            var combined = Array((previous.value + (try makeString(line, at: 0))).utf8)
            // The joined value is checked again: the appended text may hold what its type forbids.
            let valueType = previous[parameter: "VALUE"].map { ValueType(parameterValue: $0) ?? .unknown }
            let repaired = try combined.withUnsafeBufferPointer { (bytes) throws(Stop) in
                try checkValue(previous.name, valueType, bytes, line: l, column: 1)
            }
            if let repaired { combined = Array(repaired.utf8) }
            stack[top].component.properties[last].value = String(decoding: combined, as: UTF8.self)
            lastLineWasProperty = true
            return
        }
        try report(
            .missingColon, strict ? "content line without ':'; expected NAME[;PARAM=VALUE]:VALUE" : "line without ':' skipped",
            line: l, column: nil)
    }

    // MARK: Structure

    mutating func begin(_ value: Bytes, at offset: Int) throws(Stop) {
        let (line, column) = location(offset)
        guard !value.isEmpty, value.allSatisfy(Self.isNameByte) else {
            return try report(.invalidName, "BEGIN needs a component name", line: line, column: column)
        }
        let name = Self.upperName(value)
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
        if stack.isEmpty && name != "VCALENDAR" {
            try report(
                .notCalendar, "top-level component \(name); expected VCALENDAR", line: line, column: column,
                component: name)
        }
        var component = Component(uncheckedName: name)
        component.properties.reserveCapacity(16)
        stack.append(Frame(component: component, beginLine: line, once: ComponentRules.lookup(name)?.once ?? 0))
    }

    mutating func end(_ value: Bytes, at offset: Int) throws(Stop) {
        let (line, column) = location(offset)
        let name = Self.upperName(value)
        guard let match = stack.lastIndex(where: { $0.component.name == name }) else {
            let expected = stack.last.map { "END:\($0.component.name)" } ?? "BEGIN"
            return try report(
                .mismatchedEnd, "END:\(name) with no open \(name); expected \(expected)", line: line, column: column)
        }
        if match != stack.count - 1 {
            try report(
                .mismatchedEnd, "END:\(name) while \(stack.last!.component.name) is still open", line: line,
                column: column)
        }
        while stack.count > match { try close() }
    }

    /// Closes the innermost open component, checking its required properties.
    mutating func close() throws(Stop) {
        let frame = stack.removeLast()
        if let rules = ComponentRules.lookup(frame.component.name) {
            var missing = rules.missing(from: frame.seen)
            if frame.component.name == "VEVENT", frame.seen & PropertyKind.dtstartBit == 0,
                stack.last.map({ $0.seen & PropertyKind.methodBit == 0 }) ?? true
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
        if stack.isEmpty {
            roots.append(frame.component)
        } else {
            stack[stack.count - 1].component.components.append(frame.component)
        }
    }

    mutating func addProperty(
        _ name: String, _ parameters: [Parameter], _ valueType: ValueType?, _ value: Bytes, at offset: Int
    ) throws(Stop) {
        guard let top = stack.indices.last else {
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
        let (line, column) = location(offset)
        let repaired = try checkValue(name, valueType, value, line: line, column: column)
        if let kind = PropertyKind.lookup(name) { try checkOccurrence(name, kind, in: top, at: offset) }
        let valueText: String
        if let repaired { valueText = repaired } else { valueText = try makeString(value, at: offset) }
        stack[top].component.properties.append(Property(uncheckedName: name, parameters: parameters, value: valueText))
        lastLineWasProperty = true
    }

    /// Checks a value against its property's type and reports what is wrong at
    /// `line`:`column` (the value's first byte). Returns the repaired text when
    /// lenient mode escaped separators in a single-valued TEXT, else nil.
    mutating func checkValue(
        _ name: String, _ valueType: ValueType?, _ value: Bytes, line: Int, column: Int
    ) throws(Stop) -> String? {
        if let bad = ValueValidation.controlCharacter(in: value) {
            try report(
                .invalidValue, "control character 0x\(String(value[bad], radix: 16, uppercase: true)) in a value",
                line: line, column: column, property: name)
            return nil
        }
        guard let kind = PropertyKind.lookup(name),
            let problem = ValueValidation.problem(in: value, kind: kind, type: valueType, strict: strict)
        else { return nil }
        try report(.invalidValue, problem.message, line: line, column: column, property: name)
        if !strict, kind.isProse, valueType == nil || valueType == .text {
            return TextEscaping.repairSeparators(value)
        }
        return nil
    }

    /// Reports a second occurrence of a once-only property and DTEND/DUE with DURATION.
    mutating func checkOccurrence(_ name: String, _ kind: PropertyKind, in top: Int, at offset: Int) throws(Stop) {
        guard kind.bit != 0, stack[top].once != 0 else { return }
        let seen = stack[top].seen
        stack[top].seen |= kind.bit
        if stack[top].once & kind.bit != 0, seen & kind.bit != 0 {
            let componentName = stack[top].component.name
            try report(
                .duplicateProperty, "\(name) may appear only once in \(componentName)", line: location(0).line,
                column: nil, property: name)
        }
        let duration = PropertyKind.durationBit
        guard kind.bit == duration || kind.bit == PropertyKind.dtendBit || kind.bit == PropertyKind.dueBit else { return }
        let componentName = stack[top].component.name
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
        if let innermost = stack.last {
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
        let count = bytes.count
        var index = 0
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        while index < count {
            // Skip ASCII eight bytes at a time.
            while index + 8 <= count, raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                index += 8
            }
            guard index < count else { return nil }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
                index + offset < count && bytes[index + offset] >= low && bytes[index + offset] <= high
            }
            switch lead {
            case 0xC2...0xDF:
                guard continuation(1) else { return index }
                index += 2
            case 0xE0...0xEF:
                let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
                let high: UInt8 = lead == 0xED ? 0x9F : 0xBF  // no UTF-16 surrogates
                guard continuation(1, low, high), continuation(2) else { return index }
                index += 3
            case 0xF0...0xF4:
                let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
                let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
                guard continuation(1, low, high), continuation(2), continuation(3) else { return index }
                index += 4
            default:
                return index
            }
        }
        return nil
    }
}
