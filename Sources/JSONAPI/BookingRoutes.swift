import Accounts
import AddToCalendar
import Availability
import Bookings
import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import JSON
import Scheduling
import StoreAdapters

extension APIContext {
    var bookingEngine: BookingEngine { BookingEngine(store: backend.bookings) }

    static let bookingTypeFields: Set<String> = [
        "title", "slug", "description", "location", "durations", "calendar", "busyCalendars", "schedule",
        "bufferBefore", "bufferAfter", "notice", "windowDays", "step", "dailyLimit", "weeklyLimit", "capacity",
        "classEvent", "waitlist", "holdMinutes", "hosts", "groupMode", "groupMinimum", "allDay",
        "hostNotice",
    ]

    static func minutes(_ seconds: Int) -> JSONValue { .integer(seconds / 60) }

    static func json(_ type: BookingType) -> JSONValue {
        func optional(_ value: Int?) -> JSONValue { value.map { .integer($0) } ?? .null }
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        return .object([
            ("id", .string(type.id)), ("title", .string(type.title)), ("slug", text(type.slug)),
            ("description", text(type.description)), ("location", text(type.location)),
            ("durations", .array(type.durations.map(minutes))), ("calendar", .string(type.calendar)),
            ("busyCalendars", type.busyCalendars.map { .array($0.map(JSONValue.string)) } ?? .null),
            ("schedule", text(type.schedule)), ("bufferBefore", minutes(type.bufferBefore)),
            ("bufferAfter", minutes(type.bufferAfter)), ("notice", minutes(type.notice)),
            ("windowDays", optional(type.windowDays)), ("step", type.step.map(minutes) ?? .null),
            ("dailyLimit", optional(type.dailyLimit)), ("weeklyLimit", optional(type.weeklyLimit)),
            ("capacity", optional(type.capacity)), ("classEvent", text(type.classEvent)),
            ("waitlist", .bool(type.waitlist)), ("holdMinutes", minutes(type.holdSeconds)),
            (
                "hosts",
                .array(
                    type.hosts.map { host in
                        .object([
                            ("name", .string(host.name)), ("calendar", .string(host.calendar)),
                            ("busyCalendars", host.busyCalendars.map { .array($0.map(JSONValue.string)) } ?? .null),
                            ("schedule", text(host.schedule)),
                        ])
                    })
            ),
            ("groupMode", .string(type.groupMode.rawValue)), ("groupMinimum", optional(type.groupMinimum)),
            ("allDay", .string(type.allDayIsBusy ? "busy" : "free")), ("hostNotice", .bool(type.notifyHost)),
            ("page", type.slug.map { .string("/book/" + $0) } ?? .null), ("etag", .string(type.etag)),
            ("createdAt", .string(utc(type.created))), ("updatedAt", .string(utc(type.modified))),
        ])
    }

