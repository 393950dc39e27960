import CivilTime
import ICalendar

/// Expands calendar objects — a master component and its overridden instances,
/// sharing one UID — into occurrences within a window.
///
/// - Overrides (RECURRENCE-ID) replace the instance they name, matched by
///   instant; one with RANGE=THISANDFUTURE also moves every later instance by
///   the same shift and gives it its duration. An override of an instance an
///   EXDATE removes is not shown: the instance is not in the recurrence set
///   (RFC 5545 §3.8.5.1), as Thunderbird (ical.js) and Evolution (libical) read it.
/// - The end of an instance comes from DTEND (the same exact duration for
///   every instance, RFC 5545 §3.8.5.3), DURATION (nominal days on the wall
///   clock, then exact time), DUE for a VTODO, or the defaults: one day for an
///   all-day start, none for a timed one.
/// - An instance belongs to a window when it overlaps it: it starts before the
///   window ends and ends after it starts (a zero-length instance: starts
///   within it). So an instance that starts before the window but ends inside
///   it is included.
/// - Floating and all-day times are read in the viewer's zone for windowing.
public struct CalendarObjectExpansion {
    public var resolver: ZoneResolver
    public var viewerZone: ZoneRules
    public var limits: ExpansionLimits

    public init(resolver: ZoneResolver, viewerZone: ZoneRules = .utc, limits: ExpansionLimits = .default) {
        self.resolver = resolver
        self.viewerZone = viewerZone
        self.limits = limits
    }

    /// Groups a VCALENDAR's VEVENT, VTODO and VJOURNAL components by kind and UID and
    /// expands each group into the occurrences overlapping `from..<to` (Unix
    /// seconds; nil for unbounded), sorted by start. A component without UID is
    /// its own object, under its ``ICalendar/Component/derivedUID`` (the UID an
    /// import gives it), so UID-less events never merge into one series.
    ///
    /// The bounds of ``limits`` apply to each series on its own, never to the file: a
    /// calendar of many series lists every instance of each. A series a bound stopped
    /// is listed up to where it stopped and named in ``CalendarExpansion/truncatedSeries``.
    public func expand(_ calendar: Component, from: Int?, to: Int?) throws(ICalendarError) -> CalendarExpansion {
        let series = try expandSeries(calendar, from: from, to: to)
        var result = CalendarExpansion()
        var all: [Occurrence] = []
        all.reserveCapacity(series.reduce(0) { $0 + $1.occurrences.count })
        for one in series {
            all += one.occurrences
            if let truncated = one.truncated { result.truncatedSeries.append(truncated) }
        }
        result.occurrences = Self.inStartOrder(series, viewerZone: viewerZone).map { all[$0] }
        return result
    }

    /// One series of a calendar (the components sharing a UID) expanded in a window.
    public struct SeriesExpansion: Sendable {
        /// The series' component: VEVENT, VTODO or VJOURNAL (each kind is a series of its own).
        public var kind: String
        public var uid: String
        /// Its instances in the window, in start order.
        public var occurrences: [Occurrence]
        /// The series, when a bound of ``ExpansionLimits`` stopped it before the window's end.
        public var truncated: TruncatedSeries?
    }

    /// Every series of `calendar` (its VEVENTs, VTODOs and VJOURNALs grouped by kind and
    /// UID, in the calendar's order: a VEVENT and a VTODO sharing a UID are two series) with
    /// its instances in the window. Of two masters of one series the first is expanded;
    /// ``ObjectChecks`` reports them and keeps the latest version instead.
    public func expandSeries(_ calendar: Component, from: Int?, to: Int?) throws(ICalendarError)
        -> [SeriesExpansion]
    {
        struct Key: Hashable {
            var kind: String
            var uid: String
        }
        var groups: [Key: [Component]] = [:]
        var order: [Key] = []
        for component in calendar.components where ObjectChecks.seriesKinds.contains(component.name) {
            let key = Key(kind: component.name, uid: component.property("UID")?.textValue() ?? component.derivedUID)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(component)
        }
        var result: [SeriesExpansion] = []
        result.reserveCapacity(order.count)
        for key in order {
            let uid = key.uid
            let members = groups[key] ?? []
            let found = try expand(members, uid: uid, from: from, to: to)
            var truncated: TruncatedSeries?
            if !found.isComplete {
                let master = members.first { $0.property("RECURRENCE-ID") == nil } ?? members.first
                truncated = TruncatedSeries(
                    uid: uid, summary: master?.property("SUMMARY")?.textValue(), listed: found.occurrences.count,
                    lastListedStart: found.occurrences.last?.start)
            }
            result.append(
                SeriesExpansion(kind: key.kind, uid: uid, occurrences: found.occurrences, truncated: truncated))
        }
        return result
    }

