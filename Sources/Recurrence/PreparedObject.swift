import CivilTime
import ICalendar

/// One calendar object read once for expansion: its recurrence set, the length
/// of its instances, and its overrides by the instance they replace. Keep it
/// (it is `Sendable`) to expand the same object in many windows without
/// reading its components again. A class, so caches hand it out by reference.
public final class PreparedObject: Sendable {
    /// A recurring (or single) master with its overrides; a class, so reading it is one reference.
    final class Series: Sendable {
        let master: Component
        /// What the master says of its instances (TRANSP, STATUS), read once.
        let masterTraits: OccurrenceTraits
        let time: SeriesTime
        let tzid: String?
        let recurrence: RecurrenceSet
        let length: CalendarObjectExpansion.Length
        let overrides: [Int: Override]
        let futureRanges: [(key: Int, override: Override)]
        let reach: Int
        let maxShift: Int
        /// Every instance of a COUNT-bounded series with few enough of them, listed once,
        /// so a window far from DTSTART costs a binary search instead of counting from the
        /// start (COUNT rules cannot skip ahead; the others can).
        let instances: [RecurrenceInstance]?

        init(
            master: Component, time: SeriesTime, tzid: String?, recurrence: RecurrenceSet,
            length: CalendarObjectExpansion.Length,
            overrides: [Int: Override], futureRanges: [(key: Int, override: Override)], reach: Int, maxShift: Int,
            instances: [RecurrenceInstance]?
        ) {
            self.master = master
            masterTraits = OccurrenceTraits(master)
            self.time = time
            self.tzid = tzid
            self.recurrence = recurrence
            self.length = length
            self.overrides = overrides
            self.futureRanges = futureRanges
            self.reach = reach
            self.maxShift = maxShift
            self.instances = instances
        }
    }

    /// The most instances a prepared COUNT-bounded series lists up front.
    static let listedInstanceLimit = 4_096

    struct Override: Sendable {
        var component: Component
        var time: SeriesTime
        var tzid: String?
        var startKey: Int
        var endKey: Int
        var length: CalendarObjectExpansion.Length
        var shift: Int
        var thisAndFuture: Bool
        var traits: OccurrenceTraits { OccurrenceTraits(component) }
    }

    /// A component that stands alone (an override without its master).
    struct Single: Sendable {
        var component: Component
        var traits: OccurrenceTraits { OccurrenceTraits(component) }
        var start: OccurrenceTime
        var end: OccurrenceTime
        var recurrenceID: OccurrenceTime?
        var tzid: String?
        var zone: ZoneRules?
    }

    public let uid: String
    let series: Series?
    let singles: [Single]

    init(uid: String, series: Series?, singles: [Single]) {
        self.uid = uid
        self.series = series
        self.singles = singles
    }

    /// The master's SUMMARY (or the first override's, without a master), to name the object to people.
    public var summary: String? {
        (series?.master ?? singles.first?.component)?.property("SUMMARY")?.textValue()
    }

    /// The bytes the instances listed up front hold (0 when none are), for a cache that
    /// bounds its memory: a series of 4,096 listed instances holds far more than its text.
    public var listedInstanceBytes: Int {
        (series?.instances?.count ?? 0) * MemoryLayout<RecurrenceInstance>.stride
    }

    /// Whether the master repeats (RRULE or RDATE).
    public var isRecurring: Bool {
        guard let series else { return false }
        return !series.recurrence.rules.isEmpty || !series.recurrence.dates.isEmpty
    }

    /// The occurrences overlapping `from..<to` (Unix seconds; nil for unbounded), with
    /// floating and all-day times read in `viewerZone`, in series order; at most `limit`
    /// of them (the first ones found; `limit: 1` asks whether there is any).
    public func occurrences(from: Int?, to: Int?, viewerZone: ZoneRules, limit: Int = .max) -> [Occurrence] {
        var budget = ExpansionBudget.unbounded
        return expand(from: from, to: to, viewerZone: viewerZone, limit: limit, budget: &budget).occurrences
    }

    /// The occurrences overlapping `from..<to`, as ``occurrences(from:to:viewerZone:limit:)``,
    /// and whether they are all of them: `isComplete` is false when a bound of
    /// ``ExpansionLimits`` (instances or steps) stopped the expansion before the window's end.
    /// Reaching `limit` is the caller's own cut and leaves `isComplete` true. The work
    /// comes out of `budget`; when it runs out, the expansion stops incomplete.
    public func expand(from: Int?, to: Int?, viewerZone: ZoneRules, limit: Int = .max, budget: inout ExpansionBudget)
        -> (occurrences: [Occurrence], isComplete: Bool)
    {
        var result: [Occurrence] = []
        let isComplete = visit(from: from, to: to, viewerZone: viewerZone, limit: limit, budget: &budget) { instance in
            result.append(
                Occurrence(
                    uid: uid, component: component(instance.describer), start: instance.start, end: instance.end,
                    recurrenceID: instance.recurrenceID,
                    isOverride: instance.isOverride, tzid: tzid(instance.describer), zone: zone(instance.describer)))
        }
        return (result, isComplete)
    }

