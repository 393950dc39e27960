import Accounts
import AddToCalendar
import Availability
import Bookings
import CalendarStore
import CalendarViews
import CivilTime
import HTTPTypes
import ICalendar
import Scheduling
import StoreAdapters

/// The public booking pages: no sign-in. `/book/{slug}` shows a booking type's month of
/// bookable days and a day's times in the visitor's zone; a time leads to the form
/// (name, e-mail, note); booking shows the confirmation with Add to Calendar and the
/// booking's two links, `/book/manage/{cancel token}` (details, .ics, cancel) and
/// `/book/reschedule/{reschedule token}` (another time). Every page works without
/// script; with it, the visitor's zone is detected. Forms carry a double-submit token
/// (a cookie and a hidden field); the server throttles each address (its middleware).
extension WebContext {
    static let bookingCookie = "almanac_book"

    func bookingType(_ slug: String) throws(WebFailure) -> BookingType {
        guard BookingType.isValidSlug(slug) else { throw WebFailure(404, "There is no booking page \(slug).") }
        do {
            return try backend.bookings.bookingType(slug: slug)
        } catch {
            throw WebFailure(error)
        }
    }

    var bookingQuery: [String: String] {
        Dictionary(request.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
    }

    // MARK: The form token

    /// The double-submit token: the cookie's, or a new one the answer sets.
    var formToken: (value: String, isNew: Bool) {
        if let value = WebCalendar.cookie(Self.bookingCookie, in: request), value.utf8.count == 32,
            value.utf8.allSatisfy({
                $0 < 0x80
                    && ($0 == 0x2D || $0 == 0x5F || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A)
                        || ($0 >= 0x30 && $0 <= 0x39))
            })
        {
            return (value, false)
        }
        return (PasswordGenerator.generate(length: 32), true)
    }

    /// The answer with the form token's cookie, when it is new.
    func withFormToken(_ response: HTTPResponse, _ token: (value: String, isNew: Bool)) -> HTTPResponse {
        guard token.isNew else { return response }
        var response = response
        let secure = request.headers["X-Forwarded-Proto"]?.lowercased() == "https" ? "; Secure" : ""
        response.headers.add(
            "Set-Cookie", "\(Self.bookingCookie)=\(token.value); Path=/book; HttpOnly; SameSite=Strict\(secure)")
        return response
    }

    /// A booking form's fields, after its token and its origin are checked.
    func checkedBookingForm() throws(WebFailure) -> [String: String] {
        if let origin = request.headers["Origin"] {
            let host = request.headers["Host"] ?? ""
            guard !host.isEmpty, origin == "http://" + host || origin == "https://" + host else {
                throw WebFailure(403, "Book from this server's own page.")
            }
        }
        let fields = form()
        let cookie = WebCalendar.cookie(Self.bookingCookie, in: request) ?? ""
        guard !cookie.isEmpty, Crypto.constantTimeEqual(Array((fields["csrf"] ?? "").utf8), Array(cookie.utf8)) else {
            throw WebFailure(
                403, "This form has expired or did not come from this site; go back, reload and try again.")
        }
        return fields
    }

    // MARK: Choosing a time

    /// What a picker shows: the type, the visitor's zone, the duration, the month and day.
    struct PickerState {
        var type: BookingType
        var zone: ZoneRules
        var zoneName: String
        var zoneGiven: Bool
        var duration: Int
        var month: (year: Int, month: Int)
        var day: CivilDate?
        var offer: BookingEngine.Offer
        var scheduleZone: String
    }

