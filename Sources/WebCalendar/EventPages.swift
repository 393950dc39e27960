import AddToCalendar
import Availability
import CalendarStore
import CalendarViews
import CivilTime
import HTTPTypes
import ICalendar
import Recurrence
import StoreAdapters

extension WebContext {
    /// The event and, for `occurrence`, that instance of it.
    func loadEvent(_ store: any EventStore, id: String, occurrence: String?, zoneName: String) throws(WebFailure) -> (
        Event, EventOccurrence?
    ) {
        do {
            guard let occurrence else { return (try store.event(withIdentifier: id), nil) }
            let found = try store.occurrence(ofEvent: id, recurrenceID: occurrence, timeZone: zoneName)
            return (found.event, found)
        } catch {
            throw WebFailure(error)
        }
    }

    /// The event (or occurrence) a page's `id` and `occurrence` name, for the signed-in user.
    func requestedEvent() throws(WebFailure) -> (
        session: SignInSession, store: any EventStore, view: ViewParameters, id: String, occurrenceID: String?,
        event: Event, occurrence: EventOccurrence?
    ) {
        let session = try requireSession()
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        guard let id = request.queryValue("id") else { throw WebFailure(404, "Which event?") }
        let occurrenceID = request.queryValue("occurrence")
        let (event, occurrence) = try loadEvent(store, id: id, occurrence: occurrenceID, zoneName: view.zoneName)
        return (session, store, view, id, occurrenceID, event, occurrence)
    }

    /// `/calendar/event?id=ID[&occurrence=RECURRENCE-ID]`: the event, its "Add to Calendar"
    /// button and links, and what to do with it.
    func eventPage() throws(WebFailure) -> HTTPResponse {
        let (session, store, view, id, occurrenceID, event, occurrence) = try requestedEvent()
        let targets: AddToCalendarTargets
        do {
            targets = try AddToCalendarTargets.targets(
                ofEvent: id, occurrence: occurrence, zoneName: view.zoneName, in: store)
        } catch {
            throw WebFailure(error)
        }
        let calendarTitle = view.calendars.first { $0.id == event.calendarIdentifier }?.title ?? ""
        // The entry's times: the occurrence's, or the series' first instance, zones and durations resolved.
        let when = Self.describe(targets.entry.startTime, targets.entry.endTime, view.zone)
        let added = (try? backend.appState.addedMark(event: id, user: session.user)) ?? nil
        let addedURL = "/api/v1/events/" + PercentEncoding.encode(id) + "/added"
        // The download is what the button adds: this occurrence, or the whole event.
        let icsURL =
            "/events/" + PercentEncoding.encode(id) + ".ics"
            + (occurrenceID.map { "?" + HTML.query([("occurrence", $0)]) } ?? "")
        let links = [
            ("Google Calendar", targets.google.url), ("Outlook.com", targets.outlook.url),
            ("Office 365", targets.office365.url),
            ("Yahoo Calendar", targets.yahoo.url),
        ]
        var editPairs = [("id", id)]
        if let occurrenceID { editPairs.append(("occurrence", occurrenceID)) }
        let body = """
            <header class="bar"><a class="button" href="\(HTML.escape(calendarReturn(view)))">‹ Calendar</a></header>
            <main class="page event\(event.status == .cancelled ? " cancelled" : "")">
            <h1>\(HTML.escape(event.title ?? "(untitled)"))</h1>
            \(Self.statusNote(event.status))
            <dl>
            <dt>When</dt><dd>\(HTML.escape(when))</dd>
            \(event.location.map { "<dt>Where</dt><dd>\(HTML.escape($0))</dd>" } ?? "")
            <dt>Calendar</dt><dd>\(HTML.escape(calendarTitle))</dd>
            \(event.component.property("RRULE").map { rule in "<dt>Repeats</dt><dd>" + (RepeatText.describe(rule.value).map(HTML.escape) ?? "<code>\(HTML.escape(rule.value))</code>") + "</dd>" } ?? "")
            \(Self.alarmText(event).map { "<dt>Alert</dt><dd>\(HTML.escape($0))</dd>" } ?? "")
            \(event.notes.map { "<dt>Notes</dt><dd class=\"notes\">\(HTML.escape($0))</dd>" } ?? "")
            </dl>
            \(try attendeesSection(event, id: id, occurrence: occurrenceID, user: session.user, zone: view.zone))
            <div class="add-to-calendar">
            <button type="button" class="add" data-controller="bridge--add-to-calendar" data-bridge-payload="\(HTML.escape(targets.bridge.json.jsonText))" data-mark-added-url="\(HTML.escape(addedURL))" aria-haspopup="true">Add to Calendar</button>
            <span class="added-note" role="status"\(added == nil ? " hidden" : "")>Added to your calendar</span>
            <details class="add-links">
            <summary>Add to Calendar</summary>
            <ul>
            \(links.map { "<li><a href=\"\(HTML.escape($0.1))\" target=\"_blank\" rel=\"noopener\">\($0.0)</a></li>" }.joined())
            <li><a href="\(HTML.escape(icsURL))" download>Download .ics</a></li>
            </ul>
            </details>
            </div>
            <p class="actions"><a class="button" href="/calendar/edit?\(HTML.escape(HTML.query(editPairs)))">Edit</a> <a class="button danger" href="\(HTML.escape(Self.deleteLink(id: id, occurrence: occurrenceID)))">Delete…</a></p>
            </main>
            """
        return html(event.title ?? "Event", body)
    }