    /// The busy time in `from..<to`: each instance's start and end instants (floating and
    /// all-day times read in `viewerZone`) and what its component says of it, without
    /// building occurrences (a free-slot search reads thousands of them).
    /// Returns false when a bound of ``ExpansionLimits`` stopped the expansion early.
    @discardableResult
    public func busyIntervals(
        from: Int, to: Int, viewerZone: ZoneRules, budget: inout ExpansionBudget, into result: inout [BusyInterval]
    ) -> Bool {
        visit(from: from, to: to, viewerZone: viewerZone, limit: .max, budget: &budget) { instance in
            var isAllDay = false
            if case .date = instance.start { isAllDay = true }
            result.append(
                BusyInterval(
                    start: instance.start.instant(in: viewerZone), end: instance.end.instant(in: viewerZone),
                    traits: traits(instance.describer),
                    isAllDay: isAllDay, recurrenceID: instance.recurrenceID))
        }
    }

    /// Which component describes an instance, named without copying it.
    enum Describer {
        case single(Int)
        case master
        /// The override replacing the instance with this key.
        case override(Int)
        /// The THISANDFUTURE override at this index of `futureRanges`.
        case future(Int)
    }

    /// One instance as `visit` reports it: plain values only, so reporting one retains nothing.
    struct Instance {
        let describer: Describer
        let start: OccurrenceTime
        let end: OccurrenceTime
        let recurrenceID: OccurrenceTime?
        let isOverride: Bool
    }

    func component(_ describer: Describer) -> Component {
        switch describer {
        case .single(let index): singles[index].component
        case .master: series!.master
        case .override(let key): series!.overrides[key]!.component
        case .future(let index): series!.futureRanges[index].override.component
        }
    }

    func traits(_ describer: Describer) -> OccurrenceTraits {
        switch describer {
        case .single(let index): singles[index].traits
        case .master: series!.masterTraits
        case .override(let key): series!.overrides[key]!.traits
        case .future(let index): series!.futureRanges[index].override.traits
        }
    }

    func tzid(_ describer: Describer) -> String? {
        switch describer {
        case .single(let index): singles[index].tzid
        case .master, .future: series!.tzid
        case .override(let key): series!.overrides[key]!.tzid
        }
    }

    func zone(_ describer: Describer) -> ZoneRules? {
        switch describer {
        case .single(let index): singles[index].zone
        case .master, .future: series!.time.isInstant ? series!.time.zone : nil
        case .override(let key):
            series!.overrides[key]!.time.isInstant ? series!.overrides[key]!.time.zone : nil
        }
    }

