import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import Recurrence

extension DAVContext {
    /// calendar-query (RFC 4791 §7.8). The component's time range is answered by the
    /// store's interval index (recurrence-aware), a VALARM time range by the alarms
    /// that fire in it, and property, parameter and text filters on each remaining object.
    func query(_ body: XMLElement, calendar: EventCalendar, request: ReportRequest) throws(StoreError) -> HTTPResponse {
        // <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"> [<C:time-range/>] …
        guard let outer = body.child(DAVNamespace.caldav, "filter")?.child(DAVNamespace.caldav, "comp-filter"),
            outer.attributes["name"]?.uppercased() == "VCALENDAR"
        else {
            return DAVError(400, "a calendar-query filters on one comp-filter named VCALENDAR", caldav: "valid-filter")
                .response
        }
        if let refusal = QueryFilter.unsupported(in: outer) { return refusal }
        let inner = outer.child(DAVNamespace.caldav, "comp-filter")
        var type: ComponentType?
        if let name = inner?.attributes["name"] {
            type = ComponentType(rawValue: name.uppercased())
            // Any other member (VTIMEZONE) is looked for in each object, below; one with a
            // time range (VFREEBUSY, which no stored object is made of) has nothing in it.
            if type == nil, inner?.child(DAVNamespace.caldav, "time-range") != nil { return Multistatus().response() }
        }
        let alarms = inner?.children(DAVNamespace.caldav, "comp-filter").first {
            $0.attributes["name"]?.uppercased() == "VALARM"
        }
        func range(in element: XMLElement?) throws(DAVError) -> TimeRange? {
            guard let element = element?.child(DAVNamespace.caldav, "time-range") else { return nil }
            return try DAVTime.range(element)
        }
        let componentRange: TimeRange?
        let alarmRange: TimeRange?
        let outerRange: TimeRange?
        do throws(DAVError) {
            componentRange = try range(in: inner)
            alarmRange = try range(in: alarms)
            // A time range right under VCALENDAR is not legal (RFC 4791 §9.7), but some
            // clients send it; it is answered as a range on whatever the objects hold.
            outerRange = inner == nil ? try range(in: outer) : nil
        } catch {
            return error.response
        }
        var selected: [ResourceInfo]
        // To-dos follow RFC 4791 §9.9's own table; events and journals the store's index.
        func overlapping(_ range: TimeRange, _ type: ComponentType) throws(StoreError) -> [ResourceInfo] {
            type == .todo
                ? try todos(overlapping: range, calendar: calendar)
                : try store.resources(overlapping: range, componentType: type, calendar: calendar.id)
        }
        let absent = inner?.child(DAVNamespace.caldav, "is-not-defined") != nil
        if let type, let componentRange, !absent {
            selected = try overlapping(componentRange, type)
        } else if let outerRange {
            selected = []
            for type in ComponentType.allCases { selected += try overlapping(outerRange, type) }
            selected.sort { $0.name < $1.name }
        } else {
            // `is-not-defined` on the member: the objects made of another component.
            selected = try store.resources(calendar: calendar.id).filter {
                type == nil || ($0.componentType == type) != absent
            }
        }
        if let alarmRange {
            let identifiers = try store.events(withAlarmsFiringIn: alarmRange, calendar: calendar.id)
            selected = selected.filter { identifiers.contains($0.localIdentifier) }
        }
        var multistatus = Multistatus()
        guard let inner, type == nil || Self.needsObjects(inner) else {
            try respond(selected, calendar: calendar, request: request, into: &multistatus)
            return multistatus.response()
        }
        // Property, parameter and text filters read each remaining object.
        let zone = calendar.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
        let kept = try store.resources(named: selected.map(\.name), calendar: calendar.id).filter { stored in
            guard let root = try? ICalendarParser.parse(stored.data, options: .lenient).components.first else {
                return false
            }
            return QueryFilter.matches(inner, in: root, zone: zone)
        }
        try respond(kept.map(\.info), calendar: calendar, request: request, into: &multistatus)
        return multistatus.response()
    }

    /// Whether a comp-filter says more than time ranges, so objects must be read to answer it.
    static func needsObjects(_ filter: XMLElement) -> Bool {
        filter.children.contains { child in
            if child.name == "time-range" { return false }
            if child.name == "comp-filter" && child.attributes["name"]?.uppercased() == "VALARM" {
                return child.children.contains { $0.name != "time-range" }
            }
            return true
        }
    }

    /// The calendar's to-dos that overlap `range` by RFC 4791 §9.9 (the store's interval
    /// index knows instances, not the table's edges nor to-dos without DTSTART or DUE, so
    /// each to-do is read and judged here).
    func todos(overlapping range: TimeRange, calendar: EventCalendar) throws(StoreError) -> [ResourceInfo] {
        let zone = calendar.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
        let names = try store.resources(calendar: calendar.id).filter { $0.componentType == .todo }.map(\.name)
        let stored = try store.resources(named: names, calendar: calendar.id)
        // Read and judged on every core; the to-dos share the request's expansion budget
        // (each at least enough for an ordinary series), so one query's work stays bounded.
        let share = max(100_000, ExpansionBudget.perRequest.steps / max(1, stored.count))
        let overlaps = Parallel.map(stored) { resource in
            guard let root = try? ICalendarParser.parse(resource.data, options: .lenient).components.first else {
                return false
            }
            return QueryFilter.todoOverlaps(root, range: range, zone: zone, steps: share)
        }
        return zip(stored, overlaps).filter(\.1).map(\.0.info)
    }
}
