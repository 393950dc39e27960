import CalendarStore
import HTTPTypes

/// principal-property-search (RFC 3744 §9.4): finds the principals the user may see
/// (``PrincipalVisibility``) whose searched properties contain each match, caselessly
/// (the RFC's preferred default). Display names are searched (a user's name too, which
/// is the display name of a user who has none) and calendar user addresses; a search
/// on any other property matches no principal, as §9.4 says.
///
/// The scope is the principal collection: with `DAV:apply-to-principal-collection-set`
/// (every resource's `principal-collection-set` is `/dav/principals/`), and without it
/// on the root and the principal collection, whose members those principals are. On a
/// principal without it, that principal alone. Elsewhere (a calendar home, a calendar)
/// the search still covers the principal collection, rather than the none a strict
/// reading gives, because clients given a calendar's URL search from there.
struct PrincipalSearchReport {
    /// One `DAV:property-search`: every property named must contain the match.
    struct Criterion {
        var properties: [PropertyName]
        /// Lowercased.
        var match: String
    }

    var criteria: [Criterion]
    /// Whether one criterion matching is enough: `test="anyof"`, the extension Apple's
    /// clients send; `allof` (and no `test`) is the RFC's logical AND.
    var anyOf: Bool
    var appliesToPrincipalCollectionSet: Bool
    /// The properties to return.
    var wanted: [PropertyName]

    init(_ body: XMLElement) throws(DAVError) {
        criteria = body.children(DAVNamespace.dav, "property-search").map {
            Criterion(
                properties: $0.child(DAVNamespace.dav, "prop")?.children.map(PropertyName.init) ?? [],
                match: ($0.child(DAVNamespace.dav, "match")?.text ?? "").lowercased())
        }
        switch body.attributes["test"] {
        case nil, "allof": anyOf = false
        case "anyof": anyOf = true
        case let other?: throw DAVError(400, "principal-property-search test is anyof or allof, not \(other)")
        }
        appliesToPrincipalCollectionSet = body.child(DAVNamespace.dav, "apply-to-principal-collection-set") != nil
        // The properties asked for; python `caldav` puts them beside an empty DAV:prop
        // instead of inside it, so stray property elements count as asked too.
        let structure: Set<String> = ["property-search", "prop", "apply-to-principal-collection-set"]
        let asked = body.child(DAVNamespace.dav, "prop")?.children ?? []
        let stray = body.children.filter { $0.namespace != DAVNamespace.dav || !structure.contains($0.name) }
        wanted = (asked.isEmpty ? stray : asked).map(PropertyName.init)
        if wanted.isEmpty { wanted = [.displayName] }
    }

    /// The texts of a principal's property that a search reads (§9.4.1: its character
    /// data); nil for a property that is not searchable.
    static func searchableTexts(_ name: PropertyName, of account: User, addresses: () -> [String]) -> [String]? {
        switch name {
        case .displayName: [account.displayName ?? account.name, account.name]
        // Clients look a sharee up by e-mail address (as `mailto:` or bare).
        case .calendarUserAddressSet: [DAVPath.principal(user: account.name).href] + addresses().map { "mailto:" + $0 }
        default: nil
        }
    }

    /// Whether a principal meets the search: no criteria (as python `caldav` sends to list
    /// principals) match every principal.
    func matches(_ account: User, backend: any StoreBackend) -> Bool {
        guard !criteria.isEmpty else { return true }
        // Read only when a criterion names the address set.
        let addresses = { (try? backend.addresses(ofUser: account.name)) ?? [] }
        func meets(_ criterion: Criterion) -> Bool {
            !criterion.properties.isEmpty
                && criterion.properties.allSatisfy { name in
                    Self.searchableTexts(name, of: account, addresses: addresses)?.contains {
                        $0.lowercased().contains(criterion.match)
                    } ?? false
                }
        }
        return anyOf ? criteria.contains(where: meets) : criteria.allSatisfy(meets)
    }

    func answer(in context: DAVContext) throws(StoreError) -> HTTPResponse {
        var candidates = try context.visiblePrincipals()
        if case .principal(let name) = context.path, !appliesToPrincipalCollectionSet {
            candidates = candidates.filter { $0.name == name }
        }
        var multistatus = Multistatus()
        for account in candidates where matches(account, backend: context.handler.backend) {
            let properties = try context.principalProperties(of: account)
            multistatus.add(
                href: DAVPath.principal(user: account.name).href,
                found: wanted.compactMap { name in properties[name].map { (name, $0) } },
                missing: wanted.filter { properties[$0] == nil })
        }
        return multistatus.response()
    }

    /// principal-search-property-set (RFC 3744 §9.5): what ``searchableTexts(_:of:addresses:)`` reads.
    static func propertySet() -> HTTPResponse {
        func entry(_ property: String, _ description: String) -> String {
            "<D:principal-search-property><D:prop>\(property)</D:prop>"
                + "<D:description xml:lang=\"en\">\(description)</D:description></D:principal-search-property>"
        }
        let body =
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:principal-search-property-set\(DAVNamespace.declarations)>"
            + entry("<D:displayname/>", "Display name") + entry("<C:calendar-user-address-set/>", "Calendar address")
            + "</D:principal-search-property-set>\n"
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/xml; charset=utf-8"], body: Array(body.utf8))
    }
}
