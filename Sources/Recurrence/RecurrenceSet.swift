import CivilTime
import ICalendar

/// How a series' times relate to instants.
///
/// A struct rather than an enum with a payload: the zone is read in place on
/// every conversion, where binding an enum payload would copy the zone (and
/// retain its tables) once per instance.
public struct SeriesTime: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// All-day (DATE) values: the same dates wherever the viewer is.
        case allDay
        /// Floating DATE-TIMEs: the same wall clock wherever the viewer is.
        case floating
        /// UTC or zoned DATE-TIMEs: instants.
        case zoned
    }

    public let kind: Kind
    /// The zone that turns wall clocks into instants (UTC for UTC values; unused unless zoned).
    public let zone: ZoneRules

    public static let allDay = SeriesTime(kind: .allDay, zone: .utc)
    public static let floating = SeriesTime(kind: .floating, zone: .utc)
    public static func zoned(_ zone: ZoneRules) -> SeriesTime { SeriesTime(kind: .zoned, zone: zone) }

    /// Whether keys in this form are Unix instants (else they are wall-clock seconds).
    public var isInstant: Bool { kind == .zoned }

    /// The key of a wall-clock time: an instant for zoned series, wall-clock seconds otherwise.
    @inline(__always)
    func key(_ local: CivilDateTime) -> Int {
        kind == .zoned ? zone.instant(for: local) : local.secondsSinceEpoch
    }

    /// The wall-clock time of a key.
    @inline(__always)
    func local(_ key: Int) -> CivilDateTime {
        kind == .zoned ? zone.localTime(at: key) : CivilDateTime(secondsSinceEpoch: key)
    }

    /// The zone for comparing a UTC UNTIL, when the series is zoned.
    var untilZone: ZoneRules? { kind == .zoned ? zone : nil }
}

/// One member of a recurrence set: its start key and, for an RDATE PERIOD, its own end key.
public struct RecurrenceInstance: Sendable, Hashable {
    /// An instant (zoned series) or wall-clock seconds (floating and all-day series).
    public var start: Int
    /// The end given by an RDATE PERIOD, if any; otherwise the series' duration applies.
    public var explicitEnd: Int?
}

/// The recurrence set of RFC 5545 §3.8.5: DTSTART, the instances of every
/// RRULE, the RDATEs, less the EXDATEs and the instances of any EXRULE
/// (deprecated, still accepted). Instances come out in order, without
/// duplicates, each once.
///
/// COUNT counts before EXDATE removes (an excluded instance still uses up
/// COUNT), because each rule counts its own instances and exclusions apply to
/// the merged set (RFC 5545 §3.8.5.3). DTSTART is always an instance of the
/// set's rules, but an EXRULE removes it only when the EXRULE itself matches it.
///
/// How exclusions of another type than DTSTART match, as clients expect:
/// - an EXDATE in another zone, or in UTC, compares as an instant;
/// - a DATE EXDATE on a timed series removes every instance on that date
///   (in the series' zone);
/// - a DATE-TIME EXDATE on an all-day series removes the instance on its
///   date (Exchange writes all-day EXDATEs as DATE-TIMEs, often in a Windows
///   zone, at local midnight);
/// - a floating EXDATE on a zoned series is read in the series' zone.
public struct RecurrenceSet: Sendable {
    public let time: SeriesTime
    public let start: CivilDateTime
    let rules: [RecurrenceRule]
    let exceptionRules: [RecurrenceRule]
    let dates: [RecurrenceInstance]
    let excludedKeys: Set<Int>
    let excludedDates: Set<CivilDate>
    let limits: ExpansionLimits

    /// Whether an EXDATE removes the instance at `key` (EXRULEs aside).
    public func isExcludedByDate(_ key: Int) -> Bool {
        excludedKeys.contains(key) || (!excludedDates.isEmpty && excludedDates.contains(time.local(key).date))
    }

