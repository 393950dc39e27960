import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import JSON
import Recurrence

extension APIContext {
    // MARK: Ranges

    /// `from` and `to` (dates, read in `zone`, or date-times) as a range no longer than
    /// the configured maximum.
    func range(_ parameters: [String: String], zone: ZoneRules, required: Bool = true) throws(APIProblem) -> TimeRange?
    {
        guard let fromText = parameters["from"], let toText = parameters["to"] else {
            if required || parameters["from"] != nil || parameters["to"] != nil {
                throw APIProblem(
                    .invalidQuery, "from and to are required (2026-12-01 or 2026-12-01T09:00:00Z)",
                    fields: ["from", "to"])
            }
            return nil
        }
        func instant(_ text: String, _ field: String) throws(APIProblem) -> Int {
            let value: DateTimeValue
            do {
                value = try APIModel.time(text, timeZone: nil, field: field)
            } catch {
                throw APIProblem(.invalidQuery, error.detail, fields: [field])
            }
            if value.form == .utc && !value.isDate { return value.civil.secondsSinceEpoch }
            return zone.instant(for: value.civil)
        }
        let range = TimeRange(start: try instant(fromText, "from"), end: try instant(toText, "to"))
        guard range.start < range.end else {
            throw APIProblem(.invalidQuery, "from must be before to", fields: ["from", "to"])
        }
        guard range.end - range.start <= configuration.maxRangeDays * 86_400 else {
            throw APIProblem(
                .rangeTooLong, "a range is at most \(configuration.maxRangeDays) days", fields: ["from", "to"])
        }
        return range
    }

    /// The `tz` parameter's zone, else `fallback`'s, else UTC.
    func zone(_ parameters: [String: String], fallback: String? = nil) throws(APIProblem) -> (
        rules: ZoneRules, name: String?
    ) {
        guard let name = parameters["tz"] ?? fallback else { return (.utc, nil) }
        guard let rules = TimeZoneDatabase.zone(named: name) else {
            throw APIProblem(
                .invalidQuery, "unknown time zone \(name) (use an IANA name such as Europe/Berlin)", fields: ["tz"])
        }
        return (rules, name)
    }

    // MARK: Events

