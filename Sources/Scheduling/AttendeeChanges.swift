import ICalendar

// What an attendee may change in their copy of an organizer's object (RFC 6638
// §3.2.2.1): their own PARTSTAT, alarms, TRANSP, PERCENT-COMPLETE, COMPLETED, the
// timestamps, EXDATEs and overrides that only carry those changes. Anything else
// (the time, the summary, the attendees, above all the ORGANIZER) belongs to the
// organizer, and the server refuses it with `allowed-attendee-scheduling-object-change`.
extension ITIP {
    /// Properties an attendee adds, changes or removes freely (§3.2.2.1 items 2–4, 8, 9),
    /// and those the attendee's client keeps for itself (X- properties: Thunderbird's
    /// X-MOZ-*, Apple's X-APPLE-*), which never reach the organizer.
    static let attendeeOwnedProperties: Set<String> = [
        "TRANSP", "PERCENT-COMPLETE", "COMPLETED", "CREATED", "DTSTAMP", "LAST-MODIFIED", "EXDATE",
    ]

    /// Parameters only the organizer's server reads or sets on ORGANIZER and ATTENDEE
    /// (RFC 6638 §7.1–§7.3): never in an iTIP message nor an attendee's copy, and not
    /// the attendee's to change. Then those the attendee sets on their own ATTENDEE property.
    static let serverParameters: Set<String> = ["SCHEDULE-AGENT", "SCHEDULE-STATUS", "SCHEDULE-FORCE-SEND"]
    static let ownAttendeeParameters: Set<String> = ["PARTSTAT", "RSVP"]

    /// The first change from `old` to `new` (both VCALENDARs) that `attendee` (their
    /// calendar user address) may not make to their copy, described for a person; nil
    /// when every change is theirs to make. Property order, VTIMEZONEs (they name zones,
    /// not times) and the calendar's PRODID and CALSCALE do not count.
    public static func forbiddenAttendeeChange(from old: Component, to new: Component, attendee: String) -> String? {
        let oldOrganizer = organizer(of: old)
        if organizer(of: new) != oldOrganizer {
            return "the ORGANIZER is \(oldOrganizer ?? "nobody"); only the organizer's own calendar changes it"
        }
        func keyed(_ calendar: Component) -> [String?: Component] {
            var result: [String?: Component] = [:]
            for component in calendar.components where scheduled.contains(component.name) {
                result[component.property("RECURRENCE-ID")?.value] = component
            }
            return result
        }
        let before = keyed(old)
        let after = keyed(new)
        for (key, component) in after.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
            let base: Component
            var isNew = false
            if let existing = before[key] {
                base = existing
            } else if let key, let instance = ITIP.component(of: old, at: key) {
                // A new override: only to answer for one occurrence, at its own time. It
                // may leave out what the occurrence has (clients write just the attendee).
                if let reason = movedOccurrence(component, of: instance) { return reason }
                base = instance
                isNew = true
            } else {
                return key.map { "there is no occurrence \($0) to answer for" } ?? "the event itself is the organizer's"
            }
            if let property = firstDifference(base, component, attendee: attendee, newOverride: isNew) {
                let at = key.map { " of the occurrence \($0)" } ?? ""
                return
                    "\(property)\(at) is the organizer's to change; an attendee changes their answer, alarms and TRANSP"
            }
        }
        if before[nil] != nil, after[nil] == nil {
            return "an attendee removes the whole event by deleting it, not by writing it without its master"
        }
        let calendarProperties: (Component) -> [String] = { calendar in
            calendar.properties.filter { !["PRODID", "CALSCALE"].contains($0.name) && !$0.name.hasPrefix("X-") }
                .map(\.description).sorted()
        }
        if calendarProperties(old) != calendarProperties(new) {
            return "the calendar's own properties are the organizer's"
        }
        return nil
    }

    /// Why a new override does not sit where its occurrence is (its start moved, or its
    /// length changed), or nil.
    static func movedOccurrence(_ override: Component, of instance: Component) -> String? {
        guard let start = override.property("DTSTART"), let rid = override.property("RECURRENCE-ID"),
            start.value == rid.value, start[parameter: "TZID"] == rid[parameter: "TZID"]
        else { return "an attendee's override stays at its occurrence's start" }
        if length(of: override) != length(of: instance) {
            return "an attendee's override keeps its occurrence's length"
        }
        return nil
    }

    /// A component's length in seconds (DURATION, or DTEND minus DTSTART in their form), if readable.
    static func length(of component: Component) -> Int? {
        if let duration = component.property("DURATION") {
            return (try? duration.durationValue())?.secondsAssumingUniformDays
        }
        guard let start = try? component.property("DTSTART")?.dateTimeValue() else { return nil }
        guard let end = try? component.property("DTEND")?.dateTimeValue() else { return start.isDate ? 86_400 : 0 }
        return end.civil.secondsSinceEpoch - start.civil.secondsSinceEpoch
    }

    /// The name of the first property that differs between two versions of one
    /// component once what the attendee may change is set aside; nil when none does. A
    /// `newOverride` may leave out what the occurrence has (properties, and parameters of
    /// those it keeps: clients write just `ATTENDEE;PARTSTAT=DECLINED:mailto:…`), and its
    /// times are checked apart (``movedOccurrence(_:of:)``).
    static func firstDifference(_ old: Component, _ new: Component, attendee: String, newOverride: Bool) -> String? {
        let times: Set<String> = newOverride ? ["DTSTART", "DTEND", "DURATION"] : []
        func comparable(_ component: Component) -> [String: [Property]] {
            var result: [String: [Property]] = [:]
            for property in component.properties
            where !attendeeOwnedProperties.contains(property.name) && !property.name.hasPrefix("X-")
                && !times.contains(property.name)
            {
                var kept = property
                var dropped = serverParameters
                if ["ATTENDEE", "ORGANIZER"].contains(property.name) {
                    kept.value = address(property.value)
                    if property.name == "ATTENDEE", kept.value == attendee { dropped.formUnion(ownAttendeeParameters) }
                }
                kept.parameters = property.parameters.filter { !dropped.contains($0.name) && !$0.name.hasPrefix("X-") }
                    .sorted { $0.name < $1.name }
                result[property.name, default: []].append(kept)
            }
            for nested in component.components where nested.name != "VALARM" {
                let text = String(decoding: nested.serialized(), as: UTF8.self)
                result["the " + nested.name, default: []].append(Property(name: "X-NESTED", value: text))
            }
            return result
        }
        let before = comparable(old)
        let after = comparable(new)
        if newOverride {
            // Each property of the override is one of the occurrence's, with a subset of its parameters.
            func within(_ line: Property, _ base: Property) -> Bool {
                line.value == base.value && line.parameters.allSatisfy { base.parameters.contains($0) }
            }
            return after.keys.sorted().first { name in
                var left = before[name] ?? []
                for line in after[name] ?? [] {
                    guard let found = left.firstIndex(where: { within(line, $0) }) else { return true }
                    left.remove(at: found)
                }
                return false
            }
        }
        let lines = { (properties: [Property]?) in (properties ?? []).map(\.description).sorted() }
        return Set(before.keys).union(after.keys).sorted().first { lines(before[$0]) != lines(after[$0]) }
    }
}