    /// - Parameters:
    ///   - start: DTSTART's wall clock (midnight for DATE).
    ///   - rdates: RDATE values, each resolved to a key with `key(for:)`.
    public init(
        time: SeriesTime, start: CivilDateTime, rules: [RecurrenceRule], exceptionRules: [RecurrenceRule] = [],
        dates: [RecurrenceInstance] = [], excludedKeys: Set<Int> = [], excludedDates: Set<CivilDate> = [],
        limits: ExpansionLimits = .default
    ) {
        self.time = time
        self.start = start
        self.rules = rules
        self.exceptionRules = exceptionRules
        self.dates = dates.sorted { $0.start < $1.start }
        self.excludedKeys = excludedKeys
        self.excludedDates = excludedDates
        self.limits = limits
        let isDate = time.kind == .allDay
        // Iterators are built once (reading a rule allocates) and copied per expansion.
        var sources = rules.map {
            RuleIterator(rule: $0, start: start, isDate: isDate, zone: time.untilZone, limits: limits)
        }
        if rules.isEmpty {
            // No rule: DTSTART alone (plus RDATEs).
            sources.append(
                RuleIterator(
                    rule: RecurrenceRule(frequency: .yearly, count: 1), start: start, isDate: isDate,
                    zone: time.untilZone, limits: limits))
        }
        sourceTemplates = sources
        exclusionTemplates = exceptionRules.map {
            RuleIterator(
                rule: $0, start: start, isDate: isDate, zone: time.untilZone, limits: limits, startIsInstance: false)
        }
    }

    private let sourceTemplates: [RuleIterator]
    private let exclusionTemplates: [RuleIterator]

    var isAllDay: Bool { time.kind == .allDay }

    /// The instances whose start key is in `from..<to`, in order. Rules are
    /// skipped ahead to `from` arithmetically where COUNT allows, so a window
    /// far from DTSTART costs about what the window holds. `isComplete` is false
    /// when a bound of ``ExpansionLimits`` stopped the expansion early.
    public func instances(from: Int? = nil, to: Int? = nil) -> (instances: [RecurrenceInstance], isComplete: Bool) {
        var result: [RecurrenceInstance] = []
        var iterator = makeIterator(skippingTo: from, before: to)
        while let instance = iterator.next() {
            if let from, instance.start < from { continue }
            result.append(instance)
        }
        return (result, !iterator.isTruncated)
    }

    /// A lazy iterator over every instance (with `to`: every instance whose start key
    /// is before it), in order.
    /// With `maxSteps`, the iteration takes at most that many steps in all (a request's
    /// ``ExpansionBudget``), fewer than ``ExpansionLimits/maxSteps`` when it is smaller.
    public func makeIterator(skippingTo from: Int? = nil, before to: Int? = nil, maxSteps: Int = .max) -> Iterator {
        var sources = sourceTemplates
        var exclusions = exclusionTemplates
        let stepLimit = min(limits.maxSteps, max(0, maxSteps))
        for index in sources.indices { sources[index].maxSteps = min(sources[index].maxSteps, stepLimit) }
        for index in exclusions.indices { exclusions[index].maxSteps = min(exclusions[index].maxSteps, stepLimit) }
        if let from {
            let local = time.local(from)
            for index in sources.indices where !rules.isEmpty { sources[index].skip(toward: local) }
            for index in exclusions.indices { exclusions[index].skip(toward: local) }
        }
        let firstDate = from.map { key in dates.firstIndex { $0.start >= key } ?? dates.count } ?? 0
        return Iterator(
            set: self, sources: sources, exclusions: exclusions, dateIndex: firstDate, end: to, maxSteps: stepLimit)
    }

