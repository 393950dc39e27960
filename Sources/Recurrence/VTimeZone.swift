import CivilTime
import ICalendar

/// VTIMEZONE components (RFC 5545 §3.6.5): read into zone rules, and written
/// for IANA zones.
public enum VTimeZone {
    /// The last year a VTIMEZONE's rules are expanded to.
    static let horizon = 2200

    /// The most onsets one VTIMEZONE may have, over all its observances, rules and
    /// RDATEs. A real zone changes a few times a year (about 600 onsets to 2200); past
    /// this, a VTIMEZONE is refused rather than expanded into memory.
    public static let maxOnsets = 10_000

    /// Zone rules from a VTIMEZONE's STANDARD and DAYLIGHT observances: every
    /// onset (DTSTART, the RRULE's instances, RDATEs) is a transition to
    /// TZOFFSETTO at the local time DTSTART names, in the offset before it
    /// (TZOFFSETFROM). A missing TZOFFSETFROM (a known producer bug) takes the
    /// offset in force before the onset.
    ///
    /// - Throws: `ICalendarError` when an observance lacks DTSTART or TZOFFSETTO, or
    ///   when the rules have more than ``maxOnsets`` onsets before the horizon.
    public static func rules(from component: Component) throws(ICalendarError) -> ZoneRules {
        let tzid = component.property("TZID")?.textValue() ?? "VTIMEZONE"
        struct Onset {
            var local: CivilDateTime
            var from: UTCOffset?
            var to: UTCOffset
            var isDaylight: Bool
            var name: String
        }
        var onsets: [Onset] = []
        func tooMany() -> ICalendarError {
            ICalendarError(
                .limitExceeded, "\(tzid) changes offset more than \(maxOnsets) times before \(horizon)",
                component: "VTIMEZONE")
        }
        for observance in component.components where observance.name == "STANDARD" || observance.name == "DAYLIGHT" {
            guard let start = try observance.property("DTSTART")?.dateTimeValue(),
                let to = try observance.property("TZOFFSETTO")?.utcOffsetValue()
            else {
                throw ICalendarError(
                    .missingProperty, "\(tzid): \(observance.name) needs DTSTART and TZOFFSETTO", component: "VTIMEZONE"
                )
            }
            let from = try observance.property("TZOFFSETFROM")?.utcOffsetValue()
            let isDaylight = observance.name == "DAYLIGHT"
            let name = observance.property("TZNAME")?.textValue() ?? ""
            var locals: [CivilDateTime] = []
            let rules = try observance.properties(named: "RRULE").map { (property) throws(ICalendarError) in
                try property.recurrenceRule()
            }
            for var rule in rules {
                // An UNTIL in UTC is compared as the instant of the onset in the offset before it.
                if let until = rule.until, until.form == .utc, let from {
                    rule.until = DateTimeValue(until.civil.adding(seconds: from.seconds), form: .floating)
                }
                // One budget for the whole VTIMEZONE: each rule may add only what the others left.
                let room = maxOnsets - onsets.count - locals.count
                var iterator = RuleIterator(
                    rule: rule, start: start.civil, isDate: false, zone: nil,
                    limits: ExpansionLimits(maxInstances: room + 1))
                while locals.count <= room, let local = iterator.next(), local.date.year <= horizon {
                    locals.append(local)
                }
                guard locals.count <= room, !iterator.isExhausted else { throw tooMany() }
            }
            if rules.isEmpty { locals.append(start.civil) }
            for property in observance.properties(named: "RDATE") {
                if let values = try? property.dateTimeValues() {
                    for value in values {
                        // A UTC RDATE names the instant; turn it back into the local onset time.
                        locals.append(
                            value.form == .utc && from != nil ? value.civil.adding(seconds: from!.seconds) : value.civil
                        )
                    }
                }
            }
            for local in locals {
                onsets.append(Onset(local: local, from: from, to: to, isDaylight: isDaylight, name: name))
            }
            guard onsets.count <= maxOnsets else { throw tooMany() }
        }
        guard !onsets.isEmpty else {
            throw ICalendarError(
                .missingProperty, "\(tzid) has no STANDARD or DAYLIGHT observance", component: "VTIMEZONE")
        }
        // Sort by the wall clock first; the instant needs the offset before, known once sorted.
        onsets.sort { $0.local < $1.local }
        let initial = onsets[0].from ?? onsets[0].to
        var transitions: [ZoneTransition] = []
        var current = initial
        for onset in onsets {
            let before = onset.from ?? current
            let instant = onset.local.secondsSinceEpoch - before.seconds
            if onset.to != current || transitions.isEmpty {
                transitions.append(
                    ZoneTransition(
                        instant: instant, offsetBefore: current, offsetAfter: onset.to,
                        isDaylightSaving: onset.isDaylight, abbreviation: onset.name))
            }
            current = onset.to
        }
        transitions.sort { $0.instant < $1.instant }
        return ZoneRules(
            identifier: tzid, initialOffset: initial, initialAbbreviation: onsets[0].name, transitions: transitions,
            footer: nil)
    }
}

