import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An XML element's expanded name: its namespace URI and local name.
public struct DAVName: Hashable, Sendable, CustomStringConvertible {
    public var namespace: String
    public var name: String

    public init(_ namespace: String, _ name: String) {
        self.namespace = namespace
        self.name = name
    }

    public static let davNamespace = "DAV:"
    public static let calDAVNamespace = "urn:ietf:params:xml:ns:caldav"
    public static let appleNamespace = "http://apple.com/ns/ical/"
    public static let calendarServerNamespace = "http://calendarserver.org/ns/"

    /// A name in `DAV:` (RFC 4918).
    public static func dav(_ name: String) -> DAVName { DAVName(davNamespace, name) }
    /// A name in CalDAV's namespace (RFC 4791).
    public static func caldav(_ name: String) -> DAVName { DAVName(calDAVNamespace, name) }
    /// A name in Apple's iCal namespace (`calendar-color`, `calendar-order`).
    public static func apple(_ name: String) -> DAVName { DAVName(appleNamespace, name) }
    /// A name in CalendarServer's namespace (`getctag`).
    public static func calendarServer(_ name: String) -> DAVName { DAVName(calendarServerNamespace, name) }

    public static let href = dav("href")
    public static let status = dav("status")
    public static let displayName = dav("displayname")
    public static let resourceType = dav("resourcetype")
    public static let getETag = dav("getetag")
    public static let syncToken = dav("sync-token")
    public static let currentUserPrincipal = dav("current-user-principal")
    public static let calendarData = caldav("calendar-data")
    public static let calendarHomeSet = caldav("calendar-home-set")
    public static let calendarColor = apple("calendar-color")
    public static let getCTag = calendarServer("getctag")

    /// `{namespace}name`, as Clark notation writes it.
    public var description: String { "{\(namespace)}\(name)" }
}

/// One element of a parsed XML body: its name, attributes, text and child elements.
public struct DAVElement: Sendable, Equatable, CustomStringConvertible {
    public var name: DAVName
    /// Attributes by their qualified name as written (`name`, `x:flag`).
    public var attributes: [String: String]
    /// All text inside the element, its children's included, entities decoded.
    public var text: String
    public var children: [DAVElement]

    public init(name: DAVName, attributes: [String: String] = [:], text: String = "", children: [DAVElement] = []) {
        self.name = name
        self.attributes = attributes
        self.text = text
        self.children = children
    }

    /// The first child named `name`.
    public func child(_ name: DAVName) -> DAVElement? { children.first { $0.name == name } }

    /// Every child named `name`, in order.
    public func children(_ name: DAVName) -> [DAVElement] { children.filter { $0.name == name } }

    /// The text of each `DAV:href` child, in order (for href-valued properties).
    public var hrefs: [String] { children(.href).map(\.text) }

    /// Every element below this one, depth first in document order.
    public var descendants: [DAVElement] { children.flatMap { [$0] + $0.descendants } }

    /// The names of the child elements, in order.
    public var childNames: [DAVName] { children.map(\.name) }

    public var description: String { "\(name)" + (children.isEmpty ? "=\(text)" : "\(children)") }

    /// Parses a whole document with FoundationXML (libxml2), independently of the
    /// product's own XML reader, and returns its root element.
    public static func parse(_ bytes: [UInt8]) throws -> DAVElement {
        let document: XMLDocument
        do {
            document = try XMLDocument(data: Data(bytes), options: [])
        } catch {
            throw TestServerError("not XML (\(error)): \(String(decoding: bytes.prefix(300), as: UTF8.self))")
        }
        guard let root = document.rootElement() else { throw TestServerError("an XML document without a root") }
        return DAVElement(root)
    }

    init(_ element: XMLElement) {
        name = DAVName(element.uri ?? "", element.localName ?? element.name ?? "")
        var attributes: [String: String] = [:]
        for attribute in element.attributes ?? [] {
            if let key = attribute.name { attributes[key] = attribute.stringValue ?? "" }
        }
        self.attributes = attributes
        text = element.stringValue ?? ""
        children = (element.children ?? []).compactMap { $0 as? XMLElement }.map(DAVElement.init)
    }
}

