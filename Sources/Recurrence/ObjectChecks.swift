import CivilTime
import ICalendar

/// What RFC 5545 asks of a calendar's objects beyond each content line, which the parser
/// cannot judge line by line: one version of each component, and ends after starts.
public enum ObjectChecks {
    /// The components a series is made of; each kind is a series of its own, so a VEVENT
    /// and a VTODO that share a UID are two (RFC 5545 §3.8.4.7 makes a UID unique per
    /// kind's object; CalDAV forbids them in one resource, files hold them).
    public static let seriesKinds: Set<String> = ["VEVENT", "VTODO", "VJOURNAL"]

    /// Where a component stands in its series: its kind, its UID (the derived one when it
    /// has none) and its RECURRENCE-ID (nil for the master) as written.
    struct Slot: Hashable {
        var kind: String
        var uid: String
        var recurrenceID: String?

        init(_ component: Component) {
            kind = component.name
            uid = component.property("UID")?.textValue() ?? component.derivedUID
            recurrenceID = component.property("RECURRENCE-ID").map { property in
                (property[parameter: "TZID"].map { "\($0):" } ?? "") + property.value
            }
        }
    }

    /// The problems of `calendar` (a VCALENDAR), in the order of its components:
    ///
    /// - `duplicateComponent`: a second component of one kind with the UID and
    ///   RECURRENCE-ID of an earlier one (two masters of one series, as an export that
    ///   kept an old and a new version has, or two versions of one instance), with
    ///   `duplicates` as its severity;
    /// - `endBeforeStart`: a DTEND or DUE before the DTSTART, of another value type, or
    ///   floating where DTSTART is not or the reverse (RFC 5545 §3.8.2.2, §3.8.2.3),
    ///   with `ends` as its severity;
    /// - `excludedOverride`, a warning: an override of an instance an EXDATE of its
    ///   master removes, which expansion does not show;
    /// - `invalidValue`, an error in every mode: a rule this engine does not expand (an
    ///   RFC 7529 scale it has no calendar for), which a PUT refuses too.
    public static func diagnostics(
        of calendar: Component, duplicates: ICalendarError.Severity, ends: ICalendarError.Severity
    ) -> [ICalendarError] {
        var found: [ICalendarError] = []
        var seen = Set<Slot>()
        let resolver = ZoneResolver(calendar: calendar, mode: .lenient)
        for component in calendar.components where seriesKinds.contains(component.name) {
            let slot = Slot(component)
            if !seen.insert(slot).inserted {
                let which = slot.recurrenceID.map { "the instance \($0) of " } ?? ""
                found.append(
                    ICalendarError(
                        .duplicateComponent,
                        "a second \(slot.kind) for \(which)UID \(slot.uid): one version of each is allowed"
                            + (duplicates == .warning ? "; the one with the highest SEQUENCE is used" : ""),
                        severity: duplicates, component: slot.kind))
            }
            for property in component.properties where property.name == "RRULE" || property.name == "EXRULE" {
                if let refusal = (try? property.recurrenceRule())?.expansionRefusal {
                    found.append(
                        ICalendarError(
                            .invalidValue, "UID \(slot.uid): \(refusal)", component: component.name,
                            property: property.name))
                }
            }
            if let problem = endProblem(of: component, resolver: resolver) {
                found.append(
                    ICalendarError(
                        .endBeforeStart, "UID \(slot.uid): \(problem.message)", severity: ends,
                        component: component.name, property: problem.property))
            }
        }
        found += excludedOverrides(in: calendar, resolver: resolver)
        return found
    }

