import CalendarStore
import HTTPTypes
import ICalendar

/// The schedule inbox answers the calendar reports a client lists a calendar with (RFC
/// 6638 §2.2: it is a calendar collection for reports): calendar-query, its filter
/// evaluated on each message, calendar-multiget of its messages, and sync-collection
/// from its own change log. Each message is
/// answered with the properties asked for and, when asked, its whole calendar data.
extension DAVContext {
    func inboxReport(_ body: XMLElement) throws(DAVError) -> HTTPResponse {
        guard case .inbox(let owner) = path, owner == user else {
            throw DAVError(403, "the inbox reports are answered on one's own inbox", dav: "supported-report")
        }
        let properties = try ReportProperties(body)
        var names: [String]
        var foreign: [String] = []
        var members: [XMLElement] = []
        switch (body.namespace, body.name) {
        case (DAVNamespace.caldav, "calendar-query"):
            members = try CalendarQueryReport(body).members
            do throws(StoreError) {
                names = try handler.backend.scheduling.inboxEntries(of: user).map(\.name)
            } catch {
                throw DAVError(error)
            }
        case (DAVNamespace.caldav, "calendar-multiget"):
            names = []
            for href in body.children(DAVNamespace.dav, "href") {
                if let target = DAVPath(requestPath: href.text), case .inboxItem(owner, let name) = target {
                    names.append(name)
                } else {
                    foreign.append(href.text)
                }
            }
        case (DAVNamespace.dav, "sync-collection"):
            return try inboxSync(SyncCollectionReport(body))
        default:
            throw DAVError(
                403, "the inbox answers calendar-query, calendar-multiget and sync-collection",
                dav: "supported-report")
        }
        var multistatus = Multistatus()
        for href in foreign { multistatus.add(href: href, status: 404) }
        try addMessages(
            names, to: &multistatus, properties: properties, filter: members,
            missingAre404: body.name == "calendar-multiget")
        return multistatus.response()
    }

    /// sync-collection on the inbox (RFC 6578): the messages delivered since the token with
    /// the properties asked for, 404 for those removed; with `DAV:limit`, the oldest changes
    /// and a checkpoint token.
    private func inboxSync(_ report: SyncCollectionReport) throws(DAVError) -> HTTPResponse {
        var found: InboxChanges
        do throws(StoreError) {
            found = try handler.backend.scheduling.inboxChanges(of: user, since: report.token)
        } catch {
            throw DAVError(error)
        }
        var multistatus = Multistatus()
        if let limit = report.limit, found.changes.count > limit {
            found.changes.removeLast(found.changes.count - limit)
            found.token.sequence = found.changes.last?.sequence ?? found.token.sequence
            multistatus.addTruncation(of: DAVPath.inbox(user: user).href)
        }
        try addMessages(
            found.changes.filter { !$0.isRemoved }.map(\.name), to: &multistatus, properties: report.properties,
            filter: [], missingAre404: true)
        for change in found.changes where change.isRemoved {
            multistatus.add(href: DAVPath.inboxItem(user: user, name: change.name).href, status: 404)
        }
        multistatus.syncToken = found.token.description
        return multistatus.response()
    }

    /// The messages named, each with the properties asked for when it matches every filter;
    /// one gone since it was named is 404 when `missingAre404`, else left out.
    private func addMessages(
        _ names: [String], to multistatus: inout Multistatus, properties: ReportProperties,
        filter members: [XMLElement],
        missingAre404: Bool
    ) throws(DAVError) {
        for name in names {
            let href = DAVPath.inboxItem(user: user, name: name).href
            guard let message = try? inboxMessage(named: name) else {
                if missingAre404 { multistatus.add(href: href, status: 404) }
                continue
            }
            if !members.isEmpty {
                guard let calendar = (try? ICalendarParser.parse(message.data, options: .lenient))?.components.first,
                    members.allSatisfy({ QueryFilter.matches($0, in: calendar) })
                else { continue }
            }
            let known = Self.inboxMessageProperties(message)
            let found = properties.properties.compactMap { name in known[name].map { (name, $0) } }
            multistatus.add(
                href: href, found: properties.namesOnly ? found.map { ($0.0, "") } : found,
                calendarData: properties.wantsCalendarData ? message.data : nil,
                missing: properties.properties.filter { known[$0] == nil })
        }
    }
}