    /// POST /events: a new event (`calendarId` in the body). `?rejectConflicts=true`
    /// answers 409 with the conflicts instead of saving when it collides with busy time.
    func createEvent() throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["rejectConflicts", "calendars"])
        let body = try body(allowing: APIModel.eventFields)
        guard case .string(let calendarID)? = body["calendarId"] else {
            throw APIProblem(.invalidField, "calendarId names the calendar the event goes to", fields: ["calendarId"])
        }
        guard body["start"] != nil || body["jcal"] != nil else {
            throw APIProblem(.invalidField, "an event needs a start", fields: ["start"])
        }
        // The store gives a new event without `uid` its UID.
        var event = Event(component: Component(name: ComponentType.event.rawValue))
        try APIModel.apply(body, to: &event)
        event.calendarIdentifier = calendarID
        // Invitations go out in the user's name, to other users' calendars and by mail:
        // more than a token that may only add events was given.
        if principal.scope == .addOnly, !event.attendees.isEmpty || event.organizer != nil {
            throw APIProblem(
                .forbidden, "an add-only token adds events without attendees or organizer (no invitations)",
                fields: ["attendees"])
        }
        // Only the event's first occurrences are checked (as POST /conflicts does); when it
        // has more, the answer says so: `truncated` beside a 409's conflicts, a Warning on a 201.
        var checkedAll = true
        if parameters["rejectConflicts"] == "true" {
            if principal.scope == .addOnly {
                throw APIProblem(.forbidden, "an add-only token may not look for conflicts")
            }
            let found = try conflicts(
                of: event, calendars: parameters["calendars"].map { $0.split(separator: ",").map(String.init) },
                checkedAll: &checkedAll)
            if !found.isEmpty {
                throw APIProblem(
                    .conflict, "the event collides with \(found.count) busy time\(found.count == 1 ? "" : "s")",
                    extra: [("conflicts", .array(found)), ("truncated", .bool(!checkedAll))])
            }
        }
        if principal.scope == .addOnly, !event.externalIdentifier.isEmpty,
            !((try? store.events(withExternalIdentifier: event.externalIdentifier)) ?? []).isEmpty
        {
            throw APIProblem(
                .conflict, "an add-only token adds new events; an event with this uid is already kept",
                fields: ["uid"])
        }
        try organize(&event)
        try requireOwnPart(of: nil, becoming: event, span: .thisEvent)
        let saved = try scheduling(of: nil) { () throws(APIProblem) in
            try attempt { () throws(StoreError) in try store.save(event, span: .thisEvent) }
        }
        if let token = principal.token, let identifier = saved.localIdentifier {
            try attempt { () throws(StoreError) in
                try backend.appState.noteCreation(ofEvent: identifier, byToken: token.id)
            }
        }
        var response = json(APIModel.json(saved), status: 201, etag: saved.etag)
        if let identifier = saved.localIdentifier {
            response.headers.set("Location", JSONAPIHandler.eventPath(identifier))
        }
        if !checkedAll {
            response.headers.set(
                "Warning",
                "199 almanac \"only the first \(Self.maxProposedOccurrences) occurrences in the next \(configuration.maxRangeDays) days were checked for conflicts\""
            )
        }
        return response
    }

    /// GET /events/{id}: one event (the whole series).
    func readEvent(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        let stored = try visibleEvent(identifier)
        return json(APIModel.json(stored), etag: stored.etag)
    }

    /// PUT (`replacing`: what the JSON models is replaced) or PATCH (merged) of
    /// /events/{id}, the whole series.
    func saveEvent(_ identifier: String, replacing: Bool) throws(APIProblem) -> HTTPResponse {
        let stored = try visibleEvent(identifier)
        var body = try body(allowing: APIModel.eventFields)
        var event = stored
        if replacing {
            // Replace what the JSON models; keep what it does not (X- properties).
            event.component.properties.removeAll { Self.modeled.contains($0.name) }
            event.component.components.removeAll { $0.name == "VALARM" }
            guard body["start"] != nil || body["jcal"] != nil else {
                throw APIProblem(.invalidField, "an event needs a start", fields: ["start"])
            }
            if body["title"] == nil { body["title"] = .null }
        }
        if let target = body["calendarId"] {
            guard case .string(let calendar) = target else {
                throw APIModel.wrongType("calendarId", "a calendar id")
            }
            event.calendarIdentifier = calendar
        }
        try APIModel.apply(body, to: &event)
        try organize(&event)
        try requireOwnPart(of: stored, becoming: event, span: .thisEvent)
        let saved = try scheduling(of: stored) { () throws(APIProblem) in
            try attempt { () throws(StoreError) in try store.save(event, span: .thisEvent, ifMatch: ifMatch) }
        }
        return json(APIModel.json(saved), etag: saved.etag)
    }

    /// DELETE /events/{id}: the whole series.
    func deleteEvent(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        let stored = try visibleEvent(identifier)
        _ = try scheduling(of: stored) { () throws(APIProblem) in
            try attempt { () throws(StoreError) in try store.remove(stored, span: .futureEvents, ifMatch: ifMatch) }
            return stored
        }
        return HTTPResponse(status: 204)
    }

    /// The stored event, when the principal may see it.
    func visibleEvent(_ identifier: String) throws(APIProblem) -> Event {
        try requireVisible(event: identifier)
        return try attempt { () throws(StoreError) in try store.event(withIdentifier: identifier) }
    }

    /// The properties the event JSON models (a PUT replaces them).
    static let modeled: Set<String> = [
        "SUMMARY", "DESCRIPTION", "LOCATION", "URL", "DTSTART", "DTEND", "DURATION", "RRULE", "EXDATE", "TRANSP",
        "STATUS", "CATEGORIES", "ATTENDEE", "ORGANIZER",
    ]

    // MARK: Occurrences

    /// GET /calendars/{id}/occurrences?from&to[&title][&tz]: the expanded instances.
    func occurrences(calendar identifier: String) throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["from", "to", "title", "tz", "limit", "cursor"])
        let calendar = try attempt { () throws(StoreError) in try store.calendar(withIdentifier: identifier) }
        let (zone, zoneName) = try zone(parameters, fallback: calendar.timeZone)
        guard var range = try range(parameters, zone: zone) else { return json(.array([])) }
        let page = try page(
            parameters, listing: "occurrences", defaultLimit: configuration.maxItems, maxLimit: configuration.maxItems)
        // The cursor is the last listed occurrence's (start, id): the rest start at or after it.
        var after: (start: Int, id: String)?
        if let key = page.after {
            let parts = key.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let start = Int(parts[0]) else {
                throw APIProblem(.invalidQuery, "cursor is not one this listing gave", fields: ["cursor"])
            }
            after = (start, String(parts[1]))
            range = TimeRange(start: min(max(range.start, start), range.end - 1), end: range.end)
        }
        let filter = EventFilter(title: parameters["title"].map { .contains($0) })
        let found = try attempt { () throws(StoreError) in
            try store.occurrences(
                in: range, calendars: [identifier], matching: filter, timeZone: zoneName ?? "UTC",
                limit: configuration.maxItems + 1)
        }
        return try occurrencePage(found, page: page, after: after)
    }

    /// A page of occurrences in (start, id) order after `after`: at most `page.limit`, with
    /// `truncated`, `continueFrom` and `next` when more follow. Occurrences from the
    /// instant where the store's answer or a cut series stopped on are left to the next
    /// page, so nothing is skipped or listed twice across pages.
    func occurrencePage(_ found: OccurrenceList, page: Page, after: (start: Int, id: String)?) throws(APIProblem)
        -> HTTPResponse
    {
        var items = found.occurrences.sorted { ($0.startInstant, $0.identifier) < ($1.startInstant, $1.identifier) }
        if let after { items.removeAll { ($0.startInstant, $0.identifier) <= after } }
        // Everything starting before `resume` is complete.
        var resume: Int?
        if found.occurrences.count > configuration.maxItems, let last = found.occurrences.last {
            resume = last.startInstant
        }
        for series in found.truncatedSeries {
            guard let last = series.lastListedStart else { continue }
            resume = min(resume ?? .max, last.addingSaturated(1))
        }
        if let resume { items.removeAll { $0.startInstant >= resume } }
        let shown = items.prefix(page.limit)
        var members: [(key: String, value: JSONValue)] = [("occurrences", .array(shown.map(APIModel.json)))]
        let continueFrom = items.count > page.limit ? items[page.limit].startInstant : resume
        members.append(("truncated", .bool(continueFrom != nil)))
        if let continueFrom { members.append(("continueFrom", .string(Self.utc(continueFrom)))) }
        if !found.truncatedSeries.isEmpty {
            members.append(("truncatedSeries", .array(found.truncatedSeries.map(Self.json))))
        }
        var next: JSONValue = .null
        if continueFrom != nil, let last = shown.last {
            next = try nextLink(
                listing: "occurrences", key: "\(last.startInstant) \(last.identifier)", limit: page.limit)
        }
        members.append(("next", next))
        return json(.object(members))
    }

    /// GET /occurrences/{event}/{recurrence-id} (`?tz=`): one occurrence.
    func readOccurrence(event identifier: String, recurrenceID: String?) throws(APIProblem) -> HTTPResponse {
        let (occurrence, _) = try visibleOccurrence(event: identifier, recurrenceID: recurrenceID)
        return json(APIModel.json(occurrence), etag: occurrence.etag)
    }

    /// PATCH /occurrences/{event}/{recurrence-id} with `?span=this|future`.
    func editOccurrence(event identifier: String, recurrenceID: String?) throws(APIProblem) -> HTTPResponse {
        let (occurrence, span) = try visibleOccurrence(event: identifier, recurrenceID: recurrenceID)
        let body = try body(allowing: APIModel.eventFields.subtracting(["calendarId", "uid", "rrule", "jcal"]))
        var event = occurrence.event
        try APIModel.apply(body, to: &event)
        try organize(&event)
        try requireOwnPart(of: occurrence.event, becoming: event, span: span)
        let saved = try scheduling(of: occurrence.event) { () throws(APIProblem) in
            try attempt { () throws(StoreError) in try store.save(event, span: span, ifMatch: ifMatch) }
        }
        return json(APIModel.json(saved), etag: saved.etag)
    }

    /// DELETE /occurrences/{event}/{recurrence-id} with `?span=this|future`.
    func removeOccurrence(event identifier: String, recurrenceID: String?) throws(APIProblem) -> HTTPResponse {
        let (occurrence, span) = try visibleOccurrence(event: identifier, recurrenceID: recurrenceID)
        _ = try scheduling(of: occurrence.event) { () throws(APIProblem) in
            try attempt { () throws(StoreError) in try store.remove(occurrence.event, span: span, ifMatch: ifMatch) }
            return occurrence.event
        }
        return HTTPResponse(status: 204)
    }

    /// The occurrence an `/occurrences/…` path names, when the principal may see its
    /// event, and the span (`?span=this|future`) an edit or removal takes.
    func visibleOccurrence(event identifier: String, recurrenceID: String?) throws(APIProblem) -> (
        EventOccurrence, Span
    ) {
        try requireVisible(event: identifier)
        let parameters = try query(allowing: ["span", "tz"])
        let span: Span
        switch parameters["span"] {
        case nil, "this": span = .thisEvent
        case "future": span = .futureEvents
        default: throw APIProblem(.invalidQuery, "span is this or future", fields: ["span"])
        }
        let occurrence = try findOccurrence(event: identifier, recurrenceID: recurrenceID, zoneName: parameters["tz"])
        return (occurrence, span)
    }

    /// The occurrence of an event whose RECURRENCE-ID reads `recurrenceID` (nil: the
    /// only occurrence of a one-off event).
    func findOccurrence(event identifier: String, recurrenceID: String?, zoneName: String?) throws(APIProblem)
        -> EventOccurrence
    {
        try attempt { () throws(StoreError) in
            try store.occurrence(ofEvent: identifier, recurrenceID: recurrenceID, timeZone: zoneName)
        }
    }

    /// DELETE /calendars/{id}/events?from&to[&title][&tz]: removes the occurrences in the
    /// range (with that title) and returns them.
    func removeMatching(calendar identifier: String) throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["from", "to", "title", "tz"])
        let calendar = try attempt { () throws(StoreError) in try store.calendar(withIdentifier: identifier) }
        let (zone, zoneName) = try zone(parameters, fallback: calendar.timeZone)
        guard let range = try range(parameters, zone: zone) else { return json(.array([])) }
        let removed = try attempt { () throws(StoreError) in
            try store.removeEvents(
                in: range, calendar: identifier, title: parameters["title"], timeZone: zoneName ?? "UTC")
        }
        return json(.object([("removed", .array(removed.map(APIModel.json)))]))
    }

    /// GET /alarms?from&to[&calendars][&tz]: the alarms that fire in the range.
    func alarms() throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["from", "to", "calendars", "tz"])
        let (zone, zoneName) = try zone(parameters)
        guard let range = try range(parameters, zone: zone) else { return json(.array([])) }
        let calendars = parameters["calendars"].map { $0.split(separator: ",").map(String.init) }
        let firings = try attempt { () throws(StoreError) in
            try store.alarms(
                firingIn: range, calendars: calendars, timeZone: zoneName, limit: configuration.maxItems + 1)
        }
        return listing("alarms", firings, time: \.fireTime) { firing in
            .object([
                ("fireTime", .string(Self.utc(firing.fireTime))), ("repetition", .integer(firing.repetition)),
                ("alarmUid", .string(firing.alarmUID)), ("state", firing.state.map { .string($0.rawValue) } ?? .null),
                ("firedAt", firing.firedAt.map { .string(Self.utc($0)) } ?? .null),
                ("alarm", APIModel.json(firing.alarm)), ("occurrence", APIModel.json(firing.occurrence)),
            ])
        }
    }

    /// POST /alarms/acknowledge and /alarms/snooze: dismisses or snoozes one alarm of an
    /// event (`eventId`, `occurrence` for an instance of a series, `alarmUid`; `until` for
    /// a snooze) by writing RFC 9074's properties into it, so every device that syncs the
    /// event sees it; answers the event as it now is.
    func dismissAlarm(snooze: Bool) throws(APIProblem) -> HTTPResponse {
        let body = try body(
            allowing: snooze ? ["eventId", "occurrence", "alarmUid", "until"] : ["eventId", "occurrence", "alarmUid"])
        func text(_ name: String, required: Bool = true) throws(APIProblem) -> String? {
            switch body[name] {
            case .string(let value)? where !value.isEmpty: return value
            case nil, .null?: if !required { return nil }
            default: break
            }
            throw APIProblem(.invalidField, "\(name) is a non-empty string", fields: [name])
        }
        let event = try text("eventId")!
        let alarmUID = try text("alarmUid")!
        try requireVisible(event: event)
        var recurrenceID: OccurrenceTime?
        if let occurrence = try text("occurrence", required: false) {
            recurrenceID = try findOccurrence(event: event, recurrenceID: occurrence, zoneName: nil).recurrenceID
        }
        let now = configuration.now()
        var dismissal = AlarmDismissal.acknowledge(at: now)
        if snooze {
            guard let until = try text("until"), let value = try? APIModel.time(until, timeZone: nil, field: "until"),
                value.form == .utc || value.form == .floating
            else { throw APIProblem(.invalidField, "until is a UTC time (2026-12-01T08:10:00Z)", fields: ["until"]) }
            let instant = value.civil.secondsSinceEpoch
            guard instant > now, instant <= now + 366 * 86_400 else {
                throw APIProblem(.invalidField, "until is in the coming year, after now", fields: ["until"])
            }
            dismissal = .snooze(until: instant, at: now)
        }
        let saved = try attempt { () throws(StoreError) in
            try store.dismissAlarm(alarmUID, ofEvent: event, recurrenceID: recurrenceID, dismissal, ifMatch: ifMatch)
        }
        return json(APIModel.json(saved), etag: saved.etag)
    }

    /// GET /events/{id}.ics[?occurrence=][&tz=]: the single-event file (see AddToCalendar),
    /// of the event or of one occurrence, as the Add to Calendar button adds it.
    func eventICS(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["occurrence", "tz"])
        let targets = try addToCalendarTargets(
            event: identifier, occurrence: parameters["occurrence"], zoneName: parameters["tz"])
        return HTTPResponse(
            status: 200,
            headers: [
                "Content-Type": "text/calendar; charset=utf-8",
                "Content-Disposition": "attachment; filename=\"event.ics\"", "Cache-Control": "private, no-cache",
            ], body: targets.ics.bytes)
    }
}
