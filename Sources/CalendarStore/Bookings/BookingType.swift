/// What can be booked with a user, and how: the calendars whose busy time blocks it,
/// the calendar bookings are written to, the schedule it follows, and the rules that cut
/// free time into slots. A seated type books seats of a class (the occurrences of one
/// recurring event) instead of whole slots.
public struct BookingType: Sendable, Hashable {
    /// `bt_` and 24 hex digits.
    public var id: String
    /// The user whose calendars and schedule it uses.
    public var owner: String
    /// Where the public booking page is (`/book/{slug}`); nil for none. Lower-case letters,
    /// digits and `-`, unique on the server.
    public var slug: String?
    /// Shown on the booking page; a slot's event is titled with it and the booker's name. 1 to 500 bytes.
    public var title: String
    /// Text for the booking page; nil for none. At most 10,000 bytes.
    public var description: String?
    /// Where bookings take place, written into a slot's event; nil for none. At most 10,000 bytes.
    public var location: String?
    /// The lengths a booker may choose, in seconds; the first is the default.
    public var durations: [Int]
    /// The calendar bookings are written to (the owner's, or one shared with them read-write).
    public var calendar: String
    /// The calendars whose busy time blocks a slot; nil for every calendar the owner sees.
    /// The booking calendar always counts.
    public var busyCalendars: [String]?
    /// The schedule it follows; nil for the owner's default (all day when they have none).
    public var schedule: String?
    /// Seconds kept free before and after each booking.
    public var bufferBefore: Int
    /// Seconds kept free after each booking.
    public var bufferAfter: Int
    /// Seconds between now and the earliest bookable start.
    public var notice: Int
    /// How many days ahead may be booked; nil for no limit.
    public var windowDays: Int?
    /// Seconds between slot starts; nil for the chosen duration.
    public var step: Int?
    /// At most this many bookings of this type a day or a week (in the schedule's zone).
    public var dailyLimit: Int?
    /// At most this many bookings of this type a week (in the schedule's zone); nil for no limit.
    public var weeklyLimit: Int?
    /// Seats per occurrence of ``classEvent``: a seated type (nil for one booker per slot).
    /// An occurrence's or the series' `X-ALMANAC-CAPACITY` overrides it.
    public var capacity: Int?
    /// The recurring event whose occurrences a seated type books seats of.
    public var classEvent: String?
    /// Whether a full occurrence takes bookings on a waiting list, promoted in order as seats free up.
    public var waitlist: Bool
    /// How long a hold keeps a slot, in seconds.
    public var holdSeconds: Int
    /// The people a group type books (none: the type's own calendars alone), and how:
    /// everyone free at once, any one of them (assigned fairly), or at least
    /// ``groupMinimum`` of them.
    public var hosts: [BookingHost]
    /// How ``hosts`` make a slot; ``GroupMode/single`` for a type without hosts.
    public var groupMode: GroupMode
    /// How many hosts an ``GroupMode/nOfGroup`` booking takes; nil for every other mode.
    public var groupMinimum: Int?
    /// Whether all-day events (not marked TRANSP:TRANSPARENT) block the day; true by
    /// default, so a trainer's day off in the calendar is never booked.
    public var allDayIsBusy: Bool
    /// Whether the owner (a group type's hosts booked) gets a mail when a booker books,
    /// moves or cancels (with a relay, `serve --smtp`); true by default.
    public var notifyHost: Bool
    /// When the type was created, in Unix seconds (set by the store).
    public var created: Int
    /// When the type last changed, in Unix seconds; set by the store and part of ``etag``.
    public var modified: Int

    /// How a group type's hosts make a slot.
    public enum GroupMode: String, Sendable, Hashable, CaseIterable {
        /// One host: the type's own calendars (no `hosts`).
        case single
        /// Every host free; the booking goes into each host's calendar.
        case collective
        /// Any one host free; the booking goes to the free host with the fewest bookings
        /// of this type in the booking window (ties: the first listed).
        case roundRobin = "round-robin"
        /// At least `groupMinimum` hosts free; that many are booked, fewest bookings first.
        case nOfGroup = "n-of-group"
    }

    /// How many hosts a booking of this type takes.
    public var hostsNeeded: Int {
        switch groupMode {
        case .single: 0
        case .collective: hosts.count
        case .roundRobin: 1
        case .nOfGroup: groupMinimum ?? 1
        }
    }