    /// The event's first alert in words ("15 minutes before"), when it has one relative
    /// to its start.
    static func alarmText(_ event: Event) -> String? {
        guard case .relative(let offset, false)? = event.alarms.first?.trigger, offset.nominalDays == 0,
            offset.exactSeconds <= 0
        else { return event.alarms.isEmpty ? nil : "Yes" }
        let minutes = -offset.exactSeconds / 60
        switch minutes {
        case 0: return "At the start"
        case let value where value % 1_440 == 0: return "\(value / 1_440) day\(value == 1_440 ? "" : "s") before"
        case let value where value % 60 == 0: return "\(value / 60) hour\(value == 60 ? "" : "s") before"
        default: return "\(minutes) minute\(minutes == 1 ? "" : "s") before"
        }
    }

    /// Where "‹ Calendar" leads: back to the view the event was opened from (this site's
    /// own `/calendar` page, as the browser names it), else the month.
    func calendarReturn(_ view: ViewParameters) -> String {
        if let referer = request.headers["Referer"], let origin = request.origin,
            referer.hasPrefix(origin + "/calendar?"),
            !referer.contains("\"")
        {
            return String(referer.dropFirst(origin.count))
        }
        return "/calendar?" + HTML.query([("view", "month"), ("date", view.date.description)])
    }

    /// What an event page says first when the event is not simply on: cancelled (a
    /// booker's cancellation, an organizer's), or not yet certain.
    static func statusNote(_ status: EventStatus?) -> String {
        switch status {
        case .cancelled:
            "<p class=\"status-note cancelled\" role=\"status\"><strong>Cancelled.</strong> This event does not take place; it stays in the calendar so everyone can see it was called off.</p>"
        case .tentative:
            "<p class=\"status-note tentative\" role=\"status\"><strong>Tentative.</strong> Not yet certain.</p>"
        default: ""
        }
    }

    /// `Tuesday 2026-12-01 18:00–19:30 (Europe/Berlin)` or `2026-12-24 – 2026-12-26, all day`.
    static func describe(_ start: OccurrenceTime, _ end: OccurrenceTime, _ zone: ZoneRules) -> String {
        if case .date(let first) = start {
            var last = first
            if case .date(let after) = end, after > first { last = after.adding(days: -1) }
            return last == first ? "\(first), all day" : "\(first) – \(last), all day"
        }
        let from = zone.localTime(at: start.instant(in: zone))
        let to = zone.localTime(at: end.instant(in: zone))
        let day = from.date.weekday.englishName
        let endText =
            to.date == from.date
            ? clock(to.time.hour * 60 + to.time.minute) : "\(to.date) " + clock(to.time.hour * 60 + to.time.minute)
        return "\(day) \(from.date) \(clock(from.time.hour * 60 + from.time.minute))–\(endText) (\(zone.identifier))"
    }