    /// A warning for each override whose RECURRENCE-ID an EXDATE of its master removes.
    static func excludedOverrides(in calendar: Component, resolver: ZoneResolver) -> [ICalendarError] {
        var masters: [Slot: Component] = [:]
        for component in calendar.components
        where seriesKinds.contains(component.name) && component.property("RECURRENCE-ID") == nil
            && component.property("EXDATE") != nil
        {
            masters[Slot(component)] = masters[Slot(component)] ?? component
        }
        guard !masters.isEmpty else { return [] }
        let expansion = CalendarObjectExpansion(resolver: resolver)
        var found: [ICalendarError] = []
        for component in calendar.components where seriesKinds.contains(component.name) {
            var slot = Slot(component)
            guard let id = slot.recurrenceID, let idValue = try? component.property("RECURRENCE-ID")?.dateTimeValue()
            else { continue }
            slot.recurrenceID = nil
            guard let master = masters[slot], let set = try? expansion.recurrenceSet(of: master),
                let key = try? expansion.key(of: idValue, in: set.time), set.isExcludedByDate(key)
            else { continue }
            found.append(
                ICalendarError(
                    .excludedOverride,
                    "UID \(slot.uid): the override of \(id) is not shown, as an EXDATE removes that instance "
                        + "(Thunderbird and Evolution read it so)",
                    severity: .warning, component: component.name, property: "RECURRENCE-ID"))
        }
        return found
    }

    /// What is wrong with a component's DTEND (VEVENT) or DUE (VTODO) beside its DTSTART.
    static func endProblem(of component: Component, resolver: ZoneResolver) -> (property: String, message: String)? {
        let endName = component.name == "VTODO" ? "DUE" : "DTEND"
        guard let startProperty = component.property("DTSTART"), let endProperty = component.property(endName),
            let start = try? startProperty.dateTimeValue(), let end = try? endProperty.dateTimeValue()
        else { return nil }
        if start.isDate != end.isDate {
            return (
                endName,
                "\(endName) is a \(end.isDate ? "DATE" : "DATE-TIME") and DTSTART a \(start.isDate ? "DATE" : "DATE-TIME"); RFC 5545 wants one value type"
            )
        }
        if !start.isDate, (start.form == .floating) != (end.form == .floating) {
            return (endName, "\(endName) and DTSTART must both be floating or both not (RFC 5545 §3.8.2.2)")
        }
        let before: Bool
        switch (start.form, end.form) {
        case (.floating, .floating): before = end.civil < start.civil
        default:
            guard let startInstant = instant(start, resolver: resolver),
                let endInstant = instant(end, resolver: resolver)
            else { return nil }
            before = endInstant < startInstant
        }
        return before ? (endName, "\(endName) \(end.icalendarText) is before DTSTART \(start.icalendarText)") : nil
    }

    static func instant(_ value: DateTimeValue, resolver: ZoneResolver) -> Int? {
        switch value.form {
        case .utc: return value.civil.secondsSinceEpoch
        case .floating: return value.civil.secondsSinceEpoch
        case .zoned(let tzid): return (try? resolver.zone(for: tzid))?.instant(for: value.civil)
        }
    }

    /// `calendar` with one version of each component: of the components of one kind
    /// with one UID and RECURRENCE-ID, the one with the highest SEQUENCE (RFC 5545
    /// §3.8.7.4), then the latest DTSTAMP, then the last in the file, kept where the
    /// first of them stood. Unchanged when there are no duplicates.
    public static func keepingLatestVersions(_ calendar: Component) -> Component {
        var chosen: [Slot: Int] = [:]
        var duplicated = false
        for (index, component) in calendar.components.enumerated() where seriesKinds.contains(component.name) {
            let slot = Slot(component)
            guard let earlier = chosen[slot] else {
                chosen[slot] = index
                continue
            }
            duplicated = true
            if version(of: component) >= version(of: calendar.components[earlier]) { chosen[slot] = index }
        }
        guard duplicated else { return calendar }
        var result = calendar
        var placed = Set<Slot>()
        result.components = calendar.components.compactMap { component in
            guard seriesKinds.contains(component.name) else { return component }
            let slot = Slot(component)
            guard placed.insert(slot).inserted, let index = chosen[slot] else { return nil }
            return calendar.components[index]
        }
        return result
    }

    /// A component's version for choosing between duplicates: SEQUENCE (0 when absent or
    /// unreadable), then DTSTAMP.
    static func version(of component: Component) -> (Int, CivilDateTime) {
        let sequence = component.property("SEQUENCE").flatMap { Int($0.value) } ?? 0
        let stamp = (try? component.property("DTSTAMP")?.dateTimeValue())?.civil ?? CivilDateTime(secondsSinceEpoch: 0)
        return (sequence, stamp)
    }
}