    /// Applies a booking type body's members (minutes for every length).
    func apply(_ body: [String: JSONValue], to type: inout BookingType) throws(APIProblem) {
        func minutes(_ key: String) throws(APIProblem) -> Int? {
            guard let value = body[key] else { return nil }
            switch value {
            case .integer(let minutes) where (0...BookingType.maxSeconds / 60).contains(minutes): return minutes * 60
            case .string(let text):
                if let seconds = Self.durationSeconds(text), seconds <= BookingType.maxSeconds { return seconds }
            default: break
            }
            throw APIModel.wrongType(key, "minutes (0 to 44,640) or an ISO 8601 duration (PT30M)")
        }
        func count(_ key: String) throws(APIProblem) -> Int?? {
            guard let value = body[key] else { return nil }
            switch value {
            case .null: return .some(nil)
            case .integer(let count) where count >= 0 && count <= Int(Int32.max): return count
            default: throw APIModel.wrongType(key, "a count or null")
            }
        }
        func text(_ key: String) throws(APIProblem) -> String?? {
            guard let value = body[key] else { return nil }
            guard let text = try APIModel.optionalString(value, key) else { return .some(nil) }
            return try APIModel.checked(text, key, allowingLineBreaks: key == "description")
        }
        func identifiers(_ key: String) throws(APIProblem) -> [String]?? {
            guard let value = body[key] else { return nil }
            if case .null = value { return .some(nil) }
            guard case .array(let items) = value else { throw APIModel.wrongType(key, "an array of calendar ids") }
            var result: [String] = []
            for item in items {
                guard case .string(let id) = item, !id.contains(",") else {
                    throw APIModel.wrongType(key, "an array of calendar ids")
                }
                result.append(id)
            }
            return result
        }
        if let title = try text("title") {
            guard let title, !title.isEmpty else { throw APIModel.wrongType("title", "a non-empty string") }
            type.title = title
        }
        if let slug = try text("slug") { type.slug = slug }
        if let description = try text("description") { type.description = description }
        if let location = try text("location") { type.location = location }
        if let value = body["durations"] {
            var items: [JSONValue] = [value]
            if case .array(let list) = value { items = list }
            var durations: [Int] = []
            for item in items {
                guard case .integer(let minutes) = item, (1...BookingType.maxSeconds / 60).contains(minutes) else {
                    throw APIModel.wrongType("durations", "minutes, or an array of them (the first is the default)")
                }
                durations.append(minutes * 60)
            }
            type.durations = durations
        }
        if let calendar = try text("calendar") {
            guard let calendar else { throw APIModel.wrongType("calendar", "the id of the calendar bookings go to") }
            type.calendar = calendar
        }
        if let busy = try identifiers("busyCalendars") { type.busyCalendars = busy }
        if let schedule = try text("schedule") { type.schedule = schedule }
        if let value = try minutes("bufferBefore") { type.bufferBefore = value }
        if let value = try minutes("bufferAfter") { type.bufferAfter = value }
        if let value = try minutes("notice") { type.notice = value }
        if let value = try count("windowDays") { type.windowDays = value }
        if body["step"] != nil {
            if case .null? = body["step"] { type.step = nil } else { type.step = try minutes("step") }
        }
        if let value = try count("dailyLimit") { type.dailyLimit = value }
        if let value = try count("weeklyLimit") { type.weeklyLimit = value }
        if let value = try count("capacity") { type.capacity = value }
        if let value = try text("classEvent") { type.classEvent = value }
        if let value = body["waitlist"] {
            guard case .bool(let flag) = value else { throw APIModel.wrongType("waitlist", "true or false") }
            type.waitlist = flag
        }
        if let value = try minutes("holdMinutes") { type.holdSeconds = value }
        if let value = body["groupMode"] {
            guard case .string(let text) = value, let mode = BookingType.GroupMode(rawValue: text) else {
                throw APIModel.wrongType("groupMode", "single, collective, round-robin or n-of-group")
            }
            type.groupMode = mode
        }
        if let value = try count("groupMinimum") { type.groupMinimum = value }
        if let value = body["allDay"] {
            switch value {
            case .string("busy"): type.allDayIsBusy = true
            case .string("free"): type.allDayIsBusy = false
            default: throw APIModel.wrongType("allDay", "busy or free (whether all-day events block the day)")
            }
        }
        if let value = body["hostNotice"] {
            guard case .bool(let notify) = value else {
                throw APIModel.wrongType("hostNotice", "true or false (whether you get a mail when someone books)")
            }
            type.notifyHost = notify
        }
        if let value = body["hosts"] {
            let expected = "an array of {\"name\", \"calendar\", \"busyCalendars\"?, \"schedule\"?}"
            guard case .array(let items) = value, items.count <= BookingType.maxHosts else {
                throw APIModel.wrongType("hosts", expected)
            }
            var hosts: [BookingHost] = []
            for item in items {
                guard case .object(let members) = item,
                    members.allSatisfy({ ["name", "calendar", "busyCalendars", "schedule"].contains($0.key) }),
                    case .string(let name)? = item["name"], case .string(let calendar)? = item["calendar"]
                else { throw APIModel.wrongType("hosts", expected) }
                var host = BookingHost(
                    name: try APIModel.checked(name, "hosts", allowingLineBreaks: false), calendar: calendar)
                switch item["busyCalendars"] {
                case nil, .null?: break
                case .array(let list)?:
                    host.busyCalendars = try list.map { (entry) throws(APIProblem) -> String in
                        guard case .string(let id) = entry else { throw APIModel.wrongType("hosts", expected) }
                        return id
                    }
                default: throw APIModel.wrongType("hosts", expected)
                }
                switch item["schedule"] {
                case nil, .null?: break
                case .string(let id)?: host.schedule = id
                default: throw APIModel.wrongType("hosts", expected)
                }
                hosts.append(host)
            }
            type.hosts = hosts
        }
    }

