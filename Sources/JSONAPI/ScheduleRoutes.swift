import Availability
import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import JSON

extension APIContext {
    static let scheduleFields: Set<String> = ["title", "timeZone", "hours", "exceptions", "default"]

    /// A stored schedule as JSON: its hours as text and by weekday, its exceptions, and
    /// the VAVAILABILITY it is kept as.
    func scheduleJSON(_ stored: StoredSchedule) throws(APIProblem) -> JSONValue {
        let schedule = try readSchedule(stored)
        let exceptions: [(key: String, value: JSONValue)] = schedule.exceptions.keys.sorted().map { date in
            let spans = schedule.exceptions[date] ?? []
            return (date.description, .string(spans.isEmpty ? "off" : spans.map(\.text).joined(separator: " ")))
        }
        return .object([
            ("id", .string(stored.id)), ("title", .string(stored.title)), ("timeZone", .string(schedule.timeZone)),
            ("hours", .string(schedule.hoursText)), ("exceptions", .object(exceptions)),
            ("default", .bool(stored.isDefault)), ("etag", .string(stored.etag)),
            ("updatedAt", .string(Self.utc(stored.modified))),
            ("vavailability", .string(String(decoding: stored.data, as: UTF8.self))),
        ])
    }

    func readSchedule(_ stored: StoredSchedule) throws(APIProblem) -> AvailabilitySchedule {
        do {
            return try AvailabilitySchedule(calendarData: stored.data)
        } catch {
            throw APIProblem(.invalidCalendarData, "schedule \(stored.id) cannot be read: \(error.description)")
        }
    }

    /// Applies a schedule body's members to `schedule` (and the title and default to `stored`).
    func apply(_ body: [String: JSONValue], to schedule: inout AvailabilitySchedule, stored: inout StoredSchedule)
        throws(APIProblem)
    {
        if let value = body["timeZone"] {
            guard case .string(let zone) = value, TimeZoneDatabase.zone(named: zone) != nil else {
                throw APIProblem(.invalidField, "timeZone is an IANA zone such as Europe/Berlin", fields: ["timeZone"])
            }
            schedule.timeZone = zone
        }
        if let value = body["hours"] {
            guard case .string(let text) = value,
                let parsed = text == "none"
                    ? AvailabilitySchedule(timeZone: schedule.timeZone, weekly: [:])
                    : AvailabilitySchedule(hours: text, timeZone: schedule.timeZone)
            else {
                throw APIProblem(
                    .invalidField, "hours reads like \"Mon-Fri 09:00-17:00, Sat 10:00-14:00\" (or none)",
                    fields: ["hours"])
            }
            schedule = AvailabilitySchedule(
                timeZone: schedule.timeZone, weekly: parsed.weekly, exceptions: schedule.exceptions)
        }
        if let value = body["exceptions"] {
            guard case .object(let members) = value, members.count <= 1_000 else {
                throw APIProblem(
                    .invalidField, "exceptions maps dates to \"off\" or hours (\"09:00-12:00\"), at most 1,000",
                    fields: ["exceptions"])
            }
            for (key, text) in members {
                guard let date = CivilDate(isoText: key) else {
                    throw APIProblem(.invalidField, "\(key) is not a date (2026-12-24)", fields: ["exceptions"])
                }
                switch text {
                case .null: schedule.removeException(date)
                case .string("off"): schedule.setException(date, hours: [])
                case .string(let hours):
                    var spans: [ClockRange] = []
                    for word in hours.split(separator: " ") {
                        guard let span = ClockRange(word) else {
                            throw APIProblem(
                                .invalidField, "\(key): \(hours) is not hours (09:00-12:00 13:00-17:00)",
                                fields: ["exceptions"])
                        }
                        spans.append(span)
                    }
                    guard !spans.isEmpty else {
                        throw APIProblem(.invalidField, "\(key) needs hours, or \"off\"", fields: ["exceptions"])
                    }
                    schedule.setException(date, hours: spans)
                default:
                    throw APIProblem(.invalidField, "\(key) is \"off\", hours, or null", fields: ["exceptions"])
                }
            }
        }
        if let value = body["title"] {
            guard case .string(let title) = value, !title.isEmpty else {
                throw APIModel.wrongType("title", "a non-empty string")
            }
            stored.title = title
        }
        if let value = body["default"] {
            guard case .bool(let flag) = value else { throw APIModel.wrongType("default", "true or false") }
            stored.isDefault = flag
        }
        stored.data = schedule.calendarData(
            uid: stored.id, stamp: CivilDateTime(secondsSinceEpoch: configuration.now()))
    }

    /// GET /availability-schedules: the user's schedules, the default first.
    func listSchedules() throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        let schedules = try attempt { () throws(StoreError) in try backend.appState.schedules(user: principal.user) }
        var items: [JSONValue] = []
        for schedule in schedules { items.append(try scheduleJSON(schedule)) }
        return json(.object([("schedules", .array(items))]))
    }

    /// POST /availability-schedules: a new schedule (`hours` and `timeZone` required).
    func createSchedule() throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: Self.scheduleFields)
        guard body["hours"] != nil, body["timeZone"] != nil else {
            throw APIProblem(.invalidField, "a schedule needs hours and a timeZone", fields: ["hours", "timeZone"])
        }
        var schedule = AvailabilitySchedule(timeZone: "UTC", weekly: [:])
        var stored = StoredSchedule(
            user: principal.user, title: StoredSchedule.defaultTitle, data: [], isDefault: false)
        try apply(body, to: &schedule, stored: &stored)
        let saved = try attempt { () throws(StoreError) in try backend.appState.saveSchedule(stored, ifMatch: nil) }
        var response = json(try scheduleJSON(saved), status: 201, etag: saved.etag)
        response.headers.set("Location", JSONAPIHandler.prefix + "/availability-schedules/" + saved.id)
        return response
    }

    /// GET /availability-schedules/{id} (`default` names the user's default).
    func readSchedule(_ id: String) throws(APIProblem) -> HTTPResponse {
        let stored = try storedSchedule(id)
        return json(try scheduleJSON(stored), etag: stored.etag)
    }

    func storedSchedule(_ id: String) throws(APIProblem) -> StoredSchedule {
        if id == "default" {
            guard
                let found = try attempt({ () throws(StoreError) in
                    try backend.appState.defaultSchedule(user: principal.user)
                })
            else { throw APIProblem(.notFound, "no default schedule: create one with POST /availability-schedules") }
            return found
        }
        return try attempt { () throws(StoreError) in try backend.appState.schedule(id: id, user: principal.user) }
    }

    /// PATCH /availability-schedules/{id}: changes the members given; `exceptions` adds,
    /// changes and (with null) removes dates.
    func updateSchedule(_ id: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: Self.scheduleFields)
        var stored = try storedSchedule(id)
        var schedule = try readSchedule(stored)
        try apply(body, to: &schedule, stored: &stored)
        let saved = try attempt { () throws(StoreError) in
            try backend.appState.saveSchedule(stored, ifMatch: ifMatch)
        }
        return json(try scheduleJSON(saved), etag: saved.etag)
    }

    /// DELETE /availability-schedules/{id}.
    func deleteSchedule(_ id: String) throws(APIProblem) -> HTTPResponse {
        let stored = try storedSchedule(id)
        try attempt { () throws(StoreError) in
            try backend.appState.deleteSchedule(id: stored.id, user: principal.user, ifMatch: ifMatch)
        }
        return HTTPResponse(status: 204)
    }
}
