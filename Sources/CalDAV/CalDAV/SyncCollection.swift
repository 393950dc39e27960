import CalendarStore
import HTTPTypes

extension DAVContext {
    /// sync-collection (RFC 6578): what changed since the token. With `DAV:limit`, at
    /// most that many changes, a 507 for the collection, and a checkpoint token from
    /// which the client continues without missing anything.
    func syncCollection(_ body: XMLElement, calendar: EventCalendar, request: ReportRequest) throws(StoreError)
        -> HTTPResponse
    {
        let tokenText = body.child(DAVNamespace.dav, "sync-token")?.text ?? ""
        var token: SyncToken?
        if !tokenText.isEmpty {
            guard let parsed = SyncToken(tokenText) else {
                throw StoreError(.invalidSyncToken, "sync token \(tokenText) was not issued by this server")
            }
            token = parsed
        }
        var limit: Int?
        if let element = body.child(DAVNamespace.dav, "limit") {
            guard let text = element.child(DAVNamespace.dav, "nresults")?.text, let count = Int(text), count > 0 else {
                return DAVError(400, "DAV:limit needs DAV:nresults, a positive number").response
            }
            limit = count
        }
        let changes = try store.changes(since: token, calendar: calendar.id, limit: limit)
        var multistatus = Multistatus()
        try respond(changes.changed, calendar: calendar, request: request, into: &multistatus)
        for name in changes.deleted {
            multistatus.add(href: DAVPath.object(user: user, calendar: calendar.name, name: name).href, status: 404)
        }
        if changes.isTruncated {
            multistatus.add(
                href: DAVPath.calendar(user: user, name: calendar.name).href, status: 507,
                error: PropertyName(DAVNamespace.dav, "number-of-matches-within-limits"))
        }
        multistatus.syncToken = changes.token.description
        return multistatus.response()
    }
}
