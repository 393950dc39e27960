import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import Recurrence

/// The component, property and parameter filters of a calendar-query (RFC 4791
/// §9.7), evaluated on a calendar object's components. Component time ranges are
/// answered before these run: VEVENT and VJOURNAL by the store's recurrence-aware
/// range query, VTODO by RFC 4791 §9.9's table (``todoOverlaps(_:start:end:)``).
struct QueryFilter {
    /// Whether some component under `calendar` passes `filter` (a comp-filter inside
    /// the VCALENDAR comp-filter). Floating and date values of a property time range
    /// are read in `zone` (the calendar's).
    static func matches(_ filter: XMLElement, in calendar: Component, zone: ZoneRules = .utc) -> Bool {
        guard let name = filter.attributes["name"]?.uppercased() else { return true }
        let components = calendar.components.filter { $0.name == name }
        if filter.child(DAVNamespace.caldav, "is-not-defined") != nil { return components.isEmpty }
        let resolver = ZoneResolver(calendar: calendar)
        return components.contains { matchesComponent(filter, $0, zone: zone, resolver: resolver) }
    }

    /// Whether one component passes a comp-filter's nested property and component filters.
    static func matchesComponent(_ filter: XMLElement, _ component: Component, zone: ZoneRules, resolver: ZoneResolver)
        -> Bool
    {
        for propertyFilter in filter.children(DAVNamespace.caldav, "prop-filter")
        where !matchesProperty(propertyFilter, component, zone: zone, resolver: resolver) {
            return false
        }
        for nested in filter.children(DAVNamespace.caldav, "comp-filter")
        where !matches(nested, in: component, zone: zone) {
            return false
        }
        return true
    }

    static func matchesProperty(_ filter: XMLElement, _ component: Component, zone: ZoneRules, resolver: ZoneResolver)
        -> Bool
    {
        guard let name = filter.attributes["name"] else { return true }
        let properties = component.properties(named: name)
        if filter.child(DAVNamespace.caldav, "is-not-defined") != nil { return properties.isEmpty }
        guard !properties.isEmpty else { return false }
        // A time range on a date or date-time property (RFC 4791 §9.9): start <= value < end.
        let timeRange = filter.child(DAVNamespace.caldav, "time-range").flatMap { try? DAVTime.range($0) }
        return properties.contains { property in
            if let timeRange {
                guard let value = try? property.dateTimeValue(),
                    let instant = instant(of: value, zone: zone, resolver: resolver),
                    timeRange.start <= instant && timeRange.end > instant
                else { return false }
            }
            if let textMatch = filter.child(DAVNamespace.caldav, "text-match"),
                !matchesText(textMatch, property.textValue())
            {
                return false
            }
            for parameterFilter in filter.children(DAVNamespace.caldav, "param-filter") {
                guard let parameterName = parameterFilter.attributes["name"] else { continue }
                let value = property[parameter: parameterName]
                if parameterFilter.child(DAVNamespace.caldav, "is-not-defined") != nil {
                    if value != nil { return false }
                    continue
                }
                guard let value else { return false }
                if let textMatch = parameterFilter.child(DAVNamespace.caldav, "text-match"),
                    !matchesText(textMatch, value)
                {
                    return false
                }
            }
            return true
        }
    }

    /// The collations a text-match may name (RFC 4790; `i;ascii-casemap` is the default).
    static let collations: Set<String> = ["i;ascii-casemap", "i;octet", "i;unicode-casemap"]

    /// Substring match under the collation (`i;ascii-casemap` by default, also
    /// `i;unicode-casemap` and `i;octet`; any other is refused up front by
    /// ``unsupported(in:)``), negated on request.
    static func matchesText(_ textMatch: XMLElement, _ value: String) -> Bool {
        let collation = textMatch.attributes["collation"] ?? "i;ascii-casemap"
        let found: Bool
        switch collation {
        case "i;octet": found = value.contains(textMatch.text)
        case "i;unicode-casemap": found = value.lowercased().contains(textMatch.text.lowercased())
        default: found = asciiLowercased(value).contains(asciiLowercased(textMatch.text))
        }
        let negate = textMatch.attributes["negate-condition"]?.lowercased() == "yes"
        return found != negate
    }

    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}

