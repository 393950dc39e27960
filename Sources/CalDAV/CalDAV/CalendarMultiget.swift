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
        // On a calendar, any of its objects; on an object, only that object (§7.9).
        func answered(_ target: DAVPath) -> Bool {
            switch context.path {
            case .calendar(let owner, let name):
                if case .object(owner, name, _) = target { return true }
                return false
            case .object: return target == context.path
            default: return false
            }
        }
        for href in body.children(DAVNamespace.dav, "href") {
            guard let target = DAVPath(requestPath: href.text), answered(target),
                case .object(_, _, let name) = target
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
