/// The rules of one time zone: a table of transitions plus, optionally, a
/// POSIX TZ rule for instants after the table.
///
/// This is what a TZif file (``TZif``) holds, and what an iCalendar
/// VTIMEZONE describes. Before the first transition the initial offset
/// applies; from the last transition on, the ``footer`` applies when there is
/// one (with no transitions at all it applies everywhere), as RFC 8536 §3.2
/// and §3.3 specify.
///
/// Every conversion is a binary search over the transition instants plus
/// integer arithmetic, with no allocation; instants are Unix seconds (UTC),
/// wall clocks are ``CivilDateTime`` values. As zic's "fat" output does, the
/// footer's changes through 2100 are worked out once, when the rules are
/// created, and searched like the table; only later instants evaluate the
/// footer's rules on each call.
public struct ZoneRules: Sendable, Hashable {
    /// The fields, in one shared object: zones are copied into every series and
    /// occurrence, and a copy should cost one reference, not one per table.
    private final class Storage: Sendable {
        let identifier: String
        let initialOffset: UTCOffset
        let initialAbbreviation: String
        let initialIsDaylightSaving: Bool
        let transitions: [ZoneTransition]
        let footer: POSIXTimeZone?
        let lookup: [ZoneTransition]
        let instants: [Int]
        let footerRules: POSIXRuleEvaluator?
        let searchWindow: Int

        init(
            identifier: String, initialOffset: UTCOffset, initialAbbreviation: String, initialIsDaylightSaving: Bool,
            transitions: [ZoneTransition], footer: POSIXTimeZone?, lookup: [ZoneTransition], searchWindow: Int
        ) {
            self.identifier = identifier
            self.initialOffset = initialOffset
            self.initialAbbreviation = initialAbbreviation
            self.initialIsDaylightSaving = initialIsDaylightSaving
            self.transitions = transitions
            self.footer = footer
            self.lookup = lookup
            self.instants = lookup.map(\.instant)
            self.footerRules = footer?.evaluator
            self.searchWindow = searchWindow
        }
    }

    private let storage: Storage

    /// The zone's name, such as `Europe/Berlin`, as it was asked for.
    public var identifier: String { storage.identifier }
    /// The offset before the first transition (for TZif files, time type 0:
    /// usually local mean time).
    public var initialOffset: UTCOffset { storage.initialOffset }
    /// The abbreviation before the first transition (`LMT` for most IANA zones).
    public var initialAbbreviation: String { storage.initialAbbreviation }
    /// Whether the time before the first transition is daylight-saving time.
    public var initialIsDaylightSaving: Bool { storage.initialIsDaylightSaving }
    /// The transitions, in instant order, each changing something.
    public var transitions: [ZoneTransition] { storage.transitions }
    /// The rule for instants from the last transition on, if any.
    public var footer: POSIXTimeZone? { storage.footer }

    /// What lookups search: the table, with the state the footer gives from
    /// the last transition on, followed by the footer's changes through 2100.
    private var lookup: [ZoneTransition] { storage.lookup }
    /// The instants of `lookup`, contiguous for the binary search.
    private var instants: [Int] { storage.instants }
    /// The footer's rules as plain integers, so lookups past `lookup` copy no strings.
    private var footerRules: POSIXRuleEvaluator? { storage.footerRules }
    /// How far apart a wall clock and the instants it may name can be: the
    /// largest offset magnitude in the zone plus a day.
    private var searchWindow: Int { storage.searchWindow }

