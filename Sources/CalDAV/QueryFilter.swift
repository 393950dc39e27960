import ICalendar

/// The component, property and parameter filters of a calendar-query (RFC 4791
/// §9.7), evaluated on a calendar object's components. Time ranges are answered
/// by the store's recurrence-aware range query before these run.
struct QueryFilter {
    /// Whether some component under `calendar` passes `filter` (a comp-filter inside
    /// the VCALENDAR comp-filter).
    static func matches(_ filter: XMLElement, in calendar: Component) -> Bool {
        guard let name = filter.attributes["name"]?.uppercased() else { return true }
        let components = calendar.components.filter { $0.name == name }
        if filter.child(DAVNamespace.caldav, "is-not-defined") != nil { return components.isEmpty }
        return components.contains { matchesComponent(filter, $0) }
    }

    /// Whether one component passes a comp-filter's nested property and component filters.
    static func matchesComponent(_ filter: XMLElement, _ component: Component) -> Bool {
        for propertyFilter in filter.children(DAVNamespace.caldav, "prop-filter") where !matchesProperty(propertyFilter, component) {
            return false
        }
        for nested in filter.children(DAVNamespace.caldav, "comp-filter") where !matches(nested, in: component) {
            return false
        }
        return true
    }

    static func matchesProperty(_ filter: XMLElement, _ component: Component) -> Bool {
        guard let name = filter.attributes["name"] else { return true }
        let properties = component.properties(named: name)
        if filter.child(DAVNamespace.caldav, "is-not-defined") != nil { return properties.isEmpty }
        guard !properties.isEmpty else { return false }
        return properties.contains { property in
            if let textMatch = filter.child(DAVNamespace.caldav, "text-match"), !matchesText(textMatch, property.textValue()) { return false }
            for parameterFilter in filter.children(DAVNamespace.caldav, "param-filter") {
                guard let parameterName = parameterFilter.attributes["name"] else { continue }
                let value = property[parameter: parameterName]
                if parameterFilter.child(DAVNamespace.caldav, "is-not-defined") != nil {
                    if value != nil { return false }
                    continue
                }
                guard let value else { return false }
                if let textMatch = parameterFilter.child(DAVNamespace.caldav, "text-match"), !matchesText(textMatch, value) { return false }
            }
            return true
        }
    }

    /// Substring match under the collation (`i;ascii-casemap` by default, also
    /// `i;unicode-casemap` and `i;octet`), negated on request.
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
