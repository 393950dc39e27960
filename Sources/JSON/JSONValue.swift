/// A JSON value that keeps object members in order: jCal (RFC 7265), the JSON API,
/// webhooks and the CLI all speak it.
///
/// Order matters for a lossless round trip (parameters, then values), which
/// Foundation's JSON types do not promise; this type also keeps integers and
/// floats apart, as jCal's `integer` and `float` types need.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .integer(let value): hasher.combine(value)
        case .number(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .array(let values): hasher.combine(values)
        case .object(let members):
            for member in members {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        }
    }

    /// The member named `key` of an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members.first { $0.key == key }?.value }
        return nil
    }

    // MARK: Writing

    /// Compact JSON text.
    public var jsonText: String {
        var output: [UInt8] = []
        write(to: &output, indent: nil, level: 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// JSON text indented by two spaces per level.
    public var prettyJSONText: String {
        var output: [UInt8] = []
        write(to: &output, indent: 2, level: 0)
        return String(decoding: output, as: UTF8.self)
    }

    func write(to output: inout [UInt8], indent: Int?, level: Int) {
        func newline(_ level: Int) {
            guard let indent else { return }
            output.append(0x0A)
            output.append(contentsOf: repeatElement(0x20, count: indent * level))
        }
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .number(let value):
            if value.isFinite {
                output.append(contentsOf: Self.numberText(value).utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(level + 1)
                value.write(to: &output, indent: indent, level: level + 1)
            }
            if !values.isEmpty { newline(level) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(level + 1)
                Self.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(0x20) }
                member.value.write(to: &output, indent: indent, level: level + 1)
            }
            if !members.isEmpty { newline(level) }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A finite double as JSON text that reads back as a float: `5.0`, not `5`.
    public static func numberText(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) + ".0" : "\(value)"
    }

    /// Appends `string` as a JSON string (RFC 8259 §7): quoted, with `"`, `\\` and control
    /// characters escaped.
    public static func writeString(_ string: String, to output: inout [UInt8]) {
        output.append(0x22)
        // Most text needs no escape: copied whole.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
            output.append(contentsOf: string.utf8)
            output.append(0x22)
            return
        }
        for byte in string.utf8 {
            switch byte {
            case 0x22: output.append(contentsOf: [0x5C, 0x22])
            case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                output.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 15)],
                ])
            default: output.append(byte)
            }
        }
        output.append(0x22)
    }

    // MARK: Reading

    /// A JSON reading problem with its byte offset.
    public struct SyntaxError: Error, Sendable, Hashable {
        public var offset: Int
        public var message: String
    }

    /// Parses JSON text (RFC 8259), at most `maxDepth` arrays and objects deep.
    public init(parsing bytes: [UInt8], maxDepth: Int = 256) throws(SyntaxError) {
        var reader = JSONReader(bytes: bytes, maxDepth: maxDepth)
        self = try reader.parseDocument()
    }

    /// Parses JSON text.
    public init(parsing text: String, maxDepth: Int = 256) throws(SyntaxError) {
        try self.init(parsing: Array(text.utf8), maxDepth: maxDepth)
    }
}

struct JSONReader {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0
    var depth = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    func fail(_ message: String) -> JSONValue.SyntaxError { JSONValue.SyntaxError(offset: index, message: message) }

    mutating func skipSpace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }

    mutating func parseDocument() throws(JSONValue.SyntaxError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        let value = try parseValue()
        skipSpace()
        guard index == bytes.count else { throw fail("unexpected text after the JSON value") }
        return value
    }

    mutating func parseValue() throws(JSONValue.SyntaxError) -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw fail("unexpected end of JSON") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            depth += 1
            guard depth <= maxDepth else { throw fail("JSON nested deeper than \(maxDepth)") }
            defer { depth -= 1 }
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == 0x22 else { throw fail("expected a string key") }
                let key = try parseString()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                index += 1
                members.append((key, try parseValue()))
                skipSpace()
                guard index < bytes.count else { throw fail("unexpected end of JSON in an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                } else {
                    throw fail("expected ',' or '}'")
                }
            }
        case UInt8(ascii: "["):
            depth += 1
            guard depth <= maxDepth else { throw fail("JSON nested deeper than \(maxDepth)") }
            defer { depth -= 1 }
            index += 1
            var values: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            }
            while true {
                values.append(try parseValue())
                skipSpace()
                guard index < bytes.count else { throw fail("unexpected end of JSON in an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(values)
                } else {
                    throw fail("expected ',' or ']'")
                }
            }
        case 0x22:
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return try parseNumber()
        }
    }

    mutating func literal(_ word: String) throws(JSONValue.SyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<(index + expected.count)]) == expected else {
            throw fail("expected \(word)")
        }
        index += expected.count
    }

    mutating func parseNumber() throws(JSONValue.SyntaxError) -> JSONValue {
        let start = index
        var isFloat = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        guard index > digitsStart else { throw fail("expected a JSON value") }
        if bytes[digitsStart] == 0x30 && index - digitsStart > 1 { throw fail("leading zero in a number") }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isFloat = true
            index += 1
            let fractionStart = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > fractionStart else { throw fail("expected digits after '.'") }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isFloat = true
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            let exponentStart = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > exponentStart else { throw fail("expected digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if !isFloat, let integer = Int(text) { return .integer(integer) }
        guard let number = Double(text) else { throw fail("number out of range") }
        return .number(number)
    }

    mutating func parseString() throws(JSONValue.SyntaxError) -> String {
        index += 1
        var output: [UInt8] = []
        while true {
            guard index < bytes.count else { throw fail("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case 0x22:
                index += 1
                guard let string = String(validating: output, as: UTF8.self) else {
                    throw fail("invalid UTF-8 in a string")
                }
                return string
            case 0x5C:
                index += 1
                guard index < bytes.count else { throw fail("unterminated escape") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case 0x22, 0x5C, 0x2F: output.append(escape)
                case UInt8(ascii: "b"): output.append(0x08)
                case UInt8(ascii: "f"): output.append(0x0C)
                case UInt8(ascii: "n"): output.append(0x0A)
                case UInt8(ascii: "r"): output.append(0x0D)
                case UInt8(ascii: "t"): output.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == 0x5C, bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw fail("unpaired surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                    output.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw fail("invalid escape")
                }
            case 0..<0x20:
                throw fail("control character in a string")
            default:
                output.append(byte)
                index += 1
            }
        }
    }

    mutating func hex4() throws(JSONValue.SyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x37)
            case 0x61...0x66: digit = UInt32(byte - 0x57)
            default: throw fail("invalid hex digit")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
