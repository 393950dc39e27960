import Availability
import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import JSON
import Recurrence
import StoreAdapters

extension APIContext {
    /// The busy time of `calendars` (all the user's when nil) in a range: every
    /// occurrence that is not transparent or cancelled.
    func busyBlocks(calendars: [String]?, in range: TimeRange, zoneName: String?) throws(APIProblem) -> [BusyBlock] {
        let busy = try attempt { () throws(StoreError) in
            try store.busyTime(in: range, calendars: calendars, timeZone: zoneName ?? "UTC")
        }
        return busy.map(BusyBlock.init)
    }

    /// The booking rules a query or body gives (working hours, buffers, notice, slots, limits).
    func rules(_ parameters: [String: String], zone: ZoneRules, defaultLength: Int?) throws(APIProblem)
        -> AvailabilityRules
    {
        func seconds(_ name: String, default value: Int? = nil) throws(APIProblem) -> Int? {
            guard let text = parameters[name] else { return value }
            guard let seconds = Self.durationSeconds(text), seconds >= 0, seconds <= 366 * 86_400 else {
                throw APIProblem(
                    .invalidQuery, "\(name) is minutes (30) or an ISO 8601 duration (PT30M)", fields: [name])
            }
            return seconds
        }
        func count(_ name: String) throws(APIProblem) -> Int? {
            guard let text = parameters[name] else { return nil }
            guard let value = Int(text), value >= 0, value <= 10_000 else {
                throw APIProblem(.invalidQuery, "\(name) is a count", fields: [name])
            }
            return value
        }
        func busyChoice(_ name: String, default value: Bool) throws(APIProblem) -> Bool {
            switch parameters[name] {
            case nil: return value
            case "busy": return true
            case "free": return false
            default: throw APIProblem(.invalidQuery, "\(name) is busy or free", fields: [name])
            }
        }
        guard let length = try seconds("duration", default: defaultLength), length >= Self.minimumSlotSeconds else {
            throw APIProblem(
                .invalidQuery, "duration is the slot length, at least a minute: minutes (60) or PT1H",
                fields: ["duration"])
        }
        var hours = AvailabilityRules.allDay(zone: zone, slotLength: length).workingHours
        if let text = parameters["workingHours"] {
            guard let parsed = AvailabilityRules.workingHours(text) else {
                throw APIProblem(
                    .invalidQuery, "workingHours reads like \"Mon-Fri 09:00-17:00, Sat 10:00-14:00\"",
                    fields: ["workingHours"])
            }
            hours = parsed
        }
        var overrides: [CivilDate: [ClockRange]] = [:]
        // Dates with other hours: "2026-12-24 09:00-12:00, 2026-12-31 10:00-14:00 15:00-16:00".
        for item in parameters["dateHours"]?.split(separator: ",") ?? [] {
            let words = item.split(separator: " ")
            guard words.count >= 2, let date = CivilDate(isoText: words[0]) else {
                throw APIProblem(
                    .invalidQuery, "dateHours reads like \"2026-12-24 09:00-12:00, 2026-12-31 10:00-14:00\"",
                    fields: ["dateHours"])
            }
            var spans: [ClockRange] = []
            for word in words.dropFirst() {
                guard let span = ClockRange(word) else {
                    throw APIProblem(
                        .invalidQuery, "dateHours reads like \"2026-12-24 09:00-12:00, 2026-12-31 10:00-14:00\"",
                        fields: ["dateHours"])
                }
                spans.append(span)
            }
            overrides[date] = spans
        }
        for item in parameters["daysOff"]?.split(separator: ",") ?? [] {
            guard let date = CivilDate(isoText: item) else {
                throw APIProblem(.invalidQuery, "daysOff is a list of dates", fields: ["daysOff"])
            }
            overrides[date] = []
        }
        var notice = MinimumNotice.none
        if parameters["notice"] == "nextDay" {
            notice = .notSameDay
        } else if let value = try seconds("notice") {
            notice = .seconds(value)
        }
        var window: (start: Int, end: Int)?
        if let days = try count("bookingWindowDays") {
            let today = zone.localTime(at: configuration.now()).date
            window = (
                configuration.now(),
                zone.instant(for: CivilDateTime(date: today.adding(days: days + 1), time: .midnight))
            )
        }
        if let text = parameters["bookingWindow"] {
            // FIRST/LAST, dates in the zone, both included.
            let parts = text.split(separator: "/")
            guard parts.count == 2, let first = CivilDate(isoText: parts[0]), let last = CivilDate(isoText: parts[1]),
                first <= last
            else {
                throw APIProblem(
                    .invalidQuery, "bookingWindow is FIRST/LAST, such as 2026-12-01/2026-12-20",
                    fields: ["bookingWindow"])
            }
            let range = (
                zone.instant(for: CivilDateTime(date: first, time: .midnight)),
                zone.instant(for: CivilDateTime(date: last.adding(days: 1), time: .midnight))
            )
            window = window.map { (max($0.start, range.0), min($0.end, range.1)) } ?? range
        }
        let step = try seconds("step")
        if let step, step < Self.minimumSlotSeconds {
            throw APIProblem(.invalidQuery, "step is at least a minute", fields: ["step"])
        }
        return AvailabilityRules(
            zone: zone, workingHours: hours, slotLength: length, slotStep: step, dateOverrides: overrides,
            bufferBefore: try seconds("bufferBefore") ?? 0, bufferAfter: try seconds("bufferAfter") ?? 0,
            minimumNotice: notice, window: window,
            dailyLimit: try count("dailyLimit"), weeklyLimit: try count("weeklyLimit"),
            firstWeekday: try Self.weekday(parameters["firstWeekday"] ?? "monday"),
            tentativeIsBusy: try busyChoice("tentative", default: true),
            allDayIsBusy: try busyChoice("allDay", default: false))
    }

