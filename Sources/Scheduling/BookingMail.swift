import CalendarStore
import CivilTime
import ICalendar

/// The mail a booking causes (with a relay, `serve --smtp`): the booker gets the booking
/// as an iMIP invitation (RFC 6047) in their zone, so it lands in their calendar app —
/// `METHOD:REQUEST` when booked and at each move (SEQUENCE one higher each time),
/// `METHOD:CANCEL` when cancelled — with the links that manage it; the type's owner (a
/// group booking's hosts) a short notice of what the booker did, unless the type says
/// otherwise (``BookingType/notifyHost``).
///
/// Composing is pure (``messages(_:booking:type:host:links:byBooker:now:)``); ``post``
/// hands the messages to the server's mail queue: never sent on the request's thread.
public enum BookingMail {
    /// What happened to the booking.
    public enum Change: Sendable {
        case booked
        case moved
        case cancelled
    }

    /// The booker's links, as absolute URLs; nil where the change was not made with the
    /// token behind them (the booker keeps those from their earlier mail).
    public struct Links: Sendable, Hashable {
        public var manage: String?
        public var reschedule: String?

        public init(manage: String? = nil, reschedule: String? = nil) {
            self.manage = manage
            self.reschedule = reschedule
        }
    }

    /// Who the booking is with: the organizer of the booker's invitation.
    public struct Host: Sendable, Hashable {
        public var address: String
        public var name: String?
        /// Those told of the booker's changes (the hosts' first addresses).
        public var notified: [String]
        /// The zone their notice shows the time in (the type's schedule's).
        public var zoneName: String

        public init(address: String, name: String?, notified: [String], zoneName: String) {
            self.address = address
            self.name = name
            self.notified = notified
            self.zoneName = zoneName
        }
    }

    /// The booker's message and, for a change the booker made (`byBooker`) on a type
    /// that wants it, the host's notice. A place on a waiting list is told in text only
    /// (no invitation); the booking that takes a seat later is mailed as booked.
    public static func messages(
        _ change: Change, booking: Booking, type: BookingType, host: Host, links: Links, byBooker: Bool, now: Int
    ) -> [IMIP.Outgoing] {
        var messages = [bookerMessage(change, booking: booking, type: type, host: host, links: links, now: now)]
        if byBooker, type.notifyHost, !host.notified.isEmpty {
            messages.append(hostNotice(change, booking: booking, type: type, host: host, now: now))
        }
        return messages.compactMap { $0 }
    }