// MARK: - What a query may ask

extension QueryFilter {
    /// The refusal of a filter this server would otherwise answer wrongly: a collation it
    /// does not have (CALDAV:supported-collation, RFC 4791 §7.5.1), or a time range or
    /// comp-filter where it is not evaluated (CALDAV:supported-filter, §7.8, §9.7), naming
    /// the element. `filter` is the VCALENDAR comp-filter; nil when all of it is answered.
    static func unsupported(in filter: XMLElement) -> DAVError? {
        func refuse(_ message: String, _ element: XMLElement) -> DAVError {
            let name = element.attributes["name"].map { " name=\"\(XMLText.escape($0))\"" } ?? ""
            return DAVError(
                403, message, precondition: PropertyName(DAVNamespace.caldav, "supported-filter"),
                detail: "<C:\(element.name)\(name)/>")
        }
        // Collations and malformed time ranges, anywhere.
        var stack = [filter]
        while let element = stack.popLast() {
            stack += element.children
            if element.namespace == DAVNamespace.caldav, element.name == "time-range" {
                do throws(DAVError) { _ = try DAVTime.range(element) } catch { return error }
            }
            if element.namespace == DAVNamespace.caldav, element.name == "text-match",
                let collation = element.attributes["collation"],
                !collations.contains(collation)
            {
                return DAVError(
                    403,
                    "the collation \(collation) is not supported; use i;ascii-casemap, i;unicode-casemap or i;octet",
                    caldav: "supported-collation")
            }
        }
        let components = filter.children(DAVNamespace.caldav, "comp-filter")
        if components.count > 1 {
            return refuse("a calendar-query has one comp-filter inside VCALENDAR", components[1])
        }
        // Time ranges are evaluated on VCALENDAR's member, on the first VALARM inside it and
        // on properties; a time range on any other component would be ignored.
        guard let inner = components.first else { return nil }
        if filter.child(DAVNamespace.caldav, "time-range") != nil {
            return refuse("a time-range right under VCALENDAR is answered only without a comp-filter beside it", filter)
        }
        let members = inner.children(DAVNamespace.caldav, "comp-filter")
        let alarm = members.firstIndex { $0.attributes["name"]?.uppercased() == "VALARM" }
        var nested = members.enumerated().map { ($0.element, $0.offset == alarm) }
        while let (element, evaluated) = nested.popLast() {
            if !evaluated, element.child(DAVNamespace.caldav, "time-range") != nil {
                return refuse(
                    "a time-range is answered on the calendar's components, their first VALARM and their properties",
                    element)
            }
            nested += element.children(DAVNamespace.caldav, "comp-filter").map { ($0, false) }
        }
        return nil
    }

    /// The instant of a DATE or DATE-TIME value: floating and dates in `zone`.
    static func instant(of value: DateTimeValue, zone: ZoneRules, resolver: ZoneResolver) -> Int? {
        if value.isDate { return zone.instant(for: value.civil) }
        switch value.form {
        case .utc: return value.civil.secondsSinceEpoch
        case .floating: return zone.instant(for: value.civil)
        case .zoned(let tzid): return (try? resolver.zone(for: tzid))?.instant(for: value.civil)
        }
    }
}

// MARK: - VTODO time ranges (RFC 4791 §9.9)

extension QueryFilter {
    /// The times of one to-do instance that RFC 4791 §9.9's table reads (Unix seconds).
    struct TodoTimes: Equatable {
        var dtstart: Int?
        /// DTSTART+DURATION, when the to-do has DTSTART and DURATION (and no DUE).
        var startPlusDuration: Int?
        var due: Int?
        var completed: Int?
        var created: Int?
    }