    /// `30` (minutes) or an ISO 8601 duration without days (`PT1H30M`), in seconds.
    static func durationSeconds(_ text: String) -> Int? {
        if let minutes = Int(text) {
            // Any answer longer than the DURATION bound is refused by the caller anyway.
            guard (0...CalendarDuration.maxSeconds / 60).contains(minutes) else { return nil }
            return minutes * 60
        }
        guard let duration = try? Property(name: "DURATION", value: text).durationValue(), !duration.isNegative else {
            return nil
        }
        return duration.secondsAssumingUniformDays
    }

    /// The shortest slot length and step a search takes: a minute.
    static let minimumSlotSeconds = 60

    static let ruleParameters: Set<String> = [
        "duration", "step", "workingHours", "dateHours", "daysOff", "bookingWindow", "bufferBefore", "bufferAfter",
        "notice", "bookingWindowDays", "dailyLimit", "weeklyLimit",
        "firstWeekday", "tentative", "allDay",
    ]

    /// GET /availability?from&to&duration[&calendars][&tz][&includePast][&rules…]: free
    /// slots. Past times are never offered unless `includePast=true`; the answer's
    /// `pastExcluded` says up to when the range was left out for being past.
    func availability() throws(APIProblem) -> HTTPResponse {
        let parameters = try query(
            allowing: Self.ruleParameters.union(["from", "to", "calendars", "tz", "includePast", "schedule"]))
        let includePast: Bool
        switch parameters["includePast"] {
        case nil, "false": includePast = false
        case "true": includePast = true
        default: throw APIProblem(.invalidQuery, "includePast is true or false", fields: ["includePast"])
        }
        // A stored schedule gives the hours, in its own zone (`tz` still reads from and to).
        var schedule: AvailabilitySchedule?
        if let id = parameters["schedule"] {
            if parameters["workingHours"] != nil || parameters["dateHours"] != nil || parameters["daysOff"] != nil {
                throw APIProblem(
                    .invalidQuery, "schedule gives the hours: leave out workingHours, dateHours and daysOff",
                    fields: ["schedule"])
            }
            schedule = try readSchedule(try storedSchedule(id))
        }
        let (zone, zoneName) = try zone(parameters, fallback: schedule?.timeZone)
        guard let range = try range(parameters, zone: zone) else { return json(.array([])) }
        var rules = try rules(parameters, zone: zone, defaultLength: nil)
        if let schedule {
            schedule.apply(to: &rules)
            rules.zone = TimeZoneDatabase.zone(named: schedule.timeZone) ?? .utc
        }
        let calendars = parameters["calendars"].map { $0.split(separator: ",").map(String.init) }
        // Blocks just outside the range still push slots away through the buffers.
        let margin = rules.bufferBefore + rules.bufferAfter + 86_400
        let busy = try busyBlocks(
            calendars: calendars, in: TimeRange(start: range.start - margin, end: range.end + margin),
            zoneName: zoneName)
        let now = configuration.now()
        let slots = AvailabilitySearch.freeSlots(
            busy: busy, rules: rules, from: range.start, to: range.end, now: includePast ? nil : now,
            limit: configuration.maxItems + 1)
        var extra: [(key: String, value: JSONValue)] = [("timeZone", .string(zoneName ?? "UTC"))]
        if !includePast, let until = AvailabilitySearch.pastPart(from: range.start, to: range.end, now: now) {
            extra.append(
                (
                    "pastExcluded",
                    .object([("until", .string(Self.utc(until))), ("wholeRange", .bool(until == range.end))])
                ))
        }
        return listing("slots", slots, extra: extra, time: \.start) {
            .object([("start", .string(Self.utc($0.start))), ("end", .string(Self.utc($0.end)))])
        }
    }

