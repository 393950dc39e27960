import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An XML element's expanded name: its namespace URI and local name.
public struct DAVName: Hashable, Sendable, CustomStringConvertible {
    /// The namespace URI (`DAV:`); empty for none.
    public var namespace: String
    /// The local name (`getetag`).
    public var name: String

    public init(_ namespace: String, _ name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// The namespaces DAV answers use.
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

    /// Names the suites use often.
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
    /// Attributes by name (`name`, `content-type`).
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

    /// Parses a whole document with FoundationXML's `XMLParser` (libxml2), independently
    /// of the product's own XML reader, and returns its root element. Strict: libxml2
    /// would recover from malformed markup, so any error it reports throws.
    public static func parse(_ bytes: [UInt8]) throws -> DAVElement {
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let builder = TreeBuilder()
        parser.delegate = builder
        let finished = parser.parse()
        let excerpt = String(decoding: bytes.prefix(300), as: UTF8.self)
        if let error = builder.errors.first ?? parser.parserError.map({ "\($0)" }) {
            throw TestServerError("not well-formed XML (\(error)): \(excerpt)")
        }
        guard finished, let root = builder.root else { throw TestServerError("no XML document: \(excerpt)") }
        return root
    }
}

/// Builds ``DAVElement`` trees from `XMLParser`'s events.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    struct Open {
        var name: DAVName
        var attributes: [String: String]
        var text = ""
        var children: [DAVElement] = []
    }

    var stack: [Open] = []
    var root: DAVElement?
    var errors: [String] = []

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        stack.append(Open(name: DAVName(namespaceURI ?? "", elementName), attributes: attributes))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard let open = stack.popLast() else { return }
        let element = DAVElement(
            name: open.name, attributes: open.attributes, text: open.text, children: open.children)
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
            stack[stack.count - 1].text += open.text
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if !stack.isEmpty { stack[stack.count - 1].text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        if !stack.isEmpty { stack[stack.count - 1].text += String(decoding: block, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred error: any Error) { errors.append("\(error)") }
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
    /// The `DAV:response` elements, in order.
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
    /// Every href of the response, in order.
    public var hrefs: [String]
    /// The response's own status (a missing member, a 507 for the collection), or nil.
    public var status: Int?
    /// The names inside the response's `DAV:error`, if any (preconditions).
    public var errors: [DAVName]
    /// The property groups, one per status.
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