    /// Merges the sources lazily: the smallest next key wins; equal keys are produced once.
    ///
    /// Every candidate counts against ``ExpansionLimits/maxSteps``, excluded and
    /// duplicate ones too, so a rule whose every instance is excluded still ends.
    public struct Iterator: IteratorProtocol {
        let set: RecurrenceSet
        var sources: [RuleIterator]
        var heads: [Int?]
        var exclusions: [RuleIterator]
        var exclusionHeads: [Int?]
        var dateIndex: Int
        let end: Int?
        let maxSteps: Int
        var last: Int?
        var produced = 0
        /// Candidates this iterator examined itself (the rules count their own steps).
        var examined = 0
        /// Whether a bound of ``ExpansionLimits`` ended the iteration while instances remained.
        public private(set) var isTruncated = false
        private var exclusionsExhausted = false

        init(
            set: RecurrenceSet, sources: [RuleIterator], exclusions: [RuleIterator], dateIndex: Int, end: Int?,
            maxSteps: Int
        ) {
            self.set = set
            self.maxSteps = maxSteps
            self.sources = sources
            self.exclusions = exclusions
            self.dateIndex = dateIndex
            self.end = end
            heads = Array(repeating: nil, count: sources.count)
            exclusionHeads = Array(repeating: nil, count: exclusions.count)
            for index in sources.indices { heads[index] = self.sources[index].next().map(set.time.key) }
            for index in exclusions.indices { exclusionHeads[index] = self.exclusions[index].next().map(set.time.key) }
        }

        /// Steps used so far by this iterator and every rule it merges.
        public var steps: Int {
            var total = examined
            for source in sources { total += source.steps }
            for exclusion in exclusions { total += exclusion.steps }
            return total
        }

        public mutating func next() -> RecurrenceInstance? {
            while !isTruncated {
                // Each rule keeps to the budget on its own; all of them together are checked now and then.
                if examined & 255 == 255, steps > maxSteps {
                    isTruncated = true
                    return nil
                }
                var best: Int?
                var bestSource: Int?
                for index in heads.indices {
                    if let key = heads[index], best.map({ key < $0 }) ?? true {
                        best = key
                        bestSource = index
                    }
                }
                // An RDATE goes first when it is not after the earliest rule instance.
                var fromDates = false
                if dateIndex < set.dates.count { fromDates = best.map { set.dates[dateIndex].start <= $0 } ?? true }
                let candidate: RecurrenceInstance
                if fromDates {
                    candidate = set.dates[dateIndex]
                } else if let best {
                    candidate = RecurrenceInstance(start: best, explicitEnd: nil)
                } else {
                    return nil
                }
                if let end, candidate.start >= end { return nil }
                if fromDates {
                    dateIndex += 1
                } else if let bestSource {
                    heads[bestSource] = sources[bestSource].next().map(set.time.key)
                    // A rule that ran out of steps leaves a gap after this candidate: it is the last.
                    if heads[bestSource] == nil, sources[bestSource].isExhausted { isTruncated = true }
                }
                examined += 1
                // a duplicate (several rules, RDATE on a rule instance)
                if let last, candidate.start <= last { continue }
                if isExcluded(candidate.start) { continue }
                // An exclusion rule that ran out of steps cannot say whether this one is excluded.
                if exclusionsExhausted { return nil }
                if produced >= set.limits.maxInstances {
                    // Another instance exists: the cap, not the rule, ends this expansion.
                    isTruncated = true
                    return nil
                }
                last = candidate.start
                produced += 1
                return candidate
            }
            return nil
        }

        private mutating func isExcluded(_ key: Int) -> Bool {
            if set.excludedKeys.contains(key) { return true }
            if !set.excludedDates.isEmpty, set.excludedDates.contains(set.time.local(key).date) { return true }
            for index in exclusions.indices {
                if let head = exclusionHeads[index], head < key {
                    // Far behind (an EXRULE finer than the rule): skip its periods arithmetically.
                    exclusions[index].skip(toward: set.time.local(key))
                }
                while let head = exclusionHeads[index], head < key {
                    exclusionHeads[index] = exclusions[index].next().map(set.time.key)
                }
                if exclusionHeads[index] == nil, exclusions[index].isExhausted {
                    exclusionsExhausted = true
                    isTruncated = true
                }
                if exclusionHeads[index] == key { return true }
            }
            return false
        }
    }
}