    public static func == (lhs: ZoneRules, rhs: ZoneRules) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.identifier == rhs.identifier && lhs.initialOffset == rhs.initialOffset
                && lhs.initialAbbreviation == rhs.initialAbbreviation
                && lhs.initialIsDaylightSaving == rhs.initialIsDaylightSaving
                && lhs.transitions == rhs.transitions && lhs.footer == rhs.footer)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
        hasher.combine(initialOffset)
        hasher.combine(transitions.count)
        hasher.combine(transitions.last?.instant)
    }

    /// Creates zone rules from a transition table and an optional footer.
    ///
    /// The table is normalized so that lookups can trust it: transitions are
    /// sorted by instant (of several at the same instant the last one given
    /// wins), each `offsetBefore` is set to the offset actually in force
    /// before it (a VTIMEZONE's TZOFFSETFROM can disagree with the previous
    /// TZOFFSETTO, or be missing), and transitions that change nothing are
    /// dropped.
    public init(
        identifier: String, initialOffset: UTCOffset, initialAbbreviation: String,
        initialIsDaylightSaving: Bool = false, transitions: [ZoneTransition], footer: POSIXTimeZone?
    ) {
        let sorted = transitions.enumerated().sorted {
            ($0.element.instant, $0.offset) < ($1.element.instant, $1.offset)
        }.map(\.element)
        var table: [ZoneTransition] = []
        table.reserveCapacity(sorted.count)
        for var transition in sorted {
            if table.last?.instant == transition.instant { table.removeLast() }
            let before = table.last
            transition.offsetBefore = before?.offsetAfter ?? initialOffset
            if transition.offsetAfter == transition.offsetBefore
                && transition.isDaylightSaving == (before?.isDaylightSaving ?? initialIsDaylightSaving)
                && transition.abbreviation == (before?.abbreviation ?? initialAbbreviation)
            {
                continue
            }
            table.append(transition)
        }
        var largestOffset = abs(initialOffset.seconds)
        for transition in table { largestOffset = max(largestOffset, abs(transition.offsetAfter.seconds)) }
        if let footer {
            largestOffset = max(largestOffset, abs(footer.standardOffset.seconds))
            if let daylightSaving = footer.daylightSaving {
                largestOffset = max(largestOffset, abs(daylightSaving.offset.seconds))
            }
        }
        storage = Storage(
            identifier: identifier, initialOffset: initialOffset, initialAbbreviation: initialAbbreviation,
            initialIsDaylightSaving: initialIsDaylightSaving, transitions: table, footer: footer,
            lookup: Self.lookupTable(table, footer: footer), searchWindow: min(largestOffset, Int.max / 4) + 86_400)
    }

    /// Coordinated Universal Time: offset zero, no transitions.
    public static let utc = ZoneRules(
        identifier: "UTC", initialOffset: .zero, initialAbbreviation: "UTC", transitions: [], footer: nil)

    // MARK: Instant to wall clock

    /// The offset from UTC at `instant` (Unix seconds).
    public func offset(at instant: Int) -> UTCOffset {
        let index = lastTransitionIndex(atOrBefore: instant)
        if let footerRules, footerDecides(index) { return UTCOffset(seconds: footerRules.offset(at: instant)) }
        return index < 0 ? initialOffset : lookup[index].offsetAfter
    }

    /// Whether daylight-saving time is in force at `instant` (Unix seconds),
    /// as the zone data marks it (see ``ZoneTransition/isDaylightSaving`` for
    /// Europe/Dublin's negative saving).
    public func isDaylightSaving(at instant: Int) -> Bool {
        let index = lastTransitionIndex(atOrBefore: instant)
        if let footerRules, footerDecides(index) { return footerRules.period(containing: instant).isDaylightSaving }
        return index < 0 ? initialIsDaylightSaving : lookup[index].isDaylightSaving
    }

    /// The abbreviation in force at `instant` (Unix seconds), such as `CEST`.
    public func abbreviation(at instant: Int) -> String {
        let index = lastTransitionIndex(atOrBefore: instant)
        if let footer, footerDecides(index) { return footer.abbreviation(at: instant) }
        return index < 0 ? initialAbbreviation : lookup[index].abbreviation
    }

    /// The wall-clock time in this zone at `instant` (Unix seconds).
    public func localTime(at instant: Int) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: ZoneMath.add(instant, offset(at: instant).seconds))
    }

    // MARK: Wall clock to instant

    /// The instant (Unix seconds) a wall-clock time in this zone names, per
    /// RFC 5545 §3.3.5 and erratum 4271.
    ///
    /// - A local time in a gap (it never appears on the clocks, because they
    ///   jumped forward) moves forward by the gap's length: on a spring-forward
    ///   day where 02:00 becomes 03:00, 02:30 names the instant shown as 03:30.
    ///   That is, it is read with the offset in force before the gap.
    /// - An ambiguous local time (it appears twice, because the clocks went
    ///   back) names the earlier of its two instants.
    ///
    /// This holds around every transition, including ones the footer produces
    /// centuries ahead and before the first transition (initial offset).
    public func instant(for local: CivilDateTime) -> Int {
        let wall = ZoneMath.wallSeconds(local)
        // Every instant this wall clock can name lies within the search window of
        // it; walk the stretches of constant offset across that window, in order.
        var period = self.period(containing: ZoneMath.subtract(wall, searchWindow))
        var gapAnswer: Int? = nil
        while true {
            let candidate = ZoneMath.subtract(wall, period.offset)
            // The first stretch that shows this wall clock holds the earliest instant.
            if candidate >= period.start && candidate < period.end { return candidate }
            guard period.end != .max, period.end <= ZoneMath.add(wall, searchWindow) else { break }
            let next = self.period(containing: period.end)
            // Past this stretch's last wall clock and before the next one's first: a gap.
            if gapAnswer == nil && candidate >= period.end && ZoneMath.subtract(wall, next.offset) < next.start {
                gapAnswer = candidate
            }
            period = next
        }
        return gapAnswer ?? ZoneMath.subtract(wall, period.offset)
    }

    // MARK: Transitions

    /// The transitions with `start <= instant < end`, in order, including the
    /// ones the footer's rules produce after the table.
    ///
    /// Each call produces at most 10,000 years of rule-made transitions (from
    /// the later of `start` and the end of the table), so an open-ended request
    /// such as `transitions(from: 0, to: .max)` stays bounded.
    public func transitions(from start: Int, to end: Int) -> [ZoneTransition] {
        guard start < end else { return [] }
        var result: [ZoneTransition] = []
        // The table is a prefix of the lookup entries, instant for instant.
        var index = lastTransitionIndex(atOrBefore: ZoneMath.subtract(start, 1)) + 1
        if start == .min { index = 0 }
        while index < transitions.count && instants[index] < end {
            result.append(transitions[index])
            index += 1
        }
        guard let footer, footer.daylightSaving != nil else { return result }
        // The footer's changes count from just after the last transition of the table.
        let lower = transitions.last.map { max(start, ZoneMath.add($0.instant, 1)) } ?? start
        guard lower < end else { return result }
        let firstYear = ZoneMath.year(ofInstant: lower) - 1
        let lastYear = min(ZoneMath.year(ofInstant: ZoneMath.subtract(end, 1)) + 1, firstYear + 10_001)
        let tableEnd = result.count
        for year in firstYear...lastYear {
            for var transition in footer.transitions(inYear: year)
            where transition.instant >= lower && transition.instant < end {
                let justBefore = transition.instant - 1
                transition.offsetBefore = offset(at: justBefore)
                if transition.offsetBefore == transition.offsetAfter
                    && isDaylightSaving(at: justBefore) == transition.isDaylightSaving
                    && abbreviation(at: justBefore) == transition.abbreviation
                {
                    continue
                }
                result.append(transition)
            }
        }
        result[tableEnd...].sort { $0.instant < $1.instant }
        return result
    }

    // MARK: Lookup

    /// Whether, given the lookup index of an instant, the footer's rules must
    /// be evaluated: past the end of `lookup`, or before its start when there
    /// is no table (then the footer governs everywhere, RFC 8536 §3.3).
    @inline(__always)
    private func footerDecides(_ index: Int) -> Bool {
        index == instants.count - 1 || (index < 0 && transitions.isEmpty)
    }

    /// The table searched by lookups: `table`, its last transition carrying
    /// the state the footer gives at that instant (the footer decides from
    /// the last transition on), then the footer's changes through 2100.
    private static func lookupTable(_ table: [ZoneTransition], footer: POSIXTimeZone?) -> [ZoneTransition] {
        guard let footer else { return table }
        var lookup = table
        if var last = lookup.popLast() {
            last.offsetAfter = footer.offset(at: last.instant)
            last.isDaylightSaving = footer.isDaylightSaving(at: last.instant)
            last.abbreviation = footer.abbreviation(at: last.instant)
            lookup.append(last)
        }
        // Rules whose changes can cross New Year are left to the evaluator.
        guard footer.daylightSaving != nil, footer.evaluator.staysInsideItsYear else { return lookup }
        let firstYear = lookup.last.map { ZoneMath.year(ofInstant: $0.instant) } ?? 1900
        guard firstYear <= 2100 else { return lookup }
        for year in firstYear...2100 {
            for var change in footer.transitions(inYear: year) where change.instant > lookup.last?.instant ?? .min {
                if let previous = lookup.last {
                    change.offsetBefore = previous.offsetAfter
                    if previous.offsetAfter == change.offsetAfter
                        && previous.isDaylightSaving == change.isDaylightSaving
                        && previous.abbreviation == change.abbreviation
                    {
                        continue
                    }
                }
                lookup.append(change)
            }
        }
        return lookup
    }

    /// The index of the last `lookup` entry at or before `instant`, or −1 when
    /// `instant` is before the first.
    private func lastTransitionIndex(atOrBefore instant: Int) -> Int {
        instants.withUnsafeBufferPointer { buffer in
            var low = 0
            var high = buffer.count
            while low < high {
                let middle = (low + high) >> 1
                if buffer[middle] <= instant { low = middle + 1 } else { high = middle }
            }
            return low - 1
        }
    }

    /// The stretch of constant offset containing `instant`: from `start`
    /// (inclusive; `Int.min` for the first) to `end` (exclusive; `Int.max`
    /// for the last).
    private func period(containing instant: Int) -> (start: Int, end: Int, offset: Int) {
        let index = lastTransitionIndex(atOrBefore: instant)
        let count = instants.count
        if let footerRules, footerDecides(index) {
            let period = footerRules.period(containing: instant)
            let offset = period.isDaylightSaving ? footerRules.daylightOffset : footerRules.standardOffset
            // Clip the rules' stretch to the part of time they decide.
            let start = index >= 0 ? max(period.start, instants[index]) : period.start
            let end = index < 0 && count > 0 ? min(period.end, instants[0]) : period.end
            return (start, end, offset)
        }
        return (
            index < 0 ? .min : instants[index],
            index + 1 < count ? instants[index + 1] : .max,
            index < 0 ? initialOffset.seconds : lookup[index].offsetAfter.seconds
        )
    }
}

extension ZoneRules: CustomStringConvertible {
    /// The zone's identifier.
    public var description: String { identifier }
}
