import CivilTime
import Recurrence

/// A span of busy time, Unix seconds `[start, end)`.
public struct BusyBlock: Sendable, Hashable {
    public var start: Int
    public var end: Int
    /// What made it busy (an event identifier), for conflict reports.
    public var source: String
    /// Which instance of a series, when it is one.
    public var recurrenceID: OccurrenceTime?
    public var title: String?
    public var isTentative: Bool
    public var isAllDay: Bool

    public init(
        start: Int, end: Int, source: String, recurrenceID: OccurrenceTime? = nil, title: String? = nil,
        isTentative: Bool = false,
        isAllDay: Bool = false
    ) {
        self.start = start
        self.end = end
        self.source = source
        self.recurrenceID = recurrenceID
        self.title = title
        self.isTentative = isTentative
        self.isAllDay = isAllDay
    }
}

/// A wall-clock span within a day, minutes from midnight `[start, end)`; `end` may
/// be 1440 (the end of the day).
public struct ClockRange: Sendable, Hashable, Codable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// `09:00-17:00`; nil when malformed or empty.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-")
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]), start < end else {
            return nil
        }
        self.init(start: start, end: end)
    }

    /// `09:00-17:00`, as ``init(_:)`` reads it.
    public var text: String { Self.text(start) + "-" + Self.text(end) }

    /// `09:30` for 570 minutes.
    static func text(_ minutes: Int) -> String {
        let hours = String(minutes / 60)
        let rest = String(minutes % 60)
        return (hours.count == 1 ? "0" : "") + hours + ":" + (rest.count == 1 ? "0" : "") + rest
    }

    /// The spans sorted and with overlapping ones joined, so that a span
    /// given twice (or a thousand times) yields its slots once.
    public static func joined(_ spans: [ClockRange]) -> [ClockRange] {
        var result: [ClockRange] = []
        for span in spans.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
            if let last = result.last, span.start < last.end {
                result[result.count - 1].end = max(last.end, span.end)
            } else {
                result.append(span)
            }
        }
        return result
    }

    static func minutes(_ text: some StringProtocol) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count <= 2, parts[1].count == 2, let hour = Int(parts[0]),
            let minute = Int(parts[1]),
            (0...24).contains(hour), (0..<60).contains(minute), hour * 60 + minute <= 1440
        else { return nil }
        return hour * 60 + minute
    }
}

/// How soon a booking may start.
public enum MinimumNotice: Sendable, Hashable {
    case none
    /// At least this many seconds from now.
    case seconds(Int)
    /// Not today (in the rules' zone): the earliest slot is tomorrow.
    case notSameDay
}

/// When bookings are possible, and how they are cut into slots.
public struct AvailabilityRules: Sendable {
    /// The zone working hours, dates and limits are read in.
    public var zone: ZoneRules
    /// Working hours per weekday; a weekday without an entry is not worked.
    public var workingHours: [Weekday: [ClockRange]]
    /// Dates with other hours than their weekday's (an empty list: a day off).
    public var dateOverrides: [CivilDate: [ClockRange]]
    /// Free time kept before and after every booking and every busy block. A new
    /// booking needs its own buffer and the neighbour's: they stack.
    public var bufferBefore: Int
    public var bufferAfter: Int
    public var minimumNotice: MinimumNotice
    /// Seconds; slots start every `slotStep` seconds from the start of each working span.
    public var slotLength: Int
    public var slotStep: Int
    /// Bookings may start only in this window (Unix seconds), if set.
    public var window: (start: Int, end: Int)?
    /// At most this many busy blocks starting on one day (week): a full day (week) has no slots.
    public var dailyLimit: Int?
    public var weeklyLimit: Int?
    public var firstWeekday: Weekday
    public var tentativeIsBusy: Bool
    public var allDayIsBusy: Bool

    public init(
        zone: ZoneRules, workingHours: [Weekday: [ClockRange]], slotLength: Int, slotStep: Int? = nil,
        dateOverrides: [CivilDate: [ClockRange]] = [:],
        bufferBefore: Int = 0, bufferAfter: Int = 0, minimumNotice: MinimumNotice = .none,
        window: (start: Int, end: Int)? = nil,
        dailyLimit: Int? = nil, weeklyLimit: Int? = nil, firstWeekday: Weekday = .monday, tentativeIsBusy: Bool = true,
        allDayIsBusy: Bool = false
    ) {
        self.zone = zone
        self.workingHours = workingHours
        self.slotLength = slotLength
        self.slotStep = slotStep ?? slotLength
        self.dateOverrides = dateOverrides
        self.bufferBefore = bufferBefore
        self.bufferAfter = bufferAfter
        self.minimumNotice = minimumNotice
        self.window = window
        self.dailyLimit = dailyLimit
        self.weeklyLimit = weeklyLimit
        self.firstWeekday = firstWeekday
        self.tentativeIsBusy = tentativeIsBusy
        self.allDayIsBusy = allDayIsBusy
    }

