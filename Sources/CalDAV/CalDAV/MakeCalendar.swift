import CalendarStore
import HTTPTypes

extension DAVContext {
    /// MKCALENDAR (RFC 4791 §5.3.1) and extended MKCOL (RFC 5689) with a calendar
    /// resourcetype: creates a calendar collection with the initial properties given.
    ///
    /// MKCALENDAR's preconditions (§5.3.1.1) are 403s, checked before the body is read:
    /// `CALDAV:calendar-collection-location-ok` where no calendar can be made (inside a
    /// calendar), `DAV:resource-must-be-null` where something exists. MKCOL answers a
    /// mapped URL 405 (RFC 4918 §9.3.1) and an unmapped one where no collection may be
    /// made 403.
    func makeCalendar() -> HTTPResponse {
        guard case .calendar(_, let name) = path else {
            if request.method == "MKCOL" {
                if (try? properties(of: path)) != nil {
                    return DAVError(405, "\(path.href) exists; MKCOL makes a collection at an unmapped URL").response
                }
                return DAVError(403, "collections are made only in the calendar home, as calendars").response
            }
            if case .object = path {
                return DAVError(
                    403, "a calendar is not made inside another calendar", caldav: "calendar-collection-location-ok"
                ).response
            }
            return DAVError(403, "calendars are made inside the calendar home", dav: "resource-must-be-null").response
        }
        // A mapped URL fails before the body is read for what it would make: MKCOL 405
        // (RFC 4918 §9.3.1), MKCALENDAR its precondition (RFC 4791 §5.3.1.1).
        if (try? store.calendarHandle(named: name)) != nil {
            if request.method == "MKCOL" {
                return DAVError(405, "\(path.href) exists; MKCOL makes a collection at an unmapped URL").response
            }
            return DAVError(
                403, "\(path.href) exists; MKCALENDAR makes a calendar at an unmapped URL", dav: "resource-must-be-null"
            ).response
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
        // A property that cannot be set fails the whole request and nothing is created
        // (RFC 4791 §5.3.1, RFC 5689 §3). Neither RFC fixes the failure's status code (RFC
        // 5689's example answers 403 with a DAV:mkcol-response); Almanac answers as a failed
        // PROPPATCH does (RFC 4918 §9.2): 207 with each property's status, the one that
        // failed with its own and the others 424 Failed Dependency, in the multistatus
        // every client already reads.
        if statuses.contains(where: { $0.status != 200 }) {
            var multistatus = Multistatus()
            multistatus.add(href: path.href, statuses: statuses.map { ($0.name, $0.status == 200 ? 424 : $0.status) })
            return multistatus.response()
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
