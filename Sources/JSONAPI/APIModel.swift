import CalendarStore
import CivilTime
import ICalendar
import JSON
import Recurrence
import Scheduling

/// JSON forms of calendars, events, occurrences and times, and the reading of them.
enum APIModel {
    // MARK: Times

    /// `2026-12-01` (a date), `2026-12-01T11:00:00Z` (UTC), or `2026-12-01T12:00:00`
    /// (a wall clock: in the event's `timeZone`, or floating without one).
    static func text(_ value: DateTimeValue) -> String {
        if value.isDate { return value.civil.date.description }
        return value.civil.description + (value.form == .utc ? "Z" : "")
    }

    /// Reads a time as `text(_:)` writes it; a wall clock takes `timeZone` (an IANA
    /// name), and `±HH:MM` offsets are read and kept as UTC.
    static func time(_ text: String, timeZone: String?, field: String) throws(APIProblem) -> DateTimeValue {
        let invalid = APIProblem(
            .invalidField,
            "\(field) must be a date (2026-12-01) or a date-time (2026-12-01T12:00:00, optionally with Z or an offset), not \"\(text)\"",
            fields: [field])
        if text.count == 10 {
            guard let date = CivilDate(isoText: text) else { throw invalid }
            return DateTimeValue(date: date)
        }
        guard text.count >= 19, let date = CivilDate(isoText: text.prefix(10)),
            text[text.index(text.startIndex, offsetBy: 10)] == "T"
        else {
            throw invalid
        }
        // HH:MM:SS, two digits each (a leap second reads as :59).
        let clock = Array(text.utf8.dropFirst(11).prefix(8))
        guard clock.count == 8, clock[2] == UInt8(ascii: ":"), clock[5] == UInt8(ascii: ":"),
            let hour = twoDigits(clock, 0),
            let minute = twoDigits(clock, 3), let second = twoDigits(clock, 6),
            let time = TimeOfDay(hour: hour, minute: minute, second: min(second, 59))
        else { throw invalid }
        let local = CivilDateTime(date: date, time: time)
        let rest = text.dropFirst(19)
        if rest == "Z" { return DateTimeValue(local, form: .utc) }
        if rest.isEmpty {
            guard let timeZone else { return DateTimeValue(local, form: .floating) }
            guard TimeZoneDatabase.zone(named: timeZone) != nil else {
                throw APIProblem(
                    .invalidField, "unknown time zone \(timeZone) (use an IANA name such as Europe/Berlin)",
                    fields: ["timeZone"])
            }
            return DateTimeValue(local, form: .zoned(tzid: timeZone))
        }
        // An offset (RFC 3339): +01:00 or -05:30, two digits each, under a day.
        let offset = Array(rest.utf8)
        guard offset.count == 6, offset[0] == UInt8(ascii: "+") || offset[0] == UInt8(ascii: "-"),
            offset[3] == UInt8(ascii: ":"),
            let hours = twoDigits(offset, 1), let minutes = twoDigits(offset, 4), hours < 24, minutes < 60
        else { throw invalid }
        let sign = offset[0] == UInt8(ascii: "-") ? -1 : 1
        let utc = local.adding(seconds: -sign * (hours * 3600 + minutes * 60))
        guard utc.date.isSupported else { throw invalid }
        return DateTimeValue(utc, form: .utc)
    }

    /// Two ASCII digits at `index`.
    static func twoDigits(_ bytes: [UInt8], _ index: Int) -> Int? {
        guard index + 1 < bytes.count, (0x30...0x39).contains(bytes[index]), (0x30...0x39).contains(bytes[index + 1])
        else { return nil }
        return Int(bytes[index] - 0x30) * 10 + Int(bytes[index + 1] - 0x30)
    }

    /// An occurrence time for a reader in `zone`: dates stay dates; other times become UTC instants.
    static func text(_ time: OccurrenceTime, zone: ZoneRules) -> String {
        switch time {
        case .date(let date): date.description
        default: CivilDateTime(secondsSinceEpoch: time.instant(in: zone)).description + "Z"
        }
    }

    // MARK: Calendars

