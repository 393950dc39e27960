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
            master: Component, time: SeriesTime, tzid: String?, recurrence: RecurrenceSet, length: CalendarObjectExpansion.Length,
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

    /// Whether the master repeats (RRULE or RDATE).
    public var isRecurring: Bool {
        guard let series else { return false }
        return !series.recurrence.rules.isEmpty || !series.recurrence.dates.isEmpty
    }

    /// The occurrences overlapping `from..<to` (Unix seconds; nil for unbounded), with
    /// floating and all-day times read in `viewerZone`, in series order; at most `limit`
    /// of them (the first ones found; `limit: 1` asks whether there is any).
    public func occurrences(from: Int?, to: Int?, viewerZone: ZoneRules, limit: Int = .max) -> [Occurrence] {
        var result: [Occurrence] = []
        visit(from: from, to: to, viewerZone: viewerZone, limit: limit) { instance in
            result.append(
                Occurrence(
                    uid: uid, component: instance.component, start: instance.start, end: instance.end, recurrenceID: instance.recurrenceID,
                    isOverride: instance.isOverride, tzid: instance.tzid, zone: instance.zone))
        }
        return result
    }

    /// The busy time in `from..<to`: each instance's start and end instants (floating and
    /// all-day times read in `viewerZone`) and what its component says of it, without
    /// building occurrences (a free-slot search reads thousands of them).
    public func busyIntervals(from: Int, to: Int, viewerZone: ZoneRules, into result: inout [BusyInterval]) {
        visit(from: from, to: to, viewerZone: viewerZone, limit: .max) { instance in
            var isAllDay = false
            if case .date = instance.start { isAllDay = true }
            result.append(
                BusyInterval(
                    start: instance.start.instant(in: viewerZone), end: instance.end.instant(in: viewerZone), traits: instance.traits,
                    isAllDay: isAllDay, recurrenceID: instance.recurrenceID))
        }
    }

    /// One instance as `visit` reports it.
    struct Instance {
        let component: Component
        let traits: OccurrenceTraits
        let start: OccurrenceTime
        let end: OccurrenceTime
        let recurrenceID: OccurrenceTime?
        let isOverride: Bool
        let tzid: String?
        let zone: ZoneRules?
    }

    /// Calls `emit` for each instance overlapping `from..<to`, in series order, at most `limit` times.
    func visit(from: Int?, to: Int?, viewerZone: ZoneRules, limit: Int, _ emit: (Instance) -> Void) {
        var emitted = 0
        func overlaps(_ start: OccurrenceTime, _ end: OccurrenceTime) -> Bool {
            OccurrenceTime.overlaps(start: start, end: end, from: from, to: to, in: viewerZone)
        }
        guard let series else {
            for single in singles where overlaps(single.start, single.end) && emitted < limit {
                emitted += 1
                emit(
                    Instance(
                        component: single.component, traits: single.traits, start: single.start, end: single.end, recurrenceID: single.recurrenceID,
                        isOverride: single.recurrenceID != nil, tzid: single.tzid, zone: single.zone))
            }
            return
        }
        let time = series.time
        func windowKey(_ instant: Int) -> Int {
            time.kind == .zoned ? instant : viewerZone.localTime(at: instant).secondsSinceEpoch
        }
        let windowFrom = from.map { windowKey($0) - series.reach - series.maxShift - 86_400 }
        let windowTo = to.map { windowKey($0) + series.maxShift + 86_400 }
        let repeats = !series.recurrence.rules.isEmpty || !series.recurrence.dates.isEmpty

        var seenOverrides = Set<Int>()
        func emitOverride(_ item: Override, id: Int) {
            let start = item.time.occurrenceTime(item.startKey)
            let end = item.time.occurrenceTime(item.endKey)
            guard overlaps(start, end) else { return }
            emitted += 1
            emit(
                Instance(
                    component: item.component, traits: item.traits, start: start, end: end, recurrenceID: time.occurrenceTime(id), isOverride: true,
                    tzid: item.tzid, zone: item.time.isInstant ? item.time.zone : nil))
        }
        var iterator = series.instances == nil ? series.recurrence.makeIterator(skippingTo: windowFrom) : nil
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
        func nextInstance() -> RecurrenceInstance? {
            guard let instances = series.instances else { return iterator?.next() }
            guard listIndex < instances.count else { return nil }
            listIndex += 1
            return instances[listIndex - 1]
        }
        var produced = 0
        while emitted < limit, let instance = nextInstance() {
            if let windowTo, instance.start >= windowTo { break }
            if let windowFrom, instance.start < windowFrom { continue }
            produced += 1
            if produced > series.recurrence.limits.maxInstances { break }
            if let item = series.overrides[instance.start] {
                seenOverrides.insert(instance.start)
                emitOverride(item, id: instance.start)
                continue
            }
            var startKey = instance.start
            var length = series.length
            var component = series.master
            var traits = series.masterTraits
            var isOverride = false
            // The latest THISANDFUTURE override at or before this instance applies.
            if let range = series.futureRanges.last(where: { $0.key <= instance.start }) {
                startKey += range.override.shift
                length = range.override.length
                component = range.override.component
                traits = range.override.traits
                isOverride = true
            }
            let endKey = instance.explicitEnd ?? length.end(of: startKey, in: time)
            let start = time.occurrenceTime(startKey)
            let end = time.occurrenceTime(endKey)
            guard overlaps(start, end) else { continue }
            emitted += 1
            emit(
                Instance(
                    component: component, traits: traits, start: start, end: end, recurrenceID: repeats ? time.occurrenceTime(instance.start) : nil,
                    isOverride: isOverride, tzid: series.tzid, zone: time.isInstant ? time.zone : nil))
        }
        // Overrides whose original instance lies outside the expanded range (or is not an
        // instance at all) still show where they now are.
        for (key, item) in series.overrides where !seenOverrides.contains(key) && emitted < limit {
            emitOverride(item, id: key)
        }
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
