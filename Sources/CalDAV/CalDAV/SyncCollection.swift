import CalendarStore
import HTTPTypes

/// sync-collection (RFC 6578): what changed since the token. With `DAV:limit`, at
/// most that many changes, a 507 for the collection, and a checkpoint token from
/// which the client continues without missing anything.
///
/// `DAV:sync-level` (§3.3) is `1` or `infinite`. A calendar holds no child collections
/// (RFC 4791 §4.2; Almanac's hold only objects), so `infinite` reports the same members as
/// `1`: there is no child collection to answer 403 `DAV:sync-traversal-supported` for. Any
/// other value is no level §3.3 defines and is 400. A missing sync-level is read as `1`: §3.3
/// says clients MUST send it, but some omit it, and `1` is the only level they can mean
/// on a calendar.
struct SyncCollectionReport {
    var properties: ReportProperties
    var token: SyncToken?
    var limit: Int?

    init(_ body: XMLElement) throws(DAVError) {
        properties = try ReportProperties(body)
        if let level = body.child(DAVNamespace.dav, "sync-level")?.text, level != "1", level != "infinite" {
            throw DAVError(400, "DAV:sync-level is 1 or infinite, not \(level) (RFC 6578 §3.3)")
        }
        let tokenText = body.child(DAVNamespace.dav, "sync-token")?.text ?? ""
        if !tokenText.isEmpty {
            guard let parsed = SyncToken(tokenText) else {
                throw DAVError(403, "sync token \(tokenText) was not issued by this server", dav: "valid-sync-token")
            }
            token = parsed
        }
        if let element = body.child(DAVNamespace.dav, "limit") {
            guard let text = element.child(DAVNamespace.dav, "nresults")?.text, let count = Int(text), count > 0 else {
                throw DAVError(400, "DAV:limit needs DAV:nresults, a positive number")
            }
            limit = count
        }
    }

    func answer(in context: DAVContext, calendar: CalendarHandle) throws(StoreError) -> HTTPResponse {
        let changes = try context.store.changes(since: token, calendar: calendar, limit: limit)
        var multistatus = Multistatus()
        // The listing answers the properties; calendar-data is read for the changed objects.
        let report: ResourceReport
        if properties.wantsCalendarData {
            report = try context.store.report(
                ResourceQuery(names: changes.changed.map(\.name)), content: properties.content, calendar: calendar)
        } else {
            report = ResourceReport(
                items: changes.changed.map { .init(info: $0, data: nil, instances: []) }, missing: [],
                isTruncated: false)
        }
        try context.write(report, properties: properties, calendar: calendar, into: &multistatus)
        for name in changes.deleted {
            multistatus.add(
                href: DAVPath.object(user: context.user, calendar: calendar.calendar.name, name: name).href,
                status: 404)
        }
        if changes.isTruncated {
            multistatus.addTruncation(of: DAVPath.calendar(user: context.user, name: calendar.calendar.name).href)
        }
        multistatus.syncToken = changes.token.description
        return multistatus.response()
    }
}
