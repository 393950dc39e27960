import CalendarStore
import CivilTime
import ICalendar
import Recurrence

extension DAVContext {
    /// The object with its master and only the overrides that impact `range` (RFC 4791
    /// §9.6.6); VTIMEZONEs and other components stay.
    static func limited(_ root: Component, to range: TimeRange, zone: ZoneRules) throws(StoreError) -> Component {
        var root = root
        let members = root.components.filter { ComponentType(rawValue: $0.name) != nil }
        let affecting: [Component]
        do {
            affecting = try CalendarObjectExpansion(resolver: ZoneResolver(calendar: root))
                .prepare(members, uid: members.first?.property("UID")?.value ?? "")
                .overrides(affecting: range.start, to: range.end, viewerZone: zone)
        } catch {
            throw StoreError(.invalidCalendarData, error.description)
        }
        root.components.removeAll { $0.property("RECURRENCE-ID") != nil && !affecting.contains($0) }
        return root
    }

    /// A stored object's VCALENDAR.
    static func parseObject(_ data: [UInt8]) throws(StoreError) -> Component? {
        do {
            return try ICalendarParser.parse(data, options: .lenient).components.first
        } catch {
            throw StoreError(.invalidCalendarData, error.description)
        }
    }

    /// An object's instances in the expanded range as RFC 4791 §9.6.5 asks: one
    /// component per instance with RECURRENCE-ID, times in UTC, no recurrence properties.
    static func expanded(_ occurrences: [EventOccurrence], zone: ZoneRules) -> Component {
        // Instances of the master share its component: strip it once.
        var strippedMaster: Component?
        var components: [Component] = []
        components.reserveCapacity(occurrences.count)
        for occurrence in occurrences {
            let original = occurrence.component
            var component: Component
            if !occurrence.isDetached, let strippedMaster {
                component = strippedMaster
            } else {
                component = original
                component.properties.removeAll { Self.instanceTiming.contains($0.name) }
                if !occurrence.isDetached { strippedMaster = component }
            }
            if component.name != "VTODO" || original.property("DTSTART") != nil {
                component.properties.append(
                    Property(name: "DTSTART", dateTime: DAVTime.value(occurrence.start, zone: zone)))
            }
            let endName = component.name == "VTODO" ? "DUE" : "DTEND"
            // DURATION stays as sent where it still spans the instance read from its UTC start
            // (RFC 4791 §9.6.5 changes the times to UTC, not DURATION into DTEND); a nominal
            // one across a DST change would not, and becomes the instance's end.
            let span = occurrence.end.instant(in: zone) - occurrence.start.instant(in: zone)
            if let duration = original.property("DURATION"), original.property(endName) == nil,
                let length = try? duration.durationValue(), length.secondsAssumingUniformDays == span
            {
                component.properties.append(duration)
            } else if component.name != "VTODO" || original.property("DUE") != nil
                || original.property("DURATION") != nil
            {
                component.properties.append(
                    Property(name: endName, dateTime: DAVTime.value(occurrence.end, zone: zone)))
            }
            if let id = occurrence.recurrenceID {
                component.properties.append(Property(name: "RECURRENCE-ID", dateTime: DAVTime.value(id, zone: zone)))
            }
            components.append(component)
        }
        return Component(name: "VCALENDAR", properties: expandedHeader, components: components)
    }

    static let expandedHeader = [
        Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
    ]

    /// What an expanded instance drops: the recurrence and the series' own times.
    static let instanceTiming: Set<String> = [
        "RRULE", "RDATE", "EXDATE", "EXRULE", "RECURRENCE-ID", "DTSTART", "DTEND", "DUE", "DURATION",
    ]
}