    static func json(_ calendar: EventCalendar) -> JSONValue {
        .object([
            ("id", .string(calendar.id)), ("title", .string(calendar.title)),
            ("color", calendar.color.map(JSONValue.string) ?? .null),
            ("description", calendar.calendarDescription.map(JSONValue.string) ?? .null),
            ("timeZone", calendar.timeZone.map(JSONValue.string) ?? .null), ("order", .integer(calendar.order)),
            ("componentTypes", .array(calendar.componentTypes.map(\.rawValue).sorted().map(JSONValue.string))),
            ("owner", .string(calendar.owner)), ("access", .string(calendar.access?.rawValue ?? "owner")),
            ("subscribedFrom", calendar.subscriptionURL.map(JSONValue.string) ?? .null),
            ("etag", .string(etag(calendar))),
        ])
    }

    static func etag(_ calendar: EventCalendar) -> String { calendar.etag }

    static let calendarFields: Set<String> = ["title", "color", "description", "timeZone", "order", "componentTypes"]

    /// Applies the members of a calendar body (create or update) to `calendar`.
    static func apply(_ body: [String: JSONValue], to calendar: inout EventCalendar) throws(APIProblem) {
        for (key, value) in body {
            switch key {
            case "title":
                guard case .string(let title) = value, !title.isEmpty else {
                    throw wrongType(key, "a non-empty string")
                }
                calendar.title = title
            case "color":
                calendar.color = try optionalString(value, key)
                if let color = calendar.color, !isColor(color) {
                    throw APIProblem(.invalidField, "color is #RRGGBB or #RRGGBBAA", fields: [key])
                }
            case "description": calendar.calendarDescription = try optionalString(value, key)
            case "timeZone":
                calendar.timeZone = try optionalString(value, key)
                if let zone = calendar.timeZone, TimeZoneDatabase.zone(named: zone) == nil {
                    throw APIProblem(
                        .invalidField, "unknown time zone \(zone) (use an IANA name such as Europe/Berlin)",
                        fields: [key])
                }
            case "order":
                guard case .integer(let order) = value else { throw wrongType(key, "an integer") }
                calendar.order = order
            case "componentTypes":
                guard case .array(let items) = value, !items.isEmpty else {
                    throw wrongType(key, "a non-empty array of VEVENT, VTODO, VJOURNAL")
                }
                var types: Set<ComponentType> = []
                for item in items {
                    guard case .string(let name) = item, let type = ComponentType(rawValue: name) else {
                        throw wrongType(key, "a non-empty array of VEVENT, VTODO, VJOURNAL")
                    }
                    types.insert(type)
                }
                calendar.componentTypes = types
            default: break
            }
        }
    }

    static func isColor(_ text: String) -> Bool {
        (text.utf8.count == 7 || text.utf8.count == 9) && text.first == "#" && text.dropFirst().allSatisfy(\.isHexDigit)
    }

    // MARK: Events