    /// POST /conflicts: a proposed event (the event fields; a recurring one too) and
    /// optionally `calendars`, `bufferBefore`, `bufferAfter`, `tentative`, `allDay` and
    /// `schedule` (a stored schedule, or `default`) → each occurrence that collides, with
    /// what it collides with and why (`unavailable`: outside the schedule's hours).
    func conflicts() throws(APIProblem) -> HTTPResponse {
        var body = try body(
            allowing: APIModel.eventFields.union([
                "calendars", "bufferBefore", "bufferAfter", "tentative", "allDay", "schedule",
            ]))
        var schedule: (stored: StoredSchedule, schedule: AvailabilitySchedule)?
        if let value = body.removeValue(forKey: "schedule") {
            guard case .string(let id) = value else { throw APIModel.wrongType("schedule", "a schedule id or default") }
            let stored = try storedSchedule(id)
            schedule = (stored, try readSchedule(stored))
        }
        var options: [String: String] = [:]
        for key in ["bufferBefore", "bufferAfter", "tentative"] {
            guard let value = body.removeValue(forKey: key) else { continue }
            switch value {
            case .string(let text): options[key] = text
            case .integer(let minutes): options[key] = String(minutes)
            default: throw APIModel.wrongType(key, "minutes, a duration, or busy/free")
            }
        }
        var calendars: [String]?
        if let value = body.removeValue(forKey: "calendars") {
            guard case .array(let items) = value else {
                throw APIModel.wrongType("calendars", "an array of calendar ids")
            }
            calendars = try items.map { (item) throws(APIProblem) -> String in
                guard case .string(let id) = item else {
                    throw APIModel.wrongType("calendars", "an array of calendar ids")
                }
                return id
            }
        }
        guard body["start"] != nil || body["jcal"] != nil else {
            throw APIProblem(.invalidField, "the proposed event needs a start", fields: ["start"])
        }
        var event = Event(component: Component(name: ComponentType.event.rawValue))
        event.component.setProperty(Property(name: "UID", value: "proposed"))
        try APIModel.apply(body, to: &event)
        var checkedAll = true
        let found = try conflicts(
            of: event, calendars: calendars, options: options, schedule: schedule, checkedAll: &checkedAll)
        // Only the proposed event's first 1,000 occurrences are checked: the answer says when it has more.
        return json(.object([("conflicts", .array(found)), ("truncated", .bool(!checkedAll))]))
    }