    /// Whether a to-do instance overlaps `start..<end`, row by row of RFC 4791 §9.9's table.
    /// DURATION without DTSTART (not valid iCalendar) counts as absent; DUE beside
    /// DURATION (not valid either) wins, as it does for the to-do's instances.
    static func todoOverlaps(_ times: TodoTimes, start: Int, end: Int) -> Bool {
        switch (times.dtstart, times.startPlusDuration, times.due) {
        case (let dtstart?, _, let due?):
            return (start < due || start <= dtstart) && (end > dtstart || end >= due)
        case (let dtstart?, let startPlusDuration?, nil):
            return start <= startPlusDuration && (end > dtstart || end >= startPlusDuration)
        case (let dtstart?, nil, nil):
            return start <= dtstart && end > dtstart
        case (nil, _, let due?):
            return start < due && end >= due
        case (nil, _, nil):
            switch (times.completed, times.created) {
            case (let completed?, let created?):
                return (start <= created || start <= completed) && (end >= created || end >= completed)
            case (let completed?, nil): return start <= completed && end >= completed
            case (nil, let created?): return end > created
            case (nil, nil): return true
            }
        }
    }

    /// Whether a calendar object's to-do overlaps `range`: each instance of a recurring
    /// one (overrides included) by the table, with its own DTSTART and its DUE or
    /// DTSTART+DURATION; floating and date values in `zone`. A to-do with neither DTSTART
    /// nor DUE has no instances: its COMPLETED and CREATED decide. A recurring one whose
    /// expansion `steps` (its share of the request's budget) cannot finish counts as
    /// overlapping: the answer may hold one to-do too many, never one too few.
    static func todoOverlaps(
        _ calendar: Component, range: TimeRange, zone: ZoneRules, steps: Int = ExpansionBudget.perRequest.steps
    ) -> Bool {
        let todos = calendar.components(named: "VTODO")
        guard let master = todos.first(where: { $0.property("RECURRENCE-ID") == nil }) ?? todos.first else {
            return false
        }
        func utc(_ name: String, _ component: Component) -> Int? {
            guard let value = try? component.property(name)?.dateTimeValue() else { return nil }
            return instant(of: value, zone: zone, resolver: resolver)
        }
        let resolver = ZoneResolver(calendar: calendar)
        if master.property("DTSTART") == nil && master.property("DUE") == nil {
            return todoOverlaps(
                TodoTimes(completed: utc("COMPLETED", master), created: utc("CREATED", master)), start: range.start,
                end: range.end)
        }
        guard
            let prepared = try? CalendarObjectExpansion(resolver: resolver, viewerZone: zone)
                .prepare(todos, uid: master.property("UID")?.textValue() ?? "")
        else { return false }
        // The instances touching the range, one second wider on each side so that those the
        // table takes at its edges are among them; the table then decides. Those that fail it
        // sit at the edges, so a few suffice to find one that passes, if any does.
        var budget = ExpansionBudget(steps: steps)
        let found = prepared.expand(
            from: range.start.subtractingReportingOverflow(1).partialValue,
            to: range.end.addingReportingOverflow(1).partialValue,
            viewerZone: zone, limit: 16, budget: &budget)
        if !found.isComplete && found.occurrences.count < 16 { return true }
        return found.occurrences.contains { occurrence in
            let component = occurrence.component
            let start = occurrence.start.instant(in: zone)
            let end = occurrence.end.instant(in: zone)
            var times = TodoTimes(completed: utc("COMPLETED", component), created: utc("CREATED", component))
            if component.property("DTSTART") != nil {
                times.dtstart = start
                if component.property("DUE") != nil {
                    times.due = end
                } else if component.property("DURATION") != nil {
                    times.startPlusDuration = end
                }
            } else {
                times.due = start
            }
            return todoOverlaps(times, start: range.start, end: range.end)
        }
    }
}