    // MARK: Booking types

    /// GET /booking-types.
    func listBookingTypes() throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        let types = try attempt { () throws(StoreError) in try backend.bookings.bookingTypes(owner: principal.user) }
        return json(.object([("bookingTypes", .array(types.map(Self.json)))]))
    }

    /// POST /booking-types: `title`, `durations` and `calendar` are required.
    func createBookingType() throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: Self.bookingTypeFields)
        guard body["title"] != nil, body["durations"] != nil, body["calendar"] != nil else {
            throw APIProblem(
                .invalidField, "a booking type needs a title, durations and the calendar bookings go to",
                fields: ["title", "durations", "calendar"])
        }
        var type = BookingType(owner: principal.user, title: "", durations: [], calendar: "")
        try apply(body, to: &type)
        let saved = try attempt { () throws(StoreError) in try bookingEngine.create(type) }
        var response = json(Self.json(saved), status: 201, etag: saved.etag)
        response.headers.set("Location", JSONAPIHandler.prefix + "/booking-types/" + saved.id)
        return response
    }

    func bookingType(_ id: String) throws(APIProblem) -> BookingType {
        try attempt { () throws(StoreError) in try backend.bookings.bookingType(id: id, owner: principal.user) }
    }

    func readBookingType(_ id: String) throws(APIProblem) -> HTTPResponse {
        let type = try bookingType(id)
        return json(Self.json(type), etag: type.etag)
    }

    func updateBookingType(_ id: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: Self.bookingTypeFields)
        var type = try bookingType(id)
        try apply(body, to: &type)
        let saved = try attempt { () throws(StoreError) in
            try bookingEngine.update(type, ifMatch: ifMatch)
        }
        return json(Self.json(saved), etag: saved.etag)
    }

    func deleteBookingType(_ id: String) throws(APIProblem) -> HTTPResponse {
        try attempt { () throws(StoreError) in
            try backend.bookings.deleteBookingType(id: id, owner: principal.user, ifMatch: ifMatch)
        }
        return HTTPResponse(status: 204)
    }

    // MARK: Slots and seats

    /// The duration a query or body asks for: one of the type's (minutes), else its first.
    static func duration(_ value: Int?, of type: BookingType, field: String) throws(APIProblem) -> Int {
        guard let value else { return type.durations.first ?? 1_800 }
        guard (1...BookingType.maxSeconds / 60).contains(value), type.durations.contains(value * 60) else {
            throw APIProblem(
                .invalidField,
                "\(field) is one of the type's durations: \(type.durations.map { String($0 / 60) }.joined(separator: ", ")) minutes",
                fields: [field])
        }
        return value * 60
    }

    /// GET /booking-types/{id}/slots?from&to[&tz][&duration]: the free slots, or for a
    /// seated type its class occurrences with the seats left.
    func bookingSlots(_ id: String) throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["from", "to", "tz", "duration"])
        let type = try bookingType(id)
        return try slotsAnswer(type, parameters)
    }

    func slotsAnswer(_ type: BookingType, _ parameters: [String: String]) throws(APIProblem) -> HTTPResponse {
        var minutes: Int?
        if let text = parameters["duration"] {
            guard let value = Int(text) else {
                throw APIProblem(.invalidQuery, "duration is minutes", fields: ["duration"])
            }
            minutes = value
        }
        let duration = try Self.duration(minutes, of: type, field: "duration")
        let (zone, zoneName) = try zone(parameters)
        guard let range = try range(parameters, zone: zone) else { return json(.array([])) }
        let now = configuration.now()
        let (offer, scheduleZone) = try attempt { () throws(StoreError) in
            try bookingEngine.offer(
                type: type, duration: duration, from: range.start, to: range.end, now: now,
                limit: configuration.maxItems + 1)
        }
        let extra: [(key: String, value: JSONValue)] = [
            ("bookingTypeId", .string(type.id)), ("timeZone", .string(zoneName ?? scheduleZone)),
            ("duration", Self.minutes(duration)),
        ]
        func local(_ instant: Int) -> JSONValue {
            let name = zoneName ?? scheduleZone
            let rules = TimeZoneDatabase.zone(named: name) ?? .utc
            return .string(rules.localTime(at: instant).description)
        }
        switch offer {
        case .slots(let slots):
            return listing("slots", slots, extra: extra, time: \.start) { slot in
                .object([
                    ("start", .string(Self.utc(slot.start))), ("end", .string(Self.utc(slot.end))),
                    ("localStart", local(slot.start)),
                ])
            }
        case .group(let slots):
            return listing("slots", slots, extra: extra, time: \.start) { slot in
                .object([
                    ("start", .string(Self.utc(slot.start))), ("end", .string(Self.utc(slot.end))),
                    ("localStart", local(slot.start)), ("freeHosts", .array(slot.free.map(JSONValue.string))),
                    ("hosts", .array(slot.assigned.map(JSONValue.string))),
                ])
            }
        case .seats(let seats):
            return listing("slots", seats, extra: extra, time: \.start) { seat in
                .object([
                    ("start", .string(Self.utc(seat.start))), ("end", .string(Self.utc(seat.end))),
                    ("localStart", local(seat.start)),
                    ("recurrenceId", seat.recurrenceID.map(JSONValue.string) ?? .null),
                    ("capacity", .integer(seat.capacity)), ("seatsLeft", .integer(seat.left)),
                ])
            }
        }
    }

    /// GET /booking-types/{id}/occurrences/{rid}/seats: a class occurrence's seats.
    func seats(_ id: String, occurrence recurrenceID: String) throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        let type = try bookingType(id)
        guard type.isSeated else {
            throw APIProblem(.notFound, "\(type.title) is not a class with seats")
        }
        guard let value = try? APIModel.time(recurrenceID, timeZone: nil, field: "rid"), value.form == .utc,
            !value.isDate
        else {
            throw APIProblem(.notFound, "\(recurrenceID) is not an occurrence's UTC start (2026-12-05T09:00:00Z)")
        }
        let instant = value.civil.secondsSinceEpoch
        let now = configuration.now()
        let situation = try attempt { () throws(StoreError) in
            try backend.bookings.situation(
                type: type.id, owner: type.owner,
                in: TimeRange(
                    start: instant.subtractingSaturated(86_400 * 2), end: instant.addingSaturated(86_400 * 2)),
                now: now)
        }
        // Named by its RECURRENCE-ID (as the API writes it) or, for a one-off class, its start.
        let text = Self.utc(instant)
        guard
            let occurrence = situation.occurrences.first(where: {
                $0.recurrenceID == text || ($0.recurrenceID == nil && $0.start == instant)
            })
        else { throw APIProblem(.notFound, "\(type.title) has no occurrence \(recurrenceID)") }
        let held = situation.holds.filter { $0.start == occurrence.start }.count
        let waiting = try attempt { () throws(StoreError) in
            try backend.bookings.bookings(
                owner: type.owner, type: type.id, in: TimeRange(start: occurrence.start, end: occurrence.start + 1),
                after: nil, limit: Page.maxPageSize)
        }.filter { $0.status == .waitlisted }.count
        return json(
            .object([
                ("recurrenceId", occurrence.recurrenceID.map(JSONValue.string) ?? .null),
                ("start", .string(Self.utc(occurrence.start))),
                ("end", .string(Self.utc(occurrence.end))), ("capacity", .integer(occurrence.capacity)),
                ("taken", .integer(occurrence.taken)), ("held", .integer(held)),
                ("left", .integer(max(0, occurrence.capacity - occurrence.taken - held))),
                ("waitlisted", .integer(waiting)), ("cancelled", .bool(occurrence.isCancelled)),
            ]))
    }

    /// The slot a body names: `start` (UTC) and optionally `duration` (minutes).
    func slot(_ body: [String: JSONValue], type: BookingType) throws(APIProblem) -> (start: Int, end: Int) {
        guard case .string(let text)? = body["start"] else {
            throw APIModel.wrongType("start", "the slot's start, a UTC date-time (2026-12-07T09:00:00Z)")
        }
        let value = try APIModel.time(text, timeZone: nil, field: "start")
        guard value.form == .utc, !value.isDate else {
            throw APIModel.wrongType("start", "the slot's start, a UTC date-time (2026-12-07T09:00:00Z)")
        }
        var minutes: Int?
        if let item = body["duration"] {
            guard case .integer(let value) = item else { throw APIModel.wrongType("duration", "minutes") }
            minutes = value
        }
        let start = value.civil.secondsSinceEpoch
        return (start, start + (try Self.duration(minutes, of: type, field: "duration")))
    }

    // MARK: Holds

    /// POST /booking-types/{id}/holds {start, duration?}: keeps the slot for the type's hold time.
    func createHold(_ id: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: ["start", "duration"])
        let type = try bookingType(id)
        let (start, end) = try slot(body, type: type)
        let hold = try attempt { () throws(StoreError) in
            try bookingEngine.hold(type: type, start: start, end: end, now: configuration.now())
        }
        return json(Self.json(hold), status: 201)
    }

    static func json(_ hold: BookingHold) -> JSONValue {
        .object([
            ("id", .string(hold.id)), ("bookingTypeId", .string(hold.type)), ("start", .string(utc(hold.start))),
            ("end", .string(utc(hold.end))), ("recurrenceId", hold.recurrenceID.map(JSONValue.string) ?? .null),
            ("expiresAt", .string(utc(hold.expires))),
        ])
    }

    /// DELETE /booking-types/{id}/holds/{hold}.
    func deleteHold(_ id: String, hold: String) throws(APIProblem) -> HTTPResponse {
        let type = try bookingType(id)
        try attempt { () throws(StoreError) in try backend.bookings.releaseHold(id: hold, type: type.id) }
        return HTTPResponse(status: 204)
    }

    // MARK: Bookings

    static func json(_ booking: Booking) -> JSONValue {
        .object([
            ("id", .string(booking.id)), ("bookingTypeId", .string(booking.type)),
            ("status", .string(booking.status.rawValue)), ("start", .string(utc(booking.start))),
            ("end", .string(utc(booking.end))), ("name", .string(booking.name)), ("email", .string(booking.email)),
            ("note", booking.note.map(JSONValue.string) ?? .null),
            ("timeZone", booking.timeZone.map(JSONValue.string) ?? .null), ("calendarId", .string(booking.calendar)),
            ("eventId", booking.eventIdentifier.map(JSONValue.string) ?? .null),
            ("recurrenceId", booking.recurrenceID.map(JSONValue.string) ?? .null),
            ("hosts", .array(booking.hosts.map(JSONValue.string))),
            ("createdAt", .string(utc(booking.created))), ("updatedAt", .string(utc(booking.modified))),
        ])
    }

    /// The paths of a booking's pages for the booker (no sign-in: the token is the key).
    static func bookingLinks(cancel: String, reschedule: String) -> (manage: String, reschedule: String, ics: String) {
        ("/book/manage/" + cancel, "/book/reschedule/" + reschedule, "/book/manage/" + cancel + ".ics")
    }

    /// POST /bookings {bookingType, start, duration?, name, email, note?, hold?}: books a
    /// slot or a seat (or a place on a full class's waiting list). 201 with the booking,
    /// its cancel and reschedule tokens and links, and Add to Calendar for the booker;
    /// 409 when the slot is taken. A retry is safe with `Idempotency-Key`; without one,
    /// every request books (nothing is looked up by e-mail address).
    func createBooking() throws(APIProblem) -> HTTPResponse {
        let body = try body(
            allowing: ["bookingType", "start", "duration", "name", "email", "note", "hold", "timeZone"])
        guard case .string(let typeID)? = body["bookingType"] else {
            throw APIModel.wrongType("bookingType", "the booking type's id")
        }
        let type = try bookingType(typeID)
        return try book(type, body)
    }

    /// Books for a body already read (the API and the public page share it).
    func book(_ type: BookingType, _ body: [String: JSONValue]) throws(APIProblem) -> HTTPResponse {
        let (start, end) = try slot(body, type: type)
        func text(_ key: String, required: Bool) throws(APIProblem) -> String? {
            guard let value = body[key] else {
                if required { throw APIModel.wrongType(key, "a string") }
                return nil
            }
            guard let text = try APIModel.optionalString(value, key) else { return nil }
            return try APIModel.checked(text, key, allowingLineBreaks: key == "note")
        }
        let tokens = BookingToken.generate()
        let asked = BookingRequest(
            type: type.id, start: start, end: end, name: try text("name", required: true) ?? "",
            email: try text("email", required: true) ?? "", note: try text("note", required: false),
            hold: try text("hold", required: false), cancelTokenHash: BookingToken.hash(tokens.cancel),
            rescheduleTokenHash: BookingToken.hash(tokens.reschedule), timeZone: try text("timeZone", required: false))
        let now = configuration.now()
        let (booking, isNew) = try attempt { () throws(StoreError) in
            try bookingEngine.book(asked, type: type, now: now)
        }
        let zoneName = try attempt { () throws(StoreError) in try bookingEngine.scheduleZone(of: type) }
        let links = Self.bookingLinks(cancel: tokens.cancel, reschedule: tokens.reschedule)
        let site = request.origin ?? ""
        if isNew {
            mail(.booked, booking, type: type, links: (site + links.manage, site + links.reschedule), byBooker: false)
        }
        let targets = AddToCalendarTargets(
            booking: booking, type: type, zoneName: zoneName,
            notes: "Manage or cancel: " + site + links.manage + "\nReschedule: " + site + links.reschedule)
        var response = json(
            .object([
                ("booking", Self.json(booking)), ("cancelToken", .string(tokens.cancel)),
                ("rescheduleToken", .string(tokens.reschedule)),
                (
                    "links",
                    .object([
                        ("manage", .string(links.manage)), ("reschedule", .string(links.reschedule)),
                        ("ics", .string(links.ics)),
                    ])
                ),
                ("addToCalendar", targets.json(icsURL: links.ics)),
                ("ics", .string(String(decoding: targets.ics.bytes, as: UTF8.self))),
            ]), status: 201)
        response.headers.set("Location", JSONAPIHandler.prefix + "/bookings/" + booking.id)
        return response
    }

    /// GET /bookings?bookingType&from&to&limit&cursor: the user's bookings by start.
    func listBookings() throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["bookingType", "from", "to", "tz", "limit", "cursor"])
        let page = try page(parameters, listing: "bookings")
        let (zone, _) = try zone(parameters)
        let range = try range(parameters, zone: zone, required: false)
        let bookings = try attempt { () throws(StoreError) in
            try backend.bookings.bookings(
                owner: principal.user, type: parameters["bookingType"], in: range, after: page.after,
                limit: page.limit + 1)
        }
        return try pageAnswer("bookings", bookings, page: page, listing: "bookings", key: \.id, Self.json)
    }

    func booking(_ id: String) throws(APIProblem) -> Booking {
        try attempt { () throws(StoreError) in try backend.bookings.booking(id: id, owner: principal.user) }
    }

    func readBooking(_ id: String) throws(APIProblem) -> HTTPResponse { json(Self.json(try booking(id))) }

    /// POST /bookings/{id}/cancel: as the owner (signed in) or with the cancel token
    /// (`bookerToken`: the booker's own change, which their host is told of).
    func cancelBooking(_ booking: Booking, bookerToken: String? = nil) throws(APIProblem) -> HTTPResponse {
        let done = try attempt { () throws(StoreError) in
            try bookingEngine.cancel(booking, now: configuration.now())
        }
        if let type = try? backend.bookings.bookingType(id: booking.type, owner: booking.owner) {
            if booking.status != .cancelled {
                let manage = bookerToken.map { (request.origin ?? "") + "/book/manage/" + $0 }
                mail(.cancelled, done.cancelled, type: type, links: (manage, nil), byBooker: bookerToken != nil)
            }
            if let promoted = done.promoted { mail(.booked, promoted, type: type, links: (nil, nil), byBooker: false) }
        }
        return json(Self.json(done.cancelled))
    }

    /// POST /bookings/{id}/reschedule {start, duration?}: to another free slot, as the
    /// owner or with the reschedule token (`bookerToken`).
    func rescheduleBooking(_ booking: Booking, _ body: [String: JSONValue], bookerToken: String? = nil)
        throws(APIProblem) -> HTTPResponse
    {
        let type = try attempt { () throws(StoreError) in
            try backend.bookings.bookingType(id: booking.type, owner: booking.owner)
        }
        let (start, end) = try slot(body, type: type)
        let moved = try attempt { () throws(StoreError) in
            try bookingEngine.reschedule(booking, start: start, end: end, now: configuration.now())
        }
        let reschedule = bookerToken.map { (request.origin ?? "") + "/book/reschedule/" + $0 }
        mail(.moved, moved, type: type, links: (nil, reschedule), byBooker: bookerToken != nil)
        return json(Self.json(moved))
    }

    /// Queues the booker's message of a change (and their host's notice of the booker's
    /// own), when the server has a relay.
    func mail(
        _ change: BookingMail.Change, _ booking: Booking, type: BookingType,
        links: (manage: String?, reschedule: String?), byBooker: Bool
    ) {
        guard let mail = configuration.mail else { return }
        BookingMail.post(
            change, booking: booking, type: type,
            links: BookingMail.Links(manage: links.manage, reschedule: links.reschedule), byBooker: byBooker,
            hostZone: (try? bookingEngine.scheduleZone(of: type)) ?? "UTC", backend: backend, mail: mail,
            now: configuration.now())
    }
}

