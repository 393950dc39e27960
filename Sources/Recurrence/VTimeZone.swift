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
    /// A VTIMEZONE describing an IANA zone from `from` to `to` (Unix seconds), for
    /// objects, feeds and `.ics` downloads that must not rely on the reader's zone data,
    /// in the one form every widely used reader (ical.js in Thunderbird, libical in
    /// Evolution, python `dateutil`/`icalendar`, Apple's) reads alike:
    ///
    /// - It starts at the change in force at `from` (not the first one after it), so no
    ///   reader has to guess the offset before its first onset.
    /// - The zone's ongoing yearly rule (its TZif footer, from where the table follows
    ///   it) is one open-ended RRULE observance per change (`FREQ=YEARLY;BYMONTH;BYDAY`,
    ///   as tzurl.org and Apple publish): right in every year after `to` too.
    /// - Changes before that, or of a rule no RRULE says, are RDATE observances: one
    ///   per kind of change, its DTSTART repeated as its first RDATE (ical.js ignores
    ///   DTSTART when RDATEs follow) and one RDATE per property (it reads only the
    ///   first value of each).
    /// - An observance is DAYLIGHT when it puts the clocks forward, else STANDARD
    ///   (tzdata marks Dublin's winter and Casablanca's Ramadan as daylight saving,
    ///   which readers that trust the name get wrong).
    ///
    /// A zone with no change at all gets one STANDARD observance.
    public static func component(for zone: ZoneRules, from: Int, to: Int) -> Component {
        var timeZone = Component(name: "VTIMEZONE", properties: [Property(name: "TZID", text: zone.identifier)])
        let inForce = zone.transitions(from: .min, to: from.addingSaturated(1)).last
        let changes =
            (inForce.map { [$0] } ?? [])
            + zone.transitions(from: from.addingSaturated(1), to: max(to, from.addingSaturated(2)))
        guard !changes.isEmpty else {
            let offset = zone.offset(at: from)
            timeZone.components.append(
                observance(
                    daylight: false, start: CivilDateTime(secondsSinceEpoch: 0), before: offset, after: offset,
                    name: zone.abbreviation(at: from), extra: []))
            return timeZone
        }
        // The changes from `ruled` on are the footer's yearly rule, which RRULEs say.
        var ruled = changes.count
        var yearly: [(rule: String, onsets: [ZoneTransition])] = []
        if let footer = zone.footer, let daylight = footer.daylightSaving,
            let toDaylight = rrule(daylight.start), let toStandard = rrule(daylight.end)
        {
            func fromFooter(_ change: ZoneTransition) -> Bool {
                footer.transitions(inYear: CivilDateTime(secondsSinceEpoch: change.instant).date.year).contains {
                    $0.instant == change.instant && $0.offsetAfter == change.offsetAfter
                        && $0.abbreviation == change.abbreviation
                }
            }
            while ruled > 0, fromFooter(changes[ruled - 1]) { ruled -= 1 }
            if ruled < changes.count {
                // Each of the two changes from its first onset on (found past `to` when
                // the range holds only the other).
                let year = CivilDateTime(secondsSinceEpoch: changes[ruled].instant).date.year
                let upcoming = (year...(year + 2)).flatMap { footer.transitions(inYear: $0) }
                    .filter { $0.instant >= changes[ruled].instant }
                for (offset, rule) in [(daylight.offset, toDaylight), (footer.standardOffset, toStandard)] {
                    if let first = upcoming.first(where: { $0.offsetAfter == offset }) {
                        yearly.append((rule, [first]))
                    }
                }
                if yearly.count < 2 { ruled = changes.count }
            }
        }
        // The rest: one RDATE observance per kind of change, in order of first onset.
        struct Kind: Hashable {
            var before: UTCOffset
            var after: UTCOffset
            var name: String
        }
        var order: [Kind] = []
        var onsets: [Kind: [CivilDateTime]] = [:]
        for change in changes[..<ruled] {
            let kind = Kind(before: change.offsetBefore, after: change.offsetAfter, name: change.abbreviation)
            if onsets[kind] == nil { order.append(kind) }
            onsets[kind, default: []].append(
                CivilDateTime(secondsSinceEpoch: change.instant + change.offsetBefore.seconds))
        }
        for kind in order {
            let locals = onsets[kind]!
            timeZone.components.append(
                observance(
                    daylight: kind.after.seconds > kind.before.seconds, start: locals[0], before: kind.before,
                    after: kind.after, name: kind.name,
                    extra: locals.map {
                        Property(name: "RDATE", value: DateTimeValue($0, form: .floating).icalendarText)
                    }
                ))
        }
        for (rule, first) in yearly {
            let change = first[0]
            let before = change.instant == changes[ruled].instant ? changes[ruled].offsetBefore : change.offsetBefore
            timeZone.components.append(
                observance(
                    daylight: change.offsetAfter.seconds > before.seconds,
                    start: CivilDateTime(secondsSinceEpoch: change.instant + before.seconds), before: before,
                    after: change.offsetAfter, name: change.abbreviation, extra: [Property(name: "RRULE", value: rule)])
            )
        }
        return timeZone
    }

    /// One STANDARD or DAYLIGHT observance.
    static func observance(
        daylight: Bool, start: CivilDateTime, before: UTCOffset, after: UTCOffset, name: String, extra: [Property]
    ) -> Component {
        var properties = [
            Property(name: "DTSTART", value: DateTimeValue(start, form: .floating).icalendarText),
            Property(name: "TZOFFSETFROM", value: before.description),
            Property(name: "TZOFFSETTO", value: after.description),
        ]
        if !name.isEmpty { properties.append(Property(name: "TZNAME", text: name)) }
        return Component(name: daylight ? "DAYLIGHT" : "STANDARD", properties: properties + extra)
    }

    /// The RRULE of a POSIX yearly change on a weekday of a month at a time of that
    /// day (`M3.5.0` at 02:00: `FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU`), nil for one no plain
    /// RRULE says (a day of the year; a time past midnight, as Jerusalem's 26:00 is).
    static func rrule(_ rule: POSIXTimeZone.Rule) -> String? {
        guard case .monthWeekday(let month, let week, let weekday) = rule.day, (0..<86_400).contains(rule.time),
            (1...12).contains(month), (1...5).contains(week)
        else { return nil }
        return "FREQ=YEARLY;BYMONTH=\(month);BYDAY=\(week == 5 ? -1 : week)\(weekday.icalendarCode)"
    }

    // MARK: What earlier versions wrote

    /// Whether `component` is a VTIMEZONE an earlier Almanac wrote (or a client copied
    /// from one byte for byte): every change of the zone over its span as an observance
    /// whose DTSTART is the first onset and whose RDATEs are the others. ical.js reads
    /// that form wrongly (it ignores DTSTART beside RDATEs), so stored copies are
    /// rewritten in ``component(for:from:to:)``'s. Recognised exactly: it is what that
    /// writer gave for the IANA zone its TZID names over the span its onsets cover, and
    /// nothing else is (a client's own VTIMEZONE, even one that agrees with the zone, is
    /// never taken for it).
    public static func isEarlierAlmanacForm(_ component: Component) -> Bool {
        guard component.name == "VTIMEZONE",
            component.components.allSatisfy({ $0.property("RRULE") == nil }),
            let tzid = component.property("TZID")?.textValue(),
            let zone = try? ZoneResolver(calendar: nil, mode: .strict).zone(for: tzid),
            let rules = try? rules(from: component), let first = rules.transitions.first,
            let last = rules.transitions.last
        else { return false }
        var written = legacyComponent(for: zone, from: first.instant, to: last.instant.addingSaturated(1))
        written.setProperty(Property(name: "TZID", text: tzid))
        return written.icalendarText == component.icalendarText
    }

    /// `data` (an iCalendar object) with each VTIMEZONE an earlier Almanac wrote
    /// (``isEarlierAlmanacForm(_:)``) replaced where it stands by this version's form over
    /// the same changes; every other byte stays. Nil when there is none to replace.
    public static func replacingEarlierForms(in data: [UInt8]) -> [UInt8]? {
        guard data.firstRange(of: Array("BEGIN:VTIMEZONE".utf8)) != nil,
            let document = try? ICalendarParser.parse(data, options: .lenient)
        else { return nil }
        var result = data
        var replaced = false
        for calendar in document.components {
            for timeZone in calendar.components where isEarlierAlmanacForm(timeZone) {
                guard let rules = try? rules(from: timeZone), let first = rules.transitions.first,
                    let last = rules.transitions.last,
                    let zone = try? ZoneResolver(calendar: nil, mode: .strict).zone(for: rules.identifier),
                    let range = result.firstRange(of: timeZone.serialized())
                else { continue }
                var healed = component(for: zone, from: first.instant, to: last.instant.addingSaturated(1))
                healed.setProperty(Property(name: "TZID", text: rules.identifier))
                result.replaceSubrange(range, with: healed.serialized())
                replaced = true
            }
        }
        return replaced ? result : nil
    }

    /// The form written before (kept to recognise it): each distinct kind of change in
    /// the range one observance, its first onset as DTSTART and the others as RDATEs.
    static func legacyComponent(for zone: ZoneRules, from: Int, to: Int) -> Component {
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