    /// Calls `emit` for each instance overlapping `from..<to`, in series order, at most `limit`
    /// times. Returns false when a bound of ``ExpansionLimits`` ended the walk early.
    @discardableResult
    func visit(
        from: Int?, to: Int?, viewerZone: ZoneRules, limit: Int, budget: inout ExpansionBudget,
        _ emit: (Instance) -> Void
    ) -> Bool {
        var emitted = 0
        guard !budget.isSpent else { return false }
        func overlaps(_ start: OccurrenceTime, _ end: OccurrenceTime) -> Bool {
            OccurrenceTime.overlaps(start: start, end: end, from: from, to: to, in: viewerZone)
        }
        guard let series else {
            budget.spend(singles.count)
            for index in singles.indices where emitted < limit {
                let (start, end, recurrenceID) = (singles[index].start, singles[index].end, singles[index].recurrenceID)
                guard overlaps(start, end) else { continue }
                emitted += 1
                emit(
                    Instance(
                        describer: .single(index), start: start, end: end, recurrenceID: recurrenceID,
                        isOverride: recurrenceID != nil))
            }
            return true
        }
        let time = series.time
        func windowKey(_ instant: Int) -> Int {
            time.kind == .zoned ? instant : viewerZone.localTime(at: instant).secondsSinceEpoch
        }
        let windowFrom = from.map { windowKey($0) - series.reach - series.maxShift - 86_400 }
        let windowTo = to.map { windowKey($0) + series.maxShift + 86_400 }
        let repeats = !series.recurrence.rules.isEmpty || !series.recurrence.dates.isEmpty

        var seenOverrides = Set<Int>()
        func emitOverride(key: Int) {
            guard let item = series.overrides[key] else { return }
            let start = item.time.occurrenceTime(item.startKey)
            let end = item.time.occurrenceTime(item.endKey)
            guard overlaps(start, end) else { return }
            emitted += 1
            emit(
                Instance(
                    describer: .override(key), start: start, end: end, recurrenceID: time.occurrenceTime(key),
                    isOverride: true))
        }
        var iterator =
            series.instances == nil
            ? series.recurrence.makeIterator(skippingTo: windowFrom, before: windowTo, maxSteps: budget.steps) : nil
        var listIndex = 0
        if let instances = series.instances, let windowFrom {
            // The first listed instance at or after the window's start.
            var low = 0
            var high = instances.count
            while low < high {
                let middle = (low + high) / 2
                if instances[middle].start < windowFrom { low = middle + 1 } else { high = middle }
            }
            listIndex = low
        }
        let listStart = listIndex
        func nextInstance() -> RecurrenceInstance? {
            guard let instances = series.instances else { return iterator?.next() }
            guard listIndex < instances.count else { return nil }
            listIndex += 1
            return instances[listIndex - 1]
        }
        let hasOverrides = !series.overrides.isEmpty
        let hasFutureRanges = !series.futureRanges.isEmpty
        var produced = 0
        var isComplete = true
        while emitted < limit, let instance = nextInstance() {
            if let windowTo, instance.start >= windowTo { break }
            if let windowFrom, instance.start < windowFrom { continue }
            produced += 1
            if produced > series.recurrence.limits.maxInstances {
                isComplete = false
                break
            }
            if hasOverrides && series.overrides.index(forKey: instance.start) != nil {
                seenOverrides.insert(instance.start)
                emitOverride(key: instance.start)
                continue
            }
            var startKey = instance.start
            var length = series.length
            var describer = Describer.master
            // The latest THISANDFUTURE override at or before this instance applies.
            if hasFutureRanges, let index = series.futureRanges.lastIndex(where: { $0.key <= instance.start }) {
                startKey += series.futureRanges[index].override.shift
                length = series.futureRanges[index].override.length
                describer = .future(index)
            }
            let endKey = instance.explicitEnd ?? length.end(of: startKey, in: time)
            let start = time.occurrenceTime(startKey)
            let end = time.occurrenceTime(endKey)
            guard overlaps(start, end) else { continue }
            emitted += 1
            var isOverride = false
            if case .future = describer { isOverride = true }
            emit(
                Instance(
                    describer: describer, start: start, end: end,
                    recurrenceID: repeats ? time.occurrenceTime(instance.start) : nil, isOverride: isOverride))
        }
        // Overrides whose original instance lies outside the expanded range (or is not an
        // instance at all) still show where they now are.
        for key in series.overrides.keys where !seenOverrides.contains(key) && emitted < limit {
            emitOverride(key: key)
        }
        budget.spend((iterator?.steps ?? listIndex - listStart) + series.overrides.count)
        return isComplete && !(iterator?.isTruncated ?? false)
    }

    /// The overrides that impact `from..<to` (RFC 4791 §9.6.6, limit-recurrence-set):
    /// those whose current or original times overlap it, and THISANDFUTURE ones that
    /// start before its end (they reshape the instances after them). In key order.
    public func overrides(affecting from: Int?, to: Int?, viewerZone: ZoneRules) -> [Component] {
        func overlaps(_ start: OccurrenceTime, _ end: OccurrenceTime) -> Bool {
            OccurrenceTime.overlaps(start: start, end: end, from: from, to: to, in: viewerZone)
        }
        guard let series else {
            return singles.filter { single in
                guard let id = single.recurrenceID else { return false }
                return overlaps(single.start, single.end) || overlaps(id, id)
            }.map(\.component)
        }
        let time = series.time
        return series.overrides.sorted { $0.key < $1.key }.compactMap { key, item in
            let current = overlaps(item.time.occurrenceTime(item.startKey), item.time.occurrenceTime(item.endKey))
            let originalStart = time.occurrenceTime(key)
            let original = overlaps(originalStart, time.occurrenceTime(series.length.end(of: key, in: time)))
            let future = item.thisAndFuture && (to.map { originalStart.instant(in: viewerZone) < $0 } ?? true)
            return current || original || future ? item.component : nil
        }
    }
}

extension SeriesTime {
    /// A key as the occurrence time it stands for.
    func occurrenceTime(_ key: Int) -> OccurrenceTime {
        switch kind {
        case .zoned: .instant(key)
        case .floating: .floating(CivilDateTime(secondsSinceEpoch: key))
        case .allDay: .date(CivilDateTime(secondsSinceEpoch: key).date)
        }
    }
}
