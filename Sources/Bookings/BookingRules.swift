import Accounts
import CalendarStore
import CivilTime
import ICalendar

/// What a slot rule decides about a slot in a ``BookingSituation`` (it throws
/// `slotTaken` when the slot is not on offer at all): the hosts a group type's booking
/// takes, and whether a class occurrence that is on offer has no seat left (only its
/// waiting list takes a booker then).
struct SlotDecision: Sendable, Hashable {
    /// The names of the hosts a group type's booking takes (empty for other types).
    var hosts: [String] = []
    /// Whether the class occurrence has no seat left, so only its waiting list takes the booker.
    var isFull = false
}

/// The rules every path that takes a slot or a seat runs inside the store's transaction
/// (a hold, a booking, the waiting list, a reschedule, a promotion from the waiting list).
typealias SlotRule = (BookingSituation) throws(StoreError) -> SlotDecision

/// The booking rules that need no store: what a type and a request may hold, and what a
/// booking writes into the calendar.
public enum BookingRules {
    /// Every way a type's own fields can be refused (what it names, the store checks).
    public static func validate(_ type: BookingType) throws(StoreError) {
        func check(_ condition: Bool, _ message: String) throws(StoreError) {
            if !condition { throw StoreError(.invalidArgument, message) }
        }
        func inRange(_ value: Int?, _ range: ClosedRange<Int>, _ name: String) throws(StoreError) {
            guard let value else { return }
            try check(range.contains(value), "\(name) is \(range.lowerBound) to \(range.upperBound)")
        }
        try check(
            !type.title.isEmpty && type.title.utf8.count <= BookingType.maxTitleBytes,
            "a booking type's title is 1 to \(BookingType.maxTitleBytes) bytes")
        for text in [type.description, type.location] {
            try check((text?.utf8.count ?? 0) <= BookingType.maxTextBytes, "a text is at most 10,000 bytes")
        }
        if let slug = type.slug {
            try check(
                BookingType.isValidSlug(slug),
                "a slug is 1 to 64 lower-case letters, digits and '-' (not first or last)")
        }
        try check(
            (1...BookingType.maxDurations).contains(type.durations.count),
            "a booking type has 1 to \(BookingType.maxDurations) durations")
        for duration in type.durations {
            try check(
                (60...BookingType.maxSeconds).contains(duration) && duration % 60 == 0,
                "a duration is whole minutes, a minute to 31 days")
        }
        try check(Set(type.durations).count == type.durations.count, "durations are different from each other")
        for value in [type.bufferBefore, type.bufferAfter, type.notice] {
            try inRange(value, 0...BookingType.maxSeconds, "a buffer or notice (seconds)")
        }
        try inRange(type.step, 60...BookingType.maxSeconds, "step (seconds)")
        try inRange(type.windowDays, 1...BookingType.maxWindowDays, "windowDays")
        try inRange(type.dailyLimit, 1...10_000, "dailyLimit")
        try inRange(type.weeklyLimit, 1...10_000, "weeklyLimit")
        try inRange(type.capacity, 1...BookingType.maxCapacity, "capacity")
        try inRange(type.holdSeconds, 30...BookingType.maxHoldSeconds, "holdSeconds")
        if type.capacity != nil || type.waitlist {
            try check(type.classEvent != nil, "seats (capacity, waitlist) are of a class: name its classEvent")
        }
        if let busy = type.busyCalendars {
            try check(
                busy.count <= BookingType.maxBusyCalendars, "at most \(BookingType.maxBusyCalendars) busy calendars")
        }
        try check(
            (type.groupMode == .single) == type.hosts.isEmpty,
            "a group type (collective, round-robin, n-of-group) has hosts, and only a group type has them")
        try check(type.hosts.count <= BookingType.maxHosts, "a group has at most \(BookingType.maxHosts) hosts")
        try check(type.hosts.isEmpty || type.classEvent == nil, "a class with seats is not a group type")
        try check(
            Set(type.hosts.map(\.name)).count == type.hosts.count, "each host of a group has a name of its own")
        if type.groupMode == .nOfGroup {
            try check(
                (1...max(1, type.hosts.count)).contains(type.groupMinimum ?? 0),
                "n-of-group needs groupMinimum, 1 to the number of hosts")
        } else {
            try check(type.groupMinimum == nil, "groupMinimum belongs to n-of-group")
        }
        for host in type.hosts {
            let name = host.name.utf8
            try check(
                !name.isEmpty && name.count <= 100 && !name.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == 0x2c }),
                "a host's name is 1 to 100 bytes on one line, without commas")
            for identifier in host.busyCalendars ?? [] {
                try check(!identifier.contains(","), "a calendar id has no comma")
            }
        }
    }

    /// The request's own fields: the booker's name, e-mail and note within bounds and
    /// free of what could break the lines they are written into.
    public static func validate(_ request: BookingRequest) throws(StoreError) {
        let name = request.name.utf8
        guard !name.isEmpty, name.count <= Booking.maxNameBytes, !name.contains(where: { $0 < 0x20 || $0 == 0x7f })
        else { throw StoreError(.invalidArgument, "a name is 1 to \(Booking.maxNameBytes) bytes, on one line") }
        guard EmailAddress.isDeliverable(request.email, maxBytes: Booking.maxEmailBytes) else {
            throw StoreError(.invalidArgument, "the e-mail address is not one (name@example.com)")
        }
        if let note = request.note {
            guard note.utf8.count <= Booking.maxNoteBytes else {
                throw StoreError(.invalidArgument, "a note is at most \(Booking.maxNoteBytes) bytes")
            }
            if let scalar = ValueCharacters.forbidden(in: note, allowingLineBreaks: true) {
                throw StoreError(
                    .invalidArgument, "the note holds \(ValueCharacters.name(of: scalar)), which iCalendar cannot store"
                )
            }
        }
        guard request.start < request.end else { throw StoreError(.invalidArgument, "a booking ends after it starts") }
        if let zone = request.timeZone, TimeZoneDatabase.zone(named: zone) == nil {
            throw StoreError(.invalidArgument, "unknown time zone \(zone) (an IANA name such as Europe/Berlin)")
        }
    }

    /// The event a slot's booking writes: the type's title and the booker's name, the
    /// booker as an accepted attendee, the note and the type's location.
    static func event(for booking: Booking, type: BookingType, calendar: String) -> Event {
        var event = Event(
            title: type.title + ": " + booking.name,
            start: DateTimeValue(CivilDateTime(secondsSinceEpoch: booking.start), form: .utc),
            end: DateTimeValue(CivilDateTime(secondsSinceEpoch: booking.end), form: .utc),
            calendarIdentifier: calendar)
        event.notes = booking.note
        event.location = type.location
        event.attendees = [attendee(booking)]
        event.component.setProperty(Property(name: "X-ALMANAC-BOOKING", value: booking.id))
        return event
    }

    /// The booker as an attendee, marked with the booking's id.
    static func attendee(_ booking: Booking) -> Participant {
        var attendee = Participant(
            address: "mailto:" + booking.email, name: booking.name, participationStatus: "ACCEPTED",
            role: "REQ-PARTICIPANT")
        attendee.otherParameters = [Parameter(name: "X-ALMANAC-BOOKING", value: booking.id)]
        return attendee
    }

    /// The range a decision about `start..<end` reads: the buffers and a day either side.
    static func around(start: Int, end: Int, _ type: BookingType) -> TimeRange {
        let margin = type.bufferBefore + type.bufferAfter + 86_400
        return TimeRange(start: start.subtractingSaturated(margin), end: end.addingSaturated(margin))
    }

    /// The hosts a decision takes, when it leaves a seat (a hold and a reschedule take no
    /// place on a waiting list).
    static func seated(_ decision: SlotDecision, _ type: BookingType) throws(StoreError) -> [String] {
        guard !decision.isFull else {
            throw StoreError(.slotTaken, "the class of \(type.title) at that time is full")
        }
        return decision.hosts
    }

    /// For a seated type, the class occurrence starting at `start` (it must exist); nil
    /// for a type of whole slots.
    static func seat(at start: Int, in situation: BookingSituation) throws(StoreError) -> ClassOccurrence? {
        guard situation.type.isSeated else { return nil }
        guard let occurrence = situation.occurrences.first(where: { $0.start == start }) else {
            throw StoreError(.slotTaken, "no class of \(situation.type.title) starts then")
        }
        return occurrence
    }
}
