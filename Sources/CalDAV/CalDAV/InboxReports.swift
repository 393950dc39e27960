import CalendarStore
import HTTPTypes
import ICalendar

/// The schedule inbox answers the calendar reports a client lists a calendar with (RFC
/// 6638 §2.2: it is a calendar collection for reports): calendar-query, its filter
/// evaluated on each message, and calendar-multiget of its messages. Each message is
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
        default:
            throw DAVError(
                403, "the inbox answers calendar-query and calendar-multiget", dav: "supported-report")
        }
        var multistatus = Multistatus()
        for href in foreign { multistatus.add(href: href, status: 404) }
        for name in names {
            let href = DAVPath.inboxItem(user: user, name: name).href
            guard let message = try? inboxMessage(named: name) else {
                if body.name == "calendar-multiget" { multistatus.add(href: href, status: 404) }
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
        return multistatus.response()
    }
}
