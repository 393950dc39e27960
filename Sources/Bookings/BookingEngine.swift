import Availability
import CalendarStore
import CivilTime
import ICalendar
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

    /// Saves a new booking type once its fields pass ``BookingRules/validate(_:)-(BookingType)``
    /// (what it names, the store checks).
    public func create(_ type: BookingType) throws(StoreError) -> BookingType {
        try BookingRules.validate(type)
        return try store.createBookingType(type)
    }

    /// Replaces a type's fields, checked as on creation, when `ifMatch` is nil or its ETag.
    public func update(_ type: BookingType, ifMatch: String?) throws(StoreError) -> BookingType {
        try BookingRules.validate(type)
        return try store.updateBookingType(type, ifMatch: ifMatch)
    }

    /// Holds a slot (or a seat) for the type's hold time, when it is on offer under the
    /// booking calendar's lock.
    public func hold(type: BookingType, start: Int, end: Int, now: Int) throws(StoreError) -> BookingHold {
        let check = Self.check(start: start, end: end, now: now)
        return try store.withLockedType(type.id, owner: type.owner, now: now) {
            (locked) throws(StoreError) -> BookingHold in
            let situation = try locked.situation(
                in: BookingRules.around(start: start, end: end, locked.type), ownHold: nil, ownBooking: nil)
            let hosts = try BookingRules.seated(try check(situation), locked.type)
            let hold = BookingHold(
                id: BookingHold.newIdentifier(), type: type.id, start: start, end: end,
                recurrenceID: try BookingRules.seat(at: start, in: situation)?.recurrenceID,
                expires: now + locked.type.holdSeconds, hosts: hosts)
            try locked.insert(hold)
            return hold
        }
    }

    /// Books a slot (writing its event) or a seat (adding the booker as an attendee of
    /// the class occurrence; on a waiting list when the class is full and the type keeps
    /// one), checked under the booking calendar's lock; a group type's booking writes the
    /// event into each host's calendar it takes. A request with the
    /// ``BookingRequest/retryKey`` of a booking that still stands answers that booking
    /// with `isNew` false.
    public func book(_ request: BookingRequest, type: BookingType, now: Int) throws(StoreError) -> (
        booking: Booking, isNew: Bool
    ) {
        try BookingRules.validate(request)
        let check = Self.check(start: request.start, end: request.end, now: now)
        return try store.withLockedType(type.id, owner: type.owner, now: now) {
            (locked) throws(StoreError) -> (booking: Booking, isNew: Bool) in
            let type = locked.type
            // A retry of this very request (its own key) answers the booking it made, while
            // that stands: sent again after a cancellation, it books anew.
            if let key = request.retryKey, let existing = try locked.booking(retryKey: key) { return (existing, false) }
            if let hold = request.hold {
                guard let held = try locked.hold(id: hold), held.start == request.start, held.end == request.end else {
                    throw StoreError(.slotTaken, "the hold \(hold) ran out or is of another slot", resource: hold)
                }
            }
            let situation = try locked.situation(
                in: BookingRules.around(start: request.start, end: request.end, type), ownHold: request.hold,
                ownBooking: nil)
            let seat = try BookingRules.seat(at: request.start, in: situation)
            // The same rules for a seat and for the waiting list: a class that has begun,
            // is too soon or too far ahead is refused either way.
            let decision = try check(situation)
            var status = Booking.Status.confirmed
            var hosts = decision.hosts
            if decision.isFull {
                guard type.waitlist else { throw StoreError(.slotTaken, "the class at that time is full") }
                // A waiting list as long as the class is big (at least 10, at most 100):
                // strangers cannot add rows without end.
                guard
                    try locked.waitingCount(start: request.start)
                        < min(Booking.maxWaiting, max(10, seat?.capacity ?? 1))
                else { throw StoreError(.slotTaken, "the class at that time is full, and so is its waiting list") }
                status = .waitlisted
                hosts = []
            }
            var booking = Booking(
                id: Booking.newIdentifier(), type: type.id, owner: type.owner, calendar: type.calendar,
                eventIdentifier: nil, recurrenceID: seat?.recurrenceID, start: request.start, end: request.end,
                name: request.name, email: request.email, note: request.note, status: status, created: now,
                modified: now, timeZone: request.timeZone)
            if let seat {
                booking.eventIdentifier = try locked.eventIdentifier(of: type.classEvent ?? "")
                booking.end = seat.end
                if status == .confirmed { try Self.addAttendee(booking, locked) }
            } else if !type.hosts.isEmpty {
                booking.hosts = hosts
                booking.events = try Self.writeHostEvents(booking, locked)
                booking.eventIdentifier = booking.events.first
            } else {
                booking.eventIdentifier = try locked.createEvent(
                    BookingRules.event(for: booking, type: type, calendar: type.calendar))
            }
            try locked.insert(
                booking, cancelTokenHash: request.cancelTokenHash, rescheduleTokenHash: request.rescheduleTokenHash,
                retryKey: request.retryKey)
            if let hold = request.hold { try locked.removeHold(id: hold) }
            if status == .confirmed { try locked.tell(.bookingCreated, booking) }
            return (booking, true)
        }
    }

    /// Cancels a booking: a slot's events get STATUS:CANCELLED (synced devices show them
    /// cancelled); a seat's attendee is removed, and the first on the waiting list, if
    /// any, takes the seat when the class is still on offer with a seat by the same rules
    /// as a booking. Cancelling a cancelled booking changes nothing. The booking
    /// cancelled, and the one that took its seat, if any.
    public func cancel(_ booking: Booking, now: Int) throws(StoreError) -> (cancelled: Booking, promoted: Booking?) {
        let promote = Self.check(start: booking.start, end: booking.end, now: now)
        return try store.withLockedBooking(booking.id, owner: booking.owner, now: now) {
            (locked, booking) throws(StoreError) -> (cancelled: Booking, promoted: Booking?) in
            guard booking.status != .cancelled else { return (booking, nil) }
            let wasConfirmed = booking.status == .confirmed
            var booking = booking
            booking.status = .cancelled
            booking.modified = now
            booking.sequence += 1
            try locked.update(booking)
            var promoted: Booking?
            if locked.type.isSeated {
                guard wasConfirmed else { return (booking, nil) }
                // A class occurrence since removed has no attendee to take out.
                try Self.unlessGone { () throws(StoreError) in try Self.removeAttendee(booking, locked) }
                if var next = try locked.firstWaiting(start: booking.start),
                    let decision = try? promote(
                        try locked.situation(
                            in: BookingRules.around(start: next.start, end: next.end, locked.type), ownHold: nil,
                            ownBooking: nil)),
                    !decision.isFull
                {
                    try Self.addAttendee(next, locked)
                    next.status = .confirmed
                    next.modified = now
                    try locked.update(next)
                    try locked.tell(.bookingCreated, next)
                    promoted = next
                }
            } else if !booking.events.isEmpty || booking.eventIdentifier != nil {
                // An event the owner has since deleted needs no cancelling.
                for identifier in booking.events.isEmpty ? [booking.eventIdentifier ?? ""] : booking.events {
                    try Self.unlessGone { () throws(StoreError) in
                        try Self.move(identifier, to: nil, declining: booking.id, locked)
                    }
                }
            }
            try locked.tell(.bookingCancelled, booking)
            return (booking, promoted)
        }
    }

    /// Moves a confirmed booking to `start..<end` (a seat: to the occurrence starting
    /// then) when it is free, the booking's own time left out of the busy time; a group
    /// booking's hosts it keeps move their event, those it leaves cancel theirs, new ones
    /// get one.
    public func reschedule(_ booking: Booking, start: Int, end: Int, now: Int) throws(StoreError) -> Booking {
        let check = Self.check(start: start, end: end, now: now)
        return try store.withLockedBooking(booking.id, owner: booking.owner, now: now) {
            (locked, booking) throws(StoreError) -> Booking in
            guard booking.status == .confirmed else {
                throw StoreError(.invalidArgument, "only a confirmed booking moves (this one is \(booking.status))")
            }
            guard start < end else { throw StoreError(.invalidArgument, "a booking ends after it starts") }
            let situation = try locked.situation(
                in: BookingRules.around(start: start, end: end, locked.type), ownHold: nil, ownBooking: booking)
            let hosts = try BookingRules.seated(try check(situation), locked.type)
            var booking = booking
            if !locked.type.hosts.isEmpty {
                var kept: [String: String] = [:]
                for (host, identifier) in zip(booking.hosts, booking.events) {
                    if hosts.contains(host) {
                        kept[host] = identifier
                        try Self.move(identifier, to: (start, end), locked)
                    } else {
                        try Self.unlessGone { () throws(StoreError) in try Self.move(identifier, to: nil, locked) }
                    }
                }
                booking.start = start
                booking.end = end
                let added = hosts.filter { kept[$0] == nil }
                var fresh = booking
                fresh.hosts = added
                var made = Dictionary(uniqueKeysWithValues: zip(added, try Self.writeHostEvents(fresh, locked)))
                booking.hosts = hosts
                booking.events = hosts.compactMap { kept[$0] ?? made.removeValue(forKey: $0) }
                booking.eventIdentifier = booking.events.first
            } else if let seat = try BookingRules.seat(at: start, in: situation) {
                try Self.removeAttendee(booking, locked)
                booking.start = seat.start
                booking.end = seat.end
                booking.recurrenceID = seat.recurrenceID
                try Self.addAttendee(booking, locked)
            } else if let identifier = booking.eventIdentifier {
                try Self.move(identifier, to: (start, end), locked)
                booking.start = start
                booking.end = end
            }
            booking.modified = now
            booking.sequence += 1
            try locked.update(booking)
            try locked.tell(.bookingRescheduled, booking)
            return booking
        }
    }

    // MARK: What a booking writes

    /// A group booking's event in each of its hosts' calendars (one UID for all), in the
    /// hosts' order; their identifiers.
    static func writeHostEvents(_ booking: Booking, _ locked: any BookingTransaction) throws(StoreError) -> [String] {
        var written: [String] = []
        for name in booking.hosts {
            guard let host = locked.type.hosts.first(where: { $0.name == name }) else {
                throw StoreError(.slotTaken, "\(locked.type.title) has no host \(name) any more")
            }
            var event = BookingRules.event(for: booking, type: locked.type, calendar: host.calendar)
            event.component.setProperty(Property(name: "UID", value: booking.id + "@almanac"))
            event.component.setProperty(Property(name: "X-ALMANAC-HOST", text: name))
            if let identifier = try locked.createEvent(event) { written.append(identifier) }
        }
        return written
    }

    static func addAttendee(_ booking: Booking, _ locked: any BookingTransaction) throws(StoreError) {
        var event = try locked.occurrence(of: booking.eventIdentifier ?? "", startingAt: booking.start)
        event.attendees.append(BookingRules.attendee(booking))
        try locked.save(event)
    }

    static func removeAttendee(_ booking: Booking, _ locked: any BookingTransaction) throws(StoreError) {
        var event = try locked.occurrence(of: booking.eventIdentifier ?? "", startingAt: booking.start)
        event.attendees.removeAll {
            $0.otherParameters.contains { $0.name == "X-ALMANAC-BOOKING" && $0.value == booking.id }
        }
        try locked.save(event)
    }

    /// Moves a booking's event to new times (nil: cancels it), one SEQUENCE on. A booker
    /// who cancels (`declining`, their booking's id) is marked as having declined, so no
    /// page says they are coming.
    static func move(
        _ identifier: String, to times: (start: Int, end: Int)?, declining booking: String? = nil,
        _ locked: any BookingTransaction
    ) throws(StoreError) {
        var event = try locked.event(identifier)
        if let times {
            event.start = DateTimeValue(CivilDateTime(secondsSinceEpoch: times.start), form: .utc)
            event.end = DateTimeValue(CivilDateTime(secondsSinceEpoch: times.end), form: .utc)
        } else {
            event.component.setProperty(Property(name: "STATUS", value: "CANCELLED"))
        }
        for index in event.attendees.indices
        where event.attendees[index].otherParameters.contains(where: {
            $0.name == "X-ALMANAC-BOOKING" && $0.value == booking
        }) {
            event.attendees[index].participationStatus = "DECLINED"
        }
        event.sequence += 1
        try locked.save(event)
    }

    /// Runs `body`, taking a missing event or class occurrence for done.
    static func unlessGone(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        do { try body() } catch  where error.code == .notFound || error.code == .slotTaken {}
    }
}