    /// Every day, all day: the rules for "is this time free at all?".
    public static func allDay(zone: ZoneRules, slotLength: Int, slotStep: Int? = nil) -> AvailabilityRules {
        AvailabilityRules(
            zone: zone,
            workingHours: Dictionary(
                uniqueKeysWithValues: Weekday.allCases.map { ($0, [ClockRange(start: 0, end: 1440)]) }),
            slotLength: slotLength, slotStep: slotStep)
    }

    /// Reads `Mon-Fri 09:00-17:00, Sat 10:00-14:00` (days or day ranges, then one or more
    /// spans separated by spaces); nil when malformed.
    public static func workingHours(_ text: String) -> [Weekday: [ClockRange]]? {
        var result: [Weekday: [ClockRange]] = [:]
        for group in text.split(separator: ",") {
            let words = group.split(separator: " ")
            guard words.count >= 2 else { return nil }
            var days: [Weekday] = []
            for part in words[0].split(separator: "+") {
                let bounds = part.split(separator: "-").map { Weekday(englishName: $0) }
                guard !bounds.isEmpty, bounds.count <= 2, let first = bounds.first ?? nil, let last = bounds.last ?? nil
                else { return nil }
                var day = first
                while true {
                    days.append(day)
                    if day == last { break }
                    day = day.advanced(by: 1)
                }
            }
            var spans: [ClockRange] = []
            for span in words.dropFirst() {
                guard let range = ClockRange(span) else { return nil }
                spans.append(range)
            }
            for day in days { result[day, default: []] += spans }
        }
        return result
    }
}

/// A bookable slot.
public struct FreeSlot: Sendable, Hashable {
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }
}

/// Why a proposed time collides with a busy block.
public struct Conflict: Sendable, Hashable {
    /// The proposed occurrence's times.
    public var start: Int
    public var end: Int
    public var with: BusyBlock
    public enum Reason: String, Sendable, Hashable, Codable {
        /// The times overlap.
        case overlap
        /// They do not overlap, but are closer than the buffers allow.
        case buffer
    }
    public var reason: Reason
}

