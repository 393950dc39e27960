import Availability
import CalendarStore
import CivilTime
import StoreAdapters

/// Booking types' slots and bookings: the store's situation read through the pure
/// slot rules. The JSON API, the public booking page and the CLI all go through this,
/// so a slot the page offers is the slot a booking checks, under the calendar's lock.
public struct BookingEngine: Sendable {
    public let store: any BookingStore

    public init(store: any BookingStore) {
        self.store = store
    }

    /// The slot rules of a type for one duration: the schedule's hours in its zone (all
    /// day in UTC without one), the buffers, the notice, the window from `now` and the step.
    public static func rules(_ type: BookingType, schedule: StoredSchedule?, duration: Int, now: Int)
        throws(StoreError) -> AvailabilityRules
    {
        var parsed: AvailabilitySchedule?
        if let schedule {
            do {
                parsed = try AvailabilitySchedule(calendarData: schedule.data)
            } catch {
                throw StoreError(.invalidArgument, "the schedule \(schedule.id) cannot be read: \(error)")
            }
        }
        let zone = parsed.flatMap { TimeZoneDatabase.zone(named: $0.timeZone) } ?? .utc
        var rules = AvailabilityRules.allDay(zone: zone, slotLength: duration, slotStep: type.step ?? duration)
        parsed?.apply(to: &rules)
        rules.bufferBefore = type.bufferBefore
        rules.bufferAfter = type.bufferAfter
        rules.minimumNotice = type.notice > 0 ? .seconds(type.notice) : .none
        if let days = type.windowDays {
            let today = zone.localTime(at: now).date
            rules.window = (now, zone.instant(for: CivilDateTime(date: today.adding(days: days + 1), time: .midnight)))
        }
        // Every busy block counts (tentative ones too), and all-day events unless the type
        // says otherwise: a trainer's day off in the calendar blocks bookings.
        rules.tentativeIsBusy = true
        rules.allDayIsBusy = type.allDayIsBusy
        return rules
    }

    /// The zone of a type's schedule (UTC without one).
    public func scheduleZone(of type: BookingType) throws(StoreError) -> String {
        Self.zoneName(try store.situation(type: type.id, owner: type.owner, in: TimeRange(start: 0, end: 0), now: 0))
    }

    /// The zone a type's days are read in: its schedule's.
    static func zoneName(_ situation: BookingSituation) -> String {
        guard let schedule = situation.schedule, let parsed = try? AvailabilitySchedule(calendarData: schedule.data)
        else { return "UTC" }
        return parsed.timeZone
    }

    /// What a type offers in `from..<to`: free slots of `duration`, or a seated type's
    /// class occurrences with their seats.
    public enum Offer: Sendable {
        case slots([FreeSlot])
        case seats([BookingSlots.Seat])
        case group([GroupOffer])
    }

    /// A group type's slot: who is free, and who a booking now would take.
    public struct GroupOffer: Sendable, Hashable {
        public var start: Int
        public var end: Int
        public var free: [String]
        public var assigned: [String]
    }

    /// The offer in `from..<to` (starts), at most `limit` slots, never before `now`.
    public func offer(type: BookingType, duration: Int, from: Int, to: Int, now: Int, limit: Int) throws(StoreError)
        -> (offer: Offer, zone: String)
    {
        let margin = type.bufferBefore + type.bufferAfter + duration + 86_400
        let situation = try store.situation(
            type: type.id, owner: type.owner,
            in: TimeRange(start: from.subtractingSaturated(margin), end: to.addingSaturated(margin)), now: now)
        return (
            try Self.offer(situation, duration: duration, from: from, to: to, now: now, limit: limit),
            Self.zoneName(situation)
        )
    }

