import CalendarStore
import CivilTime
import HTTPTypes

/// calendar-query (RFC 4791 §7.8), read into what the store is asked. The VCALENDAR's
/// member comp-filters are ANDed (§9.7.1): the first naming a component objects are
/// made of selects them, with its time range (answered by the store's interval index,
/// recurrence-aware; to-dos by §9.9's own table) and its first VALARM's time range (the
/// alarms that fire in it); the rest of the filter is evaluated on each selected
/// object, every condition of a member on the same instance. The whole query is one
/// store call.
struct CalendarQueryReport {
    var properties: ReportProperties
    /// The VCALENDAR's member comp-filters (`VEVENT`, `VTODO`, `VTIMEZONE`, …), all of
    /// which must match.
    var members: [XMLElement] = []
    /// The member that selects objects (``QueryFilter/primary(of:)``).
    var member: XMLElement?
    /// The selecting member's component, when it is one objects are made of.
    var componentType: ComponentType?
    /// `is-not-defined` on the selecting member: objects made of another component.
    var isNotDefined = false
    /// The selecting member's time range.
    var componentRange: TimeRange?
    /// The time range of the selecting member's first VALARM.
    var alarmRange: TimeRange?
    /// A time range right under VCALENDAR, with no member.
    var outerRange: TimeRange?
    /// Nothing can match: a time range on a member no object is made of, or two members
    /// that each need an object made of a different component.
    var matchesNothing = false
    /// The request's `CALDAV:timezone` (RFC 4791 §9.8): where floating and all-day times
    /// are read for the time ranges and `expand`; the calendar's `calendar-timezone` when nil.
    var timeZone: ZoneRules?

    init(_ body: XMLElement) throws(DAVError) {
        properties = try ReportProperties(body)
        timeZone = try QueryFilter.requestZone(in: body)
        // <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"> [<C:time-range/>] …
        let roots = body.child(DAVNamespace.caldav, "filter")?.children ?? []
        guard roots.count == 1, let outer = roots.first, outer.namespace == DAVNamespace.caldav,
            outer.name == "comp-filter", outer.attributes["name"]?.uppercased() == "VCALENDAR"
        else {
            throw DAVError(403, "a calendar-query filters on one comp-filter named VCALENDAR", caldav: "valid-filter")
        }
        if let refusal = QueryFilter.refusal(of: outer) { throw refusal }
        members = outer.children(DAVNamespace.caldav, "comp-filter")
        member = QueryFilter.primary(of: members)
        func range(in element: XMLElement?) throws(DAVError) -> TimeRange? {
            guard let element = element?.child(DAVNamespace.caldav, "time-range") else { return nil }
            return try DAVTime.range(element)
        }
        // Members that need an object made of a component: at most one kind can be there.
        let required = Set(
            members.filter { $0.child(DAVNamespace.caldav, "is-not-defined") == nil }.compactMap {
                $0.attributes["name"].flatMap { ComponentType(rawValue: $0.uppercased()) }
            })
        for member in members
        where member.attributes["name"].flatMap({ ComponentType(rawValue: $0.uppercased()) }) == nil {
            // Any other member (VTIMEZONE) is looked for in each object; one with a time
            // range (VFREEBUSY, which no stored object is made of) has nothing in it.
            if member.child(DAVNamespace.caldav, "time-range") != nil { matchesNothing = true }
        }
        if required.count > 1 { matchesNothing = true }
        componentType = member?.attributes["name"].flatMap { ComponentType(rawValue: $0.uppercased()) }
        let alarms = member?.children(DAVNamespace.caldav, "comp-filter").first {
            $0.attributes["name"]?.uppercased() == "VALARM"
        }
        componentRange = componentType == nil ? nil : try range(in: member)
        alarmRange = try range(in: alarms)
        // A time range right under VCALENDAR is not legal (RFC 4791 §9.7), but some
        // clients send it; it is answered as a range on whatever the objects hold.
        outerRange = member == nil ? try range(in: outer) : nil
        isNotDefined = member?.child(DAVNamespace.caldav, "is-not-defined") != nil
    }

    /// Whether each selected object must be read: another member beside the selecting
    /// one, a member that is not an object's component, conditions beside time ranges,
    /// or a to-do's time range (§9.9's table).
    var readsObjects: Bool {
        guard let member else { return false }
        return members.count > 1 || componentType == nil || Self.needsObjects(member)
            || (componentType == .todo && componentRange != nil)
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

    /// The store query for objects of `types`, overlapping `range` by the interval index
    /// (events and journals) or by §9.9's table (to-dos, read and judged: the index knows
    /// instances, not the table's edges nor to-dos without DTSTART or DUE), with every
    /// member judged on each object when ``readsObjects``.
    func query(types: Set<ComponentType>?, overlapping range: TimeRange?, zone: ZoneRules, scope: [String]?)
        -> ResourceQuery
    {
        let todoRange = types == [.todo] && member == nil ? range : nil
        var query = ResourceQuery(
            names: scope, componentTypes: types, overlapping: types == [.todo] ? nil : range, alarmsFiring: alarmRange,
            timeZone: timeZone)
        let members = readsObjects ? self.members : []
        if !members.isEmpty || todoRange != nil {
            query.predicate = { calendar, steps in
                if let todoRange, !QueryFilter.todoOverlaps(calendar, range: todoRange, zone: zone, steps: steps) {
                    return false
                }
                return members.allSatisfy { QueryFilter.matches($0, in: calendar, zone: zone, steps: steps) }
            }
        }
        return query
    }

    func answer(in context: DAVContext, calendar: CalendarHandle) throws(StoreError) -> HTTPResponse {
        var multistatus = Multistatus()
        // Depth: 0 on a collection searches the collection alone, which is no calendar
        // object (§7.8); no Depth header is read as 1, as every client means it.
        let collectionAlone = context.objectScope == nil && context.request.headers["Depth"] == "0"
        guard !matchesNothing, !collectionAlone else { return multistatus.response() }
        let zone = timeZone ?? DAVContext.zone(of: calendar)
        let content = properties.content
        var report: ResourceReport
        if let componentType, let componentRange, !isNotDefined {
            report = try context.store.report(
                query(types: [componentType], overlapping: componentRange, zone: zone, scope: context.objectScope),
                content: content,
                calendar: calendar)
        } else if let outerRange {
            // Events and journals from the index, to-dos by their table: two reads, merged by name.
            report = try context.store.report(
                query(types: [.event, .journal], overlapping: outerRange, zone: zone, scope: context.objectScope),
                content: content,
                calendar: calendar)
            let todos = try context.store.report(
                query(types: [.todo], overlapping: outerRange, zone: zone, scope: context.objectScope),
                content: content, calendar: calendar)
            report.items = (report.items + todos.items).sorted { $0.info.name < $1.info.name }
            report.isTruncated = report.isTruncated || todos.isTruncated
        } else {
            let types = componentType.map { isNotDefined ? Set(ComponentType.allCases).subtracting([$0]) : [$0] }
            report = try context.store.report(
                query(types: types, overlapping: nil, zone: zone, scope: context.objectScope), content: content,
                calendar: calendar)
        }
        try context.write(report, properties: properties, calendar: calendar, zone: zone, into: &multistatus)
        return multistatus.response()
    }
}
