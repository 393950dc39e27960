import CalendarStore
import CivilTime
import ICalendar
import JSON
import Recurrence

/// `almanac add|list|agenda|remove|alarms`: events in the local store.
enum EventCommands {
    // MARK: add

    static func add(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.add)
        guard options.operands.isEmpty else { throw .usage("'add' takes no operands (did you mean --title?)") }
        let title = try options.required("--title", command: "add")
        // TEXT escapes line breaks; a URL is written as it is and may hold no control character.
        for option in ["--title", "--location", "--notes", "--url"] {
            if let scalar = options[option].flatMap({
                ValueCharacters.forbidden(in: $0, allowingLineBreaks: option != "--url")
            }) {
                throw .usage(
                    "\(option) holds the control character \(ValueCharacters.name(of: scalar)), which iCalendar cannot store"
                )
            }
        }
        let startText = try options.required("--start", command: "add")
        let calendarTitle = try options.required("--calendar", command: "add")
        if options["--end"] != nil && options["--duration"] != nil {
            throw .usage("give --end or --duration, not both")
        }
        let allDay = options.has("--all-day")
        if !allDay && options["--end"] == nil && options["--duration"] == nil {
            throw .usage("'add' needs --end or --duration (or --all-day)")
        }
        let rule = try options["--rrule"].map { (text) throws(CommandFailure) -> RecurrenceRule in
            do throws(ICalendarError) {
                return try RecurrenceRule(parsing: text.hasPrefix("RRULE:") ? String(text.dropFirst(6)) : text)
            } catch {
                throw .usage("--rrule: \(error.message)")
            }
        }
        let alarms = try options.all("--alarm").map { (text) throws(CommandFailure) -> Alarm in
            Alarm(trigger: .relative(try TimeInput.duration(text, option: "--alarm"), relatedToEnd: false))
        }
        let duration = try options["--duration"].map { (text) throws(CommandFailure) in
            try TimeInput.duration(text, option: "--duration")
        }
        if let duration, duration.isNegative || duration.secondsAssumingUniformDays == 0 {
            throw .usage("--duration must be positive")
        }

