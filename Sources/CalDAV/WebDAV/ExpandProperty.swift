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

    /// The most resources one answer expands: a value can hold many hrefs and requests
    /// nest, so the work is bounded rather than left to grow with their product.
    static let maximumExpansions = 10_000

    func answer(in context: DAVContext) -> HTTPResponse {
        var multistatus = Multistatus()
        var budget = Self.maximumExpansions
        do throws(DAVError) {
            let properties: [PropertyName: String]
            do {
                properties = try context.properties(of: context.path)
            } catch {
                throw DAVError(error)
            }
            let (found, missing) = try Self.expanded(requests, of: properties, in: context, budget: &budget)
            multistatus.add(href: context.path.href, found: found, missing: missing)
        } catch {
            return error.response
        }
        return multistatus.response()
    }

    /// The asked properties out of a resource's `properties`, those with nested requests expanded.
    static func expanded(
        _ requests: [Request], of properties: [PropertyName: String], in context: DAVContext, budget: inout Int
    ) throws(DAVError) -> (found: [(name: PropertyName, value: String)], missing: [PropertyName]) {
        var found: [(name: PropertyName, value: String)] = []
        var missing: [PropertyName] = []
        for request in requests {
            guard let value = properties[request.name] else {
                missing.append(request.name)
                continue
            }
            guard !request.nested.isEmpty else {
                found.append((request.name, value))
                continue
            }
            var expanded: [UInt8] = []
            for href in hrefs(in: value, of: request.name) {
                budget -= 1
                guard budget >= 0 else {
                    throw DAVError(
                        403, "expand-property would expand more than \(maximumExpansions) resources",
                        dav: "number-of-matches-within-limits")
                }
                guard let path = DAVPath(requestPath: href),
                    path.owner == nil || path.owner == context.user || context.handler.canSee(path, as: context.user),
                    let nestedProperties = try? context.properties(of: path)
                else {
                    Multistatus.writeResponse(href: href, status: 404, into: &expanded)
                    continue
                }
                let (nestedFound, nestedMissing) = try Self.expanded(
                    request.nested, of: nestedProperties, in: context, budget: &budget)
                Multistatus.writeResponse(href: path.href, found: nestedFound, missing: nestedMissing, into: &expanded)
            }
            found.append((request.name, String(decoding: expanded, as: UTF8.self)))
        }
        return (found, missing)
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