/// The number in an HTTP status line (`HTTP/1.1 404 Not Found` → 404).
func statusCode(_ line: String) throws -> Int {
    let parts = line.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let code = Int(parts[1]) else {
        throw TestServerError("not a status line: \(line)")
    }
    return code
}

/// A 207 Multi-Status body (RFC 4918 §13), parsed.
public struct Multistatus: Sendable, CustomStringConvertible {
    public var responses: [DAVResponse]
    /// The top-level `DAV:sync-token` (RFC 6578 §6.4), if any.
    public var syncToken: String?
    /// The whole document.
    public var root: DAVElement

    public init(parsing bytes: [UInt8]) throws {
        root = try DAVElement.parse(bytes)
        guard root.name == .dav("multistatus") else { throw TestServerError("not a multistatus but \(root.name)") }
        responses = try root.children(.dav("response")).map(DAVResponse.init)
        syncToken = root.child(.syncToken)?.text
    }

    /// Each response's href, in order.
    public var hrefs: [String] { responses.map(\.href) }

    /// Every `DAV:href` in the document, in document order: the responses' and those
    /// inside property values.
    public var allHrefs: [String] { root.descendants.filter { $0.name == .href }.map(\.text) }

    /// The response for `href`.
    public func response(_ href: String) -> DAVResponse? { responses.first { $0.hrefs.contains(href) } }

    public var description: String { responses.map(\.description).joined(separator: "\n") }
}

/// One `DAV:response`: an href with either its own status or propstats.
public struct DAVResponse: Sendable, CustomStringConvertible {
    /// The first href (a response names one, except a status for several).
    public var href: String
    public var hrefs: [String]
    /// The response's own status (a missing member, a 507 for the collection), or nil.
    public var status: Int?
    /// The names inside the response's `DAV:error`, if any (preconditions).
    public var errors: [DAVName]
    public var propstats: [Propstat]

    init(_ element: DAVElement) throws {
        hrefs = element.hrefs
        guard let first = hrefs.first else { throw TestServerError("a response without an href: \(element)") }
        href = first
        status = try element.child(.status).map { try statusCode($0.text) }
        errors = element.child(.dav("error"))?.childNames ?? []
        propstats = try element.children(.dav("propstat")).map(Propstat.init)
    }

    /// The property `name` as found (in a 200 propstat), or nil.
    public func property(_ name: DAVName) -> DAVElement? {
        propstats.first { $0.status == 200 }?.properties.first { $0.name == name }
    }

    /// The status of the propstat that holds `name`, or nil when no propstat names it.
    public func status(of name: DAVName) -> Int? {
        propstats.first { $0.properties.contains { $0.name == name } }?.status
    }

    /// The names of the properties under each propstat status.
    public var propertyNamesByStatus: [Int: [DAVName]] {
        propstats.reduce(into: [:]) { $0[$1.status, default: []] += $1.properties.map(\.name) }
    }

    public var description: String {
        "\(href) \(status.map(String.init) ?? "") \(propstats.map { "\($0.status): \($0.properties)" })"
    }
}

/// One `DAV:propstat`: the properties that share a status.
public struct Propstat: Sendable {
    public var status: Int
    /// The status line as sent (`HTTP/1.1 424 Failed Dependency`).
    public var statusLine: String
    public var properties: [DAVElement]

    init(_ element: DAVElement) throws {
        guard let line = element.child(.status)?.text else {
            throw TestServerError("a propstat without a status: \(element)")
        }
        statusLine = line
        status = try statusCode(line)
        properties = element.child(.dav("prop"))?.children ?? []
    }
}

/// A DAV error body (RFC 4918 §16): the precondition or postcondition that failed.
public struct DAVErrorBody: Sendable {
    /// The first element inside `DAV:error` (`{urn:ietf:params:xml:ns:caldav}no-uid-conflict`).
    public var condition: DAVElement

    public init(parsing bytes: [UInt8]) throws {
        let root = try DAVElement.parse(bytes)
        guard root.name == .dav("error"), let first = root.children.first else {
            throw TestServerError("not a DAV error body: \(root)")
        }
        condition = first
    }
}