    // MARK: The event form

    /// `/calendar/new?date=…` and `/calendar/edit?id=…[&occurrence=…]`.
    func formPage() throws(WebFailure) -> HTTPResponse {
        let session = try requireSession()
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        var fields: [String: String] = [
            "startDate": view.date.description, "startTime": "09:00", "endDate": view.date.description,
            "endTime": "10:00",
        ]
        if let id = request.queryValue("id") {
            let occurrenceID = request.queryValue("occurrence")
            let (event, occurrence) = try loadEvent(store, id: id, occurrence: occurrenceID, zoneName: view.zoneName)
            fields["id"] = id
            fields["occurrence"] = occurrenceID
            fields["title"] = event.title
            fields["location"] = event.location
            fields["notes"] = event.notes
            fields["calendar"] = event.calendarIdentifier
            fields["rrule"] = event.component.property("RRULE")?.value
            fields["recurring"] = event.isRecurring ? "1" : nil
            if case .relative(let offset, false)? = event.alarms.first?.trigger, offset.nominalDays == 0,
                offset.exactSeconds <= 0
            {
                fields["alarm"] = String(-offset.exactSeconds / 60)
            }
            // Times as the Add to Calendar entry resolves them (TZID, DURATION, the first instance).
            let entry: CalendarEntry
            do {
                entry = try AddToCalendarTargets.targets(
                    ofEvent: id, occurrence: occurrence, zoneName: view.zoneName, in: store
                ).entry
            } catch {
                throw WebFailure(error)
            }
            if let dates = entry.dates {
                fields["allDay"] = "1"
                fields["startDate"] = dates.first.description
                fields["endDate"] = dates.afterLast.adding(days: -1).description
            } else {
                let from = view.zone.localTime(at: entry.start)
                let to = view.zone.localTime(at: entry.end)
                fields["startDate"] = from.date.description
                fields["startTime"] = Self.clock(from.time.hour * 60 + from.time.minute)
                fields["endDate"] = to.date.description
                fields["endTime"] = Self.clock(to.time.hour * 60 + to.time.minute)
            }
        }
        return html(fields["id"] == nil ? "New event" : "Edit event", eventForm(fields, view: view, conflicts: []))
    }

