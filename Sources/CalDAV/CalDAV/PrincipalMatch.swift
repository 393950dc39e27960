import CalendarStore
import HTTPTypes

/// principal-match (RFC 3744 §9.3): the resources under the Request-URI (it and its
/// members at any depth) that are the user's principal (`DAV:self`), or whose named
/// property (`DAV:principal-property`, such as `DAV:owner`) holds the href of the
/// user's principal. Calendar objects carry no such property, so the walk stops at
/// calendars; other users' trees are not walked, and their principals never match.
struct PrincipalMatchReport {
    enum Test {
        /// `DAV:self`: the user's own principal.
        case isSelf
        /// `DAV:principal-property`: a property whose href is the user's principal.
        case property(PropertyName)
    }

    var test: Test
    /// The properties to return (none: each match answers with its href and 200).
    var wanted: [PropertyName]

    init(_ body: XMLElement) throws(DAVError) {
        if body.child(DAVNamespace.dav, "self") != nil {
            test = .isSelf
        } else if let property = body.child(DAVNamespace.dav, "principal-property")?.children.first {
            test = .property(PropertyName(property))
        } else {
            throw DAVError(400, "principal-match names DAV:self or a DAV:principal-property")
        }
        wanted = body.child(DAVNamespace.dav, "prop")?.children.map(PropertyName.init) ?? []
    }

    /// The Request-URI and what lies below it, as far as a match can be.
    func scope(in context: DAVContext) throws(StoreError) -> [DAVPath] {
        func below(_ path: DAVPath) throws(StoreError) -> [DAVPath] {
            switch path {
            case .root:
                return try [.principals] + below(.principals) + [.home(user: context.user)]
                    + below(.home(user: context.user))
            case .principals: return try context.visiblePrincipals().map { .principal(user: $0.name) }
            case .home(let owner):
                return try context.store.calendars().map { .calendar(user: owner, name: $0.name) }
            case .principal, .calendar, .object, .notifications, .notification, .inbox, .inboxItem, .outbox,
                .pushRegistration:
                return []
            }
        }
        return try [context.path] + below(context.path)
    }

    func answer(in context: DAVContext) throws(StoreError) -> HTTPResponse {
        let me = DAVPath.principal(user: context.user)
        let mine = "<D:href>\(XMLText.escape(me.href))</D:href>"
        var multistatus = Multistatus()
        for path in try scope(in: context) {
            var properties: [PropertyName: String]?
            switch test {
            case .isSelf:
                guard path == me else { continue }
            case .property(let name):
                properties = try context.properties(of: path)
                guard properties?[name]?.contains(mine) == true else { continue }
            }
            if wanted.isEmpty {
                multistatus.add(href: path.href, status: 200)
                continue
            }
            let found: [PropertyName: String]
            if let properties { found = properties } else { found = try context.properties(of: path) }
            multistatus.add(
                href: path.href, found: wanted.compactMap { name in found[name].map { (name, $0) } },
                missing: wanted.filter { found[$0] == nil })
        }
        return multistatus.response()
    }
}
