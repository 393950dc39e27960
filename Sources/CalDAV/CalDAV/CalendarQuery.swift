import CalendarStore
import CivilTime
import HTTPTypes

/// calendar-query (RFC 4791 §7.8), read into what the store is asked: the member
/// component, its time range (answered by the store's interval index,
/// recurrence-aware; to-dos by §9.9's own table), a VALARM time range (the alarms that
/// fire in it), and the property, parameter and text filters that each remaining object
/// is read for. The whole query is one store call.
struct CalendarQueryReport {
    var properties: ReportProperties
    /// The VCALENDAR's member comp-filter (`VEVENT`, `VTODO`, …), if any.
    var member: XMLElement?
    /// The member's component, when it is one objects are made of.
    var componentType: ComponentType?
    /// `is-not-defined` on the member: objects made of another component.
    var isNotDefined = false
    /// The member's time range.
    var componentRange: TimeRange?
    /// The time range of the member's first VALARM.
    var alarmRange: TimeRange?
    /// A time range right under VCALENDAR, with no member.
    var outerRange: TimeRange?
    /// Nothing can match (a time range on a member no object is made of).
    var matchesNothing = false

    init(_ body: XMLElement) throws(DAVError) {
        properties = try ReportProperties(body)
        // <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"> [<C:time-range/>] …
        guard let outer = body.child(DAVNamespace.caldav, "filter")?.child(DAVNamespace.caldav, "comp-filter"),
            outer.attributes["name"]?.uppercased() == "VCALENDAR"
        else {
            throw DAVError(400, "a calendar-query filters on one comp-filter named VCALENDAR", caldav: "valid-filter")
        }
        if let refusal = QueryFilter.unsupported(in: outer) { throw refusal }
        member = outer.child(DAVNamespace.caldav, "comp-filter")
        func range(in element: XMLElement?) throws(DAVError) -> TimeRange? {
            guard let element = element?.child(DAVNamespace.caldav, "time-range") else { return nil }
            return try DAVTime.range(element)
        }
        if let name = member?.attributes["name"] {
            componentType = ComponentType(rawValue: name.uppercased())
            // Any other member (VTIMEZONE) is looked for in each object; one with a time
            // range (VFREEBUSY, which no stored object is made of) has nothing in it.
            if componentType == nil, member?.child(DAVNamespace.caldav, "time-range") != nil {
                matchesNothing = true
                return
            }
        }
        let alarms = member?.children(DAVNamespace.caldav, "comp-filter").first {
            $0.attributes["name"]?.uppercased() == "VALARM"
        }
        componentRange = try range(in: member)
        alarmRange = try range(in: alarms)
        // A time range right under VCALENDAR is not legal (RFC 4791 §9.7), but some
        // clients send it; it is answered as a range on whatever the objects hold.
        outerRange = member == nil ? try range(in: outer) : nil
        isNotDefined = member?.child(DAVNamespace.caldav, "is-not-defined") != nil
    }

    /// The filter each selected object is read for: property, parameter and text
    /// filters, or any member that is not an object's component. Nil when time ranges
    /// say everything.
    var objectFilter: XMLElement? {
        guard let member, componentType == nil || Self.needsObjects(member) else { return nil }
        return member
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

    /// The store query for objects of `types` overlapping `range` (to-dos by §9.9's
    /// table, read and judged, as the interval index knows instances, not the table's
    /// edges nor to-dos without DTSTART or DUE), or of `types` when there is no range.
    func query(types: Set<ComponentType>?, overlapping range: TimeRange?, zone: ZoneRules) -> ResourceQuery {
        let filter = objectFilter
        let todoRange = types == [.todo] ? range : nil
        var query = ResourceQuery(
            componentTypes: types, overlapping: todoRange == nil ? range : nil, alarmsFiring: alarmRange)
        if filter != nil || todoRange != nil {
            query.predicate = { calendar, steps in
                if let todoRange, !QueryFilter.todoOverlaps(calendar, range: todoRange, zone: zone, steps: steps) {
                    return false
                }
                return filter.map { QueryFilter.matches($0, in: calendar, zone: zone) } ?? true
            }
        }
        return query
    }

    func answer(in context: DAVContext, calendar: CalendarHandle) throws(StoreError) -> HTTPResponse {
        var multistatus = Multistatus()
        guard !matchesNothing else { return multistatus.response() }
        let zone = calendar.calendar.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
        let content = properties.content
        var report: ResourceReport
        if let componentType, let componentRange, !isNotDefined {
            report = try context.store.report(
                query(types: [componentType], overlapping: componentRange, zone: zone), content: content,
                calendar: calendar)
        } else if let outerRange {
            // Events and journals from the index, to-dos by their table: two reads, merged by name.
            report = try context.store.report(
                query(types: [.event, .journal], overlapping: outerRange, zone: zone), content: content,
                calendar: calendar)
            let todos = try context.store.report(
                query(types: [.todo], overlapping: outerRange, zone: zone), content: content, calendar: calendar)
            report.items = (report.items + todos.items).sorted { $0.info.name < $1.info.name }
            report.isTruncated = report.isTruncated || todos.isTruncated
        } else {
            let types = componentType.map { isNotDefined ? Set(ComponentType.allCases).subtracting([$0]) : [$0] }
            report = try context.store.report(
                query(types: types, overlapping: nil, zone: zone), content: content, calendar: calendar)
        }
        try context.write(report, properties: properties, calendar: calendar, into: &multistatus)
        return multistatus.response()
    }
}
