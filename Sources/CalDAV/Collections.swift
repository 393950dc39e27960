import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import Recurrence

extension DAVContext {
    /// MKCALENDAR (RFC 4791 §5.3.1) and extended MKCOL (RFC 5689) with a calendar
    /// resourcetype: creates a calendar collection with the initial properties given.
    func makeCalendar() -> HTTPResponse {
        guard case .calendar(_, let name) = path else {
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
            settings = body.children(DAVNamespace.dav, "set").flatMap {
                $0.children(DAVNamespace.dav, "prop").flatMap(\.children)
            }
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
            return DAVError(error).response
        }
        return HTTPResponse(status: 201, headers: ["Location": path.href, "Cache-Control": "no-cache"])
    }

    /// PROPPATCH (RFC 4918 §9.2) on a calendar: every change applies, or none.
    func proppatch() -> HTTPResponse {
        guard case .calendar(_, let name) = path else {
            return DAVError(403, "only calendar properties can be changed", dav: "cannot-modify-protected-property")
                .response
        }
        let body: XMLElement
        switch self.body(DAVNamespace.dav, "propertyupdate") {
        case .success(let element): body = element
        case .failure(let failure): return failure.response
        }
        let sets = body.children(DAVNamespace.dav, "set").flatMap {
            $0.children(DAVNamespace.dav, "prop").flatMap(\.children)
        }
        let removals = body.children(DAVNamespace.dav, "remove").flatMap {
            $0.children(DAVNamespace.dav, "prop").flatMap(\.children)
        }
        do {
            var calendar = try self.calendar(named: name)
            let statuses = apply(sets, removals: removals, to: &calendar)
            var multistatus = Multistatus()
            if statuses.contains(where: { $0.status != 200 }) {
                // Atomic: nothing is saved, and the good changes report 424 Failed Dependency.
                multistatus.add(
                    href: path.href, statuses: statuses.map { ($0.name, $0.status == 200 ? 424 : $0.status) })
            } else {
                _ = try store.updateCalendar(calendar)
                multistatus.add(href: path.href, statuses: statuses)
            }
            return multistatus.response()
        } catch {
            return DAVError(error).response
        }
    }

    /// Applies property settings and removals to a calendar; the status of each.
    func apply(_ settings: [XMLElement], removals: [XMLElement], to calendar: inout EventCalendar) -> [(
        name: PropertyName, status: Int
    )] {
        var statuses: [(name: PropertyName, status: Int)] = []
        for element in settings {
            let name = PropertyName(element)
            var status = 200
            switch name {
            case .resourceType:
                status = element.child(DAVNamespace.caldav, "calendar") != nil ? 200 : 403
            case .displayName:
                calendar.title = element.text.isEmpty ? calendar.title : element.text
            case .calendarDescription:
                calendar.calendarDescription = element.text.isEmpty ? nil : element.text
            case .calendarColor:
                calendar.color = element.text.isEmpty ? nil : element.text
            case .calendarOrder:
                if let order = Int(element.text) { calendar.order = order } else { status = 400 }
            case .calendarTimezone:
                if let zone = Self.zoneName(fromTimezoneProperty: element.text) {
                    calendar.timeZone = zone
                } else {
                    status = 400
                }
            case .supportedComponents:
                let types = Set(
                    element.children(DAVNamespace.caldav, "comp").compactMap {
                        $0.attributes["name"].flatMap { ComponentType(rawValue: $0.uppercased()) }
                    })
                if types.isEmpty { status = 400 } else { calendar.componentTypes = types }
            case .getCTag, .syncToken, .getETag, .owner, .currentUserPrincipal, .currentUserPrivilegeSet,
                .supportedReportSet, .principalCollectionSet,
                .supportedCalendarData, .maxResourceSize:
                status = 403
            default:
                // A dead property: kept as given and returned as given.
                calendar.deadProperties[name.clark] = Self.innerXML(of: element)
            }
            statuses.append((name, status))
        }
        for element in removals {
            let name = PropertyName(element)
            switch name {
            case .calendarDescription: calendar.calendarDescription = nil
            case .calendarColor: calendar.color = nil
            case .calendarTimezone: calendar.timeZone = nil
            case .displayName, .calendarOrder: break
            default: calendar.deadProperties[name.clark] = nil
            }
            statuses.append((name, 200))
        }
        return statuses
    }

    /// The IANA zone a CALDAV:calendar-timezone names: its VTIMEZONE's TZID when that is
    /// an IANA name, or the IANA zone of a Windows name; nil otherwise.
    static func zoneName(fromTimezoneProperty text: String) -> String? {
        guard let calendar = try? ICalendarParser.parse(Array(text.utf8), options: .lenient).components.first,
            let timezone = calendar.components(named: "VTIMEZONE").first, let tzid = timezone.property("TZID")?.value
        else { return nil }
        if TimeZoneDatabase.zone(named: tzid) != nil { return tzid }
        return WindowsZones.ianaIdentifier(forWindowsName: tzid)
    }

    /// An element's children written back as XML (a dead property's value).
    static func innerXML(of element: XMLElement) -> String {
        if element.children.isEmpty { return XMLText.escape(element.text) }
        return element.children.map(outerXML).joined()
    }

    static func outerXML(_ element: XMLElement) -> String {
        let attributes = element.attributes.sorted { $0.key < $1.key }.map {
            " \($0.key)=\"\(XMLText.escape($0.value))\""
        }.joined()
        let open = "X:\(element.name) xmlns:X=\"\(XMLText.escape(element.namespace))\"\(attributes)"
        let inner = element.children.isEmpty ? XMLText.escape(element.text) : element.children.map(outerXML).joined()
        return inner.isEmpty ? "<\(open)/>" : "<\(open)>\(inner)</X:\(element.name)>"
    }
}
