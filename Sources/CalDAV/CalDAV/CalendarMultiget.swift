import CalendarStore
import HTTPTypes

/// calendar-multiget (RFC 4791 §7.9): the objects named by href, read together.
struct CalendarMultigetReport {
    var properties: ReportProperties
    /// The names of the objects asked for in this calendar, in the order asked.
    var names: [String] = []
    /// Hrefs that name no object of this calendar (each answered 404).
    var foreign: [String] = []

    init(_ body: XMLElement, in context: DAVContext) throws(DAVError) {
        properties = try ReportProperties(body)
        let calendarName: String? = if case .calendar(_, let name) = context.path { name } else { nil }
        for href in body.children(DAVNamespace.dav, "href") {
            guard let target = DAVPath(requestPath: href.text),
                case .object(let owner, let calendar, let name) = target, owner == context.user,
                calendar == calendarName
            else {
                foreign.append(href.text)
                continue
            }
            names.append(name)
        }
    }

    func answer(in context: DAVContext, calendar: CalendarHandle) throws(StoreError) -> HTTPResponse {
        var multistatus = Multistatus()
        for href in foreign { multistatus.add(href: href, status: 404) }
        let report = try context.store.report(
            ResourceQuery(names: names), content: properties.content, calendar: calendar)
        try context.write(report, properties: properties, calendar: calendar, into: &multistatus)
        for name in report.missing {
            multistatus.add(
                href: DAVPath.object(user: context.user, calendar: calendar.calendar.name, name: name).href,
                status: 404)
        }
        return multistatus.response()
    }
}
