import CalendarStore
import HTTPTypes

/// expand-property (RFC 3253 §3.8), which RFC 4791 §7.1 says a CalDAV server MUST
/// answer: the named properties of the request's resource, where a property asked with
/// nested `DAV:property` elements has each `DAV:href` of its value replaced by a
/// `DAV:response` for that resource carrying the nested properties (expanded the same
/// way). Clients read, for example, the principal's `calendar-home-set` with the home's
/// display name in one request.
///
/// Only what the requester may read is expanded (their own tree, the shared root and
/// principal collection, and other principals where the operator lets users see them):
/// an href elsewhere, even one a dead property holds, answers 404 without reading
/// anything there.
struct ExpandPropertyReport {
    struct Request: Equatable {
        var name: PropertyName
        var nested: [Request]
    }

    var requests: [Request]

    init(_ body: XMLElement) throws(DAVError) {
        requests = try Self.requests(in: body)
    }

    static func requests(in element: XMLElement) throws(DAVError) -> [Request] {
        var result: [Request] = []
        for property in element.children(DAVNamespace.dav, "property") {
            guard let name = property.attributes["name"], !name.isEmpty else {
                throw DAVError(400, "a DAV:property of expand-property needs a name attribute")
            }
            // The namespace defaults to DAV: (RFC 3253 §3.8's DTD).
            let namespace = property.attributes["namespace"] ?? DAVNamespace.dav
            result.append(Request(name: PropertyName(namespace, name), nested: try requests(in: property)))
        }
        return result
    }

    /// The most resources one answer expands, and the most bytes of property values it
    /// writes: a value can hold many hrefs and requests nest, so the work and the answer
    /// are bounded rather than left to grow with their product.
    static let maximumExpansions = 10_000
    static let maximumBytes = 16 << 20

    /// What one answer has spent, and the resources it has read (each read once).
    struct Expansion {
        let context: DAVContext
        var expansions = 0
        var bytes = 0
        var read: [String: [PropertyName: String]?] = [:]

        /// The properties of a resource the requester may read, nil for any other.
        mutating func properties(of path: DAVPath) -> [PropertyName: String]? {
            if let known = read[path.href] { return known }
            let user = context.user
            let readable = path.owner == nil || path.owner == user || context.handler.canSee(path, as: user)
            let properties = readable ? try? context.properties(of: path) : nil
            read[path.href] = properties
            return properties
        }

        mutating func spend(expansions: Int = 0, bytes: Int) throws(DAVError) {
            self.expansions += expansions
            self.bytes += bytes
            guard self.expansions <= ExpandPropertyReport.maximumExpansions,
                self.bytes <= ExpandPropertyReport.maximumBytes
            else {
                throw DAVError(
                    403,
                    "expand-property would expand more than \(ExpandPropertyReport.maximumExpansions) resources "
                        + "or write more than \(ExpandPropertyReport.maximumBytes >> 20) MiB",
                    dav: "number-of-matches-within-limits")
            }
        }

        /// The asked properties out of a resource's `properties`, those with nested requests expanded.
        mutating func expanded(_ requests: [Request], of properties: [PropertyName: String]) throws(DAVError) -> (
            found: [(name: PropertyName, value: String)], missing: [PropertyName]
        ) {
            var found: [(name: PropertyName, value: String)] = []
            var missing: [PropertyName] = []
            for request in requests {
                guard let value = properties[request.name] else {
                    missing.append(request.name)
                    continue
                }
                guard !request.nested.isEmpty else {
                    try spend(bytes: value.utf8.count)
                    found.append((request.name, value))
                    continue
                }
                var expanded: [UInt8] = []
                for href in ExpandPropertyReport.hrefs(in: value, of: request.name) {
                    // Each response's href and status lines count besides its values.
                    try spend(expansions: 1, bytes: href.utf8.count + 100)
                    guard let path = DAVPath(requestPath: href), let nested = self.properties(of: path) else {
                        Multistatus.writeResponse(href: href, status: 404, into: &expanded)
                        continue
                    }
                    let (nestedFound, nestedMissing) = try self.expanded(request.nested, of: nested)
                    Multistatus.writeResponse(
                        href: path.href, found: nestedFound, missing: nestedMissing, into: &expanded)
                }
                found.append((request.name, String(decoding: expanded, as: UTF8.self)))
            }
            return (found, missing)
        }
    }

    func answer(in context: DAVContext) -> HTTPResponse {
        var multistatus = Multistatus()
        var expansion = Expansion(context: context)
        do throws(DAVError) {
            let properties: [PropertyName: String]
            do {
                properties = try context.properties(of: context.path)
            } catch {
                throw DAVError(error)
            }
            let (found, missing) = try expansion.expanded(requests, of: properties)
            multistatus.add(href: context.path.href, found: found, missing: missing)
        } catch {
            return error.response
        }
        return multistatus.response()
    }

    /// The `DAV:href`s at the top of a property's value: a live one's inner XML (with the
    /// prefixes every multistatus declares), or a dead one's whole element.
    static func hrefs(in value: String, of name: PropertyName) -> [String] {
        let document =
            DeadProperty.isElement(value, of: name) ? value : "<D:value\(DAVNamespace.declarations)>\(value)</D:value>"
        guard let root = try? XMLBody.parse(Array(document.utf8)) else { return [] }
        return root.children(DAVNamespace.dav, "href").map(\.text)
    }
}