    /// The instances of `series`, taken one series after another, in start order (the
    /// instant in `viewerZone`, then the UID, then as listed): the position of each in
    /// that concatenation. Each start is converted once, and small keys are sorted
    /// rather than the instances themselves.
    public static func inStartOrder(_ series: [SeriesExpansion], viewerZone: ZoneRules) -> [Int] {
        var ranks = [Int](repeating: 0, count: series.count)
        for (rank, position) in series.indices.sorted(by: { series[$0].uid < series[$1].uid }).enumerated() {
            ranks[position] = rank
        }
        var keys: [(instant: Int, rank: Int, index: Int)] = []
        keys.reserveCapacity(series.reduce(0) { $0 + $1.occurrences.count })
        for (position, one) in series.enumerated() {
            for occurrence in one.occurrences {
                keys.append((occurrence.start.instant(in: viewerZone), ranks[position], keys.count))
            }
        }
        keys.sort { ($0.instant, $0.rank, $0.index) < ($1.instant, $1.rank, $1.index) }
        return keys.map(\.index)
    }

    /// A series' start and how its times map to instants.
    struct Anchor {
        var start: DateTimeValue
        var time: SeriesTime
        var tzid: String?
    }

    func makeAnchor(for component: Component) throws(ICalendarError) -> Anchor? {
        guard let property = component.property("DTSTART") ?? component.property("DUE") else { return nil }
        let value = try property.dateTimeValue()
        return Anchor(start: value, time: try seriesTime(of: value), tzid: value.tzid)
    }

    func seriesTime(of value: DateTimeValue) throws(ICalendarError) -> SeriesTime {
        if value.isDate { return .allDay }
        switch value.form {
        case .floating: return resolver.floatingTimeZone().map(SeriesTime.zoned) ?? .floating
        case .utc: return .zoned(.utc)
        case .zoned(let tzid): return .zoned(try resolver.zone(for: tzid))
        }
    }

    /// The key of any DATE or DATE-TIME value in a series' terms (for RECURRENCE-ID, EXDATE, RDATE).
    func key(of value: DateTimeValue, in time: SeriesTime) throws(ICalendarError) -> Int {
        switch (time.kind, value.form) {
        case (.zoned, .floating): return time.zone.instant(for: value.civil)
        case (.zoned, .utc): return value.civil.secondsSinceEpoch
        case (.zoned, .zoned(let tzid)): return try resolver.zone(for: tzid).instant(for: value.civil)
        case (.allDay, _): return CivilDateTime(date: value.date, time: .midnight).secondsSinceEpoch
        // A UTC or zoned value against a floating series: its wall clock.
        case (.floating, _): return value.civil.secondsSinceEpoch
        }
    }

    /// The length of an instance starting at `start` (a key), as its end key.
    struct Length: Sendable {
        var exactSeconds: Int
        var nominalDays: Int

        func end(of start: Int, in time: SeriesTime) -> Int {
            if nominalDays == 0 { return start + exactSeconds }
            let local = time.local(start).adding(days: nominalDays)
            return time.key(local) + exactSeconds
        }
    }

    func length(of component: Component, anchor: Anchor) throws(ICalendarError) -> Length {
        let endProperty =
            component.name == "VTODO" && component.property("DTSTART") != nil
            ? component.property("DUE") : component.property("DTEND")
        if let endProperty, component.property("DTSTART") != nil {
            let end = try endProperty.dateTimeValue()
            let startKey = try key(of: anchor.start, in: anchor.time)
            let endKey = try key(of: end, in: anchor.time)
            return Length(exactSeconds: max(0, endKey - startKey), nominalDays: 0)
        }
        if let duration = try component.property("DURATION")?.durationValue() {
            return Length(exactSeconds: duration.exactSeconds, nominalDays: duration.nominalDays)
        }
        return anchor.start.isDate ? Length(exactSeconds: 0, nominalDays: 1) : Length(exactSeconds: 0, nominalDays: 0)
    }

