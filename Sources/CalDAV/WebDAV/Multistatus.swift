import HTTPTypes

/// The XML namespaces CalDAV clients use.
public enum DAVNamespace {
    public static let dav = "DAV:"
    public static let caldav = "urn:ietf:params:xml:ns:caldav"
    public static let calendarServer = "http://calendarserver.org/ns/"
    public static let apple = "http://apple.com/ns/ical/"
    /// Almanac's own elements (an error's message for people: the DAV: namespace is
    /// reserved, RFC 4918 §21.8, and defines no such element for `DAV:error`).
    public static let almanac = "urn:almanac:dav"
    /// WebDAV-Push (draft-bitfire-webdav-push), as DAVx⁵ speaks it.
    public static let push = "https://bitfire.at/webdav-push"

    /// Prefixes declared on every multistatus root.
    static let prefixes: [(prefix: String, namespace: String)] = [
        ("D", dav), ("C", caldav), ("CS", calendarServer), ("A", apple), ("AL", almanac), ("P", push),
    ]

    static func prefix(for namespace: String) -> String? { prefixes.first { $0.namespace == namespace }?.prefix }

    /// ` xmlns:D="DAV:" …`, declared on the root of every body the server writes.
    static let declarations = prefixes.map { " xmlns:\($0.prefix)=\"\($0.namespace)\"" }.joined()
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
        Self.writeResponse(href: href, found: found, calendarData: calendarData, missing: missing, into: &body)
    }

    /// A response with only a status (a member that is gone, for sync), and the
    /// precondition behind it, if any.
    mutating func add(href: String, status: Int, error: PropertyName? = nil) {
        Self.writeResponse(href: href, status: status, error: error, into: &body)
    }

    /// The collection's 507 saying the answer holds fewer members than match: past a
    /// bound of the server's, the rest are left out and the client is told (RFC 6578 §3.6's
    /// form, `DAV:number-of-matches-within-limits`).
    mutating func addTruncation(of href: String) {
        add(href: href, status: 507, error: PropertyName(DAVNamespace.dav, "number-of-matches-within-limits"))
    }

    /// Writes one `<D:response>` with its propstats into `output` (a multistatus, or a
    /// property value that holds responses, as expand-property's do).
    static func writeResponse(
        href: String, found: [(name: PropertyName, value: String)], calendarData: [UInt8]? = nil,
        missing: [PropertyName] = [], into output: inout [UInt8]
    ) {
        func append(_ text: String) { output.append(contentsOf: text.utf8) }
        append("<D:response><D:href>\(XMLText.escape(href))</D:href>")
        // A response holds a propstat at least (RFC 4918 §14.24), even when no property was asked.
        if !found.isEmpty || calendarData != nil || missing.isEmpty {
            append("<D:propstat><D:prop>")
            // A dead property's value is its whole element, as stored (its xml:lang on it).
            for (name, value) in found { append(DeadProperty.element(value, as: name)) }
            if let calendarData {
                append("<C:calendar-data>")
                XMLText.escape(calendarData, into: &output)
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

    /// Writes a `<D:response>` with only a status (and its precondition) into `output`.
    static func writeResponse(href: String, status: Int, error: PropertyName? = nil, into output: inout [UInt8]) {
        output.append(
            contentsOf:
                "<D:response><D:href>\(XMLText.escape(href))</D:href><D:status>HTTP/1.1 \(status) \(HTTPStatus.reason(status))</D:status>"
                .utf8)
        if let error { output.append(contentsOf: "<D:error>\(error.element(""))</D:error>".utf8) }
        output.append(contentsOf: "</D:response>".utf8)
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