    func eventForm(_ fields: [String: String], view: ViewParameters, conflicts: [String], error: String? = nil)
        -> String
    {
        func value(_ name: String) -> String { HTML.escape(fields[name] ?? "") }
        let presets = [
            ("", "Does not repeat"), ("FREQ=DAILY", "Every day"), ("FREQ=WEEKLY", "Every week"),
            ("FREQ=MONTHLY", "Every month"),
            ("FREQ=YEARLY", "Every year"), ("custom", "Custom rule"),
        ]
        let rule = fields["rrule"] ?? ""
        let preset = fields["repeat"] ?? (rule.isEmpty ? "" : (presets.contains { $0.0 == rule } ? rule : "custom"))
        let calendarOptions = view.calendars.map { item in
            "<option value=\"\(HTML.escape(item.id))\"\(item.id == fields["calendar"] ? " selected" : "")>\(HTML.escape(item.title))</option>"
        }.joined()
        var html =
            "<header class=\"bar\"><a class=\"button\" href=\"/calendar\">‹ Calendar</a></header><main class=\"page\">"
        html += "<h1>\(fields["id"] == nil ? "New event" : "Edit event")</h1>"
        if let error { html += "<p class=\"error\" role=\"alert\">\(HTML.escape(error))</p>" }
        if !conflicts.isEmpty {
            html +=
                "<div class=\"conflicts\" role=\"alert\"><p>This overlaps:</p><ul>"
                + conflicts.map { "<li>\(HTML.escape($0))</li>" }.joined()
                + "</ul><p>Save anyway, or change the time.</p></div>"
        }
        html += """
            <form class="event-form" method="post" action="/calendar/save">
            <input type="hidden" name="csrf" value="\(HTML.escape(session?.csrfToken ?? ""))">
            <input type="hidden" name="id" value="\(value("id"))">
            <input type="hidden" name="occurrence" value="\(value("occurrence"))">
            <input type="hidden" name="tz" value="\(HTML.escape(view.zoneName))">
            \(conflicts.isEmpty ? "" : "<input type=\"hidden\" name=\"confirm\" value=\"1\">")
            <label>Title <input name="title" required value="\(value("title"))"></label>
            <label>Calendar <select name="calendar">\(calendarOptions)</select></label>
            <label class="inline"><input type="checkbox" name="allDay" value="1"\(fields["allDay"] == "1" ? " checked" : "")> All day</label>
            <fieldset class="times"><legend>Starts</legend>
            <input type="date" name="startDate" required value="\(value("startDate"))" aria-label="Start date">
            <input type="time" name="startTime" value="\(value("startTime"))" aria-label="Start time">
            </fieldset>
            <fieldset class="times"><legend>Ends</legend>
            <input type="date" name="endDate" required value="\(value("endDate"))" aria-label="End date">
            <input type="time" name="endTime" value="\(value("endTime"))" aria-label="End time">
            </fieldset>
            <label>Repeats <select name="repeat">\(presets.map { "<option value=\"\($0.0)\"\($0.0 == preset ? " selected" : "")>\($0.1)</option>" }.joined())</select></label>
            <label>Custom rule <input name="rrule" placeholder="FREQ=WEEKLY;BYDAY=TU,TH;COUNT=10" value="\(HTML.escape(preset == "custom" ? rule : ""))"></label>
            <label>Alert, minutes before <input type="number" name="alarm" min="0" max="40320" value="\(value("alarm"))"></label>
            <label>Location <input name="location" value="\(value("location"))"></label>
            <label>Notes <textarea name="notes" rows="3">\(value("notes"))</textarea></label>
            """
        if fields["recurring"] == "1" && !(fields["occurrence"] ?? "").isEmpty {
            html += """
                <fieldset class="span"><legend>Change</legend>
                <label class="inline"><input type="radio" name="span" value="this"\(fields["span"] == "future" ? "" : " checked")> This event</label>
                <label class="inline"><input type="radio" name="span" value="future"\(fields["span"] == "future" ? " checked" : "")> This and future events</label>
                </fieldset>
                """
        }
        html += "<p class=\"actions\"><button type=\"submit\">\(conflicts.isEmpty ? "Save" : "Save anyway")</button>"
        if let id = fields["id"], !id.isEmpty {
            let occurrence = fields["occurrence"].flatMap { $0.isEmpty ? nil : $0 }
            let page = "/calendar/event?" + HTML.query([("id", id)] + (occurrence.map { [("occurrence", $0)] } ?? []))
            html +=
                " <a class=\"button\" href=\"\(HTML.escape(page))\">Cancel</a>"
                + " <a class=\"button danger\" href=\"\(HTML.escape(Self.deleteLink(id: id, occurrence: occurrence)))\">Delete…</a>"
        } else {
            let day = fields["startDate"] ?? view.date.description
            html +=
                " <a class=\"button\" href=\"\(HTML.escape("/calendar?" + HTML.query([("view", "day"), ("date", day)])))\">Cancel</a>"
        }
        html += "</p></form></main>"
        return html
    }