    static func json(_ event: Event) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", event.localIdentifier.map(JSONValue.string) ?? .null), ("uid", .string(event.externalIdentifier)),
            ("calendarId", event.calendarIdentifier.map(JSONValue.string) ?? .null),
            ("etag", event.etag.map(JSONValue.string) ?? .null),
            ("title", event.title.map(JSONValue.string) ?? .null),
            ("notes", event.notes.map(JSONValue.string) ?? .null),
            ("location", event.location.map(JSONValue.string) ?? .null),
            ("url", event.url.map(JSONValue.string) ?? .null),
            ("start", event.start.map { .string(text($0)) } ?? .null),
        ]
        let end = event.end ?? event.start.flatMap { start in event.duration.map { start.adding($0) } }
        members.append(("end", end.map { .string(text($0)) } ?? .null))
        members.append(("allDay", .bool(event.isAllDay)))
        members.append(("timeZone", event.timeZone.map(JSONValue.string) ?? .null))
        members.append(("rrule", event.component.property("RRULE").map { .string($0.value) } ?? .null))
        members.append(("exdates", .array(event.exceptionDates.map { .string(text($0)) })))
        members.append(("alarms", .array(event.alarms.map(json))))
        members.append(("availability", .string(event.availability.rawValue)))
        members.append(("status", event.status.map { .string($0.rawValue.lowercased()) } ?? .null))
        members.append(("categories", .array(event.categories.map(JSONValue.string))))
        members.append(("sequence", .integer(event.sequence)))
        members.append(("recurrenceId", event.recurrenceID.map { .string(text($0)) } ?? .null))
        members.append(("organizer", event.organizer.map(json) ?? .null))
        members.append(("attendees", .array(event.attendees.map(json))))
        members.append(("jcal", (try? JCal.json(for: event.component)) ?? .null))
        return .object(members)
    }

    /// An organizer or attendee: their e-mail address (from a `mailto:` address), name,
    /// answer (lowercased PARTSTAT) and role; `schedule` is how the server's delivery went.
    static func json(_ participant: Participant) -> JSONValue {
        let address = participant.address
        let email = address.lowercased().hasPrefix("mailto:") ? String(address.dropFirst(7)) : address
        let schedule = participant.otherParameters.first { $0.name == "SCHEDULE-STATUS" }?.value
        return .object([
            ("email", .string(email)), ("name", participant.name.map(JSONValue.string) ?? .null),
            ("status", participant.participationStatus.map { .string($0.lowercased()) } ?? .null),
            ("role", participant.role.map { .string($0.lowercased()) } ?? .null),
            ("scheduleStatus", schedule.map(JSONValue.string) ?? .null),
        ])
    }

    /// The answers an attendee's `status` may be (PARTSTAT, lowercased).
    static let participationStatuses: Set<String> = [
        "needs-action", "accepted", "declined", "tentative", "delegated",
    ]

    /// Reads `attendees`: `[{"email", "name", "status", "role"}]`.
    static func attendees(_ value: JSONValue) throws(APIProblem) -> [Participant] {
        guard case .array(let items) = value, items.count <= SchedulingAgent.maxAttendees else {
            throw wrongType(
                "attendees", "a list of at most \(SchedulingAgent.maxAttendees) {\"email\", \"name\", \"status\"}")
        }
        var result: [Participant] = []
        for item in items {
            guard case .object(let members) = item,
                case .string(let email)? = members.first(where: { $0.key == "email" })?.value,
                let address = EmailAddress.normalized(email)
            else {
                throw APIProblem(
                    .invalidField, "each attendee has an e-mail address (\"email\")", fields: ["attendees"])
            }
            var participant = Participant(address: "mailto:" + address)
            for (key, value) in members {
                switch key {
                case "email", "scheduleStatus": continue
                case "name":
                    participant.name = try optionalString(value, "attendees").map { text throws(APIProblem) in
                        try checked(text, "attendees", allowingLineBreaks: false)
                    }
                case "status":
                    guard case .string(let status) = value, participationStatuses.contains(status.lowercased()) else {
                        throw APIProblem(
                            .invalidField,
                            "an attendee's status is one of \(participationStatuses.sorted().joined(separator: ", "))",
                            fields: ["attendees"])
                    }
                    participant.participationStatus = status.uppercased()
                case "role":
                    guard case .string(let role) = value,
                        ["chair", "req-participant", "opt-participant", "non-participant"].contains(role.lowercased())
                    else {
                        throw APIProblem(
                            .invalidField,
                            "an attendee's role is chair, req-participant, opt-participant or non-participant",
                            fields: ["attendees"])
                    }
                    participant.role = role.uppercased()
                default:
                    throw APIProblem(.unknownField, "an attendee has no member \(key)", fields: ["attendees"])
                }
            }
            if participant.participationStatus == nil { participant.participationStatus = "NEEDS-ACTION" }
            result.append(participant)
        }
        return result
    }

    /// One entry of a delta sync (the `Change` schema): what happened to which resource, its
    /// event's identifiers, and for a write its ETag, size, time, link and (when asked) bytes.
    static func json(_ change: ChangeSet.Change) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("type", .string(change.kind.rawValue)), ("name", .string(change.name)),
            ("eventId", change.eventIdentifier.map(JSONValue.string) ?? .null),
            ("uid", change.uid.map(JSONValue.string) ?? .null), ("sequence", .integer(change.sequence)),
        ]
        if let resource = change.resource {
            members.append(("etag", .string(resource.etag)))
            members.append(("componentType", .string(resource.componentType.rawValue)))
            members.append(("size", .integer(resource.size)))
            members.append(("lastModified", .string(APIContext.utc(resource.lastModified))))
            members.append(("href", .string(JSONAPIHandler.eventPath(resource.localIdentifier))))
        }
        if let data = change.data { members.append(("data", .string(String(decoding: data, as: UTF8.self)))) }
        return .object(members)
    }

    static func json(_ alarm: Alarm) -> JSONValue {
        var minutes: JSONValue = .null
        var trigger = ""
        switch alarm.trigger {
        case .relative(let offset, let relatedToEnd):
            trigger = (relatedToEnd ? "END:" : "") + Property(name: "TRIGGER", duration: offset).value
            if !relatedToEnd, offset.nominalDays == 0, offset.exactSeconds <= 0, offset.exactSeconds % 60 == 0 {
                minutes = .integer(-offset.exactSeconds / 60)
            }
        case .absolute(let instant): trigger = CivilDateTime(secondsSinceEpoch: instant).description + "Z"
        case nil: break
        }
        return .object([
            ("minutesBefore", minutes), ("trigger", .string(trigger)),
            ("action", .string(alarm.action?.rawValue ?? "DISPLAY")), ("uid", alarm.uid.map { .string($0) } ?? .null),
            ("acknowledged", alarm.acknowledged.map { .string(APIContext.utc($0)) } ?? .null),
            ("snoozeOf", alarm.snoozedAlarm.map { .string($0) } ?? .null),
        ])
    }

    static let eventFields: Set<String> = [
        "calendarId", "title", "notes", "location", "url", "start", "end", "duration", "timeZone", "allDay", "rrule",
        "exdates", "alarms",
        "availability", "status", "categories", "jcal", "uid", "attendees",
        // Read-only members a client may send back unchanged; they are ignored.
        "id", "etag", "sequence", "recurrenceId", "organizer",
    ]

    /// Applies an event body to `event` (a new event, or one being replaced or patched).
    /// `null` clears a member.
    static func apply(_ body: [String: JSONValue], to event: inout Event) throws(APIProblem) {
        if let jcal = body["jcal"], jcal != .null {
            do {
                let component = try JCal.component(from: jcal)
                guard ComponentType(rawValue: component.name) != nil else {
                    throw APIProblem(.invalidField, "jcal is a vevent, vtodo or vjournal component", fields: ["jcal"])
                }
                event.component = component
            } catch let problem as APIProblem {
                throw problem
            } catch {
                throw APIProblem(.invalidField, "jcal is not a valid jCal component: \(error)", fields: ["jcal"])
            }
        }
        let zoneName: String?
        if let zone = body["timeZone"] {
            zoneName = try optionalString(zone, "timeZone")
        } else {
            zoneName = event.timeZone
        }
        if let zoneName, TimeZoneDatabase.zone(named: zoneName) == nil {
            throw APIProblem(
                .invalidField, "unknown time zone \(zoneName) (use an IANA name such as Europe/Berlin)",
                fields: ["timeZone"])
        }
        for key in ["title", "notes", "location", "url"] {
            guard let value = body[key] else { continue }
            // TEXT members escape line breaks; a URL is written as it is, so it may hold none.
            let text = try optionalString(value, key).map { (text) throws(APIProblem) in
                try checked(text, key, allowingLineBreaks: key != "url")
            }
            switch key {
            case "title": event.title = text
            case "notes": event.notes = text
            case "location": event.location = text
            default: event.url = text
            }
        }
        if let uid = body["uid"], event.localIdentifier == nil {
            guard case .string(let text) = uid, !text.isEmpty else { throw wrongType("uid", "a non-empty string") }
            event.component.setProperty(
                Property(name: "UID", value: try checked(text, "uid", allowingLineBreaks: false)))
        }
        // Times: start, then end or duration; timeZone applies to wall-clock times.
        let retime = body["start"] != nil || body["timeZone"] != nil
        if let value = body["start"] ?? (retime ? event.start.map { .string(text($0)) } : nil) {
            guard case .string(let text) = value else { throw wrongType("start", "a date or date-time string") }
            event.start = try time(text, timeZone: zoneName, field: "start")
        }
        if let value = body["end"] ?? (retime && body["duration"] == nil ? event.end.map { .string(text($0)) } : nil) {
            event.end = try optionalString(value, "end").map { (text) throws(APIProblem) in
                try time(text, timeZone: zoneName, field: "end")
            }
        }
        if let value = body["duration"], value != .null {
            guard case .string(let text) = value,
                let duration = try? Property(name: "DURATION", value: text).durationValue(), !duration.isNegative
            else {
                throw wrongType("duration", "an ISO 8601 duration such as PT1H30M")
            }
            event.duration = duration
        }
        if let value = body["allDay"] {
            guard case .bool(let allDay) = value else { throw wrongType("allDay", "true or false") }
            if allDay != event.isAllDay {
                throw APIProblem(
                    .invalidField,
                    allDay
                        ? "an all-day event has a date as start (2026-12-01)"
                        : "a timed event has a date-time as start", fields: ["allDay"])
            }
        }
        if let start = event.start, let end = event.end {
            if start.isDate != end.isDate {
                throw APIProblem(.invalidField, "start and end are both dates or both date-times", fields: ["end"])
            }
        }
        if let value = body["rrule"] {
            event.component.removeProperties(named: "RRULE")
            if let text = try optionalString(value, "rrule").map({ (text) throws(APIProblem) in
                try checked(text, "rrule", allowingLineBreaks: false)
            }) {
                let rule = text.hasPrefix("RRULE:") ? String(text.dropFirst(6)) : text
                guard (try? RecurrenceRule(parsing: rule, strict: true)) != nil else {
                    throw APIProblem(.invalidField, "rrule is not a valid RFC 5545 rule: \(rule)", fields: ["rrule"])
                }
                event.component.properties.append(Property(name: "RRULE", value: rule))
            }
        }
        if let value = body["exdates"] {
            event.component.removeProperties(named: "EXDATE")
            guard case .array(let items) = value else { throw wrongType("exdates", "an array of dates or date-times") }
            for item in items {
                guard case .string(let text) = item else {
                    throw wrongType("exdates", "an array of dates or date-times")
                }
                event.component.properties.append(
                    Property(name: "EXDATE", dateTime: try time(text, timeZone: zoneName, field: "exdates")))
            }
        }
        if let value = body["alarms"] {
            guard case .array(let items) = value else {
                throw wrongType("alarms", "an array of {\"minutesBefore\": 15} or {\"trigger\": \"-PT15M\"}")
            }
            var alarms: [Alarm] = []
            for item in items { alarms.append(try alarm(item)) }
            event.alarms = alarms
        }
        if let value = body["availability"] {
            guard case .string(let text) = value, let availability = Availability(rawValue: text) else {
                throw wrongType("availability", "busy or free")
            }
            event.availability = availability
        }
        if let value = body["status"] {
            if let text = try optionalString(value, "status") {
                guard let status = EventStatus(rawValue: text.uppercased()) else {
                    throw wrongType("status", "confirmed, tentative or cancelled")
                }
                event.status = status
            } else {
                event.status = nil
            }
        }
        if let value = body["categories"] {
            guard case .array(let items) = value else { throw wrongType("categories", "an array of strings") }
            var categories: [String] = []
            for item in items {
                guard case .string(let text) = item else { throw wrongType("categories", "an array of strings") }
                categories.append(try checked(text, "categories", allowingLineBreaks: false))
            }
            event.categories = categories
        }
        if let value = body["attendees"] {
            // Null or empty: nobody is invited (and the event has no organizer).
            let attendees = value == .null ? [] : try attendees(value)
            event.attendees = attendees
            if attendees.isEmpty { event.organizer = nil }
        }
    }

    static func alarm(_ value: JSONValue) throws(APIProblem) -> Alarm {
        guard case .object(let members) = value else { throw wrongType("alarms", "objects") }
        // uid, acknowledged and snoozeOf are what an alarm read from the API says of itself:
        // sent back, the UID and acknowledgement are kept (the rest comes from the trigger).
        let allowed: Set<String> = ["minutesBefore", "trigger", "action", "uid", "acknowledged", "snoozeOf"]
        let unknown = members.map(\.key).filter { !allowed.contains($0) }
        if !unknown.isEmpty {
            throw APIProblem(
                .unknownField, "unknown alarm field: \(unknown.joined(separator: ", "))",
                fields: unknown.map { "alarms." + $0 })
        }
        let action: Alarm.Action
        switch value["action"] {
        case nil, .null?: action = .display
        case .string(let text)?:
            guard let known = Alarm.Action(rawValue: text.uppercased()) else {
                throw wrongType("alarms.action", "DISPLAY, AUDIO or EMAIL")
            }
            action = known
        default: throw wrongType("alarms.action", "DISPLAY, AUDIO or EMAIL")
        }
        var alarm: Alarm
        switch (value["minutesBefore"], value["trigger"]) {
        case (.integer(let minutes)?, nil), (.integer(let minutes)?, .null?):
            guard minutes >= 0, minutes <= 60 * 24 * 366 else {
                throw wrongType("alarms.minutesBefore", "minutes from 0 to a year")
            }
            alarm = Alarm(trigger: Alarm.minutesBefore(minutes).trigger!, action: action)
        case (nil, .string(let text)?), (.null?, .string(let text)?):
            let related = text.hasPrefix("END:")
            let offset = related ? String(text.dropFirst(4)) : text
            if let duration = try? Property(name: "TRIGGER", value: offset).durationValue() {
                alarm = Alarm(trigger: .relative(duration, relatedToEnd: related), action: action)
            } else if let instant = try? time(offset, timeZone: nil, field: "alarms.trigger"), instant.form == .utc {
                alarm = Alarm(trigger: .absolute(instant.civil.secondsSinceEpoch), action: action)
            } else {
                throw wrongType("alarms.trigger", "a duration (-PT15M, END:PT0S) or a UTC date-time")
            }
        default: throw APIProblem(.invalidField, "an alarm has minutesBefore or trigger", fields: ["alarms"])
        }
        for (field, name) in [("uid", "UID"), ("snoozeOf", "RELATED-TO")] {
            switch value[field] {
            case nil, .null?: continue
            case .string(let text)? where !text.isEmpty && text.utf8.count <= 255 && !text.contains(where: \.isNewline):
                var property = Property(name: name, value: text)
                if field == "snoozeOf" {
                    property = Property(
                        name: name, parameters: [Parameter(name: "RELTYPE", value: "SNOOZE")], value: text)
                }
                alarm.component.removeProperties(named: name)
                alarm.component.properties.append(property)
            default: throw wrongType("alarms.\(field)", "a string of 1 to 255 bytes")
            }
        }
        switch value["acknowledged"] {
        case nil, .null?: break
        case .string(let text)?:
            guard let instant = try? time(text, timeZone: nil, field: "alarms.acknowledged"), instant.form == .utc
            else {
                throw wrongType("alarms.acknowledged", "a UTC date-time")
            }
            alarm.acknowledged = instant.civil.secondsSinceEpoch
        default: throw wrongType("alarms.acknowledged", "a UTC date-time")
        }
        return alarm
    }

    // MARK: Occurrences

    static func json(_ occurrence: EventOccurrence) -> JSONValue {
        .object([
            ("id", .string(occurrence.identifier)), ("eventId", .string(occurrence.eventIdentifier)),
            ("calendarId", .string(occurrence.calendarIdentifier)),
            ("title", occurrence.title.map(JSONValue.string) ?? .null),
            ("start", .string(text(occurrence.start, zone: occurrence.viewerZone))),
            ("end", .string(text(occurrence.end, zone: occurrence.viewerZone))), ("allDay", .bool(occurrence.isAllDay)),
            ("timeZone", occurrence.timeZone.map(JSONValue.string) ?? .null),
            ("recurrenceId", occurrence.recurrenceID.map { .string($0.text) } ?? .null),
            ("detached", .bool(occurrence.isDetached)),
            ("status", occurrence.status.map { .string($0.rawValue.lowercased()) } ?? .null),
            ("etag", .string(occurrence.etag)),
        ])
    }

    // MARK: Helpers

    static func optionalString(_ value: JSONValue, _ key: String) throws(APIProblem) -> String? {
        switch value {
        case .null: nil
        case .string(let text): text
        default: throw wrongType(key, "a string or null")
        }
    }

    /// `text`, or 400 naming `field` when it holds a character no iCalendar value may
    /// carry (a control character; with `allowingLineBreaks`, CR and LF are allowed:
    /// TEXT escapes them).
    static func checked(_ text: String, _ field: String, allowingLineBreaks: Bool) throws(APIProblem) -> String {
        guard let scalar = ValueCharacters.forbidden(in: text, allowingLineBreaks: allowingLineBreaks) else {
            return text
        }
        throw APIProblem(
            .invalidField,
            "\(field) holds the control character \(ValueCharacters.name(of: scalar)), which iCalendar cannot store",
            fields: [field])
    }

    static func wrongType(_ key: String, _ expected: String) -> APIProblem {
        APIProblem(.invalidField, "\(key) must be \(expected)", fields: [key])
    }
}

extension DateTimeValue {
    /// This time plus a duration, in the same form.
    func adding(_ duration: CalendarDuration) -> DateTimeValue {
        if isDate { return DateTimeValue(date: civil.date.adding(days: duration.nominalDays)) }
        return DateTimeValue(
            civil.adding(days: duration.nominalDays).adding(seconds: duration.exactSeconds), form: form)
    }
}
