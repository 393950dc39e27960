import CalendarStore
import HTTPTypes

/// acl-principal-prop-set (RFC 3744 §9.2): the asked properties of every principal the
/// resource's access control names. Almanac's access control is ownership and sharing:
/// a resource names its owner and the user asking; a calendar its owner, and, asked by
/// the owner, the users it is shared with (accepted shares; a sharee learns no other
/// sharee).
struct AclPrincipalPropSetReport {
    var wanted: [PropertyName]

    init(_ body: XMLElement) {
        wanted = body.child(DAVNamespace.dav, "prop")?.children.map(PropertyName.init) ?? []
    }

    func answer(in context: DAVContext) throws(StoreError) -> HTTPResponse {
        var names: [String] = []
        func add(_ name: String) { if !names.contains(name) { names.append(name) } }
        if case .calendar(_, let name) = context.path {
            let calendar = try context.calendar(named: name).calendar
            add(calendar.owner)
            if calendar.owner == context.user {
                for share in try context.store.shares(ofCalendar: calendar.id) where share.status == .accepted {
                    add(share.user)
                }
            }
        } else if case .object(_, let name, _) = context.path {
            add(try context.calendar(named: name).calendar.owner)
        } else if let owner = context.path.owner {
            add(owner)
        }
        add(context.user)
        var multistatus = Multistatus()
        for name in names {
            guard let account = try? context.handler.backend.user(named: name) else { continue }
            let properties = try context.principalProperties(of: account)
            multistatus.add(
                href: DAVPath.principal(user: name).href,
                found: wanted.compactMap { name in properties[name].map { (name, $0) } },
                missing: wanted.filter { properties[$0] == nil })
        }
        return multistatus.response()
    }
}