    func pickerState(_ type: BookingType, query: [String: String]) throws(WebFailure) -> PickerState {
        let duration = try Self.duration(query["duration"], of: type)
        let now = calendar.now()
        var zoneName = query["tz"] ?? ""
        let zoneGiven = !zoneName.isEmpty
        if zoneGiven, TimeZoneDatabase.zone(named: zoneName) == nil {
            throw WebFailure(400, "Unknown time zone \(zoneName) (a name such as Europe/Berlin).")
        }
        // Without a zone, the schedule's (the page's script asks the browser for its own).
        if !zoneGiven {
            zoneName = try attemptWeb { () throws(StoreError) in
                try BookingEngine(store: backend.bookings).scheduleZone(of: type)
            }
        }
        let zone = TimeZoneDatabase.zone(named: zoneName) ?? .utc
        let today = zone.localTime(at: now).date
        var month = (today.year, today.month)
        if let text = query["month"] {
            let parts = text.split(separator: "-")
            guard parts.count == 2, let year = Int(parts[0]), let number = Int(parts[1]), (1...9998).contains(year),
                (1...12).contains(number)
            else { throw WebFailure(400, "The month is YYYY-MM.") }
            month = (year, number)
        }
        var day: CivilDate?
        if let text = query["day"] {
            guard let date = CivilDate(isoText: text) else { throw WebFailure(400, "The day is YYYY-MM-DD.") }
            day = date
            month = (date.year, date.month)
        }
        guard let range = MonthGrid.range(year: month.0, month: month.1, firstWeekday: .monday, zone: zone) else {
            throw WebFailure(400, "That month cannot be shown.")
        }
        let (offer, scheduleZone) = try attemptWeb { () throws(StoreError) in
            try BookingEngine(store: backend.bookings).offer(
                type: type, duration: duration, from: max(range.start, now), to: max(range.end, now + 1), now: now,
                limit: 10_000)
        }
        return PickerState(
            type: type, zone: zone, zoneName: zoneName, zoneGiven: zoneGiven, duration: duration,
            month: month, day: day, offer: offer, scheduleZone: scheduleZone)
    }

    func attemptWeb<T>(_ body: () throws(StoreError) -> T) throws(WebFailure) -> T {
        do {
            return try body()
        } catch {
            throw WebFailure(error)
        }
    }

    /// One bookable time as the picker lists it.
    struct PickedTime {
        var start: Int
        var end: Int
        var seatsLeft: Int?
        var isFull: Bool { seatsLeft == 0 }
    }

    func times(_ state: PickerState) -> [CivilDate: [PickedTime]] {
        var result: [CivilDate: [PickedTime]] = [:]
        switch state.offer {
        case .slots(let slots):
            for slot in slots {
                result[state.zone.localTime(at: slot.start).date, default: []].append(
                    PickedTime(start: slot.start, end: slot.end, seatsLeft: nil))
            }
        case .seats(let seats):
            for seat in seats where seat.left > 0 || state.type.waitlist {
                result[state.zone.localTime(at: seat.start).date, default: []].append(
                    PickedTime(start: seat.start, end: seat.end, seatsLeft: seat.left))
            }
        case .group(let slots):
            for slot in slots {
                result[state.zone.localTime(at: slot.start).date, default: []].append(
                    PickedTime(start: slot.start, end: slot.end, seatsLeft: nil))
            }
        }
        return result
    }

    static func utc(_ seconds: Int) -> String { CivilDateTime(secondsSinceEpoch: seconds).description + "Z" }

