import CalendarStore
import HTTPTypes

extension DAVContext {
    /// MKCALENDAR (RFC 4791 §5.3.1) and extended MKCOL (RFC 5689) with a calendar
    /// resourcetype: creates a calendar collection with the initial properties given.
    ///
    /// MKCALENDAR's preconditions (§5.3.1.1) are 403s: `CALDAV:calendar-collection-location-ok`
    /// where no calendar can be made (inside a calendar), `DAV:resource-must-be-null` where
    /// something exists. MKCOL answers an existing resource 405, as RFC 4918 §9.3.1 says.
    func makeCalendar() -> HTTPResponse {
        guard case .calendar(_, let name) = path else {
            if case .object = path {
                return DAVError(
                    403, "a calendar is not made inside another calendar", caldav: "calendar-collection-location-ok"
                ).response
            }
            return DAVError(403, "calendars are made inside the calendar home", dav: "resource-must-be-null").response
        }
        var settings: [XMLElement] = []
        if !request.body.isEmpty {
            let body: XMLElement
            let expected = request.method == "MKCOL" ? (DAVNamespace.dav, "mkcol") : (DAVNamespace.caldav, "mkcalendar")
            switch self.body(expected.0, expected.1) {
            case .success(let element): body = element
            case .failure(let failure): return failure.response
            }
            settings = DeadProperty.properties(in: body, "set")
        }
        if request.method == "MKCOL" {
            let type = settings.first { $0.namespace == DAVNamespace.dav && $0.name == "resourcetype" }
            guard type?.child(DAVNamespace.caldav, "calendar") != nil else {
                return DAVError(
                    403, "only calendar collections can be made here (resourcetype CALDAV:calendar)",
                    dav: "valid-resourcetype"
                ).response
            }
        }
        var calendar = EventCalendar(title: name)
        let statuses = apply(settings, removals: [], to: &calendar)
        if statuses.contains(where: { $0.status != 200 }) {
            var multistatus = Multistatus()
            multistatus.add(href: path.href, statuses: statuses.map { ($0.name, $0.status == 200 ? 424 : $0.status) })
            var response = multistatus.response()
            response.status = 403
            return response
        }
        do {
            _ = try store.createCalendar(calendar, name: name)
        } catch {
            if error.code == .alreadyExists, request.method == "MKCALENDAR" {
                return DAVError(403, error.message, dav: "resource-must-be-null").response
            }
            return DAVError(error).response
        }
        return HTTPResponse(status: 201, headers: ["Location": path.href, "Cache-Control": "no-cache"])
    }
}