extension VTimeZone {
    /// A VTIMEZONE describing an IANA zone over `from..<to` (Unix seconds), for
    /// feeds and `.ics` downloads that must not rely on the reader's zone data.
    ///
    /// Each distinct kind of change (to standard or daylight time, between two
    /// offsets, with one abbreviation) becomes one STANDARD or DAYLIGHT
    /// observance whose DTSTART is its first onset in the range and whose RDATEs
    /// list the others, all as local times in the offset before the change
    /// (RFC 5545 §3.6.5). This is exact for every instant in the range, whatever
    /// the zone's rules were, and readers keep the last offset after it. A zone
    /// with no change in the range gets one STANDARD observance.
    public static func component(for zone: ZoneRules, from: Int, to: Int) -> Component {
        var timeZone = Component(name: "VTIMEZONE", properties: [Property(name: "TZID", text: zone.identifier)])
        let changes = zone.transitions(from: from, to: to)
        guard !changes.isEmpty else {
            let offset = zone.offset(at: from)
            let start = zone.localTime(at: from)
            timeZone.components.append(
                Component(
                    name: "STANDARD",
                    properties: [
                        Property(name: "DTSTART", value: DateTimeValue(start, form: .floating).icalendarText),
                        Property(name: "TZOFFSETFROM", value: offset.description),
                        Property(name: "TZOFFSETTO", value: offset.description),
                        Property(name: "TZNAME", text: zone.abbreviation(at: from)),
                    ]))
            return timeZone
        }
        struct Kind: Hashable {
            var isDaylight: Bool
            var before: UTCOffset
            var after: UTCOffset
            var name: String
        }
        var order: [Kind] = []
        var onsets: [Kind: [CivilDateTime]] = [:]
        for change in changes {
            let kind = Kind(
                isDaylight: change.isDaylightSaving, before: change.offsetBefore, after: change.offsetAfter,
                name: change.abbreviation)
            if onsets[kind] == nil { order.append(kind) }
            onsets[kind, default: []].append(
                CivilDateTime(secondsSinceEpoch: change.instant + change.offsetBefore.seconds))
        }
        for kind in order {
            let locals = onsets[kind]!
            var properties = [
                Property(name: "DTSTART", value: DateTimeValue(locals[0], form: .floating).icalendarText),
                Property(name: "TZOFFSETFROM", value: kind.before.description),
                Property(name: "TZOFFSETTO", value: kind.after.description),
            ]
            if !kind.name.isEmpty { properties.append(Property(name: "TZNAME", text: kind.name)) }
            for local in locals.dropFirst() {
                properties.append(Property(name: "RDATE", value: DateTimeValue(local, form: .floating).icalendarText))
            }
            timeZone.components.append(
                Component(name: kind.isDaylight ? "DAYLIGHT" : "STANDARD", properties: properties))
        }
        return timeZone
    }
}
