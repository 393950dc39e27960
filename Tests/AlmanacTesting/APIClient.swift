import Foundation
import HTTPTypes

/// A JSON value as a client decodes it (with Foundation's `JSONDecoder`, not the
/// product's own JSON reader). Objects are unordered, as RFC 8259 §4 has them.
public enum JSON: Sendable, Hashable, Decodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Decodes any JSON value: a number without a fraction reads as ``integer(_:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    /// Decodes a whole document.
    public init(parsing bytes: [UInt8]) throws {
        self = try JSONDecoder().decode(JSON.self, from: Data(bytes))
    }

    /// The member `key` of an object, or nil.
    public subscript(_ key: String) -> JSON? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The element at `index` of an array, or nil.
    public subscript(_ index: Int) -> JSON? {
        if case .array(let items) = self, items.indices.contains(index) { items[index] } else { nil }
    }

    /// The payload of the matching case, or nil for any other case.
    public var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    public var intValue: Int? { if case .integer(let number) = self { number } else { nil } }
    public var boolValue: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    public var arrayValue: [JSON]? { if case .array(let items) = self { items } else { nil } }
    public var objectValue: [String: JSON]? { if case .object(let members) = self { members } else { nil } }

    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .integer(let number): "\(number)"
        case .number(let number): "\(number)"
        case .string(let text): "\"\(text)\""
        case .array(let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .object(let members):
            "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        }
    }
}

/// A JSON API client on a ``TestServer``, signed in with Basic or a Bearer token.
public struct APIClient: Sendable {
    /// The server the calls go to.
    public let server: TestServer
    /// The `Authorization` header sent with every call (nil: none).
    public let authorization: String?

    public init(server: TestServer, authorization: String?) {
        self.server = server
        self.authorization = authorization
    }

    /// One call; a body is sent as `application/json`.
    @discardableResult
    public func call(_ method: String, _ target: String, _ body: String? = nil, headers: HTTPHeaders = [:]) throws
        -> APIAnswer
    {
        var all = headers
        if body != nil && all["Content-Type"] == nil { all.set("Content-Type", "application/json") }
        return APIAnswer(
            try server.send(method, target, headers: all, body: Array((body ?? "").utf8), authorization: authorization))
    }

    /// A GET of `target` (a path with an optional query).
    public func get(_ target: String, headers: HTTPHeaders = [:]) throws -> APIAnswer {
        try call("GET", target, headers: headers)
    }
}

/// An API answer: status, headers and the body decoded as JSON (`.null` when empty or
/// not JSON; `text` has it as sent).
public struct APIAnswer: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The body decoded, or `.null`.
    public var json: JSON

    public init(_ response: TestResponse) {
        status = response.status
        headers = response.headers
        body = response.body
        json = (try? JSON(parsing: response.body)) ?? .null
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The member `key` of the JSON object.
    public subscript(_ key: String) -> JSON? { json[key] }
}
