import CalendarStore
import HTTPTypes

/// principal-property-search (RFC 3744 §9.4): a user finds their own principal by
/// display name (or name); other users' principals are not searchable. A search
/// without criteria (python `caldav` sends one to list principals) finds it too.
struct PrincipalSearchReport {
    /// The texts each searched property must contain (all of them, case-insensitively).
    var matches: [String]
    /// The properties to return.
    var wanted: [PropertyName]

    init(_ body: XMLElement) {
        matches = body.children(DAVNamespace.dav, "property-search").map {
            QueryFilter.asciiLowercased($0.child(DAVNamespace.dav, "match")?.text ?? "")
        }
        // The properties asked for; python `caldav` puts them beside an empty DAV:prop
        // instead of inside it, so stray property elements count as asked too.
        let structure: Set<String> = ["property-search", "prop", "apply-to-principal-collection-set"]
        let asked = body.child(DAVNamespace.dav, "prop")?.children ?? []
        let stray = body.children.filter { $0.namespace != DAVNamespace.dav || !structure.contains($0.name) }
        wanted = (asked.isEmpty ? stray : asked).map(PropertyName.init)
        if wanted.isEmpty { wanted = [.displayName] }
    }

    func answer(in context: DAVContext) -> HTTPResponse {
        let user = context.user
        let account = try? context.handler.backend.user(named: user)
        let name = QueryFilter.asciiLowercased(account?.displayName ?? user)
        let found = matches.allSatisfy { name.contains($0) || QueryFilter.asciiLowercased(user).contains($0) }
        var multistatus = Multistatus()
        if found, let properties = try? context.properties(of: .principal(user: user)) {
            multistatus.add(
                href: DAVPath.principal(user: user).href,
                found: wanted.compactMap { name in properties[name].map { (name, $0) } },
                missing: wanted.filter { properties[$0] == nil })
        }
        return multistatus.response()
    }

    /// principal-search-property-set (RFC 3744 §9.5): display names are searchable.
    static func propertySet() -> HTTPResponse {
        let body =
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:principal-search-property-set\(DAVNamespace.declarations)>"
            + "<D:principal-search-property><D:prop><D:displayname/></D:prop><D:description xml:lang=\"en\">Display name</D:description>"
            + "</D:principal-search-property></D:principal-search-property-set>\n"
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/xml; charset=utf-8"], body: Array(body.utf8))
    }
}
