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
    /// the VCALENDAR comp-filter), RFC 4791 §9.7.1: the component exists (or, with
    /// `is-not-defined`, does not), and every prop-filter and nested comp-filter matches.
    /// With a time range on a VEVENT, VTODO or VJOURNAL, one instance must overlap the
    /// range (to-dos by §9.9's table) and the other filters must match that same
    /// instance: an override's properties for its instance, the master's for the rest,
    /// and DTSTART, DTEND and DUE at the instance's own times. A recurring component whose
    /// expansion its `steps` of the budget cannot finish counts as matching: an answer
    /// may hold one object too many, never one too few. Floating and date values are read
    /// in `zone` (the calendar's).
    static func matches(
        _ filter: XMLElement, in calendar: Component, zone: ZoneRules = .utc,
        steps: Int = ExpansionBudget.perRequest.steps
    ) -> Bool {
        guard let name = filter.attributes["name"]?.uppercased() else { return true }
        let components = calendar.components.filter { $0.name == name }
        if filter.child(DAVNamespace.caldav, "is-not-defined") != nil { return components.isEmpty }
        let resolver = ZoneResolver(calendar: calendar)
        if ComponentType(rawValue: name) != nil, let range = instanceRange(of: filter) {
            return anyInstance(of: components, in: range, zone: zone, resolver: resolver, steps: steps) { instance in
                matchesComponent(filter, instance.component, zone: zone, resolver: resolver, instance: instance)
            }
        }
        return components.contains { matchesComponent(filter, $0, zone: zone, resolver: resolver, instance: nil) }
    }

    /// The properties whose values differ per instance of a recurring component.
    static let instanceTimes: Set<String> = ["DTSTART", "DTEND", "DUE"]

    /// The range whose instances a comp-filter is judged on: its own time range, else
    /// that of its first prop-filter on DTSTART, DTEND or DUE ("time range tests MUST
    /// consider every recurrence instance", RFC 4791 §9.9), one second wider so that an
    /// instance ending where the range starts is among those judged; nil for neither.
    static func instanceRange(of filter: XMLElement) -> TimeRange? {
        if let element = filter.child(DAVNamespace.caldav, "time-range") { return try? DAVTime.range(element) }
        let property = filter.children(DAVNamespace.caldav, "prop-filter").first {
            instanceTimes.contains($0.attributes["name"]?.uppercased() ?? "")
                && $0.child(DAVNamespace.caldav, "time-range") != nil
        }
        guard let element = property?.child(DAVNamespace.caldav, "time-range"),
            let range = try? DAVTime.range(element)
        else { return nil }
        return TimeRange(start: range.start.subtractingReportingOverflow(1).partialValue, end: range.end)
    }

    /// One instance of a recurring (or one-off) component: its component and its times.
    struct Instance {
        var component: Component
        var start: Int
        var end: Int
    }

    /// Whether one instance of `components` (one UID's master and overrides) overlaps
    /// `range` and passes `test`: events and journals by their times, to-dos by RFC 4791
    /// §9.9's table.
    static func anyInstance(
        of components: [Component], in range: TimeRange, zone: ZoneRules, resolver: ZoneResolver, steps: Int,
        _ test: (Instance) -> Bool
    ) -> Bool {
        guard let master = components.first(where: { $0.property("RECURRENCE-ID") == nil }) ?? components.first else {
            return false
        }
        func utc(_ name: String, _ component: Component) -> Int? {
            guard let value = try? component.property(name)?.dateTimeValue() else { return nil }
            return instant(of: value, zone: zone, resolver: resolver)
        }
        let isTodo = master.name == "VTODO"
        // A to-do with neither DTSTART nor DUE has no instances: its COMPLETED and CREATED decide.
        if isTodo && master.property("DTSTART") == nil && master.property("DUE") == nil {
            let times = TodoTimes(completed: utc("COMPLETED", master), created: utc("CREATED", master))
            guard todoOverlaps(times, start: range.start, end: range.end) else { return false }
            return test(Instance(component: master, start: range.start, end: range.start))
        }
        guard
            let prepared = try? CalendarObjectExpansion(resolver: resolver, viewerZone: zone)
                .prepare(components, uid: master.property("UID")?.textValue() ?? "")
        else { return false }
        // The instances touching the range, one second wider on each side so that those the
        // to-do table takes at its edges are among them; the table or the times then decide.
        var budget = ExpansionBudget(steps: steps)
        let found = prepared.expand(
            from: range.start.subtractingReportingOverflow(1).partialValue,
            to: range.end.addingReportingOverflow(1).partialValue, viewerZone: zone, budget: &budget)
        let matched = found.occurrences.contains { occurrence in
            let component = occurrence.component
            let start = occurrence.start.instant(in: zone)
            let end = occurrence.end.instant(in: zone)
            let overlaps: Bool
            if isTodo {
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
                overlaps = todoOverlaps(times, start: range.start, end: range.end)
            } else {
                overlaps = OccurrenceTime.overlaps(
                    start: occurrence.start, end: occurrence.end, from: range.start, to: range.end, in: zone)
            }
            return overlaps && test(Instance(component: component, start: start, end: end))
        }
        return matched || !found.isComplete
    }

    /// Whether one component passes a comp-filter's nested property and component
    /// filters; for an `instance`, its DTSTART, DTEND and DUE are the instance's times.
    static func matchesComponent(
        _ filter: XMLElement, _ component: Component, zone: ZoneRules, resolver: ZoneResolver, instance: Instance?
    ) -> Bool {
        for propertyFilter in filter.children(DAVNamespace.caldav, "prop-filter")
        where !matchesProperty(propertyFilter, component, zone: zone, resolver: resolver, instance: instance) {
            return false
        }
        for nested in filter.children(DAVNamespace.caldav, "comp-filter")
        where !matches(nested, in: component, zone: zone) {
            return false
        }
        return true
    }

    static func matchesProperty(
        _ filter: XMLElement, _ component: Component, zone: ZoneRules, resolver: ZoneResolver, instance: Instance?
    ) -> Bool {
        guard let name = filter.attributes["name"] else { return true }
        var properties = component.properties(named: name)
        if filter.child(DAVNamespace.caldav, "is-not-defined") != nil { return properties.isEmpty }
        // A time range on a date or date-time property (RFC 4791 §9.9): start <= value < end.
        let timeRange = filter.child(DAVNamespace.caldav, "time-range").flatMap { try? DAVTime.range($0) }
        // An instance's "effective" DTEND or DUE is DTSTART+DURATION when it has none (§9.9).
        if properties.isEmpty, timeRange != nil, instance != nil, ["DTEND", "DUE"].contains(name.uppercased()),
            let duration = component.property("DURATION")
        {
            properties = [duration]
        }
        guard !properties.isEmpty else { return false }
        return properties.contains { property in
            if let timeRange {
                let moment: Int?
                switch (name.uppercased(), instance) {
                case ("DTSTART", let instance?): moment = instance.start
                case ("DTEND", let instance?), ("DUE", let instance?): moment = instance.end
                default:
                    moment = (try? property.dateTimeValue()).flatMap { instant(of: $0, zone: zone, resolver: resolver) }
                }
                guard let moment, timeRange.start <= moment && timeRange.end > moment else { return false }
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

    /// The zone of a report's `CALDAV:timezone` child (RFC 4791 §9.8), nil without one;
    /// one that is not a VCALENDAR with one VTIMEZONE is 403 `CALDAV:valid-calendar-data` (§7.8).
    static func requestZone(in body: XMLElement) throws(DAVError) -> ZoneRules? {
        guard let element = body.child(DAVNamespace.caldav, "timezone") else { return nil }
        guard let zone = zone(fromTimezone: element.text) else {
            throw DAVError(
                403, "the timezone element holds one iCalendar object (VERSION:2.0, PRODID) with one VTIMEZONE",
                caldav: "valid-calendar-data")
        }
        return zone
    }

    /// The zone a `CALDAV:timezone` element names: its text is a valid iCalendar object
    /// (RFC 4791 §9.8; with VERSION and PRODID, RFC 5545 §3.6) holding one VTIMEZONE,
    /// whose TZID is resolved as an object's own would be (an IANA or Windows name from the
    /// database, else the VTIMEZONE's rules); nil when it is not that.
    static func zone(fromTimezone text: String) -> ZoneRules? {
        guard let document = try? ICalendarParser.parse(Array(text.utf8), options: .lenient),
            document.components.count == 1, let calendar = document.components.first, calendar.name == "VCALENDAR",
            calendar.property("VERSION")?.value == "2.0", calendar.property("PRODID") != nil
        else { return nil }
        let zones = calendar.components(named: "VTIMEZONE")
        guard zones.count == 1, let tzid = zones[0].property("TZID")?.textValue() else { return nil }
        return try? ZoneResolver(calendar: calendar).zone(for: tzid)
    }

    /// The collations a text-match may name (RFC 4790), as `supported-collation-set`
    /// advertises them (RFC 4791 §7.5.1); `i;ascii-casemap` is the default.
    static let collations = ["i;ascii-casemap", "i;octet", "i;unicode-casemap"]

    /// What a text-match may name: a collation, or `default` for `i;ascii-casemap`
    /// (RFC 4790 §3.1, RFC 4791 §7.5).
    static let namedCollations = Set(collations + ["default"])

    /// Substring match under the collation (`i;ascii-casemap` by default, also
    /// `i;unicode-casemap` and `i;octet`; any other is refused up front by
    /// ``unsupported(in:)``), negated on request.
    static func matchesText(_ textMatch: XMLElement, _ value: String) -> Bool {
        let collation = textMatch.attributes["collation"] ?? "i;ascii-casemap"
        let found: Bool
        switch collation {
        // Octets, not characters: "é" precomposed and decomposed differ (RFC 4790 §9.3).
        case "i;octet": found = Array(value.utf8).firstRange(of: Array(textMatch.text.utf8)) != nil
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
    /// The components a comp-filter may name inside another (RFC 5545 §3.6, RFC 7953):
    /// a filter on a component that cannot be there is not valid (RFC 4791 §7.8,
    /// `CALDAV:valid-filter`). Components of other names (X- and IANA extensions) may be
    /// anywhere.
    static let holds: [String: Set<String>] = [
        "VCALENDAR": ["VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY", "VTIMEZONE", "VAVAILABILITY"],
        "VEVENT": ["VALARM"], "VTODO": ["VALARM"], "VJOURNAL": [], "VFREEBUSY": [], "VALARM": [],
        "VTIMEZONE": ["STANDARD", "DAYLIGHT"], "STANDARD": [], "DAYLIGHT": [], "VAVAILABILITY": ["AVAILABLE"],
        "AVAILABLE": [],
    ]

    /// The properties a prop-filter's time range may test (RFC 4791 §9.9).
    static let dateProperties: Set<String> = [
        "COMPLETED", "CREATED", "DTEND", "DTSTAMP", "DTSTART", "DUE", "LAST-MODIFIED",
    ]

    /// The member comp-filter that selects objects: the first naming a component objects
    /// are made of (VEVENT, VTODO, VJOURNAL) without `is-not-defined`, else the first.
    static func primary(of members: [XMLElement]) -> XMLElement? {
        members.first {
            $0.attributes["name"].flatMap { ComponentType(rawValue: $0.uppercased()) } != nil
                && $0.child(DAVNamespace.caldav, "is-not-defined") == nil
        } ?? members.first
    }

    /// Why a calendar-query's filter is refused, or nil when all of it is answered.
    /// `filter` is the VCALENDAR comp-filter.
    ///
    /// A filter that is not valid (RFC 4791 §7.8, §9.7) is 403 `CALDAV:valid-filter`: a
    /// comp-, prop- or param-filter without a name, `is-not-defined` beside other
    /// conditions, a time range without start and end or with a value that is not a UTC
    /// date-time, a comp-filter on a component that cannot hold it. A collation the
    /// server does not have is 403 `CALDAV:supported-collation` (§7.5.1). A time range
    /// where this server does not evaluate one (on a component other than VCALENDAR's
    /// members and the selecting member's first VALARM; right under VCALENDAR beside a
    /// member) is 403 `CALDAV:supported-filter`, naming the element, rather than ignored.
    static func refusal(of filter: XMLElement) -> DAVError? {
        func refuse(_ condition: String, _ message: String, _ element: XMLElement) -> DAVError {
            let name = element.attributes["name"].map { " name=\"\(XMLText.escape($0))\"" } ?? ""
            return DAVError(
                403, message, precondition: PropertyName(DAVNamespace.caldav, condition),
                detail: "<C:\(element.name)\(name)/>")
        }
        // Validity and collations, anywhere; `parent` is the enclosing component's name.
        var stack: [(element: XMLElement, parent: String?)] = [(filter, nil)]
        while let (element, parent) = stack.popLast() {
            guard element.namespace == DAVNamespace.caldav else { continue }
            let conditions = element.children.filter { $0.namespace == DAVNamespace.caldav }
            switch element.name {
            case "comp-filter", "prop-filter", "param-filter":
                guard let name = element.attributes["name"]?.uppercased(), !name.isEmpty else {
                    return refuse("valid-filter", "a \(element.name) names what it filters", element)
                }
                if element.child(DAVNamespace.caldav, "is-not-defined") != nil, conditions.count > 1 {
                    return refuse(
                        "valid-filter", "is-not-defined stands alone in its \(element.name) (RFC 4791 §9.7)", element)
                }
                if element.name == "comp-filter" {
                    if let parent, let allowed = holds[parent], holds[name] != nil, !allowed.contains(name) {
                        return refuse("valid-filter", "a \(parent) cannot hold a \(name)", element)
                    }
                    if parent == nil, name != "VCALENDAR" {
                        return refuse("valid-filter", "a calendar-query filters on one VCALENDAR", element)
                    }
                }
                // A time range is defined on these properties only (RFC 4791 §9.9).
                if element.name == "prop-filter", element.child(DAVNamespace.caldav, "time-range") != nil,
                    !dateProperties.contains(name)
                {
                    return refuse(
                        "valid-filter", "a time-range filters a date property, not \(name) (RFC 4791 §9.9)", element)
                }
                let scope = element.name == "comp-filter" ? name : parent
                stack += element.children.map { ($0, scope) }
            case "time-range":
                guard element.attributes["start"] != nil || element.attributes["end"] != nil else {
                    return refuse("valid-filter", "a time-range needs a start or an end (RFC 4791 §9.9)", element)
                }
                do throws(DAVError) {
                    _ = try DAVTime.range(element)
                } catch {
                    return DAVError(403, error.message, caldav: "valid-filter")
                }
            case "text-match":
                if let collation = element.attributes["collation"], !namedCollations.contains(collation) {
                    return DAVError(
                        403,
                        "the collation \(collation) is not supported; use i;ascii-casemap, i;unicode-casemap or i;octet",
                        caldav: "supported-collation")
                }
            default: continue
            }
        }
        // Time ranges are evaluated on VCALENDAR's members, on the selecting member's first
        // VALARM and on properties; a time range on any other component would be ignored.
        let members = filter.children(DAVNamespace.caldav, "comp-filter")
        guard !members.isEmpty else { return nil }
        if filter.child(DAVNamespace.caldav, "time-range") != nil {
            return refuse(
                "supported-filter",
                "a time-range right under VCALENDAR is answered only without a comp-filter beside it",
                filter)
        }
        let primary = primary(of: members)
        var nested: [(XMLElement, Bool)] = []
        for member in members {
            let inside = member.children(DAVNamespace.caldav, "comp-filter")
            let alarm = member == primary ? inside.firstIndex { $0.attributes["name"]?.uppercased() == "VALARM" } : nil
            nested += inside.enumerated().map { ($0.element, $0.offset == alarm) }
        }
        while let (element, evaluated) = nested.popLast() {
            if !evaluated, element.child(DAVNamespace.caldav, "time-range") != nil {
                return refuse(
                    "supported-filter",
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

    /// Whether a calendar object's to-do overlaps `range` by RFC 4791 §9.9's table: one of
    /// its instances (overrides included, each with its own DTSTART and its DUE or
    /// DTSTART+DURATION; floating and date values in `zone`), or, for a to-do with neither
    /// DTSTART nor DUE, its COMPLETED and CREATED.
    static func todoOverlaps(
        _ calendar: Component, range: TimeRange, zone: ZoneRules, steps: Int = ExpansionBudget.perRequest.steps
    ) -> Bool {
        anyInstance(
            of: calendar.components(named: "VTODO"), in: range, zone: zone, resolver: ZoneResolver(calendar: calendar),
            steps: steps
        ) { _ in true }
    }
}