    /// Creates a type with a new identifier and the defaults a new type gets; `created` and `modified`
    /// are set by the store when it is saved.
    public init(
        id: String = BookingType.newIdentifier(), owner: String, slug: String? = nil, title: String,
        description: String? = nil, location: String? = nil, durations: [Int], calendar: String,
        busyCalendars: [String]? = nil, schedule: String? = nil, bufferBefore: Int = 0, bufferAfter: Int = 0,
        notice: Int = 0, windowDays: Int? = nil, step: Int? = nil, dailyLimit: Int? = nil, weeklyLimit: Int? = nil,
        capacity: Int? = nil, classEvent: String? = nil, waitlist: Bool = false,
        holdSeconds: Int = BookingType.defaultHoldSeconds, hosts: [BookingHost] = [], groupMode: GroupMode = .single,
        groupMinimum: Int? = nil, allDayIsBusy: Bool = true, notifyHost: Bool = true, created: Int = 0,
        modified: Int = 0
    ) {
        self.id = id
        self.owner = owner
        self.slug = slug
        self.title = title
        self.description = description
        self.location = location
        self.durations = durations
        self.calendar = calendar
        self.busyCalendars = busyCalendars
        self.schedule = schedule
        self.bufferBefore = bufferBefore
        self.bufferAfter = bufferAfter
        self.notice = notice
        self.windowDays = windowDays
        self.step = step
        self.dailyLimit = dailyLimit
        self.weeklyLimit = weeklyLimit
        self.capacity = capacity
        self.classEvent = classEvent
        self.waitlist = waitlist
        self.holdSeconds = holdSeconds
        self.hosts = hosts
        self.groupMode = groupMode
        self.groupMinimum = groupMinimum
        self.allDayIsBusy = allDayIsBusy
        self.notifyHost = notifyHost
        self.created = created
        self.modified = modified
    }

    /// Whether it books seats of ``classEvent`` rather than whole slots.
    public var isSeated: Bool { classEvent != nil }

    /// Quoted; changes whenever the type does.
    public var etag: String { "\"" + id + "-" + String(modified) + "\"" }

    /// A new random identifier: `bt_` and 24 hex digits.
    public static func newIdentifier() -> String { "bt_" + Identifiers.randomHex(bytes: 12) }

    /// The hold time a new type gets: five minutes, in seconds.
    public static let defaultHoldSeconds = 300
    /// Bounds the store enforces.
    public static let maxPerUser = 100
    /// The most durations a type offers.
    public static let maxDurations = 10
    /// The longest title, in UTF-8 bytes.
    public static let maxTitleBytes = 500
    /// The longest description or location, in UTF-8 bytes.
    public static let maxTextBytes = 10_000
    /// The most calendars ``busyCalendars`` may name.
    public static let maxBusyCalendars = 100
    /// Durations, buffers, notice and steps: at most 31 days; holds at most an hour.
    public static let maxSeconds = 31 * 86_400
    /// The longest hold time, in seconds.
    public static let maxHoldSeconds = 3_600
    /// The largest ``windowDays``.
    public static let maxWindowDays = 3_660
    /// The most seats of a class occurrence.
    public static let maxCapacity = 10_000
    /// The most hosts a group type has.
    public static let maxHosts = 50

    /// Whether `slug` may name a booking page (`manage` and `reschedule` name the
    /// booker's pages).
    public static func isValidSlug(_ slug: String) -> Bool {
        guard slug != "manage", slug != "reschedule" else { return false }
        let bytes = Array(slug.utf8)
        guard (1...64).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-")
        else { return false }
        return bytes.allSatisfy { (0x61...0x7a).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2d }
    }
}

/// One person of a group booking type, as the owner sees them: the calendar their
/// bookings go to (the owner's, or one shared with the owner read-write), the calendars
/// whose busy time is theirs (nil: that calendar alone), and the schedule they follow
/// (one of the owner's; nil: the type's).
public struct BookingHost: Sendable, Hashable {
    /// 1 to 100 bytes on one line, without commas; unique in the type.
    public var name: String
    /// The calendar the host's bookings are written to.
    public var calendar: String
    /// The calendars whose busy time is the host's; nil for ``calendar`` alone.
    public var busyCalendars: [String]?
    /// The owner's schedule the host follows; nil for the type's.
    public var schedule: String?

    /// Creates a host; the store checks the calendars and schedule when the type is saved.
    public init(name: String, calendar: String, busyCalendars: [String]? = nil, schedule: String? = nil) {
        self.name = name
        self.calendar = calendar
        self.busyCalendars = busyCalendars
        self.schedule = schedule
    }
}

