import CivilTime
import ICalendar
import Recurrence

/// A calendar object resource, parsed and checked against RFC 4791 §4.1: one
/// VCALENDAR holding components of one type (besides VTIMEZONE) that share one
/// UID — at most one master and overrides with distinct RECURRENCE-IDs of the
/// master's value type — and no METHOD.
struct CalendarObject {
    var calendar: Component
    var componentType: ComponentType
    var uid: String
    /// What lenient parsing recovered from in the bytes (none when built from components).
    var warnings: [ICalendarError] = []

    /// The VEVENT/VTODO/VJOURNAL members, in document order.
    var members: [Component] { calendar.components.filter { $0.name == componentType.rawValue } }
    var master: Component? { members.first { $0.property("RECURRENCE-ID") == nil } }

    /// Parses and checks bytes the store already holds: read leniently, refusing only
    /// what would make the store misread them (``ICalendar/AcceptancePolicy/misleads(_:)``),
    /// so an object written under an earlier, looser policy stays readable. A bare VEVENT
    /// is refused here (a stored resource is a VCALENDAR, RFC 4791 §4.1).
    init(parsing data: [UInt8], resource: String? = nil) throws(StoreError) {
        let document: ICalendarDocument
        do {
            document = try ICalendarParser.parse(data, options: .lenient)
        } catch {
            throw .invalidData(error, resource: resource)
        }
        if let problem = document.warnings.first(where: AcceptancePolicy.misleads) {
            var error = problem
            error.severity = .error
            throw .invalidData(error, resource: resource)
        }
        try self.init(document: document, resource: resource)
        warnings = document.warnings
    }

    /// Parses and checks bytes a client writes (a PUT, an import of resources) under
    /// ``ICalendar/AcceptancePolicy``: RFC 5545 with its documented repairs, each kept as
    /// a warning; the first refusal is thrown with the parser's line.
    init(accepting data: [UInt8], resource: String? = nil) throws(StoreError) {
        let result = AcceptancePolicy.check(data)
        guard let document = result.document else {
            let first = result.errors.first ?? ICalendarError(.emptyInput, "no iCalendar component in the input")
            throw .invalidData(first, resource: resource)
        }
        try self.init(document: document, resource: resource)
        warnings = document.warnings
    }

    init(document: ICalendarDocument, resource: String?) throws(StoreError) {
        func invalid(_ message: String) -> StoreError { StoreError(.invalidCalendarData, message, resource: resource) }
        /// A rule of RFC 4791 §4.1 broken by data that is valid iCalendar.
        func breaks(_ message: String) -> StoreError {
            StoreError(.invalidCalendarObject, message, resource: resource)
        }
        guard document.components.allSatisfy({ $0.name == "VCALENDAR" }), let calendar = document.components.first
        else {
            // A bare VEVENT (or nothing) is not an iCalendar object at all.
            throw invalid("a calendar object resource is exactly one VCALENDAR")
        }
        guard document.components.count == 1 else {
            throw breaks("a calendar object resource is exactly one VCALENDAR")
        }
        if calendar.property("METHOD") != nil {
            throw breaks("a stored calendar object must not have METHOD (RFC 4791 §4.1); remove it or import the file")
        }
        var type: ComponentType?
        var uid: String?
        var masters = 0
        var recurrenceIDs = Set<String>()
        for component in calendar.components {
            if component.name == "VTIMEZONE" || component.name.hasPrefix("X-") { continue }
            guard let kind = ComponentType(rawValue: component.name) else {
                throw breaks("a calendar object resource cannot hold \(component.name)")
            }
            if let type, type != kind {
                throw breaks(
                    "a calendar object resource holds one component type, not \(type.rawValue) and \(kind.rawValue)")
            }
            type = kind
            guard let componentUID = component.property("UID")?.value, !componentUID.isEmpty else {
                throw invalid("\(kind.rawValue) has no UID")
            }
            if let uid, uid != componentUID {
                throw breaks(
                    "every component of a calendar object resource has one UID, not \(uid) and \(componentUID)")
            }
            uid = componentUID
            if let id = component.property("RECURRENCE-ID") {
                let key = (try? id.dateTimeValue()).map { "\($0.civil)\($0.isDate)" } ?? id.value
                guard recurrenceIDs.insert(key).inserted else {
                    throw invalid("two overrides have RECURRENCE-ID \(id.value)")
                }
            } else {
                masters += 1
                if kind == .event, component.property("DTSTART") == nil { throw invalid("VEVENT has no DTSTART") }
                for property in component.properties where property.name == "RRULE" || property.name == "EXRULE" {
                    if let refusal = (try? property.recurrenceRule())?.expansionRefusal { throw invalid(refusal) }
                }
            }
        }
        guard let type, let uid else { throw breaks("the VCALENDAR holds no VEVENT, VTODO or VJOURNAL") }
        guard masters <= 1 else { throw breaks("more than one component without RECURRENCE-ID has UID \(uid)") }
        self.calendar = calendar
        self.componentType = type
        self.uid = uid
        if let masterStart = try? master?.property("DTSTART")?.dateTimeValue() {
            for member in members {
                guard let id = try? member.property("RECURRENCE-ID")?.dateTimeValue() else { continue }
                if id.isDate != masterStart.isDate {
                    throw invalid(
                        "RECURRENCE-ID \(id.icalendarText) is a \(id.isDate ? "DATE" : "DATE-TIME") but the series starts on a \(masterStart.isDate ? "DATE" : "DATE-TIME")"
                    )
                }
            }
        }
    }