    static func offer(_ situation: BookingSituation, duration: Int, from: Int, to: Int, now: Int, limit: Int)
        throws(StoreError) -> Offer
    {
        let type = situation.type
        let rules = try rules(type, schedule: situation.schedule, duration: duration, now: now)
        if !type.hosts.isEmpty {
            var hosts: [BookingSlots.GroupHost] = []
            for host in situation.hosts {
                hosts.append(
                    BookingSlots.GroupHost(
                        rules: try Self.rules(type, schedule: host.schedule, duration: duration, now: now),
                        busy: host.busy.map(BusyBlock.init), held: host.holds.map { ($0.start, $0.end) },
                        booked: host.bookings.map(\.start),
                        load: situation.windowBookings.filter { $0.hosts.contains(host.host.name) }.count))
            }
            let names = situation.hosts.map(\.host.name)
            return .group(
                BookingSlots.group(
                    hosts: hosts, needed: type.hostsNeeded, dailyLimit: type.dailyLimit, weeklyLimit: type.weeklyLimit,
                    from: from, to: to, now: now, limit: limit
                ).map { slot in
                    GroupOffer(
                        start: slot.start, end: slot.end, free: slot.free.map { names[$0] },
                        assigned: slot.assigned.map { names[$0] })
                })
        }
        if type.isSeated {
            let seats = BookingSlots.seats(
                occurrences: situation.occurrences.map {
                    ($0.start, $0.end, $0.recurrenceID, $0.capacity, $0.taken, $0.isCancelled)
                }, held: situation.holds.map(\.start), rules: rules, from: from, to: to, now: now)
            return .seats(Array(seats.prefix(limit)))
        }
        return .slots(
            BookingSlots.free(
                busy: situation.busy.map(BusyBlock.init), held: situation.holds.map { ($0.start, $0.end) },
                booked: situation.bookings.map(\.start), rules: rules, dailyLimit: type.dailyLimit,
                weeklyLimit: type.weeklyLimit, from: from, to: to, now: now, limit: limit))
    }

    /// The slot rule of `start..<end` (``SlotRule``): refuses (``StoreError/Code/slotTaken``)
    /// unless it is on offer in the situation: a free slot of that length, a class
    /// occurrence the rules offer (then whether a seat is left), or a group slot, whose
    /// hosts to take it answers. Every path that takes a slot or seat runs this one.
    static func check(start: Int, end: Int, now: Int) -> SlotRule {
        { (situation) throws(StoreError) -> SlotDecision in
            let type = situation.type
            if !type.isSeated, !type.durations.contains(end - start) {
                throw StoreError(.invalidArgument, "\(type.title) is booked for \(durationsText(type.durations))")
            }
            let offer = try offer(situation, duration: end - start, from: start, to: start + 1, now: now, limit: 1)
            switch offer {
            case .slots(let slots):
                guard slots.first?.start == start else {
                    throw StoreError(.slotTaken, "\(type.title) is not free at \(utc(start))")
                }
            case .seats(let seats):
                guard let seat = seats.first, seat.start == start else {
                    throw StoreError(.slotTaken, "no class of \(type.title) can be booked at \(utc(start))")
                }
                return SlotDecision(isFull: seat.left <= 0)
            case .group(let slots):
                guard let slot = slots.first, slot.start == start else {
                    throw StoreError(.slotTaken, "not enough of \(type.title)'s hosts are free at \(utc(start))")
                }
                return SlotDecision(hosts: slot.assigned)
            }
            return SlotDecision()
        }
    }

    static func utc(_ seconds: Int) -> String { CivilDateTime(secondsSinceEpoch: seconds).description + "Z" }

    static func durationsText(_ durations: [Int]) -> String {
        durations.map { "\($0 / 60) minutes" }.joined(separator: " or ")
    }

    /// Holds a slot (or a seat) for the type's hold time.
    public func hold(type: BookingType, start: Int, end: Int, now: Int) throws(StoreError) -> BookingHold {
        try store.hold(
            type: type.id, owner: type.owner, start: start, end: end, now: now,
            check: Self.check(start: start, end: end, now: now))
    }

    /// Books a slot or a seat, checked under the booking calendar's lock.
    public func book(_ request: BookingRequest, type: BookingType, now: Int) throws(StoreError) -> (
        booking: Booking, isNew: Bool
    ) {
        try store.book(
            request, owner: type.owner, now: now, check: Self.check(start: request.start, end: request.end, now: now))
    }

    /// Cancels a booking; a seat it frees goes to the first on the waiting list when the
    /// class is still on offer by the same rules as a booking.
    public func cancel(_ booking: Booking, now: Int) throws(StoreError) -> Booking {
        try store.cancel(
            booking: booking.id, owner: booking.owner, now: now,
            promote: Self.check(start: booking.start, end: booking.end, now: now))
    }

    /// Moves a booking to another free slot (or seat), atomically.
    public func reschedule(_ booking: Booking, start: Int, end: Int, now: Int) throws(StoreError) -> Booking {
        try store.reschedule(
            booking: booking.id, owner: booking.owner, start: start, end: end, now: now,
            check: Self.check(start: start, end: end, now: now))
    }
}
