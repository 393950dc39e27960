import HTTPTypes

/// The XML namespaces CalDAV clients use.
public enum DAVNamespace {
    public static let dav = "DAV:"
    public static let caldav = "urn:ietf:params:xml:ns:caldav"
    public static let calendarServer = "http://calendarserver.org/ns/"
    public static let apple = "http://apple.com/ns/ical/"

    /// Prefixes declared on every multistatus root.
    static let prefixes: [(prefix: String, namespace: String)] = [
        ("D", dav), ("C", caldav), ("CS", calendarServer), ("A", apple),
    ]

    static func prefix(for namespace: String) -> String? { prefixes.first { $0.namespace == namespace }?.prefix }

    /// ` xmlns:D="DAV:" …`, declared on the root of every body the server writes.
    static let declarations = prefixes.map { " xmlns:\($0.prefix)=\"\($0.namespace)\"" }.joined()
}

/// Where things live under the DAV root:
///
///     /dav/                                  root
///     /dav/principals/                       the principal collection (RFC 3744 §5.8)
///     /dav/principals/USER/                  a user's principal
///     /dav/calendars/USER/                   a user's calendar home
///     /dav/calendars/USER/CALENDAR/          a calendar collection
///     /dav/calendars/USER/CALENDAR/RESOURCE  a calendar object resource
public enum DAVPath: Equatable, Sendable {
    case root
    case principals
    case principal(user: String)
    case home(user: String)
    case calendar(user: String, name: String)
    case object(user: String, calendar: String, name: String)

    public static let rootPath = "/dav/"

    /// Reads a request path (still %-encoded); nil for a path outside the tree or with
    /// `.`/`..` segments or a malformed escape. Every spelling of a path names the same
    /// resource: escapes in either case or of characters that need none (`%40`, `%7E`,
    /// `%7e`), doubled slashes and a missing trailing slash; ``href`` is its one spelling.
    /// An absolute URL (`http://host/dav/…`, as a multiget may name its members) reads as
    /// its path.
    public init?(requestPath: String) {
        if let scheme = requestPath.firstRange(of: "://"), !requestPath[..<scheme.lowerBound].contains("/") {
            let authorityAndPath = requestPath[scheme.upperBound...]
            guard let slash = authorityAndPath.firstIndex(of: "/") else { return nil }
            self.init(requestPath: String(authorityAndPath[slash...]))
            return
        }
        // The server's own root answers as the DAV root too (clients start discovery there).
        if requestPath == "/" {
            self = .root
            return
        }
        guard requestPath.hasPrefix(Self.rootPath) || requestPath == "/dav" else { return nil }
        let rest = requestPath.dropFirst(min(requestPath.count, Self.rootPath.count))
        var segments: [String] = []
        for raw in rest.split(separator: "/", omittingEmptySubsequences: true) {
            guard let segment = PercentEncoding.decode(raw), segment != ".", segment != "..", !segment.isEmpty,
                !segment.contains("/")
            else {
                return nil
            }
            segments.append(segment)
        }
        switch segments.count {
        case 0: self = .root
        case 1 where segments[0] == "principals": self = .principals
        case 2 where segments[0] == "principals": self = .principal(user: segments[1])
        case 2 where segments[0] == "calendars": self = .home(user: segments[1])
        case 3 where segments[0] == "calendars": self = .calendar(user: segments[1], name: segments[2])
        case 4 where segments[0] == "calendars":
            self = .object(user: segments[1], calendar: segments[2], name: segments[3])
        default: return nil
        }
    }

    /// The href clients see, %-encoded, with a trailing slash on collections.
    /// Sub-delimiters and `@`/`:` stay as they are in path segments (RFC 3986 §3.3).
    static let segmentCharacters = Set("@:+,;=!$&'()*".utf8)

    public var href: String {
        func encode(_ segment: String) -> String { PercentEncoding.encode(segment, allowing: Self.segmentCharacters) }
        switch self {
        case .root: return Self.rootPath
        case .principals: return Self.rootPath + "principals/"
        case .principal(let user): return Self.rootPath + "principals/" + encode(user) + "/"
        case .home(let user): return Self.rootPath + "calendars/" + encode(user) + "/"
        case .calendar(let user, let name):
            return Self.rootPath + "calendars/" + encode(user) + "/" + encode(name) + "/"
        case .object(let user, let calendar, let name):
            return Self.rootPath + "calendars/" + encode(user) + "/" + encode(calendar) + "/" + encode(name)
        }
    }

    /// The user whose tree this is (nil for the root).
    var owner: String? {
        switch self {
        case .root, .principals: nil
        case .principal(let user), .home(let user), .calendar(let user, _), .object(let user, _, _): user
        }
    }
}