/// Free slots and conflicts from busy time and rules. Pure: the caller gathers busy
/// blocks (from the store, or a device) and the current time.
public enum AvailabilitySearch {
    /// The slots in `from..<to` (slot starts) that satisfy every rule and keep clear of
    /// every busy block (buffers included), in start order.
    ///
    /// At most `limit` slots, the earliest: ask for one more than you show to learn
    /// whether there were more. A slot never starts before `now` (and the minimum
    /// notice after it); with `now` nil, past times are offered too and the notice,
    /// which counts from now, does not apply.
    public static func freeSlots(
        busy: [BusyBlock], rules: AvailabilityRules, from: Int, to: Int, now: Int?, limit: Int = .max
    ) -> [FreeSlot] {
        guard rules.slotLength > 0, rules.slotStep > 0, from < to, limit > 0 else { return [] }
        let blocks = counted(busy, rules: rules)
        // Busy intervals grown by the stacked buffers, merged: a slot [s, e) is clear when
        // [s - before, e + after) misses every block grown by its own buffers.
        let pad = rules.bufferBefore + rules.bufferAfter
        var grown: [(start: Int, end: Int)] = []
        for (start, end) in blocks.map({ ($0.start - pad, max($0.end, $0.start) + pad) }).sorted(by: { $0.0 < $1.0 }) {
            if let last = grown.last, start <= last.end {
                grown[grown.count - 1].end = max(last.end, end)
            } else {
                grown.append((start, end))
            }
        }
        // Blocks per day and week, only when a limit needs them.
        var perDay: [CivilDate: Int] = [:]
        var perWeek: [CivilDate: Int] = [:]
        if rules.dailyLimit != nil || rules.weeklyLimit != nil {
            for block in blocks {
                let date = rules.zone.localTime(at: block.start).date
                perDay[date, default: 0] += 1
                perWeek[date.startOfWeek(firstWeekday: rules.firstWeekday), default: 0] += 1
            }
        }
        let earliest = now.map { earliestStart(rules: rules, now: $0) } ?? .min

        var slots: [FreeSlot] = []
        var date = rules.zone.localTime(at: from).date.adding(days: -1)
        let lastDate = rules.zone.localTime(at: to).date
        // Days come in order, and a day's slots start within it: once a day ends with
        // `limit` slots, no later day can hold an earlier one.
        while date <= lastDate, slots.count < limit {
            defer { date = date.adding(days: 1) }
            if let limit = rules.dailyLimit, perDay[date, default: 0] >= limit { continue }
            if let limit = rules.weeklyLimit,
                perWeek[date.startOfWeek(firstWeekday: rules.firstWeekday), default: 0] >= limit
            {
                continue
            }
            for span in ClockRange.joined(rules.dateOverrides[date] ?? rules.workingHours[date.weekday] ?? []) {
                let spanEnd = instant(date, span.end, rules.zone)
                var start = instant(date, span.start, rules.zone)
                while start + rules.slotLength <= spanEnd, slots.count < limit {
                    defer { start += rules.slotStep }
                    let end = start + rules.slotLength
                    guard start >= from, start < to, start >= earliest else { continue }
                    if let window = rules.window, start < window.start || start >= window.end { continue }
                    // The merged blocks are sorted and disjoint: find the first that ends after
                    // the slot starts; the slot is clear when it starts at or after the slot's end.
                    var low = 0
                    var high = grown.count
                    while low < high {
                        let middle = (low + high) / 2
                        if grown[middle].end <= start { low = middle + 1 } else { high = middle }
                    }
                    if low == grown.count || grown[low].start >= end { slots.append(FreeSlot(start: start, end: end)) }
                }
            }
        }
        slots.sort { $0.start < $1.start }
        return Array(slots.prefix(limit))
    }

    /// Each proposed occurrence's collisions: overlapping busy blocks, and blocks closer
    /// than the stacked buffers.
    public static func conflicts(proposed: [(start: Int, end: Int)], busy: [BusyBlock], rules: AvailabilityRules)
        -> [Conflict]
    {
        let blocks = counted(busy, rules: rules).sorted { $0.start < $1.start }
        var result: [Conflict] = []
        for occurrence in proposed {
            for block in blocks {
                let blockEnd = max(block.end, block.start)
                if block.start < occurrence.end && blockEnd > occurrence.start
                    || (block.start == blockEnd && block.start >= occurrence.start && block.start < occurrence.end)
                {
                    result.append(Conflict(start: occurrence.start, end: occurrence.end, with: block, reason: .overlap))
                } else if block.start - rules.bufferBefore - rules.bufferAfter < occurrence.end
                    && blockEnd + rules.bufferAfter + rules.bufferBefore > occurrence.start
                {
                    result.append(Conflict(start: occurrence.start, end: occurrence.end, with: block, reason: .buffer))
                }
            }
        }
        return result
    }

    /// The blocks the rules count as busy.
    static func counted(_ busy: [BusyBlock], rules: AvailabilityRules) -> [BusyBlock] {
        busy.filter { (rules.tentativeIsBusy || !$0.isTentative) && (rules.allDayIsBusy || !$0.isAllDay) }
    }

    /// The part of `from..<to` that lies before `now`, which `freeSlots` never offers: its
    /// end (`to` when the whole range is past), or nil when the range starts at or after now.
    public static func pastPart(from: Int, to: Int, now: Int) -> Int? {
        from < now ? min(now, to) : nil
    }

    /// The earliest instant a slot may start under the minimum notice.
    public static func earliestStart(rules: AvailabilityRules, now: Int) -> Int {
        switch rules.minimumNotice {
        case .none: return now
        case .seconds(let seconds): return now + seconds
        case .notSameDay: return instant(rules.zone.localTime(at: now).date.adding(days: 1), 0, rules.zone)
        }
    }

    /// The instant of `minutes` past midnight on `date` in `zone` (a time in a DST gap moves forward).
    static func instant(_ date: CivilDate, _ minutes: Int, _ zone: ZoneRules) -> Int {
        zone.instant(for: CivilDateTime(date: date, time: .midnight).adding(seconds: minutes * 60))
    }
}