/// A booked slot or seat: the event it wrote (or the attendee it added to a class
/// occurrence), who booked it, and its state.
public struct Booking: Sendable, Hashable {
    /// The longest waiting list of a class occurrence (it is as long as the class is big,
    /// at least 10).
    public static let maxWaiting = 100

    /// `bk_` and 24 hex digits.
    public var id: String
    /// The identifier of its booking type.
    public var type: String
    /// The user who owns the booking type.
    public var owner: String
    /// The identifier of the calendar the booking was written to.
    public var calendar: String
    /// The event written for it, or the class it holds a seat of (for a group type, the
    /// first of ``events``).
    public var eventIdentifier: String?
    /// The class occurrence of a seat (the RECURRENCE-ID text); nil for a whole slot.
    public var recurrenceID: String?
    /// Unix seconds.
    public var start: Int
    /// When the booked slot (or class occurrence) ends, in Unix seconds.
    public var end: Int
    /// The booker's name; at most 200 bytes.
    public var name: String
    /// The booker's e-mail address; at most 254 bytes.
    public var email: String
    /// What the booker wrote with it; nil for nothing. At most 2,000 bytes.
    public var note: String?
    /// Whether it stands, was cancelled or waits for a seat.
    public var status: Status
    /// When it was booked, in Unix seconds.
    public var created: Int
    /// When it last changed (cancelled, rescheduled, promoted), in Unix seconds.
    public var modified: Int
    /// A group booking's hosts and the event it wrote in each one's calendar, in order.
    public var hosts: [String] = []
    /// The event written in each of ``hosts``' calendars, in the same order.
    public var events: [String] = []
    /// The zone the booker booked in (an IANA name), which their pages and messages
    /// show the booking in; nil when they gave none.
    public var timeZone: String? = nil
    /// The booking's iTIP SEQUENCE: 0 when made, one more at each move and at its
    /// cancellation, so the booker's calendar takes each message over the one before.
    public var sequence: Int = 0

    /// The state of a booking.
    public enum Status: String, Sendable, Hashable {
        /// Booked: the slot or seat is taken.
        case confirmed
        /// Cancelled by the booker or the owner; it no longer takes the slot or seat.
        case cancelled
        /// Waiting for a seat of a full occurrence.
        case waitlisted
    }

    /// A booking as the rules make it (the identifier from ``newIdentifier()``).
    public init(
        id: String, type: String, owner: String, calendar: String, eventIdentifier: String?, recurrenceID: String?,
        start: Int, end: Int, name: String, email: String, note: String?, status: Status, created: Int,
        modified: Int, hosts: [String] = [], events: [String] = [], timeZone: String? = nil, sequence: Int = 0
    ) {
        self.id = id
        self.type = type
        self.owner = owner
        self.calendar = calendar
        self.eventIdentifier = eventIdentifier
        self.recurrenceID = recurrenceID
        self.start = start
        self.end = end
        self.name = name
        self.email = email
        self.note = note
        self.status = status
        self.created = created
        self.modified = modified
        self.hosts = hosts
        self.events = events
        self.timeZone = timeZone
        self.sequence = sequence
    }

    /// A new random identifier: `bk_` and 24 hex digits.
    public static func newIdentifier() -> String { "bk_" + Identifiers.randomHex(bytes: 12) }

    /// The longest booker's name, in UTF-8 bytes.
    public static let maxNameBytes = 200
    /// The longest e-mail address, in UTF-8 bytes.
    public static let maxEmailBytes = 254
    /// The longest note, in UTF-8 bytes.
    public static let maxNoteBytes = 2_000
}

/// A slot (or a seat) kept for a booker for a short time: it counts as busy for every
/// other booker until it is booked, released or runs out.
public struct BookingHold: Sendable, Hashable {
    /// `hd_` and 24 hex digits: whoever knows it may book the slot it holds.
    public var id: String
    /// The identifier of its booking type.
    public var type: String
    /// Start of the held slot, in Unix seconds.
    public var start: Int
    /// End of the held slot, in Unix seconds.
    public var end: Int
    /// The class occurrence of a held seat.
    public var recurrenceID: String?
    /// Unix seconds.
    public var expires: Int
    /// The hosts a group type's hold keeps.
    public var hosts: [String] = []

    /// A hold as the rules make it (the identifier from ``newIdentifier()``).
    public init(
        id: String, type: String, start: Int, end: Int, recurrenceID: String?, expires: Int, hosts: [String] = []
    ) {
        self.id = id
        self.type = type
        self.start = start
        self.end = end
        self.recurrenceID = recurrenceID
        self.expires = expires
        self.hosts = hosts
    }

