import Foundation
import HTTPTypes

/// A CalDAV client on a ``TestServer``, signed in as one user with HTTP Basic. Every
/// call returns a ``DAVAnswer``, whose body reads as a parsed multistatus or DAV error.
public struct DAVClient: Sendable {
    /// The server the requests go to.
    public let server: TestServer
    /// Who the requests are signed in as; nil sends no `Authorization`.
    public let user: String?

    public init(server: TestServer, user: String?) {
        self.server = server
        self.user = user
    }

    /// Any request, as given: the raw target is sent exactly as spelt.
    @discardableResult
    public func send(_ method: String, _ target: String, _ body: String = "", headers: HTTPHeaders = [:]) throws
        -> DAVAnswer
    {
        try send(method, target, bytes: Array(body.utf8), headers: headers)
    }

    @discardableResult
    public func send(_ method: String, _ target: String, bytes: [UInt8], headers: HTTPHeaders = [:]) throws
        -> DAVAnswer
    {
        DAVAnswer(
            try server.send(
                method, target, headers: headers, body: bytes,
                authorization: user.map { server.basicAuthorization(for: $0) }))
    }

    // MARK: Methods

    /// MKCALENDAR (RFC 4791 §5.3.1) with the properties to set, or with no body.
    @discardableResult
    public func mkcalendar(
        _ path: String, displayName: String? = nil, color: String? = nil, components: [String]? = nil
    ) throws -> DAVAnswer {
        var properties = ""
        if let displayName { properties += "<D:displayname>\(Self.escape(displayName))</D:displayname>" }
        if let color { properties += "<A:calendar-color>\(Self.escape(color))</A:calendar-color>" }
        if let components {
            properties +=
                "<C:supported-calendar-component-set>"
                + components.map { "<C:comp name=\"\($0)\"/>" }.joined() + "</C:supported-calendar-component-set>"
        }
        guard !properties.isEmpty else { return try send("MKCALENDAR", path) }
        return try send(
            "MKCALENDAR", path,
            """
            <?xml version="1.0" encoding="utf-8"?>
            <C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:A="http://apple.com/ns/ical/">
            <D:set><D:prop>\(properties)</D:prop></D:set></C:mkcalendar>
            """)
    }

    /// PUT of a calendar object, with `If-Match` / `If-None-Match` when given.
    @discardableResult
    public func put(
        _ path: String, _ body: String, ifMatch: String? = nil, ifNoneMatch: String? = nil,
        contentType: String? = nil
    ) throws -> DAVAnswer {
        var headers = HTTPHeaders()
        if let ifMatch { headers.set("If-Match", ifMatch) }
        if let ifNoneMatch { headers.set("If-None-Match", ifNoneMatch) }
        if let contentType { headers.set("Content-Type", contentType) }
        return try send("PUT", path, body, headers: headers)
    }

    /// GET of an object (its calendar data as stored) or a collection.
    public func get(_ path: String) throws -> DAVAnswer { try send("GET", path) }

    @discardableResult
    public func delete(_ path: String, ifMatch: String? = nil) throws -> DAVAnswer {
        try send("DELETE", path, headers: ifMatch.map { ["If-Match": $0] } ?? [:])
    }

    /// PROPFIND for `props` (`<D:prop/>` when empty), or with no body (all properties)
    /// when nil.
    public func propfind(_ path: String, depth: String = "0", props: [DAVName]? = nil) throws -> DAVAnswer {
        guard let props else { return try send("PROPFIND", path, headers: ["Depth": depth]) }
        return try send(
            "PROPFIND", path, "<D:propfind xmlns:D=\"DAV:\">\(Self.prop(props))</D:propfind>", headers: ["Depth": depth]
        )
    }

    /// PROPPATCH setting each property (`name` → its text).
    public func proppatch(_ path: String, set: [(DAVName, String)]) throws -> DAVAnswer {
        let properties = set.enumerated().map { index, entry in
            "<p\(index):\(entry.0.name) xmlns:p\(index)=\"\(entry.0.namespace)\">\(Self.escape(entry.1))</p\(index):\(entry.0.name)>"
        }
        return try send(
            "PROPPATCH", path,
            "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop>\(properties.joined())</D:prop></D:set></D:propertyupdate>"
        )
    }

    /// REPORT with a body written out.
    public func report(_ path: String, depth: String? = nil, _ body: String) throws -> DAVAnswer {
        try send("REPORT", path, body, headers: depth.map { ["Depth": $0] } ?? [:])
    }

    // MARK: Reports