/// A multistatus body (RFC 4918 §13) written response by response into one buffer.
struct Multistatus {
    private var body = Array(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:multistatus\(DAVNamespace.declarations)>".utf8)
    var syncToken: String?

    /// One `<D:response>`: the properties found (with their inner XML), then
    /// calendar-data as raw iCalendar bytes (escaped here), then those not found.
    mutating func add(
        href: String, found: [(name: PropertyName, value: String)], calendarData: [UInt8]? = nil,
        missing: [PropertyName] = []
    ) {
        append("<D:response><D:href>\(XMLText.escape(href))</D:href>")
        // A response holds a propstat at least (RFC 4918 §14.24), even when no property was asked.
        if !found.isEmpty || calendarData != nil || missing.isEmpty {
            append("<D:propstat><D:prop>")
            for (name, value) in found { append(name.element(value)) }
            if let calendarData {
                append("<C:calendar-data>")
                XMLText.escape(calendarData, into: &body)
                append("</C:calendar-data>")
            }
            append("</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>")
        }
        if !missing.isEmpty {
            append(
                "<D:propstat><D:prop>" + missing.map { $0.element("") }.joined()
                    + "</D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>")
        }
        append("</D:response>")
    }

    /// A response with only a status (a member that is gone, for sync), and the
    /// precondition behind it, if any.
    mutating func add(href: String, status: Int, error: PropertyName? = nil) {
        append(
            "<D:response><D:href>\(XMLText.escape(href))</D:href><D:status>HTTP/1.1 \(status) \(HTTPStatus.reason(status))</D:status>"
        )
        if let error { append("<D:error>\(error.element(""))</D:error>") }
        append("</D:response>")
    }

    /// Property-update results (PROPPATCH): each name with its status.
    mutating func add(href: String, statuses: [(name: PropertyName, status: Int)]) {
        append("<D:response><D:href>\(XMLText.escape(href))</D:href>")
        for (name, status) in statuses {
            append(
                "<D:propstat><D:prop>\(name.element(""))</D:prop><D:status>HTTP/1.1 \(status) \(HTTPStatus.reason(status))</D:status></D:propstat>"
            )
        }
        append("</D:response>")
    }

    private mutating func append(_ text: String) { body.append(contentsOf: text.utf8) }

    /// The finished 207 response (the body moves into it).
    consuming func response() -> HTTPResponse {
        if let syncToken { append("<D:sync-token>\(XMLText.escape(syncToken))</D:sync-token>") }
        append("</D:multistatus>\n")
        return HTTPResponse(status: 207, headers: ["Content-Type": "application/xml; charset=utf-8"], body: body)
    }
}

/// A property's qualified name.
public struct PropertyName: Hashable, Sendable {
    public var namespace: String
    public var name: String

    public init(_ namespace: String, _ name: String) {
        self.namespace = namespace
        self.name = name
    }

    init(_ element: XMLElement) {
        self.init(element.namespace, element.name)
    }

    /// `{namespace}name`.
    public var clark: String { "{\(namespace)}\(name)" }

    /// Reads Clark notation.
    init?(clark: String) {
        guard clark.hasPrefix("{"), let close = clark.firstIndex(of: "}") else { return nil }
        self.init(
            String(clark[clark.index(after: clark.startIndex)..<close]), String(clark[clark.index(after: close)...]))
    }

    /// The element with `inner` XML as its content (empty element when `inner` is empty).
    func element(_ inner: String) -> String {
        let (open, close): (String, String)
        if let prefix = DAVNamespace.prefix(for: namespace) {
            open = "\(prefix):\(name)"
            close = open
        } else {
            open = "X:\(name) xmlns:X=\"\(XMLText.escape(namespace))\""
            close = "X:\(name)"
        }
        return inner.isEmpty ? "<\(open)/>" : "<\(open)>\(inner)</\(close)>"
    }
}

extension PropertyName {
    static let resourceType = PropertyName(DAVNamespace.dav, "resourcetype")
    static let displayName = PropertyName(DAVNamespace.dav, "displayname")
    static let currentUserPrincipal = PropertyName(DAVNamespace.dav, "current-user-principal")
    static let principalURL = PropertyName(DAVNamespace.dav, "principal-URL")
    static let owner = PropertyName(DAVNamespace.dav, "owner")
    static let supportedReportSet = PropertyName(DAVNamespace.dav, "supported-report-set")
    static let principalCollectionSet = PropertyName(DAVNamespace.dav, "principal-collection-set")
    static let currentUserPrivilegeSet = PropertyName(DAVNamespace.dav, "current-user-privilege-set")
    static let getETag = PropertyName(DAVNamespace.dav, "getetag")
    static let getContentType = PropertyName(DAVNamespace.dav, "getcontenttype")
    static let getContentLength = PropertyName(DAVNamespace.dav, "getcontentlength")
    static let getLastModified = PropertyName(DAVNamespace.dav, "getlastmodified")
    static let syncToken = PropertyName(DAVNamespace.dav, "sync-token")
    static let calendarHomeSet = PropertyName(DAVNamespace.caldav, "calendar-home-set")
    static let calendarUserAddressSet = PropertyName(DAVNamespace.caldav, "calendar-user-address-set")
    static let calendarDescription = PropertyName(DAVNamespace.caldav, "calendar-description")
    static let calendarTimezone = PropertyName(DAVNamespace.caldav, "calendar-timezone")
    static let supportedComponents = PropertyName(DAVNamespace.caldav, "supported-calendar-component-set")
    static let supportedCalendarData = PropertyName(DAVNamespace.caldav, "supported-calendar-data")
    static let maxResourceSize = PropertyName(DAVNamespace.caldav, "max-resource-size")
    static let getCTag = PropertyName(DAVNamespace.calendarServer, "getctag")
    static let calendarColor = PropertyName(DAVNamespace.apple, "calendar-color")
    static let calendarOrder = PropertyName(DAVNamespace.apple, "calendar-order")
}