    /// A new random identifier: `hd_` and 24 hex digits.
    public static func newIdentifier() -> String { "hd_" + Identifiers.randomHex(bytes: 12) }
}

/// A class occurrence as a seated type sees it.
public struct ClassOccurrence: Sendable, Hashable {
    /// When the occurrence starts, in Unix seconds.
    public var start: Int
    /// When the occurrence ends, in Unix seconds.
    public var end: Int
    /// The RECURRENCE-ID text (nil for a one-off class).
    public var recurrenceID: String?
    /// Seats: the occurrence's `X-ALMANAC-CAPACITY`, else the series', else the type's, else 1.
    public var capacity: Int
    /// Attendees that have not declined, booked here or not.
    public var taken: Int
    /// Whether the occurrence is cancelled (STATUS:CANCELLED).
    public var isCancelled: Bool
}

/// What a booking decision reads, gathered in one transaction: the busy time of the
/// type's calendars, the holds of other bookers, the type's bookings around the slot
/// (for the daily and weekly limits) and, for a seated type, the class occurrences.
public struct BookingSituation: Sendable {
    /// The booking type decided about.
    public var type: BookingType
    /// The type's schedule, else the owner's default; nil when the owner has none.
    public var schedule: StoredSchedule?
    /// Busy time of the type's calendars in the range; empty for a seated or group type.
    public var busy: [BusyTime]
    /// Other bookers' holds of the type live at the time asked, overlapping the range.
    public var holds: [BookingHold]
    /// The type's confirmed bookings from 8 days before the range to 8 days after (for the limits).
    public var bookings: [Booking]
    /// A seated type's class occurrences in the range; empty for other types.
    public var occurrences: [ClassOccurrence]
    /// A group type's hosts, each with what decides their slots (in the type's order).
    public var hosts: [HostSituation] = []
    /// The bookings of this type from now to the end of its window (or the situation's
    /// range without one): a round-robin's fairness counts them per host.
    public var windowBookings: [Booking] = []
}

/// One host of a group type in a ``BookingSituation``.
public struct HostSituation: Sendable {
    /// The host as the type names them.
    public var host: BookingHost
    /// The host's schedule, else the type's.
    public var schedule: StoredSchedule?
    /// Busy time of the host's calendars in the range.
    public var busy: [BusyTime]
    /// The live holds and confirmed bookings (around the range) that take this host.
    public var holds: [BookingHold]
    /// The confirmed bookings around the range that take this host.
    public var bookings: [Booking]
}

/// A booking to make: a slot (start and end), or a seat of the class occurrence
/// starting at `start`.
public struct BookingRequest: Sendable {
    /// The identifier of the booking type.
    public var type: String
    /// The slot's start (for a seat, the class occurrence's), in Unix seconds.
    public var start: Int
    /// The slot's end, in Unix seconds.
    public var end: Int
    /// The booker's name.
    public var name: String
    /// The booker's e-mail address.
    public var email: String
    /// What the booker wrote; nil for nothing.
    public var note: String?
    /// A hold of the same slot the booker made, which this booking consumes.
    public var hold: String?
    /// SHA-256 hex of the tokens the booker gets (the store keeps only the hashes).
    public var cancelTokenHash: String
    /// SHA-256 hex of the reschedule token.
    public var rescheduleTokenHash: String
    /// What recognizes a repeat of this very request (the public page: a hash of the
    /// visitor's own form token and the time), so a double submit answers the booking
    /// made instead of booking twice; nil: every request books. Nothing a stranger knows
    /// (an e-mail address) finds another booker's booking.
    public var retryKey: String?
    /// The zone the booker books in (an IANA name); nil for none.
    public var timeZone: String?

    /// Creates a request; the rules check the name, e-mail, note and zone when it books.
    public init(
        type: String, start: Int, end: Int, name: String, email: String, note: String? = nil, hold: String? = nil,
        cancelTokenHash: String, rescheduleTokenHash: String, retryKey: String? = nil, timeZone: String? = nil
    ) {
        self.retryKey = retryKey
        self.timeZone = timeZone
        self.type = type
        self.start = start
        self.end = end
        self.name = name
        self.email = email
        self.note = note
        self.hold = hold
        self.cancelTokenHash = cancelTokenHash
        self.rescheduleTokenHash = rescheduleTokenHash
    }
}