    /// `2026-11-23T08:00:00Z` as written by ``utc(_:)``, in the supported years.
    static func utcInstant(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z"),
            let date = CivilDate(isoText: String(text.prefix(10)))
        else { return nil }
        func number(_ at: Int) -> Int? {
            let digits = bytes[at..<at + 2]
            guard digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
            return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        guard let hour = number(11), let minute = number(14), let second = number(17),
            let time = TimeOfDay(hour: hour, minute: minute, second: second)
        else { return nil }
        return CivilDateTime(date: date, time: time).secondsSinceEpoch
    }

    /// Every IANA zone as a `<datalist id="zone-names">` for a zone field's `list`.
    static let zoneList =
        "<datalist id=\"zone-names\">"
        + TimeZoneDatabase.names.map { "<option value=\"\(HTML.escape($0))\">" }.joined() + "</datalist>"

    /// `Monday, 23 November 2026`.
    static func longDate(_ date: CivilDate) -> String { date.longText }

    /// `Monday, 23 November 2026, 09:00–10:00 (Europe/Berlin)`.
    static func when(_ start: Int, _ end: Int, zone: ZoneRules, zoneName: String) -> String {
        zone.spanText(start, end, zoneName: zoneName)
    }

    static func clock(_ time: TimeOfDay) -> String { time.clockText }

    /// The picker's query with some parameters changed.
    func pickerLink(_ base: String, _ state: PickerState, _ changes: [(String, String?)]) -> String {
        var pairs: [(String, String)] = []
        if state.zoneGiven { pairs.append(("tz", state.zoneName)) }
        if state.type.durations.count > 1 { pairs.append(("duration", String(state.duration / 60))) }
        for (name, value) in changes {
            pairs.removeAll { $0.0 == name }
            if let value { pairs.append((name, value)) }
        }
        return base + (pairs.isEmpty ? "" : "?" + HTML.query(pairs))
    }

    /// The month of bookable days and the chosen day's times. In `reschedule` mode the
    /// times are buttons that move the booking; otherwise links to the form.
    func picker(_ state: PickerState, base: String, reschedule: (token: String, csrf: String)?) -> String {
        let times = times(state)
        let today = state.zone.localTime(at: calendar.now()).date
        let days = MonthGrid.days(year: state.month.year, month: state.month.month, firstWeekday: .monday) ?? []
        let chosen =
            state.day ?? days.first { $0.month == state.month.month && !(times[$0] ?? []).isEmpty }
        let first = CivilDate(year: state.month.year, month: state.month.month, day: 1) ?? today
        let previous = first.adding(days: -1)
        let next = first.adding(days: 31)
        let monthLabel = "\(first.monthName) \(first.year)"
        var grid = "<table class=\"booking-month\" role=\"grid\" aria-label=\"\(HTML.escape(monthLabel))\"><thead><tr>"
        for weekday in (0..<7).map({ Weekday.monday.advanced(by: $0) }) {
            grid += "<th scope=\"col\" abbr=\"\(weekday.englishName)\">\(weekday.englishName.prefix(3))</th>"
        }
        grid += "</tr></thead><tbody>"
        for (index, date) in days.enumerated() {
            if index % 7 == 0 { grid += "<tr>" }
            let count = (times[date] ?? []).count
            let inMonth = date.month == state.month.month
            var classes = [inMonth ? "in-month" : "other-month"]
            if date == chosen { classes.append("chosen") }
            if count > 0 { classes.append("open") }
            grid += "<td class=\"\(classes.joined(separator: " "))\">"
            if count > 0 && inMonth {
                let label = "\(Self.longDate(date)): \(count) time\(count == 1 ? "" : "s") free"
                grid +=
                    "<a href=\"\(HTML.escape(pickerLink(base, state, [("day", date.description), ("month", nil)])))\" aria-label=\"\(HTML.escape(label))\"\(date == chosen ? " aria-current=\"date\"" : "")>\(date.day)</a>"
            } else {
                grid += "<span aria-disabled=\"true\">\(inMonth ? String(date.day) : "")</span>"
            }
            grid += "</td>"
            if index % 7 == 6 { grid += "</tr>" }
        }
        grid += "</tbody></table>"
        var list = ""
        if let chosen, let entries = times[chosen], !entries.isEmpty {
            list +=
                "<h2 id=\"times\">\(HTML.escape(Self.longDate(chosen)))</h2><ul class=\"slots\" aria-labelledby=\"times\">"
            for entry in entries {
                let label =
                    Self.clock(state.zone.localTime(at: entry.start).time)
                    + (entry.seatsLeft.map { $0 == 0 ? " · full, join the waiting list" : " · \($0) left" } ?? "")
                if let reschedule {
                    list += """
                        <li><form method="post" action="\(HTML.escape(base))"><input type="hidden" name="csrf" value="\(HTML.escape(reschedule.csrf))"><input type="hidden" name="start" value="\(Self.utc(entry.start))"><input type="hidden" name="duration" value="\(state.duration / 60)"><button type="submit" class="slot">\(HTML.escape(label))</button></form></li>
                        """
                } else {
                    let link =
                        "/book/\(state.type.slug ?? "")/slot?"
                        + HTML.query(
                            [("start", Self.utc(entry.start)), ("duration", String(state.duration / 60))]
                                + [("tz", state.zoneName)])
                    list += "<li><a class=\"slot\" href=\"\(HTML.escape(link))\">\(HTML.escape(label))</a></li>"
                }
            }
            list += "</ul>"
        } else {
            list +=
                "<h2 id=\"times\">No free times</h2><p>\(times.isEmpty ? "Nothing is free in \(HTML.escape(monthLabel)); try the next month." : "Pick a day with free times.")</p>"
        }
        let durations =
            state.type.durations.count > 1
            ? "<label>Length <select name=\"duration\">"
                + state.type.durations.map {
                    "<option value=\"\($0 / 60)\"\($0 == state.duration ? " selected" : "")>\($0 / 60) minutes</option>"
                }.joined() + "</select></label>" : ""
        return """
            <form method="get" action="\(HTML.escape(base))" class="booking-options">
            \(durations)
            <label>Time zone <input name="tz" value="\(HTML.escape(state.zoneName))" list="zone-names" autocomplete="off" spellcheck="false" data-booking-zone\(state.zoneGiven ? "" : " data-detect")></label>
            \(Self.zoneList)
            <input type="hidden" name="month" value="\(String(format: "%04d-%02d", state.month.year, state.month.month))">
            <button type="submit">Show</button>
            </form>
            <div class="booking-picker">
            <section class="booking-calendar" aria-label="Days">
            <nav class="month-nav" aria-label="Months">
            <a href="\(HTML.escape(pickerLink(base, state, [("month", String(format: "%04d-%02d", previous.year, previous.month)), ("day", nil)])))" rel="prev">‹ <span class="visually-hidden">Previous month</span></a>
            <h2>\(HTML.escape(monthLabel))</h2>
            <a href="\(HTML.escape(pickerLink(base, state, [("month", String(format: "%04d-%02d", next.year, next.month)), ("day", nil)])))" rel="next"><span class="visually-hidden">Next month</span> ›</a>
            </nav>
            \(grid)
            </section>
            <section class="booking-times" aria-live="polite">
            \(list)
            </section>
            </div>
            """
    }