    /// A calendar-query (RFC 4791 §7.8): `prop` is the body of `DAV:prop` as XML (with
    /// the prefixes `D:` and `C:`), `filter` the body of `C:filter`, `timezone` the text
    /// of a `C:timezone` (§9.8) when given.
    public func calendarQuery(
        _ path: String, prop: String = "<D:getetag/>", depth: String? = "1", filter: String, timezone: String? = nil
    ) throws -> DAVAnswer {
        let zone = timezone.map { "<C:timezone>\(Self.escape($0))</C:timezone>" } ?? ""
        return try report(
            path, depth: depth,
            "<C:calendar-query \(Self.namespaces)><D:prop>\(prop)</D:prop><C:filter>\(filter)</C:filter>\(zone)"
                + "</C:calendar-query>")
    }

    /// A calendar-query with one time range on one component (`VEVENT` by default), as
    /// clients send for a week's view.
    public func calendarQuery(
        _ path: String, prop: String = "<D:getetag/>", component: String = "VEVENT", start: String, end: String?,
        depth: String? = "1"
    ) throws -> DAVAnswer {
        let range = "<C:time-range start=\"\(start)\"" + (end.map { " end=\"\($0)\"" } ?? "") + "/>"
        return try calendarQuery(
            path, prop: prop, depth: depth,
            filter:
                "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"\(component)\">\(range)</C:comp-filter></C:comp-filter>"
        )
    }

    /// A calendar-multiget (RFC 4791 §7.9) of `hrefs`.
    public func multiget(_ path: String, prop: String = "<D:getetag/><C:calendar-data/>", hrefs: [String]) throws
        -> DAVAnswer
    {
        try report(
            path,
            "<C:calendar-multiget \(Self.namespaces)><D:prop>\(prop)</D:prop>"
                + hrefs.map { "<D:href>\(Self.escape($0))</D:href>" }.joined() + "</C:calendar-multiget>")
    }

    /// A sync-collection (RFC 6578 §3.2) from `token` (the initial sync when empty), at
    /// most `limit` results when given.
    public func syncCollection(
        _ path: String, token: String = "", limit: Int? = nil, props: [DAVName] = [.getETag]
    ) throws -> DAVAnswer {
        let limitElement = limit.map { "<D:limit><D:nresults>\($0)</D:nresults></D:limit>" } ?? ""
        return try report(
            path,
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token>\(Self.escape(token))</D:sync-token>"
                + "<D:sync-level>1</D:sync-level>\(limitElement)\(Self.prop(props))</D:sync-collection>")
    }

    /// A free-busy-query (RFC 4791 §7.10) over `start`–`end` (UTC, `20261201T000000Z`).
    public func freeBusy(_ path: String, start: String, end: String, depth: String? = nil) throws -> DAVAnswer {
        try report(
            path, depth: depth,
            "<C:free-busy-query \(Self.namespaces)><C:time-range start=\"\(start)\" end=\"\(end)\"/></C:free-busy-query>"
        )
    }

    /// `xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"`, for bodies written by hand.
    public static let namespaces = "xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\""

    /// `<D:prop>` naming each property in its own namespace.
    static func prop(_ names: [DAVName]) -> String {
        guard !names.isEmpty else { return "<D:prop/>" }
        let inner = names.enumerated().map { index, name in
            name.namespace == DAVName.davNamespace
                ? "<D:\(name.name)/>" : "<p\(index):\(name.name) xmlns:p\(index)=\"\(name.namespace)\"/>"
        }
        return "<D:prop>\(inner.joined())</D:prop>"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}

/// An answer to a DAV request, with its body read as what it is.
public struct DAVAnswer: Sendable {
    /// The answer as received.
    public var response: TestResponse

    public init(_ response: TestResponse) { self.response = response }

    public var status: Int { response.status }
    public var headers: HTTPHeaders { response.headers }
    public var body: [UInt8] { response.body }
    /// The body as text: for a GET's calendar data, a free-busy answer, or a message.
    public var text: String { response.text }

    /// The body as a 207 multistatus; throws when it is not one.
    public func multistatus() throws -> Multistatus {
        guard status == 207 else { throw TestServerError("status \(status), not 207: \(text.prefix(500))") }
        return try Multistatus(parsing: body)
    }

    /// The DAV error body, or nil when the body is not one.
    public var error: DAVErrorBody? { try? DAVErrorBody(parsing: body) }

    /// The name of the failed precondition in the DAV error body, or nil.
    public var precondition: DAVName? { error?.condition.name }
}
