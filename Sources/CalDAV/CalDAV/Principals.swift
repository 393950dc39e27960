import CalendarStore

/// Which principals a signed-in user may see besides their own: an operator's choice
/// (`almanac serve --visible-principals`). RFC 3744 §5.8 lets a server report only a
/// subset of its principals; seeing a principal shows its names and addresses, never
/// its calendars.
public enum PrincipalVisibility: String, Sendable, CaseIterable {
    /// Only their own: the principal collection lists it alone and searches find only it.
    /// Another user's principal is 404, as if there were none. The default.
    case onlySelf = "self"
    /// Every user's principal: listed in the principal collection, found by searches
    /// and readable by PROPFIND (its names and addresses, for a client to show).
    case all
}

extension CalDAVHandler {
    /// Whether `user` may read the resource at `path` of another user's tree: only a
    /// principal, when principals are visible to all, and only one that exists.
    func canSee(_ path: DAVPath, as user: String) -> Bool {
        guard case .principal(let other) = path, visiblePrincipals == .all else { return false }
        return (try? backend.user(named: other)) != nil
    }
}

extension DAVContext {
    /// The principals the user may see, by name: their own, or everyone's.
    func visiblePrincipals() throws(StoreError) -> [User] {
        switch handler.visiblePrincipals {
        case .onlySelf: [try handler.backend.user(named: user)]
        case .all: try handler.backend.users()
        }
    }
}