    /// Who a type's bookings are with: its hosts' names, else its owner's (display name,
    /// else user name).
    func hostNames(_ type: BookingType) -> String {
        let people = type.hosts.isEmpty ? [type.owner] : type.hosts.map(\.name)
        let names = people.map { (try? backend.user(named: $0))?.displayName ?? $0 }
        return names.count <= 1
            ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
    }

    func header(_ type: BookingType, duration: Int) -> String {
        let host = hostNames(type)
        return """
            <header class="booking-head">
            <p class="host"><span class="initial" aria-hidden="true">\(HTML.escape(String(host.prefix(1)).uppercased()))</span> \(HTML.escape(host))</p>
            <h1>\(HTML.escape(type.title))</h1>
            <p class="facts">\(duration / 60) minutes\(type.location.map { " · " + HTML.escape($0) } ?? "")</p>
            \(type.description.map { "<p class=\"description\">\(HTML.escape($0))</p>" } ?? "")
            </header>
            """
    }

    func pickerPage(_ type: BookingType, query: [String: String]? = nil, message: String?, status: Int = 200)
        throws(WebFailure) -> HTTPResponse
    {
        let state = try pickerState(type, query: query ?? bookingQuery)
        let body = """
            <main class="page booking">
            \(header(type, duration: state.duration))
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            \(picker(state, base: "/book/" + (type.slug ?? ""), reschedule: nil))
            </main>
            """
        return html("Book " + type.title, body, status: status)
    }

    // MARK: The form and booking

    /// The length a page asks for in minutes (one of the type's; its first without one),
    /// in seconds; checked before it is multiplied.
    static func duration(_ text: String?, of type: BookingType) throws(WebFailure) -> Int {
        guard let text else { return type.durations.first ?? 1_800 }
        guard let minutes = Int(text), (1...BookingType.maxSeconds / 60).contains(minutes),
            type.durations.contains(minutes * 60)
        else {
            throw WebFailure(
                400, "\(type.title) takes \(type.durations.map { "\($0 / 60)" }.joined(separator: ", ")) minutes.")
        }
        return minutes * 60
    }

    /// The time a form or link names, still on offer.
    func offeredTime(_ type: BookingType, start text: String?, duration minutes: String?) throws(WebFailure) -> (
        start: Int, end: Int
    ) {
        guard let text, let start = Self.utcInstant(text) else {
            throw WebFailure(400, "Pick a time from the booking page.")
        }
        return (start, start + (try Self.duration(minutes, of: type)))
    }