    /// POST /calendar/save: checks the form, warns about conflicts (unless confirmed),
    /// saves with the chosen span, and shows the event.
    func saveEvent() throws(WebFailure) -> HTTPResponse {
        var fields = form()
        let session = try requireCSRF(fields)
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        let zoneName = fields["tz"].flatMap { TimeZoneDatabase.zone(named: $0) != nil ? $0 : nil } ?? view.zoneName
        let zone = TimeZoneDatabase.zone(named: zoneName) ?? .utc
        func refuse(_ message: String) -> HTTPResponse {
            html("Event", eventForm(fields, view: view, conflicts: [], error: message), status: 400)
        }
        guard let title = fields["title"], !title.isEmpty else { return refuse("The event needs a title.") }
        for (field, label) in [("title", "title"), ("location", "location"), ("notes", "notes")] {
            if let scalar = fields[field].flatMap({ ValueCharacters.forbidden(in: $0, allowingLineBreaks: true) }) {
                return refuse(
                    "The \(label) holds the control character \(ValueCharacters.name(of: scalar)), which a calendar cannot store."
                )
            }
        }
        guard let startDate = Self.date(fields["startDate"] ?? ""), let endDate = Self.date(fields["endDate"] ?? "")
        else {
            return refuse("Start and end dates are YYYY-MM-DD.")
        }
        let allDay = fields["allDay"] == "1"
        let start: DateTimeValue
        let end: DateTimeValue
        if allDay {
            guard endDate >= startDate else { return refuse("The event ends before it starts.") }
            start = DateTimeValue(date: startDate)
            end = DateTimeValue(date: endDate.adding(days: 1))
        } else {
            guard let startClock = Self.clockMinutes(fields["startTime"] ?? ""),
                let endClock = Self.clockMinutes(fields["endTime"] ?? "")
            else {
                return refuse("Times are HH:MM.")
            }
            let from = CivilDateTime(date: startDate, time: .midnight).adding(seconds: startClock * 60)
            let to = CivilDateTime(date: endDate, time: .midnight).adding(seconds: endClock * 60)
            guard to >= from else { return refuse("The event ends before it starts.") }
            let form: DateTimeForm = zoneName == "UTC" ? .utc : .zoned(tzid: zoneName)
            start = DateTimeValue(from, form: form)
            end = DateTimeValue(to, form: form)
        }
        var rule: String?
        switch fields["repeat"] ?? "" {
        case "": rule = nil
        case "custom":
            let text = (fields["rrule"] ?? "").trimmingCharacters(in: .whitespaces)
            rule = text.hasPrefix("RRULE:") ? String(text.dropFirst(6)) : text
        case let preset: rule = preset
        }
        if let candidate = rule, (try? RecurrenceRule(parsing: candidate, strict: true)) == nil {
            return refuse("The repeat rule is not a valid RFC 5545 rule: \(candidate)")
        }
        var alarmMinutes: Int?
        if let text = fields["alarm"], !text.isEmpty {
            guard let minutes = Int(text), (0...40_320).contains(minutes) else {
                return refuse("The alert is 0 to 40,320 minutes before.")
            }
            alarmMinutes = minutes
        }
        var calendarID = fields["calendar"] ?? view.calendars.first?.id ?? ""
        if view.calendars.isEmpty {
            // A first event makes the user's first calendar.
            do {
                calendarID = try store.calendar(titled: "Calendar", createIfMissing: true)?.id ?? ""
            } catch {
                return refuse(error.message)
            }
        } else if !view.calendars.contains(where: { $0.id == calendarID }) {
            return refuse("Choose a calendar.")
        }

        // The event: a new one, or the stored one (or its occurrence) with these fields.
        var event: Event
        var original: Event?
        let span: Span = fields["span"] == "future" ? .futureEvents : .thisEvent
        let existingID = fields["id"].flatMap { $0.isEmpty ? nil : $0 }
        if let existingID {
            event = try loadEvent(
                store, id: existingID, occurrence: fields["occurrence"].flatMap { $0.isEmpty ? nil : $0 },
                zoneName: zoneName
            ).0
            original = event
            event.calendarIdentifier = calendarID
        } else {
            event = Event(title: title, start: start, calendarIdentifier: calendarID)
        }
        event.title = title
        event.start = start
        event.end = end
        event.location = fields["location"].flatMap { $0.isEmpty ? nil : $0 }
        event.notes = fields["notes"].flatMap { $0.isEmpty ? nil : $0 }
        if existingID == nil || event.occurrenceID == nil || span == .futureEvents {
            event.component.removeProperties(named: "RRULE")
            if let rule { event.component.properties.append(Property(name: "RRULE", value: rule)) }
        }
        event.alarms = alarmMinutes.map { [Alarm.minutesBefore($0)] } ?? []
        // An invitation from someone else is theirs to change; its page answers it.
        if let original, (try? store.ownResource(withUID: original.externalIdentifier)) != nil {
            do {
                try schedulingAgent.checkEdit(
                    of: original.component, to: event.component, splitting: span == .futureEvents, by: session.user)
            } catch {
                return refuse(error.message + ". Answer the invitation on the event's page instead.")
            }
        }

        // Warn before saving over busy time (the event's own instances aside).
        if fields["confirm"] != "1" {
            let conflicts = try conflicts(of: event, store: store, zone: zone)
            if !conflicts.isEmpty {
                fields["rrule"] = rule
                return html("Event", eventForm(fields, view: view, conflicts: conflicts), status: 409)
            }
        }
        let saved: Event
        do {
            // Attendees of a meeting the user organizes are told, as a CalDAV write tells them.
            saved = try schedulingAgent.scheduling(in: store, of: original) { () throws(StoreError) -> Event in
                try store.save(event, span: span)
            }
        } catch {
            return refuse(error.message)
        }
        return Self.redirect("/calendar/event?" + HTML.query([("id", saved.localIdentifier ?? "")]))
    }

