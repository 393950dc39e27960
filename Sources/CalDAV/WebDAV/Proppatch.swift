import CalendarStore
import HTTPTypes

extension DAVContext {
    /// PROPPATCH (RFC 4918 §9.2) on a calendar (or the availability of the calendar home and inbox):
    /// every change applies, or none.
    func proppatch() -> HTTPResponse {
        // Calendars and homes answer PROPPATCH (CalDAVHandler's Allow refuses it elsewhere, 405).
        let name: String
        switch path {
        case .calendar(_, let calendar): name = calendar
        case .home, .inbox: name = ""
        default: return CalDAVHandler.notAllowed(request.method, on: path)
        }
        // A body that is not well-formed XML (RFC 4918 §8.2), or is not a propertyupdate
        // naming a property to set or remove (§14.19), is 400: there is nothing to answer
        // a status for.
        let body: XMLElement
        switch self.body(DAVNamespace.dav, "propertyupdate") {
        case .success(let element): body = element
        case .failure(let failure): return failure.response
        }
        let sets = DeadProperty.properties(in: body, "set")
        let removals = DeadProperty.properties(in: body, "remove")
        guard !sets.isEmpty || !removals.isEmpty else {
            return DAVError(400, "a propertyupdate names the properties to set or remove in DAV:set or DAV:remove")
                .response
        }
        switch path {
        case .home, .inbox: return proppatchAvailability(sets: sets, removals: removals)
        default: break
        }
        do {
            var calendar = try self.calendar(named: name).calendar
            // A sharee's changes are their own: their name, colour, order and transparency
            // for the calendar; the rest is the owner's (403).
            if calendar.access != nil { return try proppatchPersonal(sets, removals: removals, of: calendar) }
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
}

extension DAVContext {
    /// The properties a sharee keeps for themselves on a calendar shared with them (the
    /// CalendarServer sharing protocol's per-user properties), the default alarms Apple's
    /// clients keep on a calendar (draft-daboo-valarm-extensions §9) among them.
    static let personalProperties: Set<PropertyName> = [
        .displayName, .calendarColor, .calendarOrder, .scheduleCalendarTransp,
        PropertyName(DAVNamespace.caldav, "default-alarm-vevent-datetime"),
        PropertyName(DAVNamespace.caldav, "default-alarm-vevent-date"),
    ]

    /// PROPPATCH by a sharee: every change is one of ``personalProperties`` and is kept for
    /// them alone, or nothing changes (the others 403, the rest 424).
    func proppatchPersonal(_ sets: [XMLElement], removals: [XMLElement], of calendar: EventCalendar)
        throws(StoreError) -> HTTPResponse
    {
        var values: [String: String?] = [:]
        var statuses: [(name: PropertyName, status: Int)] = []
        for (element, removing) in sets.map({ ($0, false) }) + removals.map({ ($0, true) }) {
            let name = PropertyName(element)
            guard Self.personalProperties.contains(name) else {
                statuses.append((name, 403))
                continue
            }
            if name == .calendarOrder, !removing, Int(element.text) == nil {
                statuses.append((name, 400))
                continue
            }
            let value: String? = removing ? nil : DeadProperty.stored(element)
            values.updateValue(value, forKey: name.clark)
            statuses.append((name, 200))
        }
        var multistatus = Multistatus()
        if statuses.contains(where: { $0.status != 200 }) {
            multistatus.add(href: path.href, statuses: statuses.map { ($0.name, $0.status == 200 ? 424 : $0.status) })
        } else {
            try store.setPersonalProperties(values, ofCalendar: calendar.id)
            multistatus.add(href: path.href, statuses: statuses)
        }
        return multistatus.response()
    }
}