    func bookingForm(_ type: BookingType, message: String?, fields: [String: String] = [:], status: Int = 200)
        throws(WebFailure) -> HTTPResponse
    {
        let query = fields.isEmpty ? bookingQuery : fields
        let (start, end) = try offeredTime(type, start: query["start"], duration: query["duration"])
        if fields.isEmpty {
            // A link to a time that is no longer free (or never was) says so before the form.
            let (offer, _) = try attemptWeb { () throws(StoreError) in
                try BookingEngine(store: backend.bookings).offer(
                    type: type, duration: end - start, from: start, to: start.addingSaturated(1), now: calendar.now(),
                    limit: 1)
            }
            var isOffered = false
            switch offer {
            case .slots(let slots): isOffered = slots.first?.start == start
            case .seats(let seats):
                isOffered = seats.first.map { $0.start == start && ($0.left > 0 || type.waitlist) } ?? false
            case .group(let slots): isOffered = slots.first?.start == start
            }
            if !isOffered { throw WebFailure(409, "That time is not free any more. Go back and pick another.") }
        }
        let zoneName = query["tz"].flatMap { TimeZoneDatabase.zone(named: $0) != nil ? $0 : nil } ?? "UTC"
        let zone = TimeZoneDatabase.zone(named: zoneName) ?? .utc
        let token = formToken
        let back =
            "/book/\(type.slug ?? "")?"
            + HTML.query([("tz", zoneName), ("day", zone.localTime(at: start).date.description)])
        let body = """
            <main class="page booking">
            \(header(type, duration: end - start))
            <p class="chosen-time"><strong>\(HTML.escape(Self.when(start, end, zone: zone, zoneName: zoneName)))</strong> · <a href="\(HTML.escape(back))">Change</a></p>
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            <form method="post" action="/book/\(HTML.escape(type.slug ?? ""))" class="booking-form">
            <input type="hidden" name="csrf" value="\(HTML.escape(token.value))">
            <input type="hidden" name="start" value="\(Self.utc(start))">
            <input type="hidden" name="duration" value="\((end - start) / 60)">
            <input type="hidden" name="tz" value="\(HTML.escape(zoneName))">
            <label>Name <input name="name" autocomplete="name" required maxlength="200" value="\(HTML.escape(fields["name"] ?? ""))"></label>
            <label>E-mail <input name="email" type="email" autocomplete="email" required maxlength="254" value="\(HTML.escape(fields["email"] ?? ""))"></label>
            <label>Note <textarea name="note" rows="3" maxlength="2000">\(HTML.escape(fields["note"] ?? ""))</textarea></label>
            <button type="submit">Book</button>
            </form>
            </main>
            """
        return withFormToken(html("Book " + type.title, body, status: status), token)
    }