    /// The most occurrences of a proposed event checked for conflicts.
    static let maxProposedOccurrences = 1_000

    /// The conflicts of a proposed event with busy time, as JSON: its occurrences over the
    /// next configured range (at most the first 1,000 of them, ``maxProposedOccurrences``),
    /// each against the busy blocks. `checkedAll` becomes false when it had more.
    func conflicts(
        of event: Event, calendars: [String]?, options: [String: String] = [:],
        schedule: (stored: StoredSchedule, schedule: AvailabilitySchedule)? = nil, checkedAll: inout Bool
    )
        throws(APIProblem) -> [JSONValue]
    {
        let zoneName = event.timeZone
        let zone = zoneName.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
        let rules = try rules(options.merging(["duration": "1"]) { old, _ in old }, zone: zone, defaultLength: 60)
        let expansion = CalendarObjectExpansion(resolver: ZoneResolver(calendar: nil), viewerZone: zone)
        let start =
            event.start.map { $0.form == .utc ? $0.civil.secondsSinceEpoch : zone.instant(for: $0.civil) }
            ?? configuration.now()
        let horizon = TimeRange(start: start - 86_400, end: start + configuration.maxRangeDays * 86_400)
        var proposed: [(start: Int, end: Int)]
        do {
            var budget = ExpansionBudget.perRequest
            let expanded = try expansion.prepare([event.component], uid: event.externalIdentifier)
                .expand(
                    from: horizon.start, to: horizon.end, viewerZone: zone, limit: Self.maxProposedOccurrences + 1,
                    budget: &budget)
            proposed = expanded.occurrences.map { ($0.start.instant(in: zone), $0.end.instant(in: zone)) }
            if proposed.count > Self.maxProposedOccurrences || !expanded.isComplete { checkedAll = false }
            proposed = Array(proposed.prefix(Self.maxProposedOccurrences))
        } catch {
            throw APIProblem(.invalidField, "the proposed event cannot be expanded: \(error)", fields: ["rrule"])
        }
        guard let first = proposed.first, let last = proposed.last else { return [] }
        let margin = rules.bufferBefore + rules.bufferAfter + 86_400
        let busy = try busyBlocks(
            calendars: calendars, in: TimeRange(start: first.start - margin, end: last.end + margin), zoneName: zoneName
        )
        .filter { $0.source != event.localIdentifier }
        var titles: [String: String?] = [:]
        // Outside the schedule's hours (in its zone): the occurrence fits in none of its day's spans.
        var unavailable: [JSONValue] = []
        if let schedule, let scheduleZone = TimeZoneDatabase.zone(named: schedule.schedule.timeZone) {
            for occurrence in proposed {
                let date = scheduleZone.localTime(at: occurrence.start).date
                let midnight = CivilDateTime(date: date, time: .midnight)
                let fits = schedule.schedule.hours(on: date).contains { span in
                    scheduleZone.instant(for: midnight.adding(seconds: span.start * 60)) <= occurrence.start
                        && occurrence.end <= scheduleZone.instant(for: midnight.adding(seconds: span.end * 60))
                }
                guard !fits else { continue }
                unavailable.append(
                    .object([
                        (
                            "occurrence",
                            .object([
                                ("start", .string(Self.utc(occurrence.start))),
                                ("end", .string(Self.utc(occurrence.end))),
                            ])
                        ),
                        (
                            "with",
                            .object([
                                ("scheduleId", .string(schedule.stored.id)), ("title", .string(schedule.stored.title)),
                            ])
                        ),
                        ("reason", .string("unavailable")),
                    ]))
            }
        }
        return unavailable
            + AvailabilitySearch.conflicts(proposed: proposed, busy: busy, rules: rules).map { conflict in
                let eventID = conflict.with.source
                if titles[eventID] == nil {
                    titles[eventID] = .some((try? store.event(withIdentifier: eventID))?.title)
                }
                let title = titles[eventID] ?? nil
                let occurrenceID = eventID + (conflict.with.recurrenceID.map { "/" + $0.text } ?? "")
                return .object([
                    (
                        "occurrence",
                        .object([
                            ("start", .string(Self.utc(conflict.start))), ("end", .string(Self.utc(conflict.end))),
                        ])
                    ),
                    (
                        "with",
                        .object([
                            ("eventId", .string(eventID)), ("occurrenceId", .string(occurrenceID)),
                            ("title", title.map(JSONValue.string) ?? .null),
                            ("start", .string(Self.utc(conflict.with.start))),
                            ("end", .string(Self.utc(conflict.with.end))),
                        ])
                    ),
                    ("reason", .string(conflict.reason.rawValue)),
                ])
            }
    }

