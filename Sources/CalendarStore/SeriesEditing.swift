import CivilTime
import ICalendar
import Recurrence

/// The iCalendar edits behind span-aware saves and removals: overrides
/// (RECURRENCE-ID), exclusions (EXDATE), ending a series before an instance
/// (UNTIL) and starting a new one from it. Pure: components in, components out.
struct SeriesEditing {
    var calendar: Component
    let uid: String
    let componentName: String
    let resolver: ZoneResolver

    init(_ object: CalendarObject) {
        calendar = object.calendar
        uid = object.uid
        componentName = object.componentType.rawValue
        resolver = ZoneResolver(calendar: object.calendar)
    }

    var members: [Component] { calendar.components.filter { $0.name == componentName } }
    var master: Component? { members.first { $0.property("RECURRENCE-ID") == nil } }
    var isRecurring: Bool { master.map { $0.property("RRULE") != nil || $0.property("RDATE") != nil } ?? false }

    /// The series start as a value, for the shape RECURRENCE-IDs and UNTIL take.
    var seriesStart: DateTimeValue? { try? master?.property("DTSTART")?.dateTimeValue() }

    /// A value's key in the series' terms: an instant for zoned and UTC series, wall-clock
    /// seconds for floating and all-day ones (as `RecurrenceSet` keys instances).
    func key(of value: DateTimeValue) -> Int {
        let start = seriesStart
        if start?.isDate == true { return CivilDateTime(date: value.date, time: .midnight).secondsSinceEpoch }
        var seriesZone = ZoneRules.utc
        switch start?.form {
        case .floating?: return value.civil.secondsSinceEpoch
        case .zoned(let tzid)?: seriesZone = zone(tzid)
        case .utc?, nil: break
        }
        switch value.form {
        case .floating: return seriesZone.instant(for: value.civil)
        case .utc: return value.civil.secondsSinceEpoch
        case .zoned(let tzid): return zone(tzid).instant(for: value.civil)
        }
    }

    func key(of time: OccurrenceTime) -> Int {
        switch time {
        case .instant(let instant): instant
        case .floating(let local): local.secondsSinceEpoch
        case .date(let date): CivilDateTime(date: date, time: .midnight).secondsSinceEpoch
        }
    }

    func zone(_ tzid: String) -> ZoneRules { (try? resolver.zone(for: tzid)) ?? .utc }

    /// The value naming the instance at `key`, in the series' form (RFC 5545 §3.8.4.4:
    /// a RECURRENCE-ID has DTSTART's value type and zone).
    /// The instance at `key` as occurrences name it (``OccurrenceTime/text`` is the API's
    /// RECURRENCE-ID text).
    func occurrenceTime(forKey key: Int) -> OccurrenceTime {
        guard let start = seriesStart else { return .instant(key) }
        if start.isDate { return .date(CivilDateTime(secondsSinceEpoch: key).date) }
        if case .floating = start.form { return .floating(CivilDateTime(secondsSinceEpoch: key)) }
        return .instant(key)
    }

    func value(forKey key: Int) -> DateTimeValue {
        guard let start = seriesStart else { return DateTimeValue(CivilDateTime(secondsSinceEpoch: key), form: .utc) }
        if start.isDate { return DateTimeValue(date: CivilDateTime(secondsSinceEpoch: key).date) }
        switch start.form {
        case .floating: return DateTimeValue(CivilDateTime(secondsSinceEpoch: key), form: .floating)
        case .utc: return DateTimeValue(CivilDateTime(secondsSinceEpoch: key), form: .utc)
        case .zoned(let tzid): return DateTimeValue(zone(tzid).localTime(at: key), form: .zoned(tzid: tzid))
        }
    }

    /// The UNTIL that ends a series just before the instance at `key`: a DATE for an
    /// all-day series, floating for a floating one, else UTC (RFC 5545 §3.3.10).
    func until(before key: Int) -> DateTimeValue {
        guard let start = seriesStart else {
            return DateTimeValue(CivilDateTime(secondsSinceEpoch: key - 1), form: .utc)
        }
        if start.isDate { return DateTimeValue(date: CivilDateTime(secondsSinceEpoch: key).date.adding(days: -1)) }
        if start.form == .floating { return DateTimeValue(CivilDateTime(secondsSinceEpoch: key - 1), form: .floating) }
        return DateTimeValue(CivilDateTime(secondsSinceEpoch: key - 1), form: .utc)
    }

    // MARK: Members

    mutating func replaceMembers(_ members: [Component]) {
        let others = calendar.components.filter { $0.name != componentName }
        let zones = others.filter { $0.name == "VTIMEZONE" }
        calendar.components = zones + members + others.filter { $0.name != "VTIMEZONE" }
    }

    func overrideKey(_ component: Component) -> Int? {
        (try? component.property("RECURRENCE-ID")?.dateTimeValue()).map { key(of: $0) }
    }

    /// Puts `component` as the master, keeping the overrides.
    mutating func setMaster(_ component: Component) {
        var members = self.members.filter { $0.property("RECURRENCE-ID") != nil }
        members.insert(component, at: 0)
        replaceMembers(members)
    }