    /// The properties expansion and query filters read; a skeleton keeps only these.
    static let timingProperties: Set<String> = [
        "UID", "DTSTART", "DTEND", "DURATION", "DUE", "RRULE", "RDATE", "EXDATE", "EXRULE", "RECURRENCE-ID", "SUMMARY",
        "STATUS",
        "CATEGORIES", "TRANSP",
    ]
    /// Names a skeleton component's member in the whole object.
    static let memberProperty = "X-ALMANAC-MEMBER"

    /// The object cut down to what expanding it needs: each member's timing, title,
    /// status, transparency and categories (with its position among the members), and only the
    /// VTIMEZONEs that no IANA or Windows name already resolves. A cold query parses
    /// this instead of the whole object.
    func skeleton() -> [UInt8] {
        let known = ZoneResolver(calendar: nil, mode: .strict)
        var components: [Component] = []
        for zone in calendar.components(named: "VTIMEZONE") {
            guard let tzid = zone.property("TZID")?.value, (try? known.zone(for: tzid)) == nil else { continue }
            components.append(zone)
        }
        for (index, member) in members.enumerated() {
            var properties = member.properties.filter { Self.timingProperties.contains($0.name) }
            properties.append(Property(name: Self.memberProperty, value: String(index)))
            components.append(Component(name: member.name, properties: properties))
        }
        return Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Skeleton//EN"),
            ], components: components
        ).serialized()
    }

    /// The member a skeleton component stands for (0 for a component that is not one).
    static func memberIndex(of component: Component) -> Int {
        component.property(memberProperty).flatMap { Int($0.value) } ?? 0
    }

    /// What the interval index and the listing columns hold for this object.
    struct Summary {
        /// Unix seconds; floating and all-day times widened to hold in any zone.
        var firstStart: Int
        /// nil for a series without end.
        var lastEnd: Int?
        var title: String?
        var isRecurring: Bool
        /// The furthest an alarm fires from its occurrence's start, in seconds; nil without alarms.
        var alarmReach: Int?
        /// For a one-off object (one component, no RRULE or RDATE): its occurrence.
        var single: Occurrence?
        /// The master's (or first component's) STATUS and CATEGORIES.
        var status: EventStatus?
        var categories: [String]
        /// TRANSP:TRANSPARENT on the master (or first component).
        var isTransparent: Bool
        /// For an object that is not one-off: its timing skeleton.
        var skeleton: [UInt8]?
        /// A bounded series as prepared to find its box, kept for the reads that follow
        /// (the store's cache), so the first read does not prepare it again.
        var prepared: PreparedObject?
    }

    /// Floating and all-day times mean different instants in different zones; UTC
    /// offsets lie within -12:00…+14:00 (and LMT a little beyond), so widening by 16
    /// hours on each side holds the time wherever it is read.
    static let floatingSlack = 16 * 3600

    /// The farthest an alarm is looked for from its occurrence: 20,000 years, past any
    /// instant a calendar can name, and small enough to widen a range without overflow.
    static let maxAlarmReach = 20_000 * 366 * 86_400

    func summary(limits: ExpansionLimits = .default) throws(StoreError) -> Summary {
        let resolver = ZoneResolver(calendar: calendar)
        let expansion = CalendarObjectExpansion(resolver: resolver, viewerZone: .utc, limits: limits)
        let members = self.members
        let master = self.master
        let isRecurring = master.map { $0.property("RRULE") != nil || $0.property("RDATE") != nil } ?? false
        let rules = master?.properties(named: "RRULE") ?? []
        let unbounded = rules.contains { property in
            guard let rule = try? property.recurrenceRule() else { return false }
            return rule.count == nil && rule.until == nil
        }
        var first = Int.max
        var last = Int.min
        var open = false
        var single: Occurrence?
        var prepared: PreparedObject?
        func include(_ occurrence: Occurrence) {
            let slack: Int
            if case .instant = occurrence.start { slack = 0 } else { slack = Self.floatingSlack }
            first = min(first, occurrence.start.instant(in: .utc) - slack)
            last = max(last, occurrence.end.instant(in: .utc) + slack)
        }
        do {
            if unbounded {
                open = true
                // The series starts at DTSTART; overrides may move instances earlier.
                for var member in members {
                    member.removeProperties(named: "RRULE")
                    member.removeProperties(named: "RDATE")
                    for occurrence in try expansion.occurrences(of: [member], uid: uid, from: nil, to: nil) {
                        include(occurrence)
                    }
                }
            } else {
                let series = try expansion.prepare(members, uid: uid)
                var budget = ExpansionBudget.unbounded
                let expanded = series.expand(from: nil, to: nil, viewerZone: .utc, budget: &budget)
                let occurrences = expanded.occurrences
                prepared = series
                // A series a bound stopped goes on past its last listed instance: its box stays open.
                if !expanded.isComplete { open = true }
                if members.count == 1, !isRecurring, occurrences.count == 1 { single = occurrences[0] }
                for occurrence in occurrences { include(occurrence) }
            }
        } catch {
            throw .invalidData(error)
        }
        // A task without DTSTART or DUE matches every range (RFC 4791 §9.9).
        if first == Int.max {
            first = Int.min
            open = true
        }
        var reach: Int?
        var maxLength = 0
        if let master, let start = try? master.property("DTSTART")?.dateTimeValue(),
            let end = try? master.property("DTEND")?.dateTimeValue()
        {
            maxLength = max(0, end.civil.secondsSinceEpoch - start.civil.secondsSinceEpoch) + 3600
        } else if let duration = try? master?.property("DURATION")?.durationValue() {
            maxLength = abs(duration.secondsAssumingUniformDays) + 3600
        } else {
            maxLength = 86_400 + 3600
        }
        for member in members {
            for alarm in member.components(named: "VALARM").map(Alarm.init(component:)) {
                // Durations are at most CalendarDuration.maxSeconds, but REPEAT (up to 2^31)
                // times one can pass Int's range: a reach that large means "any time".
                var distance: Int
                switch alarm.trigger {
                case .relative(let offset, let relatedToEnd)?:
                    distance = abs(offset.secondsAssumingUniformDays) + 3600 + (relatedToEnd ? maxLength : 0)
                case .absolute(let instant)?:
                    distance = first == Int.min ? 0 : abs(instant - first)
                case nil:
                    continue
                }
                if let interval = alarm.repeatInterval {
                    distance = distance.addingSaturated(
                        abs(interval.secondsAssumingUniformDays).multipliedSaturated(by: max(0, alarm.repeatCount)))
                }
                reach = max(reach ?? 0, min(distance, Self.maxAlarmReach))
            }
        }
        let main = master ?? members.first
        return Summary(
            firstStart: first, lastEnd: open ? nil : max(last, first), title: main?.property("SUMMARY")?.textValue(),
            isRecurring: isRecurring, alarmReach: reach, single: single, status: main.flatMap(EventStatus.init),
            categories: main?.categoryValues ?? [],
            isTransparent: main?.property("TRANSP")?.value.uppercased() == "TRANSPARENT",
            skeleton: single == nil ? skeleton() : nil,
            // What the cache would prepare itself: a series under the default limits.
            prepared: single == nil && limits == .default ? prepared : nil)
    }
}