    /// What the booker reads: the change and its time in their zone (the host's when
    /// they gave none), the place and their links, with the iTIP message (text only for
    /// a place on a waiting list).
    static func bookerMessage(
        _ change: Change, booking: Booking, type: BookingType, host: Host, links: Links, now: Int
    ) -> IMIP.Outgoing? {
        let zoneName = booking.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) != nil ? $0 : nil } ?? host.zoneName
        let when = (TimeZoneDatabase.zone(named: zoneName) ?? .utc).spanText(
            booking.start, booking.end, zoneName: zoneName)
        let title = host.name.map { "\(type.title) with \($0)" } ?? type.title
        let waiting = booking.status == .waitlisted && change == .booked
        var text: [String]
        let subject: String
        switch change {
        case .booked where waiting:
            subject = "Waiting list: \(title), \(when)"
            text = ["You are on the waiting list for \(title). A mail tells you when a seat is yours."]
        case .booked:
            subject = "Booked: \(title), \(when)"
            text = ["You are booked: \(title)."]
        case .moved:
            subject = "Moved: \(title), \(when)"
            text = ["Your booking moved: \(title)."]
        case .cancelled:
            subject = "Cancelled: \(title)"
            text = ["Your booking is cancelled: \(title)."]
        }
        text.append("When: " + when)
        if let location = type.location, !location.isEmpty { text.append("Where: " + location) }
        if change != .cancelled {
            if let manage = links.manage { text.append("Manage or cancel: " + manage) }
            if let reschedule = links.reschedule { text.append("Reschedule: " + reschedule) }
            if links.manage == nil || links.reschedule == nil {
                text.append("The links in your first confirmation still work.")
            }
            if !waiting { text += ["", "The invitation in this message adds the booking to your calendar."] }
        } else {
            text += ["", "The message takes the booking out of your calendar."]
        }
        return IMIP.message(
            from: host.address, name: host.name, to: [booking.email], subject: subject,
            text: text.joined(separator: "\r\n") + "\r\n",
            itip: waiting ? nil : invitation(change, booking: booking, type: type, host: host, links: links, now: now),
            now: now)
    }

    /// What the host reads of a booker's change: who, their note, the time in the
    /// schedule's zone (text only: the booking is in their calendar already).
    static func hostNotice(_ change: Change, booking: Booking, type: BookingType, host: Host, now: Int)
        -> IMIP.Outgoing?
    {
        let zone = TimeZoneDatabase.zone(named: host.zoneName) ?? .utc
        let verb =
            switch change {
            case .booked: booking.status == .waitlisted ? "joined the waiting list for" : "booked"
            case .moved: "moved"
            case .cancelled: "cancelled"
            }
        let text = [
            "\(booking.name) <\(booking.email)> \(verb) \(type.title).",
            "When: " + zone.spanText(booking.start, booking.end, zoneName: host.zoneName),
            booking.note.map { "Note: " + $0 },
            "",
            "The booking is in your calendar; your Bookings page lists it.",
        ].compactMap { $0 }
        return IMIP.message(
            from: host.address, name: "Almanac bookings", to: host.notified,
            subject: "\(booking.name) \(verb) \(type.title)", text: text.joined(separator: "\r\n") + "\r\n",
            itip: nil, now: now)
    }

    /// The booker's iTIP message: the booking as one event of the host's with the booker
    /// attending (accepted: they chose it), SEQUENCE the booking's.
    static func invitation(
        _ change: Change, booking: Booking, type: BookingType, host: Host, links: Links, now: Int
    ) -> Component {
        var event = Component(name: "VEVENT")
        event.properties = [
            Property(name: "UID", value: booking.id + "@almanac"),
            Property(name: "DTSTAMP", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: now), form: .utc)),
            Property(name: "SEQUENCE", value: String(booking.sequence)),
            Property(
                name: "DTSTART", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: booking.start), form: .utc)),
            Property(name: "DTEND", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: booking.end), form: .utc)),
            Property(name: "SUMMARY", text: host.name.map { "\(type.title) with \($0)" } ?? type.title),
            Property(name: "STATUS", value: change == .cancelled ? "CANCELLED" : "CONFIRMED"),
            Property(
                name: "ORGANIZER", parameters: host.name.map { [Parameter(name: "CN", value: $0)] } ?? [],
                value: "mailto:" + host.address),
            Property(
                name: "ATTENDEE",
                parameters: [
                    Parameter(name: "CN", value: booking.name), Parameter(name: "ROLE", value: "REQ-PARTICIPANT"),
                    Parameter(name: "PARTSTAT", value: change == .cancelled ? "DECLINED" : "ACCEPTED"),
                ], value: "mailto:" + booking.email),
        ]
        if let location = type.location, !location.isEmpty {
            event.setProperty(Property(name: "LOCATION", text: location))
        }
        let notes = [links.manage.map { "Manage or cancel: " + $0 }, links.reschedule.map { "Reschedule: " + $0 }]
            .compactMap { $0 }
        if !notes.isEmpty { event.setProperty(Property(name: "DESCRIPTION", text: notes.joined(separator: "\n"))) }
        if let manage = links.manage { event.setProperty(Property(name: "URL", value: manage)) }
        return Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
                Property(name: "METHOD", value: change == .cancelled ? "CANCEL" : "REQUEST"),
            ], components: [event])
    }

    /// Composes the messages of `change` and queues them on `mail` for the booking's
    /// owner; nothing when the host has no e-mail address to send from. `hostZone` is
    /// the type's schedule's zone.
    public static func post(
        _ change: Change, booking: Booking, type: BookingType, links: Links, byBooker: Bool, hostZone: String,
        backend: any StoreBackend, mail: any IMIPSender, now: Int
    ) {
        guard let host = host(of: booking, backend: backend, zoneName: hostZone) else {
            SchedulingLog.write("almanac: no mail for booking \(booking.id): \(booking.owner) has no e-mail address")
            return
        }
        for message in messages(
            change, booking: booking, type: type, host: host, links: links, byBooker: byBooker, now: now)
        where !mail.post(message, for: booking.owner) {
            SchedulingLog.write("almanac: the mail queue of \(booking.owner) is full; booking \(booking.id) not mailed")
        }
    }

    /// The booking's organizer (its first host's, else the owner's first address and
    /// name) and everyone to notify (each host's first address, else the owner's).
    static func host(of booking: Booking, backend: any StoreBackend, zoneName: String) -> Host? {
        let people = booking.hosts.isEmpty ? [booking.owner] : booking.hosts
        let found: [(address: String, name: String?)] = people.compactMap { name in
            guard let address = (try? backend.addresses(ofUser: name))?.first else { return nil }
            return (address, (try? backend.user(named: name))?.displayName ?? name)
        }
        guard let first = found.first else { return nil }
        return Host(address: first.address, name: first.name, notified: found.map(\.address), zoneName: zoneName)
    }
}