    func occurrenceTime(_ key: Int, in time: SeriesTime) -> OccurrenceTime { time.occurrenceTime(key) }

    /// The occurrences of one calendar object (components sharing `uid`).
    public func occurrences(of components: [Component], uid: String, from: Int?, to: Int?) throws(ICalendarError)
        -> [Occurrence]
    {
        // Expanding once, listing a COUNT series' instances up front would only cost.
        try prepare(components, uid: uid, listingInstances: false).occurrences(
            from: from, to: to, viewerZone: viewerZone)
    }

    /// The occurrences of one calendar object, and whether they are all of them in the
    /// window: `isComplete` is false when a bound of ``limits`` stopped the expansion early.
    public func expand(_ components: [Component], uid: String, from: Int?, to: Int?) throws(ICalendarError)
        -> (occurrences: [Occurrence], isComplete: Bool)
    {
        var budget = ExpansionBudget.unbounded
        return try prepare(components, uid: uid, listingInstances: false).expand(
            from: from, to: to, viewerZone: viewerZone, budget: &budget)
    }

    /// Reads one calendar object once (rules, overrides, lengths, zones) so that its
    /// occurrences in many windows, for any viewer, cost only the iteration.
    public func prepare(_ components: [Component], uid: String) throws(ICalendarError) -> PreparedObject {
        try prepare(components, uid: uid, listingInstances: true)
    }

    func prepare(_ components: [Component], uid: String, listingInstances: Bool) throws(ICalendarError)
        -> PreparedObject
    {
        let master = components.first { $0.property("RECURRENCE-ID") == nil }
        let overrides = components.filter { $0.property("RECURRENCE-ID") != nil }

        guard let master, let anchor = try makeAnchor(for: master) else {
            // Overrides without a master (an invitation to one instance) stand alone.
            var singles: [PreparedObject.Single] = []
            for component in components {
                guard let anchor = try makeAnchor(for: component) else { continue }
                let startKey = try key(of: anchor.start, in: anchor.time)
                let length = try length(of: component, anchor: anchor)
                let id = try component.property("RECURRENCE-ID").map { (property) throws(ICalendarError) in
                    occurrenceTime(try key(of: try property.dateTimeValue(), in: anchor.time), in: anchor.time)
                }
                singles.append(
                    PreparedObject.Single(
                        component: component, start: occurrenceTime(startKey, in: anchor.time),
                        end: occurrenceTime(length.end(of: startKey, in: anchor.time), in: anchor.time),
                        recurrenceID: id,
                        tzid: anchor.tzid, zone: anchor.time.isInstant ? anchor.time.zone : nil))
            }
            return PreparedObject(uid: uid, series: nil, singles: singles)
        }
        let recurrence = try recurrenceSet(of: master, anchor: anchor)
        let masterLength = try length(of: master, anchor: anchor)

        // Overrides by the key of the instance they replace.
        var byKey: [Int: PreparedObject.Override] = [:]
        var futureRanges: [(key: Int, override: PreparedObject.Override)] = []
        for component in overrides {
            guard let idProperty = component.property("RECURRENCE-ID"),
                let overrideAnchor = try makeAnchor(for: component)
            else { continue }
            let id = try idProperty.dateTimeValue()
            let idKey = try key(of: id, in: anchor.time)
            // An instance an EXDATE removes is not there to override (as Thunderbird and
            // libical read it); `ObjectChecks` warns of such an override.
            if recurrence.isExcludedByDate(idKey) { continue }
            let startKey = try key(of: overrideAnchor.start, in: anchor.time)
            let length = try length(of: component, anchor: overrideAnchor)
            let ownStartKey = try key(of: overrideAnchor.start, in: overrideAnchor.time)
            let item = PreparedObject.Override(
                component: component, time: overrideAnchor.time, tzid: overrideAnchor.tzid, startKey: ownStartKey,
                endKey: length.end(of: ownStartKey, in: overrideAnchor.time), length: length, shift: startKey - idKey,
                thisAndFuture: idProperty[parameter: "RANGE"]?.uppercased() == "THISANDFUTURE")
            byKey[idKey] = item
            if item.thisAndFuture { futureRanges.append((idKey, item)) }
        }
        futureRanges.sort { $0.key < $1.key }

        // Reach back by the longest instance and any THISANDFUTURE shift, so instances that
        // start before the window but end or move into it are found (a day spans at most 25 hours).
        var reach = masterLength.exactSeconds + masterLength.nominalDays * 90_000
        var maxShift = 0
        for range in futureRanges {
            maxShift = max(maxShift, abs(range.override.shift))
            reach = max(reach, range.override.length.exactSeconds + range.override.length.nominalDays * 90_000)
        }
        var instances: [RecurrenceInstance]?
        // Only COUNT rules need the list: UNTIL and unbounded rules skip ahead to a window.
        if listingInstances && recurrence.rules.allSatisfy({ $0.count != nil }) {
            var listed: [RecurrenceInstance] = []
            var iterator = recurrence.makeIterator()
            while listed.count <= PreparedObject.listedInstanceLimit, let instance = iterator.next() {
                listed.append(instance)
            }
            if listed.count <= PreparedObject.listedInstanceLimit, !iterator.isTruncated { instances = listed }
        }
        let series = PreparedObject.Series(
            master: master, time: anchor.time, tzid: anchor.tzid, recurrence: recurrence, length: masterLength,
            overrides: byKey,
            futureRanges: futureRanges, reach: reach, maxShift: maxShift, instances: instances)
        return PreparedObject(uid: uid, series: series, singles: [])
    }

