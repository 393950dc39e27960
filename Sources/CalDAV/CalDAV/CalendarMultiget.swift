import CalendarStore
import HTTPTypes

extension DAVContext {
    func multiget(_ body: XMLElement, calendar: EventCalendar, request: ReportRequest) throws(StoreError)
        -> HTTPResponse
    {
        var multistatus = Multistatus()
        var names: [String] = []
        for href in body.children(DAVNamespace.dav, "href") {
            guard let target = DAVPath(requestPath: href.text),
                case .object(let owner, let calendarName, let name) = target, owner == user,
                calendarName == calendar.name
            else {
                multistatus.add(href: href.text, status: 404)
                continue
            }
            names.append(name)
        }
        let stored = try store.resources(named: names, calendar: calendar.id)
        if request.expand != nil {
            try respond(stored.map(\.info), calendar: calendar, request: request, into: &multistatus)
        } else {
            for resource in stored {
                try respond(
                    resource.info, data: resource.data, calendar: calendar, request: request, into: &multistatus)
            }
        }
        let found = Set(stored.map(\.name))
        for name in names where !found.contains(name) {
            multistatus.add(href: DAVPath.object(user: user, calendar: calendar.name, name: name).href, status: 404)
        }
        return multistatus.response()
    }
}