    /// POST /busy: busy blocks from a device calendar (start and end only) into the
    /// user's busy-only calendar titled `calendar` (made when missing). With `from` and
    /// `to`, the blocks already there in that range are replaced.
    func importBusy() throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: ["calendar", "blocks", "from", "to"])
        let title: String
        switch body["calendar"] {
        case nil: title = "Busy"
        case .string(let text)? where !text.isEmpty: title = text
        default: throw APIModel.wrongType("calendar", "the title of the busy-only calendar")
        }
        guard case .array(let items)? = body["blocks"], items.count <= 10_000 else {
            throw APIModel.wrongType("blocks", "an array (at most 10,000) of {\"start\": \"…Z\", \"end\": \"…Z\"}")
        }
        var blocks: [(start: DateTimeValue, end: DateTimeValue)] = []
        for item in items {
            guard case .object(let members) = item, members.count == 2, case .string(let start)? = item["start"],
                case .string(let end)? = item["end"]
            else {
                throw APIModel.wrongType("blocks", "objects with only start and end")
            }
            let from = try APIModel.time(start, timeZone: nil, field: "blocks.start")
            let to = try APIModel.time(end, timeZone: nil, field: "blocks.end")
            guard from.form == .utc || from.isDate, from.isDate == to.isDate, from.civil < to.civil else {
                throw APIModel.wrongType("blocks", "UTC date-times (or dates) with start before end")
            }
            blocks.append((from, to))
        }
        var replaced: TimeRange?
        if body["from"] != nil || body["to"] != nil {
            guard case .string(let from)? = body["from"], case .string(let to)? = body["to"] else {
                throw APIModel.wrongType("from", "a UTC date-time, with to")
            }
            let start = try APIModel.time(from, timeZone: nil, field: "from")
            let end = try APIModel.time(to, timeZone: nil, field: "to")
            replaced = TimeRange(start: start.civil.secondsSinceEpoch, end: end.civil.secondsSinceEpoch)
        }
        let calendar = try attempt { () throws(StoreError) in try store.calendar(titled: title, createIfMissing: true) }
        guard let calendar else { throw APIProblem(.notFound, "no calendar \(title)") }
        let events = blocks.map { block in
            var event = Event(title: "Busy", start: block.start, end: block.end, calendarIdentifier: calendar.id)
            event.availability = .busy
            return event
        }
        // The old blocks go and the new ones come in one transaction: a failure changes nothing.
        let (removed, added) = try attempt { () throws(StoreError) in
            try store.replaceEvents(in: replaced, calendar: calendar.id, with: events, timeZone: "UTC")
        }
        return json(
            .object([
                ("calendarId", .string(calendar.id)), ("imported", .integer(added.count)),
                ("removed", .integer(removed)),
            ]))
    }
}