    static func clockMinutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count >= 2, let hour = Int(parts[0]), let minute = Int(parts[1]), (0..<24).contains(hour),
            (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    /// The proposed event's instances the form checks for conflicts: those of the coming year, at most this many.
    static let conflictCheckLimit = 1_000

    /// What the proposed event overlaps in the user's calendars, as lines to show (the
    /// first ten, then how many more), and when the event has more instances in the
    /// coming year than were checked, a line that says so.
    func conflicts(of event: Event, store: any EventStore, zone: ZoneRules) throws(WebFailure) -> [String] {
        let expansion = CalendarObjectExpansion(resolver: ZoneResolver(calendar: nil), viewerZone: zone)
        var proposed: [(start: Int, end: Int)]
        let isCut: Bool
        do {
            let now = calendar.now()
            var budget = ExpansionBudget.perRequest
            let found = try expansion.prepare([event.component], uid: event.externalIdentifier)
                .expand(
                    from: now - 86_400, to: now + 366 * 86_400, viewerZone: zone, limit: Self.conflictCheckLimit + 1,
                    budget: &budget)
            proposed = found.occurrences.map { ($0.start.instant(in: zone), $0.end.instant(in: zone)) }
            isCut = !found.isComplete || proposed.count > Self.conflictCheckLimit
        } catch {
            return []
        }
        proposed = Array(proposed.prefix(Self.conflictCheckLimit))
        guard let first = proposed.first, let last = proposed.last else { return [] }
        let busy: [BusyTime]
        do {
            busy = try store.busyTime(
                in: TimeRange(start: first.start, end: max(last.end, last.start + 1)), calendars: nil,
                timeZone: zone.identifier)
        } catch {
            throw WebFailure(error)
        }
        let rules = AvailabilityRules(zone: zone, workingHours: [:], slotLength: 60, allDayIsBusy: false)
        let found = AvailabilitySearch.conflicts(
            proposed: proposed, busy: busy.filter { $0.eventIdentifier != event.localIdentifier }.map(BusyBlock.init),
            rules: rules)
        guard !found.isEmpty else { return [] }
        var lines: [String] = []
        var titles: [String: String] = [:]
        for conflict in found.prefix(10) {
            let id = conflict.with.source
            let title = titles[id] ?? (try? store.event(withIdentifier: id))?.title ?? "(untitled)"
            titles[id] = title
            lines.append("\(title), \(Self.describe(.instant(conflict.with.start), .instant(conflict.with.end), zone))")
        }
        if found.count > 10 { lines.append("and \(found.count - 10) more") }
        if isCut {
            lines.append("(only its first \(Self.conflictCheckLimit) instances in the coming year were checked)")
        }
        return lines
    }
}
