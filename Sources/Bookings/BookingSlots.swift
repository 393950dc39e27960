import Availability
import CivilTime

/// The slots a booking type offers, from busy time, holds and the type's own bookings:
/// pure, so the same function lists slots and, in the booking's transaction, checks the
/// one asked for.
public enum BookingSlots {
    /// The free slots in `from..<to` (starts): clear of busy time and holds (both
    /// pushed away by the buffers), on days and weeks the type's bookings have not filled
    /// (`dailyLimit`, `weeklyLimit` count `booked`, the starts of its confirmed bookings,
    /// in the rules' zone). The rules' own limits count busy blocks and are not used here.
    public static func free(
        busy: [BusyBlock], held: [(start: Int, end: Int)], booked: [Int], rules: AvailabilityRules,
        dailyLimit: Int?, weeklyLimit: Int?, from: Int, to: Int, now: Int?, limit: Int = .max
    ) -> [FreeSlot] {
        var rules = rules
        rules.dailyLimit = nil
        rules.weeklyLimit = nil
        let blocks =
            busy
            + held.map {
                BusyBlock(
                    start: $0.start, end: $0.end, source: "hold", recurrenceID: nil, isTentative: false,
                    isAllDay: false)
            }
        var perDay: [CivilDate: Int] = [:]
        var perWeek: [CivilDate: Int] = [:]
        for start in booked {
            let date = rules.zone.localTime(at: start).date
            perDay[date, default: 0] += 1
            perWeek[date.startOfWeek(firstWeekday: rules.firstWeekday), default: 0] += 1
        }
        func isFull(_ slot: FreeSlot) -> Bool {
            let date = rules.zone.localTime(at: slot.start).date
            if let dailyLimit, perDay[date, default: 0] >= dailyLimit { return true }
            if let weeklyLimit, perWeek[date.startOfWeek(firstWeekday: rules.firstWeekday), default: 0] >= weeklyLimit {
                return true
            }
            return false
        }
        guard dailyLimit != nil || weeklyLimit != nil else {
            return AvailabilitySearch.freeSlots(busy: blocks, rules: rules, from: from, to: to, now: now, limit: limit)
        }
        // Full days drop out after the search: ask for more until enough remain or none are left.
        var result: [FreeSlot] = []
        var start = from
        while start < to, result.count < limit {
            let batch = AvailabilitySearch.freeSlots(
                busy: blocks, rules: rules, from: start, to: to, now: now, limit: max(limit - result.count, 256))
            guard let last = batch.last else { break }
            result += batch.filter { !isFull($0) }
            start = last.start + 1
        }
        return Array(result.prefix(limit))
    }

    /// A class occurrence with its seats.
    public struct Seat: Sendable, Hashable {
        public var start: Int
        public var end: Int
        public var recurrenceID: String?
        public var capacity: Int
        /// Seats still to book: capacity less attendees and live holds, never below 0.
        public var left: Int

        public init(start: Int, end: Int, recurrenceID: String?, capacity: Int, left: Int) {
            self.start = start
            self.end = end
            self.recurrenceID = recurrenceID
            self.capacity = capacity
            self.left = left
        }
    }

    /// The class occurrences bookable in `from..<to` (starts), full ones included with
    /// no seat left: those not cancelled, after the notice and within the window.
    /// `occurrences` gives each one's capacity and seats taken; `held` the starts of live
    /// holds (each keeps one seat).
    public static func seats(
        occurrences: [(start: Int, end: Int, recurrenceID: String?, capacity: Int, taken: Int, isCancelled: Bool)],
        held: [Int], rules: AvailabilityRules, from: Int, to: Int, now: Int?
    ) -> [Seat] {
        let earliest = now.map { AvailabilitySearch.earliestStart(rules: rules, now: $0) } ?? .min
        var holds: [Int: Int] = [:]
        for start in held { holds[start, default: 0] += 1 }
        return occurrences.filter { occurrence in
            guard !occurrence.isCancelled, occurrence.start >= from, occurrence.start < to,
                occurrence.start >= earliest
            else { return false }
            if let window = rules.window, occurrence.start < window.start || occurrence.start >= window.end {
                return false
            }
            return true
        }
        .map { occurrence in
            Seat(
                start: occurrence.start, end: occurrence.end, recurrenceID: occurrence.recurrenceID,
                capacity: occurrence.capacity,
                left: max(0, occurrence.capacity - occurrence.taken - holds[occurrence.start, default: 0]))
        }
        .sorted { $0.start < $1.start }
    }

    /// One person of a group search.
    public struct GroupHost: Sendable {
        public var rules: AvailabilityRules
        public var busy: [BusyBlock]
        /// Live holds that take this host.
        public var held: [(start: Int, end: Int)]
        /// Starts of this host's confirmed bookings of the type, for the limits.
        public var booked: [Int]
        /// This host's bookings of the type in the fairness window.
        public var load: Int

        public init(
            rules: AvailabilityRules, busy: [BusyBlock], held: [(start: Int, end: Int)], booked: [Int], load: Int
        ) {
            self.rules = rules
            self.busy = busy
            self.held = held
            self.booked = booked
            self.load = load
        }
    }

    /// A slot of a group, with who is free then and who a booking would take.
    public struct GroupSlot: Sendable, Hashable {
        public var start: Int
        public var end: Int
        /// Indices of the hosts free then, in order.
        public var free: [Int]
        /// The `needed` free hosts with the least load (ties: the first listed), in order.
        public var assigned: [Int]
    }

    /// The slots in `from..<to` at which at least `needed` hosts are free, each by their
    /// own hours, busy time, holds and limits (everyone for a collective type, one for
    /// round-robin, k for n-of-group). A slot of one host's grid that another host's
    /// grid does not have counts that other host as not free.
    public static func group(
        hosts: [GroupHost], needed: Int, dailyLimit: Int?, weeklyLimit: Int?, from: Int, to: Int, now: Int?,
        limit: Int = .max
    ) -> [GroupSlot] {
        guard needed > 0, needed <= hosts.count, limit > 0 else { return [] }
        var free: [Int: (end: Int, hosts: [Int])] = [:]
        for (index, host) in hosts.enumerated() {
            for slot in Self.free(
                busy: host.busy, held: host.held, booked: host.booked, rules: host.rules, dailyLimit: dailyLimit,
                weeklyLimit: weeklyLimit, from: from, to: to, now: now)
            {
                free[slot.start, default: (slot.end, [])].hosts.append(index)
            }
        }
        var result: [GroupSlot] = []
        for start in free.keys.sorted() {
            guard let entry = free[start], entry.hosts.count >= needed else { continue }
            let assigned = entry.hosts.sorted { (hosts[$0].load, $0) < (hosts[$1].load, $1) }.prefix(needed).sorted()
            result.append(GroupSlot(start: start, end: entry.end, free: entry.hosts, assigned: Array(assigned)))
            if result.count >= limit { break }
        }
        return result
    }
}