    /// Writes `component` as the override of the instance at `key`, replacing any earlier one.
    mutating func setOverride(_ component: Component, key: Int) {
        var instance = component
        for name in ["RRULE", "RDATE", "EXDATE", "EXRULE", "RECURRENCE-ID"] { instance.removeProperties(named: name) }
        instance.properties.append(Property(name: "RECURRENCE-ID", dateTime: value(forKey: key)))
        var members = self.members.filter { overrideKey($0) != key }
        members.append(instance)
        replaceMembers(members)
    }

    /// Removes the instance at `key`: its override, and an EXDATE on the master.
    mutating func exclude(key: Int) {
        var members = self.members.filter { overrideKey($0) != key }
        if let index = members.firstIndex(where: { $0.property("RECURRENCE-ID") == nil }) {
            members[index].properties.append(Property(name: "EXDATE", dateTime: value(forKey: key)))
        }
        replaceMembers(members)
    }

    /// Ends the series before the instance at `key`: every rule gets UNTIL (instead of
    /// COUNT), and RDATEs, EXDATEs and overrides from `key` on are dropped. Returns what
    /// was cut, for a new series to take over.
    mutating func truncate(before key: Int) -> (
        rules: [RecurrenceRule], dates: [DateTimeValue], exclusions: [DateTimeValue], overrides: [Component]
    ) {
        guard var master else { return ([], [], [], []) }
        var laterRules: [RecurrenceRule] = []
        var rules: [RecurrenceRule] = []
        for property in master.properties(named: "RRULE") {
            guard var rule = try? property.recurrenceRule() else { continue }
            var later = rule
            if let count = rule.count {
                // The new series takes what COUNT has left after the instances before `key`.
                var single = master
                single.removeProperties(named: "RDATE")
                single.removeProperties(named: "EXDATE")
                single.removeProperties(named: "RRULE")
                single.properties.append(Property(recurrenceRule: rule))
                let expansion = CalendarObjectExpansion(resolver: resolver)
                let before = (try? expansion.recurrenceSet(of: single))??.instances(to: key).instances.count ?? 0
                later.count = max(1, count - before)
            }
            rule.count = nil
            rule.until = until(before: key)
            rules.append(rule)
            laterRules.append(later)
        }
        master.removeProperties(named: "RRULE")
        master.properties += rules.map { Property(recurrenceRule: $0) }
        func split(_ name: String) -> [DateTimeValue] {
            let values = master.properties(named: name).flatMap { (try? $0.dateTimeValues()) ?? [] }
            let (kept, cut) = (values.filter { self.key(of: $0) < key }, values.filter { self.key(of: $0) >= key })
            var event = Event(component: master)
            if name == "RDATE" { event.recurrenceDates = kept } else { event.exceptionDates = kept }
            master = event.component
            return cut
        }
        let dates = split("RDATE")
        let exclusions = split("EXDATE")
        let overrides = members.filter { ($0.property("RECURRENCE-ID") != nil) && (overrideKey($0) ?? .min) >= key }
        let kept = members.filter { ($0.property("RECURRENCE-ID") != nil) && (overrideKey($0) ?? .min) < key }
        replaceMembers([master] + kept)
        return (laterRules, dates, exclusions, overrides)
    }

    // MARK: Time zones

    /// Adds a VTIMEZONE for every TZID the members use that the calendar lacks and
    /// that names an IANA (or Windows) zone, covering the years the object spans.
    mutating func addMissingTimeZones() {
        var present = Set(calendar.components(named: "VTIMEZONE").compactMap { $0.property("TZID")?.value })
        var added: [Component] = []
        var earliest = Int.max
        var latest = Int.min
        var tzids: [String] = []
        for member in members {
            for property in member.properties {
                if let tzid = property.tzid, !present.contains(tzid) {
                    present.insert(tzid)
                    tzids.append(tzid)
                }
                if let value = try? property.dateTimeValue(),
                    ["DTSTART", "DTEND", "DUE", "RECURRENCE-ID"].contains(property.name)
                {
                    earliest = min(earliest, value.civil.secondsSinceEpoch)
                    latest = max(latest, value.civil.secondsSinceEpoch)
                }
            }
        }
        guard !tzids.isEmpty, earliest != Int.max else { return }
        let from = earliest - 366 * 86_400
        let to = (isRecurring ? max(latest, earliest + 20 * 366 * 86_400) : latest) + 366 * 86_400
        for tzid in tzids {
            guard let zone = try? ZoneResolver(calendar: nil, mode: .strict).zone(for: tzid) else { continue }
            var component = VTimeZone.component(for: zone, from: from, to: to)
            component.setProperty(Property(name: "TZID", text: tzid))
            added.append(component)
        }
        calendar.components.insert(contentsOf: added, at: 0)
    }

    // MARK: Building

    /// A new VCALENDAR around `members`, with the VTIMEZONEs they need.
    static func calendar(with members: [Component]) -> Component {
        Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
            ],
            components: members)
    }
}
