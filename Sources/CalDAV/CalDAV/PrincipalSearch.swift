import CalendarStore
import HTTPTypes

extension DAVContext {
    /// principal-property-search (RFC 3744 §9.4): a user finds their own principal by
    /// display name (or name); other users' principals are not searchable. A search
    /// without criteria (python `caldav` sends one to list principals) finds it too.
    func principalSearch(_ body: XMLElement) -> HTTPResponse {
        let searches = body.children(DAVNamespace.dav, "property-search")
        let account = try? handler.backend.user(named: user)
        let name = account?.displayName ?? user
        let matches = searches.allSatisfy { search in
            let wanted = QueryFilter.asciiLowercased(search.child(DAVNamespace.dav, "match")?.text ?? "")
            return QueryFilter.asciiLowercased(name).contains(wanted)
                || QueryFilter.asciiLowercased(user).contains(wanted)
        }
        // The properties asked for; python `caldav` puts them beside an empty DAV:prop
        // instead of inside it, so stray property elements count as asked too.
        let structure: Set<String> = ["property-search", "prop", "apply-to-principal-collection-set"]
        let asked = body.child(DAVNamespace.dav, "prop")?.children ?? []
        let stray = body.children.filter { $0.namespace != DAVNamespace.dav || !structure.contains($0.name) }
        var wanted = (asked.isEmpty ? stray : asked).map(PropertyName.init)
        if wanted.isEmpty { wanted = [.displayName] }
        var multistatus = Multistatus()
        if matches, let properties = try? properties(of: .principal(user: user)) {
            multistatus.add(
                href: DAVPath.principal(user: user).href,
                found: wanted.compactMap { name in properties[name].map { (name, $0) } },
                missing: wanted.filter { properties[$0] == nil })
        }
        return multistatus.response()
    }

    /// principal-search-property-set (RFC 3744 §9.5): display names are searchable.
    func principalSearchPropertySet() -> HTTPResponse {
        let body =
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:principal-search-property-set\(DAVNamespace.declarations)>"
            + "<D:principal-search-property><D:prop><D:displayname/></D:prop><D:description xml:lang=\"en\">Display name</D:description>"
            + "</D:principal-search-property></D:principal-search-property-set>\n"
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/xml; charset=utf-8"], body: Array(body.utf8))
    }
}