extension JSONAPIHandler {
    /// Answers a cancel or reschedule of a booking sent without `Authorization`: a booker's
    /// when the body holds the booking link's token (`{"token": "bkc_…"}`), which proves it
    /// without an account; else the web pages' `session` owner's (a change needs the page's
    /// CSRF token, which the server's middleware checked: `mayChange`).
    public func respondToBooker(
        _ request: HTTPRequest, session: (principal: APIPrincipal, mayChange: Bool)? = nil
    ) -> HTTPResponse {
        var token: JSONValue?
        if case .object(let members)? = try? JSONValue(parsing: request.body, maxDepth: 32) {
            token = members.first { $0.key == "token" }?.value
        }
        if token == nil, let session {
            guard session.mayChange else {
                return Self.forbidden("a change from the web pages needs the page's X-CSRF-Token")
            }
            return respond(to: request, as: session.principal)
        }
        do throws(APIProblem) {
            let parts = request.path.split(separator: "/").map(String.init)
            let reschedule = parts.last == "reschedule"
            guard case .string(let token)? = token,
                BookingToken.purpose(of: token) == (reschedule ? .reschedule : .cancel)
            else {
                throw APIProblem(
                    .unauthorized,
                    "sign in, or send the booking's \(reschedule ? "reschedule" : "cancel") token as {\"token\": …}")
            }
            let found = try? backend.bookings.booking(
                tokenHash: BookingToken.hash(token), purpose: reschedule ? .reschedule : .cancel)
            guard let booking = found, parts.count == 5, booking.id == parts[3] else {
                throw APIProblem(.notFound, "no booking has this token")
            }
            // The booker acts on the owner's calendar, through this booking only.
            let store: any EventStore
            do {
                store = try backend.eventStore(for: booking.owner)
            } catch {
                throw APIProblem(error)
            }
            let context = APIContext(
                store: store, backend: backend, principal: APIPrincipal(user: booking.owner), request: request,
                configuration: configuration, cursors: cursors)
            var body = try context.body(allowing: reschedule ? ["token", "start", "duration"] : ["token"])
            body["token"] = nil
            return reschedule
                ? try context.rescheduleBooking(booking, body, bookerToken: token)
                : try context.cancelBooking(booking, bookerToken: token)
        } catch {
            return error.response
        }
    }
}