    /// The recurrence set of a master component.
    public func recurrenceSet(of master: Component) throws(ICalendarError) -> RecurrenceSet? {
        guard let anchor = try makeAnchor(for: master) else { return nil }
        return try recurrenceSet(of: master, anchor: anchor)
    }

    func recurrenceSet(of master: Component, anchor: Anchor) throws(ICalendarError) -> RecurrenceSet {
        // An RFC 7529 rule this engine cannot expand is refused by name, never read as Gregorian.
        func rule(_ property: Property) throws(ICalendarError) -> RecurrenceRule {
            let rule = try property.recurrenceRule()
            if let refusal = ScaledRuleIterator.refusal(of: rule) {
                throw ICalendarError(.invalidValue, refusal, component: master.name, property: property.name)
            }
            return rule
        }
        let rules = try master.properties(named: "RRULE").map(rule)
        let exceptionRules = try master.properties(named: "EXRULE").map(rule)
        var dates: [RecurrenceInstance] = []
        for property in master.properties(named: "RDATE") {
            if property.valueType == .period {
                for period in try property.periodValues() {
                    let start = try key(of: period.start, in: anchor.time)
                    let end: Int
                    switch period.end {
                    case .dateTime(let value): end = try key(of: value, in: anchor.time)
                    case .duration(let duration):
                        end = Length(exactSeconds: duration.exactSeconds, nominalDays: duration.nominalDays).end(
                            of: start, in: anchor.time)
                    }
                    dates.append(RecurrenceInstance(start: start, explicitEnd: end))
                }
            } else {
                for value in try property.dateTimeValues() {
                    dates.append(RecurrenceInstance(start: try key(of: value, in: anchor.time), explicitEnd: nil))
                }
            }
        }
        var excludedKeys = Set<Int>()
        var excludedDates = Set<CivilDate>()
        for property in master.properties(named: "EXDATE") {
            for value in try property.dateTimeValues() {
                if value.isDate, !anchor.start.isDate {
                    excludedDates.insert(value.date)
                } else {
                    excludedKeys.insert(try key(of: value, in: anchor.time))
                }
            }
        }
        return RecurrenceSet(
            time: anchor.time, start: anchor.start.civil, rules: rules, exceptionRules: exceptionRules, dates: dates,
            excludedKeys: excludedKeys, excludedDates: excludedDates, limits: limits)
    }
}
