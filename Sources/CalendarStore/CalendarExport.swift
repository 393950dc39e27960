import CivilTime
import ICalendar
import Recurrence

/// A whole calendar as one iCalendar file: every component of every object, a
/// VTIMEZONE for every TZID used (written from the IANA rules for a zone name, the
/// object's own for any other TZID), and — for feeds — no floating times.
public enum CalendarExport {
    /// The calendar's objects as one VCALENDAR.
    ///
    /// - Parameter anchorFloatingTimes: when true, floating DATE-TIMEs get the
    ///   calendar's zone as TZID (or become UTC when it has none), as subscribers in
    ///   other zones would otherwise read them in their own.
    public static func icalendar(
        of calendar: EventCalendar, in store: any EventStore, anchorFloatingTimes: Bool = false
    )
        throws(StoreError) -> (bytes: [UInt8], components: Int)
    {
        var members: [Component] = []
        var ownZones: [Component] = []
        let anchor = anchorFloatingTimes ? (calendar.timeZone ?? "UTC") : nil
        for resource in try store.resources(calendar: calendar.id) {
            let stored = try store.resource(named: resource.name, calendar: calendar.id)
            // Every stored object was read when it was written; one that no longer reads is
            // an error to report, never a component left out of the file unsaid.
            let objects: [Component]
            do {
                objects = try ICalendarParser.parse(stored.data, options: .lenient).components
            } catch {
                throw StoreError(
                    .invalidCalendarData, "\(resource.name) cannot be exported: \(error)", resource: resource.name,
                    diagnostic: error)
            }
            for var component in objects.flatMap(\.components) {
                if component.name == "VTIMEZONE" {
                    ownZones.append(component)
                    continue
                }
                if let anchor { anchorFloating(&component, zone: anchor) }
                members.append(component)
            }
        }
        var properties = [
            Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
        ]
        properties.append(Property(name: "X-WR-CALNAME", text: calendar.title))
        if let zone = calendar.timeZone { properties.append(Property(name: "X-WR-TIMEZONE", value: zone)) }
        return (document(members, ownTimeZones: ownZones, properties: properties).serialized(), members.count)
    }

    /// How far back and ahead a free-busy feed reaches from now.
    public static let busyFeedWindow = (past: 30 * 86_400, ahead: 366 * 86_400)
    /// The most blocks a free-busy feed lists; past it, short gaps are filled (more busy
    /// time shown, never less).
    public static let maxBusyBlocks = 10_000

    /// The calendar's busy time from a month ago to a year ahead as one VCALENDAR of opaque
    /// VEVENTs titled "Busy" (or "Tentative"): no titles, places, notes or attendees, each
    /// block the union of the instances that overlap or touch it, all in UTC. A block's
    /// UID is made of its times, so a subscriber sees unchanged blocks as unchanged.
    public static func busyICalendar(of calendar: EventCalendar, in store: any EventStore, now: Int)
        throws(StoreError) -> [UInt8]
    {
        let range = TimeRange(start: now - busyFeedWindow.past, end: now + busyFeedWindow.ahead)
        let busy = try store.busyTime(in: range, calendars: [calendar.id], timeZone: calendar.timeZone)
        let periods = busy.compactMap { time -> (start: Int, end: Int, tentative: Bool)? in
            let from = max(range.start, time.start)
            let to = min(range.end, time.end)
            return to > from ? (from, to, time.isTentative) : nil
        }
        let stamp = DateTimeValue(CivilDateTime(secondsSinceEpoch: now), form: .utc)
        func utc(_ seconds: Int) -> DateTimeValue {
            DateTimeValue(CivilDateTime(secondsSinceEpoch: seconds), form: .utc)
        }
        let blocks = BusyTime.coalesced(periods, span: range.end - range.start, limit: maxBusyBlocks).map { block in
            Component(
                name: "VEVENT",
                properties: [
                    Property(name: "UID", value: "busy-\(block.start)-\(block.end)-\(block.tentative ? "t" : "b")"),
                    Property(name: "DTSTAMP", dateTime: stamp),
                    Property(name: "DTSTART", dateTime: utc(block.start)),
                    Property(name: "DTEND", dateTime: utc(block.end)),
                    Property(name: "SUMMARY", text: block.tentative ? "Tentative" : "Busy"),
                    Property(name: "TRANSP", value: "OPAQUE"),
                    Property(name: "STATUS", value: block.tentative ? "TENTATIVE" : "CONFIRMED"),
                    Property(name: "CLASS", value: "PRIVATE"),
                ])
        }
        let properties = [
            Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
            Property(name: "X-WR-CALNAME", text: calendar.title + " (busy)"),
        ]
        return Component(name: "VCALENDAR", properties: properties, components: blocks).serialized()
    }

    /// A VCALENDAR of `members` with `properties` and a VTIMEZONE for every TZID they
    /// use: for an IANA (or Windows) zone name one written from its rules over the years
    /// all the members' times span (as Almanac reads such a TZID by its rules, and one
    /// object's own block may cover only that object's years); for any other TZID the
    /// block an object carried (`ownTimeZones`).
    public static func document(_ members: [Component], ownTimeZones: [Component], properties: [Property]) -> Component
    {
        var timeZones: [String: Component] = [:]
        for zone in ownTimeZones {
            if let tzid = zone.property("TZID")?.value, timeZones[tzid] == nil { timeZones[tzid] = zone }
        }
        var needed: [String: (from: Int, to: Int)] = [:]
        func note(_ component: Component) {
            for property in component.properties {
                guard let tzid = property.tzid, let value = try? property.dateTimeValue() else { continue }
                let instant = value.civil.secondsSinceEpoch
                let span = needed[tzid] ?? (instant, instant)
                needed[tzid] = (min(span.from, instant), max(span.to, instant))
            }
            component.components.forEach(note)
        }
        members.forEach(note)
        var zones: [Component] = []
        let resolver = ZoneResolver(calendar: nil, mode: .strict)
        for (tzid, span) in needed.sorted(by: { $0.key < $1.key }) {
            if let rules = try? resolver.zone(for: tzid) {
                var zone = VTimeZone.component(
                    for: rules, from: span.from - 366 * 86_400, to: span.to + 20 * 366 * 86_400)
                zone.setProperty(Property(name: "TZID", text: tzid))
                zones.append(zone)
            } else if let own = timeZones[tzid] {
                zones.append(own)
            }
        }
        return Component(name: "VCALENDAR", properties: properties, components: zones + members)
    }

    /// Gives floating DATE-TIME values a zone: `zone` as TZID, or UTC for "UTC".
    static func anchorFloating(_ component: inout Component, zone: String) {
        let timed: Set<String> = ["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"]
        for index in component.properties.indices where timed.contains(component.properties[index].name) {
            let property = component.properties[index]
            guard property.tzid == nil, property.valueType != .date, property.valueType != .period,
                let values = try? property.dateTimeValues(), !values.isEmpty,
                values.allSatisfy({ !$0.isDate && $0.form == .floating })
            else { continue }
            let form: DateTimeForm = zone == "UTC" ? .utc : .zoned(tzid: zone)
            let anchored = values.map { DateTimeValue($0.civil, form: form) }
            let kept = property.parameters.filter { $0.name != "TZID" && $0.name != "VALUE" }
            component.properties[index] =
                anchored.count == 1
                ? Property(name: property.name, dateTime: anchored[0], parameters: kept)
                : Property(name: property.name, dateTimes: anchored, parameters: kept)
        }
    }
}