    func bookFromPage(_ type: BookingType) throws(WebFailure) -> HTTPResponse {
        let fields = try checkedBookingForm()
        let (start, end) = try offeredTime(type, start: fields["start"], duration: fields["duration"])
        let name = (fields["name"] ?? "").trimmingCharacters(in: .whitespaces)
        let email = (fields["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let note = fields["note"].flatMap { $0.isEmpty ? nil : $0 }
        let tokens = BookingToken.generate()
        // A repeat of this visitor's own submit (a double click, a reload) is known by their
        // form token, which no one else has, with the same time and address: it answers
        // "already booked". Anyone else asking for that time, with whatever e-mail
        // address, finds it taken or not as everyone does: no answer depends on who booked.
        let retryKey = BookingToken.hash("\(fields["csrf"] ?? "")\n\(start)\n\(end)\n\(email.lowercased())")
        let request = BookingRequest(
            type: type.id, start: start, end: end, name: name, email: email, note: note,
            cancelTokenHash: BookingToken.hash(tokens.cancel),
            rescheduleTokenHash: BookingToken.hash(tokens.reschedule),
            retryKey: retryKey, timeZone: fields["tz"].flatMap { TimeZoneDatabase.zone(named: $0) != nil ? $0 : nil })
        let booked: (booking: Booking, isNew: Bool)
        do {
            booked = try BookingEngine(store: backend.bookings).book(request, type: type, now: calendar.now())
        } catch  where error.code == .slotTaken {
            // Back to that day's times, in the visitor's zone.
            var query: [String: String] = ["duration": String((end - start) / 60)]
            if let zone = fields["tz"], let rules = TimeZoneDatabase.zone(named: zone) {
                query["tz"] = zone
                query["day"] = rules.localTime(at: start).date.description
            }
            return try pickerPage(
                type, query: query, message: "That time was just taken. Please pick another.", status: 409)
        } catch  where error.code == .invalidArgument {
            return try bookingForm(type, message: error.message, fields: fields, status: 400)
        } catch {
            throw WebFailure(error)
        }
        let zoneName = fields["tz"].flatMap { TimeZoneDatabase.zone(named: $0) != nil ? $0 : nil } ?? "UTC"
        if booked.isNew {
            mail(.booked, booked.booking, type: type, cancel: tokens.cancel, reschedule: tokens.reschedule)
        }
        guard booked.isNew else {
            return html(
                "Already booked",
                """
                <main class="page booking"><h1>You are already booked</h1>
                <p role="status">\(HTML.escape(Self.when(booked.booking.start, booked.booking.end, zone: TimeZoneDatabase.zone(named: zoneName) ?? .utc, zoneName: zoneName))): the confirmation and its links went to you when you booked.</p></main>
                """)
        }
        return confirmation(
            booked.booking, type: type, zoneName: zoneName, cancel: tokens.cancel, reschedule: tokens.reschedule,
            headline: booked.booking.status == .waitlisted ? "You are on the waiting list" : "You are booked")
    }

    /// The booking's details with Add to Calendar (the bridge button in a native shell,
    /// links and the .ics elsewhere) and its links.
    func confirmation(
        _ booking: Booking, type: BookingType, zoneName: String, cancel: String?, reschedule: String?, headline: String,
        actions: String = ""
    ) -> HTTPResponse {
        let zone = TimeZoneDatabase.zone(named: zoneName) ?? .utc
        let links = Self.bookingLinks(cancel: cancel, reschedule: reschedule)
        let site = request.origin ?? ""
        let notes = [
            links.manage.map { "Manage or cancel: " + site + $0 }, links.reschedule.map { "Reschedule: " + site + $0 },
        ]
        .compactMap { $0 }.joined(separator: "\n")
        let targets = AddToCalendarTargets(
            booking: booking, type: type, zoneName: zoneName, notes: notes.isEmpty ? nil : notes)
        let calendars = [
            ("Google Calendar", targets.google.url), ("Outlook.com", targets.outlook.url),
            ("Office 365", targets.office365.url), ("Yahoo Calendar", targets.yahoo.url),
        ]
        let ics = links.manage.map { $0 + ".ics" }
        let body = """
            <main class="page booking confirmation">
            <h1 role="status">\(HTML.escape(headline))</h1>
            <dl>
            <dt>What</dt><dd>\(HTML.escape(type.title))</dd>
            <dt>When</dt><dd>\(HTML.escape(Self.when(booking.start, booking.end, zone: zone, zoneName: zoneName)))</dd>
            \(type.location.map { "<dt>Where</dt><dd>\(HTML.escape($0))</dd>" } ?? "")
            <dt>Name</dt><dd>\(HTML.escape(booking.name)) &lt;\(HTML.escape(booking.email))&gt;</dd>
            <dt>Status</dt><dd class="status-\(booking.status.rawValue)">\(booking.status.rawValue)</dd>
            </dl>
            \(booking.status == .cancelled ? "" : """
            <div class="add-to-calendar">
            <button type="button" class="add" data-controller="bridge--add-to-calendar" data-bridge-payload="\(HTML.escape(targets.bridge.json.jsonText))" aria-haspopup="true">Add to Calendar</button>
            <details class="add-links" open>
            <summary>Add to Calendar</summary>
            <ul>
            \(calendars.map { "<li><a href=\"\(HTML.escape($0.1))\" target=\"_blank\" rel=\"noopener\">\($0.0)</a></li>" }.joined())
            \(ics.map { "<li><a href=\"\(HTML.escape($0))\" download>Download .ics</a></li>" } ?? "")
            </ul>
            </details>
            </div>
            """)
            \(actions)
            \(booking.status == .cancelled || (links.manage == nil && links.reschedule == nil) ? "" : "<p class=\"booking-links\">Keep these links to change your booking: " + [links.cancel.map { "<a href=\"\(HTML.escape($0))\">Cancel</a>" }, links.reschedule.map { "<a href=\"\(HTML.escape($0))\">Reschedule</a>" }].compactMap { $0 }.joined(separator: " · ") + "</p>")
            </main>
            """
        return html(headline, body)
    }

    // MARK: Managing a booking

    func booking(token: String, purpose: BookingToken.Purpose) throws(WebFailure) -> (Booking, BookingType) {
        guard BookingToken.purpose(of: token) == purpose else {
            throw WebFailure(404, "This booking link is not valid.")
        }
        do {
            let booking = try backend.bookings.booking(
                tokenHash: BookingToken.hash(token), purpose: purpose == .cancel ? .cancel : .reschedule)
            return (booking, try backend.bookings.bookingType(id: booking.type, owner: booking.owner))
        } catch {
            throw WebFailure(404, "This booking link is not valid.")
        }
    }

    /// The paths a booker keeps, from the tokens known: the manage page (details, .ics),
    /// the cancel confirmation, and another time (by the reschedule token, else through
    /// the manage token, which may do anything the reschedule token may).
    static func bookingLinks(cancel: String?, reschedule: String?) -> (
        manage: String?, cancel: String?, reschedule: String?
    ) {
        let manage = cancel.map { "/book/manage/" + $0 }
        return (
            manage, manage.map { $0 + "/cancel" },
            reschedule.map { "/book/reschedule/" + $0 } ?? manage.map { $0 + "/reschedule" }
        )
    }

    /// The zone a booking's page shows it in: the page's `tz`, else the zone the booker
    /// booked in, else the type's schedule's.
    func zoneName(for type: BookingType, booking: Booking? = nil) -> String {
        bookingQuery["tz"].flatMap { TimeZoneDatabase.zone(named: $0) != nil ? $0 : nil } ?? booking?.timeZone
            ?? (try? BookingEngine(store: backend.bookings).scheduleZone(of: type)) ?? "UTC"
    }

    /// `/book/manage/{token}`: the booking, with its .ics, and the ways to change it.
    func managePage(token: String, message: String?) throws(WebFailure) -> HTTPResponse {
        let (booking, type) = try booking(token: token, purpose: .cancel)
        let actions =
            booking.status == .cancelled ? "<p role=\"status\">This booking is cancelled.</p>" : ""
        return confirmation(
            booking, type: type, zoneName: zoneName(for: type, booking: booking), cancel: token, reschedule: nil,
            headline: message ?? (booking.status == .cancelled ? "Cancelled" : "Your booking"), actions: actions)
    }

    /// `/book/manage/{token}/cancel`: "Cancel this booking?", with the button that does.
    func cancelConfirmation(token: String) throws(WebFailure) -> HTTPResponse {
        let (booking, type) = try booking(token: token, purpose: .cancel)
        guard booking.status != .cancelled else { return Self.redirect("/book/manage/" + token) }
        let zoneName = zoneName(for: type, booking: booking)
        let when = Self.when(
            booking.start, booking.end, zone: TimeZoneDatabase.zone(named: zoneName) ?? .utc, zoneName: zoneName)
        let form = formToken
        let body = """
            <main class="page booking">
            <h1>Cancel this booking?</h1>
            <p>\(HTML.escape(type.title)), \(HTML.escape(when)). The time goes back to others; this cannot be undone.</p>
            <form method="post" action="/book/manage/\(HTML.escape(token))" class="cancel-form">
            <input type="hidden" name="csrf" value="\(HTML.escape(form.value))">
            <p class="actions"><button type="submit" class="danger">Yes, cancel the booking</button> <a class="button" href="/book/manage/\(HTML.escape(token))">Keep it</a></p>
            </form>
            </main>
            """
        return withFormToken(html("Cancel " + type.title, body), form)
    }

    func cancelFromPage(token: String) throws(WebFailure) -> HTTPResponse {
        _ = try checkedBookingForm()
        let (booking, type) = try booking(token: token, purpose: .cancel)
        let done = try attemptWeb { () throws(StoreError) in
            try BookingEngine(store: backend.bookings).cancel(booking, now: calendar.now())
        }
        if booking.status != .cancelled { mail(.cancelled, done.cancelled, type: type, cancel: token, reschedule: nil) }
        if let promoted = done.promoted {
            mail(.booked, promoted, type: type, cancel: nil, reschedule: nil, byBooker: false)
        }
        return Self.redirect("/book/manage/" + token)
    }

    func bookingICS(_ token: String) throws(WebFailure) -> HTTPResponse {
        let (booking, type) = try booking(token: token, purpose: .cancel)
        let targets = AddToCalendarTargets(
            booking: booking, type: type, zoneName: zoneName(for: type, booking: booking),
            notes: "Manage or cancel: " + (request.origin ?? "") + "/book/manage/" + token)
        return HTTPResponse(
            status: 200,
            headers: [
                "Content-Type": "text/calendar; charset=utf-8", "Cache-Control": "no-store",
                "Content-Disposition": "attachment; filename=\"booking.ics\"",
            ], body: targets.ics.bytes)
    }

    /// Another time for a booking, by its reschedule token (`/book/reschedule/{token}`) or
    /// its manage token (`/book/manage/{token}/reschedule`): the picker in the booker's zone.
    func reschedulePage(token: String, purpose: BookingToken.Purpose, message: String?, status: Int = 200)
        throws(WebFailure) -> HTTPResponse
    {
        let (booking, type) = try booking(token: token, purpose: purpose)
        guard booking.status == .confirmed else {
            return html(
                "Reschedule",
                "<main class=\"page booking\"><h1>This booking is \(booking.status.rawValue)</h1><p>It cannot be moved.</p></main>"
            )
        }
        var query = bookingQuery
        if query["duration"] == nil, !type.isSeated { query["duration"] = String((booking.end - booking.start) / 60) }
        if query["tz"] == nil, let zone = booking.timeZone { query["tz"] = zone }
        let state = try pickerState(type, query: query)
        let form = formToken
        let zoneName = state.zoneName
        let base = purpose == .cancel ? "/book/manage/\(token)/reschedule" : "/book/reschedule/" + token
        let body = """
            <main class="page booking">
            \(header(type, duration: state.duration))
            <p class="chosen-time">Now: <strong>\(HTML.escape(Self.when(booking.start, booking.end, zone: state.zone, zoneName: zoneName)))</strong>. Pick another time:</p>
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            \(picker(state, base: base, reschedule: (token, form.value)))
            </main>
            """
        return withFormToken(html("Reschedule " + type.title, body, status: status), form)
    }

    func rescheduleFromPage(token: String, purpose: BookingToken.Purpose) throws(WebFailure) -> HTTPResponse {
        let fields = try checkedBookingForm()
        let (booking, type) = try booking(token: token, purpose: purpose)
        let (start, end) = try offeredTime(type, start: fields["start"], duration: fields["duration"])
        do {
            let moved = try BookingEngine(store: backend.bookings).reschedule(
                booking, start: start, end: end, now: calendar.now())
            mail(
                .moved, moved, type: type, cancel: purpose == .cancel ? token : nil,
                reschedule: purpose == .reschedule ? token : nil)
            return confirmation(
                moved, type: type, zoneName: zoneName(for: type, booking: moved),
                cancel: purpose == .cancel ? token : nil, reschedule: purpose == .reschedule ? token : nil,
                headline: "Your booking moved")
        } catch  where error.code == .slotTaken {
            return try reschedulePage(
                token: token, purpose: purpose, message: "That time was just taken. Please pick another.", status: 409)
        } catch {
            throw WebFailure(error)
        }
    }

    /// Queues the booker's message (and the host's notice) of a change the booker made
    /// on these pages, when the server has a relay; the links are those of the tokens known.
    func mail(
        _ change: BookingMail.Change, _ booking: Booking, type: BookingType, cancel: String?, reschedule: String?,
        byBooker: Bool = true
    ) {
        guard let mail = calendar.mail else { return }
        let links = Self.bookingLinks(cancel: cancel, reschedule: reschedule)
        let site = request.origin ?? ""
        BookingMail.post(
            change, booking: booking, type: type,
            links: BookingMail.Links(
                manage: links.manage.map { site + $0 }, reschedule: links.reschedule.map { site + $0 }),
            byBooker: byBooker, hostZone: (try? BookingEngine(store: backend.bookings).scheduleZone(of: type)) ?? "UTC",
            backend: backend, mail: mail, now: calendar.now())
    }
}
