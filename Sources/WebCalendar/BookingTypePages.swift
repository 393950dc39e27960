import Availability
import Bookings
import CalendarStore
import CivilTime
import Foundation
import HTTPTypes
import Scheduling

/// The trainer's side of bookings in the web calendar, `/calendar/bookings`: the booking
/// types (each with every setting the API has, on its own form), the working hours and
/// the dates that differ, and the coming bookings with their cancel and reschedule.
/// Bookings themselves are events in the calendars, shown with the others.
extension WebContext {
    // MARK: The overview

    func bookingTypesPage(message: String? = nil, status: Int = 200) throws(WebFailure) -> HTTPResponse {
        let session = try requireSession()
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        let types = try attemptWeb { () throws(StoreError) in try backend.bookings.bookingTypes(owner: session.user) }
        let now = calendar.now()
        let coming = try attemptWeb { () throws(StoreError) in
            try backend.bookings.bookings(
                owner: session.user, type: nil, in: TimeRange(start: now, end: now.addingSaturated(366 * 86_400)),
                after: nil, limit: 200)
        }
        let hours = try attemptWeb { () throws(StoreError) in try backend.appState.defaultSchedule(user: session.user) }
        let titles = Dictionary(types.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
        let cards = types.map { type in
            let page = type.slug.map {
                "<a href=\"/book/\(HTML.escape($0))\">\(HTML.escape(request.origin ?? ""))/book/\(HTML.escape($0))</a>"
            }
            return """
                <li class="type-card"><h3>\(HTML.escape(type.title))</h3>
                <p class="facts">\(HTML.escape(Self.typeFacts(type)))</p>
                \(page.map { "<p class=\"page-link\">Public page: \($0)</p>" } ?? "<p class=\"page-link\">No public page (bookings through the API only)</p>")
                <p class="actions"><a class="button" href="/calendar/bookings/type?\(HTML.escape(HTML.query([("id", type.id)])))">Edit<span class="visually-hidden"> \(HTML.escape(type.title))</span></a> <a class="button danger" href="/calendar/bookings/remove?\(HTML.escape(HTML.query([("id", type.id)])))">Remove<span class="visually-hidden"> \(HTML.escape(type.title))</span></a></p></li>
                """
        }.joined()
        let list = coming.map { booking in
            let when = Self.when(booking.start, booking.end, zone: view.zone, zoneName: view.zoneName)
            let date = view.zone.localTime(at: booking.start).date.description
            let query = HTML.escape(HTML.query([("id", booking.id)]))
            let actions =
                booking.status == .cancelled
                ? ""
                : "<p class=\"actions\">"
                    + (booking.status == .confirmed
                        ? "<a class=\"button\" href=\"/calendar/bookings/\(HTML.escape(booking.id))/move\">Reschedule<span class=\"visually-hidden\"> \(HTML.escape(booking.name))</span></a> "
                        : "")
                    + "<a class=\"button danger\" href=\"/calendar/bookings/cancel?\(query)\">Cancel<span class=\"visually-hidden\"> \(HTML.escape(booking.name))</span></a></p>"
            return """
                <li class="booking-item \(booking.status.rawValue)"><p class="when"><a href="/calendar?\(HTML.escape(HTML.query([("view", "day"), ("date", date)])))">\(HTML.escape(when))</a></p>
                <p class="who"><strong>\(HTML.escape(booking.name))</strong> <span class="email">\(HTML.escape(booking.email))</span></p>
                <p class="what">\(HTML.escape(titles[booking.type] ?? "")) <span class="badge status-\(booking.status.rawValue)">\(Self.statusWord(booking.status))</span></p>
                \(booking.note.map { "<p class=\"note\">\(HTML.escape($0))</p>" } ?? "")
                \(actions)</li>
                """
        }.joined()
        let hoursText = hours.flatMap { try? AvailabilitySchedule(calendarData: $0.data) }
        let body = """
            <header class="bar"><a class="button" href="/calendar">‹ Calendar</a><h1>Bookings</h1></header>
            <main class="page booking-admin">
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            <section aria-labelledby="types-heading">
            <div class="section-head"><h2 id="types-heading">Booking types</h2><a class="button" href="/calendar/bookings/type">New booking type</a></div>
            \(types.isEmpty ? "<p>None yet. A booking type is what people book: a length, the calendar bookings go to and a public page.</p>" : "<ul class=\"type-cards\">\(cards)</ul>")
            </section>
            <section aria-labelledby="hours-heading">
            <div class="section-head"><h2 id="hours-heading">Working hours</h2><a class="button" href="/calendar/bookings/hours">Edit hours</a></div>
            \(hoursText.map { Self.hoursSummary($0) } ?? "<p>None set: every hour of the day can be booked. Set your hours so only those are offered.</p>")
            </section>
            <section aria-labelledby="coming-heading">
            <h2 id="coming-heading">Upcoming bookings</h2>
            \(coming.isEmpty ? "<p>None yet.</p>" : "<ul class=\"booking-list\">\(list)</ul>")
            </section>
            </main>
            """
        return html("Bookings", body, status: status)
    }

    static func statusWord(_ status: Booking.Status) -> String {
        switch status {
        case .confirmed: "Confirmed"
        case .cancelled: "Cancelled"
        case .waitlisted: "Waiting list"
        }
    }

    /// `60 or 30 min · 15 min after · 1 day's notice · 28 days ahead · 5 a day`.
    static func typeFacts(_ type: BookingType) -> String {
        var facts = [type.durations.map { "\($0 / 60)" }.joined(separator: " or ") + " min"]
        if type.bufferBefore > 0 { facts.append("\(minutesText(type.bufferBefore)) before") }
        if type.bufferAfter > 0 { facts.append("\(minutesText(type.bufferAfter)) after") }
        if type.notice > 0 { facts.append("\(minutesText(type.notice)) notice") }
        if let days = type.windowDays { facts.append("\(days) days ahead") }
        if let limit = type.dailyLimit { facts.append("\(limit) a day") }
        if let limit = type.weeklyLimit { facts.append("\(limit) a week") }
        if let capacity = type.capacity { facts.append("\(capacity) seats" + (type.waitlist ? ", waiting list" : "")) }
        if !type.hosts.isEmpty { facts.append("\(type.hosts.count) hosts, \(type.groupMode.rawValue)") }
        if let location = type.location { facts.append(location) }
        return facts.joined(separator: " · ")
    }

    /// `90 min`, `2 h`, `1 day`.
    static func minutesText(_ seconds: Int) -> String {
        if seconds % 86_400 == 0 { return "\(seconds / 86_400) day\(seconds == 86_400 ? "" : "s")" }
        if seconds % 3_600 == 0 { return "\(seconds / 3_600) h" }
        return "\(seconds / 60) min"
    }

    /// The hours by weekday and the dates that differ, as a definition list.
    static func hoursSummary(_ schedule: AvailabilitySchedule) -> String {
        var html = "<p class=\"zone\">In \(HTML.escape(schedule.timeZone))</p><dl class=\"hours-list\">"
        for day in Weekday.allCases {
            let spans = schedule.weekly[day] ?? []
            html +=
                "<dt>\(day.englishName)</dt><dd>\(spans.isEmpty ? "Closed" : HTML.escape(spans.map { $0.text.replacingOccurrences(of: "-", with: "–") }.joined(separator: ", ")))</dd>"
        }
        html += "</dl>"
        let dates = schedule.exceptions.keys.sorted()
        if !dates.isEmpty {
            html += "<h3>Dates that differ</h3><ul class=\"exceptions\">"
            for date in dates.prefix(20) {
                let spans = schedule.exceptions[date] ?? []
                html +=
                    "<li>\(HTML.escape(date.longText)): \(spans.isEmpty ? "closed" : HTML.escape(spans.map(\.text).joined(separator: ", ")))</li>"
            }
            html += "</ul>"
        }
        return html
    }

    // MARK: A type's settings

    /// `/calendar/bookings/type[?id=…]`: every setting of a type (a new one without `id`).
    func bookingTypeForm(
        fields typed: [String: String]? = nil, busy typedBusy: Set<String>? = nil, message: String? = nil,
        status: Int = 200
    ) throws(WebFailure) -> HTTPResponse {
        let session = try requireSession()
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        let id = typed?["id"] ?? request.queryValue("id")
        let existing: BookingType? =
            try id.flatMap { id throws(WebFailure) in
                try attemptWeb { () throws(StoreError) in
                    try backend.bookings.bookingType(id: id, owner: session.user)
                }
            }
        let schedules = try attemptWeb { () throws(StoreError) in try backend.appState.schedules(user: session.user) }
        let fields = typed ?? existing.map(Self.fields(of:)) ?? ["lengths": "60", "hostNotice": "on", "allDay": "on"]
        let busy = typedBusy ?? Set(existing?.busyCalendars ?? [])
        func value(_ name: String) -> String { HTML.escape(fields[name] ?? "") }
        func number(_ name: String, _ label: String, hint: String, min: Int = 0, max: Int = 100_000) -> String {
            """
            <label>\(label) <input name="\(name)" type="number" inputmode="numeric" min="\(min)" max="\(max)" value="\(value(name))" aria-describedby="\(name)-hint"><span class="hint" id="\(name)-hint">\(hint)</span></label>
            """
        }
        func checkbox(_ name: String, _ label: String) -> String {
            "<label class=\"check\"><input type=\"checkbox\" name=\"\(name)\"\(fields[name] == "on" ? " checked" : "")> \(label)</label>"
        }
        let calendarOptions = view.calendars.map { calendar in
            "<option value=\"\(HTML.escape(calendar.id))\"\(fields["calendar"] == calendar.id ? " selected" : "")>\(HTML.escape(calendar.title))</option>"
        }.joined()
        let busyBoxes = view.calendars.map { calendar in
            "<label class=\"check\"><input type=\"checkbox\" name=\"busy\" value=\"\(HTML.escape(calendar.id))\"\(busy.contains(calendar.id) ? " checked" : "")> \(HTML.escape(calendar.title))</label>"
        }.joined()
        let scheduleOptions =
            "<option value=\"\">My working hours (the default)</option>"
            + schedules.map { schedule in
                "<option value=\"\(HTML.escape(schedule.id))\"\(fields["schedule"] == schedule.id ? " selected" : "")>\(HTML.escape(schedule.title))</option>"
            }.joined()
        let modes: [(BookingType.GroupMode, String)] = [
            (.single, "Just me"), (.collective, "Every host together"), (.roundRobin, "Any one free host, in turn"),
            (.nOfGroup, "A number of the hosts"),
        ]
        let modeOptions = modes.map { mode, label in
            "<option value=\"\(mode.rawValue)\"\((fields["groupMode"] ?? "single") == mode.rawValue ? " selected" : "")>\(label)</option>"
        }.joined()
        let title = existing.map { "Edit " + $0.title } ?? "New booking type"
        let body = """
            <header class="bar"><a class="button" href="/calendar/bookings">‹ Bookings</a><h1>\(HTML.escape(title))</h1></header>
            <main class="page booking-admin">
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            <form method="post" action="/calendar/bookings/type" class="settings-form">
            <input type="hidden" name="csrf" value="\(HTML.escape(session.csrfToken))">
            \(existing.map { "<input type=\"hidden\" name=\"id\" value=\"\(HTML.escape($0.id))\">" } ?? "")
            <fieldset><legend>What people book</legend>
            <label>Title <input name="title" required maxlength="500" value="\(value("title"))"></label>
            <label>Page address <span class="prefix">/book/</span><input name="slug" pattern="[a-z0-9](?:[a-z0-9-]*[a-z0-9])?" maxlength="64" value="\(value("slug"))" aria-describedby="slug-hint"><span class="hint" id="slug-hint">Lower-case letters, digits and dashes; empty: no public page.</span></label>
            <label>Lengths in minutes <input name="lengths" required value="\(value("lengths"))" aria-describedby="lengths-hint"><span class="hint" id="lengths-hint">One or more, such as “60, 30”: the first is offered first.</span></label>
            <label>Where <input name="location" maxlength="500" value="\(value("location"))"></label>
            <label>Description <textarea name="description" rows="3" maxlength="10000">\(value("description"))</textarea></label>
            <label>Bookings go to <select name="calendar">\(calendarOptions)</select></label>
            </fieldset>
            <fieldset><legend>When it can be booked</legend>
            <label>Hours <select name="schedule">\(scheduleOptions)</select></label>
            <fieldset class="inner"><legend>Calendars that block a time (none ticked: all of yours)</legend>\(busyBoxes)</fieldset>
            \(checkbox("allDay", "All-day events block the day (a day off in your calendar)"))
            \(number("bufferBefore", "Free before (minutes)", hint: "Kept free before each booking."))
            \(number("bufferAfter", "Free after (minutes)", hint: "Kept free after each booking."))
            \(number("notice", "Notice (minutes)", hint: "How soon before it starts a time can still be booked; 1440 is a day."))
            \(number("windowDays", "Days ahead", hint: "How far ahead people may book; empty: no limit.", max: 3_660))
            \(number("step", "Start times every (minutes)", hint: "Empty: the length.", min: 1, max: 1_440))
            \(number("dailyLimit", "At most a day", hint: "Bookings a day; empty: no limit."))
            \(number("weeklyLimit", "At most a week", hint: "Bookings a week; empty: no limit."))
            \(number("holdMinutes", "Hold a time while someone books (minutes)", hint: "Through the API's holds.", min: 1, max: 60))
            </fieldset>
            <fieldset><legend>A class with seats</legend>
            <label>Class event <input name="classEvent" value="\(value("classEvent"))" aria-describedby="class-hint"><span class="hint" id="class-hint">The id of a repeating event in your calendar (on its page); empty: people book free times instead.</span></label>
            \(number("capacity", "Seats", hint: "Empty: the class event's own, or 1.", min: 1, max: 10_000))
            \(checkbox("waitlist", "A waiting list when the class is full"))
            </fieldset>
            <fieldset><legend>Several hosts</legend>
            <label>Who takes a booking <select name="groupMode">\(modeOptions)</select></label>
            <label>Hosts <textarea name="hosts" rows="3" aria-describedby="hosts-hint">\(value("hosts"))</textarea><span class="hint" id="hosts-hint">One a line: a user name and the id of the calendar their bookings go to.</span></label>
            \(number("groupMinimum", "Hosts a booking needs", hint: "For “a number of the hosts”.", min: 1, max: 50))
            </fieldset>
            <fieldset><legend>Mail</legend>
            \(checkbox("hostNotice", "E-mail me about bookings (when someone books, moves or cancels)"))
            </fieldset>
            <p class="actions"><button type="submit" class="primary">\(existing == nil ? "Create" : "Save")</button> <a class="button" href="/calendar/bookings">Cancel</a></p>
            </form>
            </main>
            """
        return html(title, body, status: status)
    }

    /// A stored type as the form's fields.
    static func fields(of type: BookingType) -> [String: String] {
        func minutes(_ seconds: Int?) -> String { seconds.map { String($0 / 60) } ?? "" }
        var fields: [String: String] = [:]
        fields["id"] = type.id
        fields["title"] = type.title
        fields["slug"] = type.slug ?? ""
        fields["location"] = type.location ?? ""
        fields["description"] = type.description ?? ""
        fields["calendar"] = type.calendar
        fields["lengths"] = type.durations.map { String($0 / 60) }.joined(separator: ", ")
        fields["schedule"] = type.schedule ?? ""
        fields["bufferBefore"] = minutes(type.bufferBefore)
        fields["bufferAfter"] = minutes(type.bufferAfter)
        fields["notice"] = minutes(type.notice)
        fields["windowDays"] = type.windowDays.map(String.init) ?? ""
        fields["step"] = minutes(type.step)
        fields["dailyLimit"] = type.dailyLimit.map(String.init) ?? ""
        fields["weeklyLimit"] = type.weeklyLimit.map(String.init) ?? ""
        fields["holdMinutes"] = minutes(type.holdSeconds)
        fields["classEvent"] = type.classEvent ?? ""
        fields["capacity"] = type.capacity.map(String.init) ?? ""
        fields["groupMode"] = type.groupMode.rawValue
        fields["groupMinimum"] = type.groupMinimum.map(String.init) ?? ""
        fields["hosts"] = type.hosts.map { "\($0.name) \($0.calendar)" }.joined(separator: "\n")
        if type.waitlist { fields["waitlist"] = "on" }
        if type.allDayIsBusy { fields["allDay"] = "on" }
        if type.notifyHost { fields["hostNotice"] = "on" }
        return fields
    }

    /// POST /calendar/bookings/type: creates or saves a type; a wrong field brings the
    /// form back with what was typed and why.
    func saveBookingTypeFromPage() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        let busy = Set(request.formItems.filter { $0.name == "busy" }.map(\.value))
        func again(_ message: String) throws(WebFailure) -> HTTPResponse {
            try bookingTypeForm(fields: fields, busy: busy, message: message, status: 400)
        }
        var type: BookingType
        if let id = fields["id"] {
            type = try attemptWeb { () throws(StoreError) in
                try backend.bookings.bookingType(id: id, owner: session.user)
            }
        } else {
            type = BookingType(owner: session.user, title: "", durations: [], calendar: "")
        }
        func text(_ name: String) -> String? {
            let value = (fields[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            return value.isEmpty ? nil : value
        }
        /// A whole number the field holds (nil: empty), or why not.
        func number(_ name: String, _ label: String, in range: ClosedRange<Int>) -> Result<Int?, WebFailure> {
            guard let text = text(name) else { return .success(nil) }
            guard let value = Int(text), range.contains(value) else {
                return .failure(
                    WebFailure(400, "\(label) is a whole number from \(range.lowerBound) to \(range.upperBound)."))
            }
            return .success(value)
        }
        let lengths = (text("lengths") ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map { Int($0) }
        guard !lengths.isEmpty, lengths.allSatisfy({ $0.map { (1...44_640).contains($0) } ?? false }) else {
            return try again("Lengths are minutes, such as “60, 30”.")
        }
        type.durations = lengths.compactMap { $0.map { $0 * 60 } }
        type.title = text("title") ?? ""
        type.slug = text("slug")
        type.location = text("location")
        type.description = text("description")
        type.calendar = fields["calendar"] ?? ""
        type.schedule = text("schedule")
        type.busyCalendars = busy.isEmpty ? nil : busy.sorted()
        type.allDayIsBusy = fields["allDay"] == "on"
        type.waitlist = fields["waitlist"] == "on"
        type.notifyHost = fields["hostNotice"] == "on"
        type.classEvent = text("classEvent")
        guard let mode = BookingType.GroupMode(rawValue: fields["groupMode"] ?? "single") else {
            return try again("Pick who takes a booking.")
        }
        type.groupMode = mode
        var hosts: [BookingHost] = []
        for line in (fields["hosts"] ?? "").split(whereSeparator: \.isNewline) {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count == 2 else {
                return try again("Each host is a user name and a calendar id on a line of its own (“\(line)”).")
            }
            hosts.append(BookingHost(name: String(words[0]), calendar: String(words[1])))
        }
        type.hosts = hosts
        let minutes: [(String, String, ClosedRange<Int>, WritableKeyPath<BookingType, Int>)] = [
            ("bufferBefore", "Free before", 0...44_640, \.bufferBefore),
            ("bufferAfter", "Free after", 0...44_640, \.bufferAfter), ("notice", "Notice", 0...527_040, \.notice),
            ("holdMinutes", "The hold", 1...60, \.holdSeconds),
        ]
        for (name, label, range, path) in minutes {
            switch number(name, label, in: range) {
            case .failure(let failure): return try again(failure.message)
            case .success(let value): type[keyPath: path] = (value ?? (name == "holdMinutes" ? 5 : 0)) * 60
            }
        }
        let optional: [(String, String, ClosedRange<Int>, Int, WritableKeyPath<BookingType, Int?>)] = [
            ("windowDays", "Days ahead", 0...3_660, 1, \.windowDays),
            ("step", "Start times every", 1...1_440, 60, \.step),
            ("dailyLimit", "At most a day", 1...10_000, 1, \.dailyLimit),
            ("weeklyLimit", "At most a week", 1...10_000, 1, \.weeklyLimit),
            ("capacity", "Seats", 1...10_000, 1, \.capacity),
            ("groupMinimum", "Hosts a booking needs", 1...50, 1, \.groupMinimum),
        ]
        for (name, label, range, unit, path) in optional {
            switch number(name, label, in: range) {
            case .failure(let failure): return try again(failure.message)
            case .success(let value): type[keyPath: path] = value.map { $0 * unit }
            }
        }
        do {
            let engine = BookingEngine(store: backend.bookings)
            _ = fields["id"] == nil ? try engine.create(type) : try engine.update(type, ifMatch: nil)
        } catch  where [.invalidArgument, .alreadyExists, .notFound, .forbidden].contains(error.code) {
            return try again(error.message)
        } catch {
            throw WebFailure(error)
        }
        return Self.redirect("/calendar/bookings")
    }

    /// `/calendar/bookings/remove?id=…`: "Remove …?", with the button that does.
    func removeBookingTypePage() throws(WebFailure) -> HTTPResponse {
        let session = try requireSession()
        let type = try attemptWeb { () throws(StoreError) in
            try backend.bookings.bookingType(id: request.queryValue("id") ?? "", owner: session.user)
        }
        return confirmationPage(
            title: "Remove " + type.title, heading: "Remove a booking type", back: ("/calendar/bookings", "Bookings"),
            question: "Remove “\(type.title)”?",
            detail:
                "Its public page goes away and nobody can book it any more. Bookings already made stay in your calendar.",
            action: "/calendar/bookings/delete", id: type.id, confirm: "Remove it", session: session)
    }

    func deleteBookingTypeFromPage() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        _ = try attemptWeb { () throws(StoreError) in
            try backend.bookings.deleteBookingType(id: fields["id"] ?? "", owner: session.user, ifMatch: nil)
        }
        return Self.redirect("/calendar/bookings")
    }

    // MARK: Working hours

    /// `/calendar/bookings/hours`: the default schedule's zone, each weekday's hours and
    /// the dates that differ.
    func hoursPage(fields typed: [String: String]? = nil, message: String? = nil, status: Int = 200)
        throws(WebFailure) -> HTTPResponse
    {
        let session = try requireSession()
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        let stored = try attemptWeb { () throws(StoreError) in try backend.appState.defaultSchedule(user: session.user)
        }
        let schedule = stored.flatMap { try? AvailabilitySchedule(calendarData: $0.data) }
        var fields = typed ?? [:]
        if typed == nil {
            fields["zone"] = schedule?.timeZone ?? view.zoneName
            for day in Weekday.allCases {
                fields[day.englishName] =
                    schedule.map { ($0.weekly[day] ?? []).map(\.text).joined(separator: " ") }
                    ?? (day.rawValue <= 5 ? "09:00-17:00" : "")
            }
            fields["exceptions"] = (schedule?.exceptions ?? [:]).keys.sorted().map { date in
                let spans = schedule?.exceptions[date] ?? []
                return date.description + " " + (spans.isEmpty ? "off" : spans.map(\.text).joined(separator: " "))
            }.joined(separator: "\n")
        }
        let rows = Weekday.allCases.map { day in
            """
            <label class="day-hours"><span>\(day.englishName)</span><input name="\(day.englishName)" value="\(HTML.escape(fields[day.englishName] ?? ""))" placeholder="Closed" aria-describedby="hours-hint"></label>
            """
        }.joined()
        let body = """
            <header class="bar"><a class="button" href="/calendar/bookings">‹ Bookings</a><h1>Working hours</h1></header>
            <main class="page booking-admin">
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            <form method="post" action="/calendar/bookings/hours" class="settings-form">
            <input type="hidden" name="csrf" value="\(HTML.escape(session.csrfToken))">
            <fieldset><legend>Every week</legend>
            <label>Time zone <input name="zone" list="zone-names" autocomplete="off" spellcheck="false" required value="\(HTML.escape(fields["zone"] ?? ""))"></label>
            \(Self.zoneList)
            <p class="hint" id="hours-hint">Times such as “09:00-12:00 14:00-18:00”; empty: closed that day.</p>
            \(rows)
            </fieldset>
            <fieldset><legend>Dates that differ</legend>
            <label>One a line: a date and its hours, or “off” <textarea name="exceptions" rows="5" placeholder="2026-12-24 off&#10;2026-12-31 10:00-12:00">\(HTML.escape(fields["exceptions"] ?? ""))</textarea></label>
            </fieldset>
            <p class="actions"><button type="submit" class="primary">Save hours</button> <a class="button" href="/calendar/bookings">Cancel</a></p>
            </form>
            </main>
            """
        return html("Working hours", body, status: status)
    }

    /// POST /calendar/bookings/hours: saves the default schedule (made when there is none).
    func saveHoursFromPage() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        func again(_ message: String) throws(WebFailure) -> HTTPResponse {
            try hoursPage(fields: fields, message: message, status: 400)
        }
        let zone = (fields["zone"] ?? "").trimmingCharacters(in: .whitespaces)
        guard TimeZoneDatabase.zone(named: zone) != nil else {
            return try again("There is no time zone “\(zone)”. Pick one from the list, such as Europe/Berlin.")
        }
        func spans(_ text: String) -> [ClockRange]? {
            var spans: [ClockRange] = []
            for word in text.split(separator: " ") {
                guard let span = ClockRange(word) else { return nil }
                spans.append(span)
            }
            return spans
        }
        var weekly: [Weekday: [ClockRange]] = [:]
        for day in Weekday.allCases {
            guard let found = spans(fields[day.englishName] ?? "") else {
                return try again(
                    "\(day.englishName): “\(fields[day.englishName] ?? "")” is not hours such as 09:00-12:00 14:00-18:00."
                )
            }
            weekly[day] = found
        }
        var schedule = AvailabilitySchedule(timeZone: zone, weekly: weekly)
        let lines = (fields["exceptions"] ?? "").split(whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        guard lines.count <= 1_000 else { return try again("At most 1,000 dates differ.") }
        for line in lines {
            let words = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard let date = CivilDate(isoText: words[0]), words.count == 2 else {
                return try again("“\(line)” is a date and its hours, such as 2026-12-24 off or 2026-12-31 10:00-12:00.")
            }
            if words[1] == "off" {
                schedule.setException(date, hours: [])
            } else if let found = spans(words[1]), !found.isEmpty {
                schedule.setException(date, hours: found)
            } else {
                return try again("“\(line)”: the hours read like 10:00-12:00, or “off”.")
            }
        }
        let now = calendar.now()
        let existing = try attemptWeb { () throws(StoreError) in
            try backend.appState.defaultSchedule(user: session.user)
        }
        var stored =
            existing
            ?? StoredSchedule(user: session.user, title: StoredSchedule.defaultTitle, data: [], isDefault: true)
        stored.data = schedule.calendarData(uid: stored.id, stamp: CivilDateTime(secondsSinceEpoch: now))
        _ = try attemptWeb { () throws(StoreError) in try backend.appState.saveSchedule(stored, ifMatch: nil) }
        return Self.redirect("/calendar/bookings")
    }

    // MARK: A booking, from the trainer's side

    /// The signed-in owner's booking named by `id` and its type.
    func ownBooking(_ id: String?) throws(WebFailure) -> (Booking, BookingType, SignInSession) {
        let session = try requireSession()
        let booking = try attemptWeb { () throws(StoreError) in
            try backend.bookings.booking(id: id ?? "", owner: session.user)
        }
        let type = try attemptWeb { () throws(StoreError) in
            try backend.bookings.bookingType(id: booking.type, owner: session.user)
        }
        return (booking, type, session)
    }

    /// `/calendar/bookings/cancel?id=…`: "Cancel …'s booking?", with the button that does.
    func trainerCancelPage() throws(WebFailure) -> HTTPResponse {
        let (booking, type, session) = try ownBooking(request.queryValue("id"))
        let view = try parameters(store: try store(for: session), user: session.user)
        let mail = calendar.mail == nil ? "" : ", and \(HTML.escape(booking.name)) gets a cancellation by mail"
        return confirmationPage(
            title: "Cancel a booking", heading: "Cancel a booking", back: ("/calendar/bookings", "Bookings"),
            question: "Cancel \(booking.name)’s booking?",
            detail:
                "\(HTML.escape(type.title)), \(HTML.escape(Self.when(booking.start, booking.end, zone: view.zone, zoneName: view.zoneName))). The time is offered again\(mail).",
            action: "/calendar/bookings/cancel", id: booking.id, confirm: "Yes, cancel it", session: session)
    }

    func trainerCancelFromPage() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        _ = try requireCSRF(fields)
        let (booking, type, _) = try ownBooking(fields["id"])
        let done = try attemptWeb { () throws(StoreError) in
            try BookingEngine(store: backend.bookings).cancel(booking, now: calendar.now())
        }
        if booking.status != .cancelled {
            mail(.cancelled, done.cancelled, type: type, cancel: nil, reschedule: nil, byBooker: false)
        }
        if let promoted = done.promoted {
            mail(.booked, promoted, type: type, cancel: nil, reschedule: nil, byBooker: false)
        }
        return Self.redirect("/calendar/bookings")
    }

    /// `/calendar/bookings/{id}/move`: the type's free times in the trainer's zone; a time
    /// moves the booking.
    func trainerReschedulePage(id: String, message: String? = nil, status: Int = 200) throws(WebFailure)
        -> HTTPResponse
    {
        let (booking, type, session) = try ownBooking(id)
        guard booking.status == .confirmed else { return Self.redirect("/calendar/bookings") }
        let view = try parameters(store: try store(for: session), user: session.user)
        var query = bookingQuery
        if query["duration"] == nil, !type.isSeated { query["duration"] = String((booking.end - booking.start) / 60) }
        if query["tz"] == nil { query["tz"] = view.zoneName }
        let state = try pickerState(type, query: query)
        let base = "/calendar/bookings/\(booking.id)/move"
        let body = """
            <header class="bar"><a class="button" href="/calendar/bookings">‹ Bookings</a><h1>Reschedule</h1></header>
            <main class="page booking booking-admin">
            <h2>\(HTML.escape(type.title)) with \(HTML.escape(booking.name))</h2>
            <p class="chosen-time">Now: <strong>\(HTML.escape(Self.when(booking.start, booking.end, zone: state.zone, zoneName: state.zoneName)))</strong>. Pick another time:</p>
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            \(picker(state, base: base, reschedule: (booking.id, session.csrfToken)))
            </main>
            """
        return html("Reschedule", body, status: status)
    }

    func trainerRescheduleFromPage(id: String) throws(WebFailure) -> HTTPResponse {
        let fields = form()
        _ = try requireCSRF(fields)
        let (booking, type, _) = try ownBooking(id)
        let (start, end) = try offeredTime(type, start: fields["start"], duration: fields["duration"])
        do {
            let moved = try BookingEngine(store: backend.bookings).reschedule(
                booking, start: start, end: end, now: calendar.now())
            mail(.moved, moved, type: type, cancel: nil, reschedule: nil, byBooker: false)
        } catch  where error.code == .slotTaken || error.code == .invalidArgument {
            return try trainerReschedulePage(id: id, message: error.message, status: 409)
        } catch {
            throw WebFailure(error)
        }
        return Self.redirect("/calendar/bookings")
    }
}
