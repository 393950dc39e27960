import Foundation

/// Any JSON value, for the members the client passes through without modelling them
/// (an event's `jcal`, RFC 7265). An object is a list of members, in the order the
/// decoder lists them (JSON objects are unordered, RFC 8259 §4).
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([Member])

    /// One member of an object.
    public struct Member: Sendable, Hashable {
        /// The member's name.
        public var name: String
        /// The member's value.
        public var value: JSONValue

        /// A member `name` with `value`.
        public init(_ name: String, _ value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// Decodes any JSON value; a number without a fraction reads as ``integer(_:)``.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [Member] = []
            for key in container.allKeys {
                members.append(Member(key.stringValue, try container.decode(JSONValue.self, forKey: key)))
            }
            self = .object(members)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !container.isAtEnd { items.append(try container.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes the value as it was read.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .integer(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .number(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let items):
            var container = encoder.unkeyedContainer()
            for item in items { try container.encode(item) }
        case .object(let members):
            var container = encoder.container(keyedBy: AnyKey.self)
            for member in members { try container.encode(member.value, forKey: AnyKey(member.name)) }
        }
    }

    /// The value of the member `name` of an object, or nil.
    public subscript(_ name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// The element at `index` of an array, or nil.
    public subscript(_ index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// The value as compact JSON text.
    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .integer(let number): "\(number)"
        case .number(let number): "\(number)"
        case .string(let text): JSONValue.quoted(text)
        case .array(let items): "[" + items.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.map { JSONValue.quoted($0.name) + ":" + $0.value.description }.joined(separator: ",") + "}"
        }
    }

    private static func quoted(_ text: String) -> String {
        guard let data = try? JSONEncoder().encode(text) else { return "\"\"" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A coding key spelt at run time: a JSON member's name as received or sent.
struct AnyKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