        let context = try StoreContext(options, io: io)
        // Read and check everything before the calendar is created, so a mistake creates nothing.
        let existing = try context.calendarToWrite(titled: calendarTitle, create: options.has("--create"))
        let zone = try context.zone(options)
        var start = try TimeInput.parse(startText, now: io.now, zone: zone, option: "--start")
        var end = try options["--end"].map { (text) throws(CommandFailure) in
            try TimeInput.parse(text, now: io.now, zone: zone, option: "--end")
        }
        if allDay {
            start = DateTimeValue(date: start.date)
            if let value = end { end = DateTimeValue(date: value.date.adding(days: value.isDate ? 0 : 1)) }
            if end == nil && duration == nil { end = DateTimeValue(date: start.date.adding(days: 1)) }
            if let duration, duration.exactSeconds != 0 {
                throw .usage("an all-day event lasts whole days (--duration 2d)")
            }
        } else {
            if start.isDate { throw .usage("--start needs a time (YYYY-MM-DD HH:MM), or add --all-day") }
            if let value = end, value.isDate { throw .usage("--end needs a time (YYYY-MM-DD HH:MM)") }
        }
        if let value = end, TimeInput.instant(value, zone: zone) <= TimeInput.instant(start, zone: zone) {
            throw .usage("--end must be after --start")
        }
        let calendar: EventCalendar
        if let existing {
            calendar = existing
        } else {
            calendar = try context.calendar(titled: calendarTitle, create: true)
        }
        var event = Event(title: title, start: start, end: end, calendarIdentifier: calendar.id)
        if let duration { event.duration = duration }
        if let rule { event.recurrenceRules = [rule] }
        event.alarms = alarms
        event.location = options["--location"]
        event.notes = options["--notes"]
        event.url = options["--url"]
        let saved = try StoreContext.run { () throws(StoreError) in try context.store.save(event) }
        io.write("Added \(saved.localIdentifier ?? "") (UID \(saved.externalIdentifier)) to \(calendar.title)\n")
        return 0
    }

    // MARK: list and agenda

    static func list(_ arguments: [String], io: CommandIO, agenda: Bool) throws(CommandFailure) -> Int32 {
        let command = agenda ? "agenda" : "list"
        let options = try Options(arguments, for: agenda ? CommandTable.agenda : CommandTable.list)
        guard options.operands.isEmpty else { throw .usage("'\(command)' takes no operands") }
        let context = try StoreContext(options, io: io)
        let calendars = try StoreContext.run { () throws(StoreError) in try context.store.calendars() }
        let chosen =
            try options["--calendar"].map { (title) throws(CommandFailure) in [try context.calendar(titled: title)] }
            ?? calendars
        let zone = try context.zone(options)
        let range = try context.range(options, zone: zone, days: agenda ? 7 : 30)
        let filter = EventFilter(title: options["--title"].map { .contains($0) }, componentTypes: [.event])
        let found = try StoreContext.run { () throws(StoreError) in
            try context.store.occurrences(
                in: range, calendars: chosen.map(\.id), matching: filter, timeZone: zone.identifier, limit: .max)
        }
        let occurrences = found.occurrences
        let titles = Dictionary(calendars.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
        if options.has("--json") {
            io.write(
                JSONValue.array(occurrences.map { json($0, zone: zone, calendar: titles[$0.calendarIdentifier] ?? "") })
                    .jsonText + "\n")
            return reportTruncation(found, io: io)
        }
        var output = context.zoneLine(zone)
        var day: CivilDate?
        for occurrence in occurrences {
            if agenda {
                let date = zone.localTime(at: max(occurrence.startInstant, range.start)).date
                if date != day {
                    output += (day == nil ? "" : "\n") + "\(date.weekday.englishName) \(date)\n"
                    day = date
                }
                output += "  " + when(occurrence, zone: zone, clockOnly: true)
            } else {
                output += when(occurrence, zone: zone, clockOnly: false)
            }
            output += "  \(occurrence.title ?? "(untitled)")  [\(titles[occurrence.calendarIdentifier] ?? "")]"
            output += statusMark(occurrence)
            if !agenda { output += "  \(occurrence.identifier)" }
            output += "\n"
        }
        if agenda && occurrences.isEmpty && found.isComplete { output += "Nothing in the next 7 days.\n" }
        io.write(output)
        return reportTruncation(found, io: io)
    }

    /// Names on standard error each series a bound of expansion cut (its instances are
    /// listed up to where it stopped); the exit status is then 1, else 0.
    static func reportTruncation(_ found: OccurrenceList, io: CommandIO) -> Int32 {
        for series in found.truncatedSeries {
            io.writeError("almanac: \(series); ask for a shorter range (--from, --to) for the rest")
        }
        return found.isComplete ? 0 : 1
    }

    /// `  (cancelled)` or `  (tentative)` after an event that is not simply on; else nothing.
    static func statusMark(_ occurrence: EventOccurrence) -> String {
        switch occurrence.status {
        case .cancelled: "  (cancelled)"
        case .tentative: "  (tentative)"
        default: ""
        }
    }

    /// `2026-12-01 18:00–19:30`, or `2026-12-02 all day`; with `clockOnly`, without the date.
    static func when(_ occurrence: EventOccurrence, zone: ZoneRules, clockOnly: Bool) -> String {
        if case .date(let first) = occurrence.start {
            var text = clockOnly ? "all day    " : "\(first) all day"
            if case .date(let end) = occurrence.end, end.days(since: first) > 1 {
                text += " (until \(end.adding(days: -1)))"
            }
            return text
        }
        let start = occurrence.startInstant
        let end = occurrence.endInstant
        let startText = clockOnly ? TimeInput.clock(start, zone: zone) : TimeInput.text(start, zone: zone)
        let sameDay = zone.localTime(at: start).date == zone.localTime(at: max(start, end - 1)).date
        return startText + "–" + (sameDay ? TimeInput.clock(end, zone: zone) : TimeInput.text(end, zone: zone))
    }

    static func json(_ occurrence: EventOccurrence, zone: ZoneRules, calendar: String) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(occurrence.identifier)),
            ("eventId", .string(occurrence.eventIdentifier)),
            ("uid", .string(occurrence.component.property("UID")?.value ?? "")),
            ("calendar", .string(calendar)),
            ("title", occurrence.title.map(JSONValue.string) ?? .null),
            ("allDay", .bool(occurrence.isAllDay)),
        ]
        if case .date(let first) = occurrence.start, case .date(let end) = occurrence.end {
            members += [("start", .string(first.description)), ("end", .string(end.description))]
        } else {
            members += [
                ("start", .string(TimeInput.rfc3339(occurrence.startInstant, zone: zone))),
                ("end", .string(TimeInput.rfc3339(occurrence.endInstant, zone: zone))),
            ]
        }
        members += [
            ("timeZone", occurrence.timeZone.map(JSONValue.string) ?? .null),
            ("location", occurrence.component.property("LOCATION").map { .string($0.textValue()) } ?? .null),
            ("recurrenceId", occurrence.recurrenceID.map { .string($0.text) } ?? .null),
            ("detached", .bool(occurrence.isDetached)),
            ("status", occurrence.component.property("STATUS").map { .string($0.value) } ?? .null),
        ]
        return .object(members)
    }

    // MARK: remove

    static func remove(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.remove)
        guard options.operands.isEmpty else { throw .usage("'remove' takes no operands") }
        let span: Span
        switch options["--span"] ?? "this" {
        case "this": span = .thisEvent
        case "future": span = .futureEvents
        default: throw .usage("--span must be this or future")
        }
        let context = try StoreContext(options, io: io)
        if let identifier = options["--id"] {
            guard options["--calendar"] == nil, options["--from"] == nil, options["--title"] == nil else {
                throw .usage("'remove --id' takes --occurrence and --span, not --calendar, --from or --title")
            }
            // An occurrence identifier from 'list' (EVENT/RECURRENCE-ID) names the instance itself.
            var eventID = identifier
            var occurrenceText = options["--occurrence"]
            if let slash = identifier.firstIndex(of: "/") {
                eventID = String(identifier[..<slash])
                occurrenceText = occurrenceText ?? String(identifier[identifier.index(after: slash)...])
            }
            var event = try StoreContext.run { () throws(StoreError) in try context.store.event(withIdentifier: eventID)
            }
            var what = "event \(event.title ?? eventID)"
            if let occurrenceText {
                let zone = try context.zone(options)
                let value = try TimeInput.parse(occurrenceText, now: io.now, zone: zone, option: "--occurrence")
                let instant = TimeInput.instant(value, zone: zone)
                let window = TimeRange(start: instant - 2 * 86_400, end: instant + 2 * 86_400)
                let candidates = try StoreContext.run { () throws(StoreError) in
                    try context.store.events(
                        in: window, calendars: [event.calendarIdentifier ?? ""],
                        matching: EventFilter(componentTypes: Set(ComponentType.allCases)),
                        timeZone: zone.identifier)
                }
                guard
                    let occurrence = candidates.first(where: { candidate in
                        candidate.eventIdentifier == event.localIdentifier
                            && (candidate.recurrenceID?.text == occurrenceText
                                || candidate.recurrenceID.map { $0.instant(in: zone) == instant } ?? false
                                || candidate.startInstant == instant)
                    })
                else {
                    throw CommandFailure(status: 1, "event \(eventID) has no occurrence at \(occurrenceText)")
                }
                event = occurrence.event
                what =
                    "\(span == .futureEvents ? "occurrences from" : "occurrence") \(when(occurrence, zone: zone, clockOnly: false)) of \(occurrence.title ?? eventID)"
            }
            try StoreContext.run { () throws(StoreError) in try context.store.remove(event, span: span) }
            io.write("Removed \(what)\n")
            return 0
        }
        let calendarTitle = try options.required("--calendar", command: "remove")
        guard options["--from"] != nil, options["--to"] != nil else {
            throw .usage("'remove --calendar' needs --from and --to (or use --id)")
        }
        let calendar = try context.calendar(titled: calendarTitle)
        let zone = try context.zone(options)
        let range = try context.range(options, zone: zone, days: 1)
        let removed = try StoreContext.run { () throws(StoreError) in
            try context.store.removeEvents(
                in: range, calendar: calendar.id, title: options["--title"], timeZone: zone.identifier)
        }
        var output = ""
        for occurrence in removed {
            output += "  \(when(occurrence, zone: zone, clockOnly: false))  \(occurrence.title ?? "(untitled)")\n"
        }
        io.write(
            "Removed \(removed.count) occurrence\(removed.count == 1 ? "" : "s") from \(calendar.title)\n" + output)
        return 0
    }

    // MARK: alarms

    static func alarms(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.alarms)
        guard options.operands.isEmpty else { throw .usage("'alarms' takes no operands") }
        let context = try StoreContext(options, io: io)
        let calendars = try options["--calendar"].map { (title) throws(CommandFailure) in
            [try context.calendar(titled: title).id]
        }
        let zone = try context.zone(options)
        let range = try context.range(options, zone: zone, days: 1)
        let limit = 10_000
        var firings = try StoreContext.run { () throws(StoreError) in
            try context.store.alarms(firingIn: range, calendars: calendars, timeZone: zone.identifier, limit: limit + 1)
        }
        // The first `limit` firings are listed; when there are more, the notice says where the rest begin and the exit status is 1.
        var status: Int32 = 0
        if firings.count > limit {
            io.writeError(
                "almanac: more than \(limit) alarms fire in this range; listing the first \(limit) (the next fires at "
                    + TimeInput.rfc3339(firings[limit].fireTime, zone: zone) + "; use --from for the rest)")
            firings.removeLast(firings.count - limit)
            status = 1
        }
        if options.has("--json") {
            let values: [JSONValue] = firings.map { firing in
                .object([
                    ("fireTime", .string(TimeInput.rfc3339(firing.fireTime, zone: zone))),
                    (
                        "action",
                        .string(firing.alarm.action?.rawValue ?? firing.alarm.component.property("ACTION")?.value ?? "")
                    ),
                    ("repetition", .integer(firing.repetition)),
                    ("occurrence", json(firing.occurrence, zone: zone, calendar: "")),
                ])
            }
            io.write(JSONValue.array(values).jsonText + "\n")
            return status
        }
        var output = context.zoneLine(zone)
        for firing in firings {
            output +=
                TimeInput.text(firing.fireTime, zone: zone) + "  " + (firing.alarm.action?.rawValue ?? "ALARM")
                + "  \(firing.occurrence.title ?? "(untitled)")  (starts \(when(firing.occurrence, zone: zone, clockOnly: false)))\n"
        }
        io.write(output)
        return status
    }
}
