import AddToCalendar
import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import JSON
import Recurrence

extension APIContext {
    // MARK: Add to Calendar

    /// Every "Add to Calendar" target of an event, or of one occurrence.
    func addToCalendarTargets(event identifier: String, occurrence recurrenceID: String?, zoneName: String?)
        throws(APIProblem) -> AddToCalendarTargets
    {
        try requireVisible(event: identifier)
        if let zoneName, TimeZoneDatabase.zone(named: zoneName) == nil {
            throw APIProblem(
                .invalidQuery, "unknown time zone \(zoneName) (use an IANA name such as Europe/Berlin)", fields: ["tz"])
        }
        let occurrence = try recurrenceID.map { (id) throws(APIProblem) in
            try findOccurrence(event: identifier, recurrenceID: id, zoneName: zoneName)
        }
        return try attempt { () throws(StoreError) in
            try AddToCalendarTargets.targets(ofEvent: identifier, occurrence: occurrence, zoneName: zoneName, in: store)
        }
    }

    /// GET /events/{id}/add-to-calendar[?occurrence=][&tz=].
    func addToCalendar(event identifier: String) throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["occurrence", "tz"])
        let targets = try addToCalendarTargets(
            event: identifier, occurrence: parameters["occurrence"], zoneName: parameters["tz"])
        return json(targets.json(icsURL: "/events/" + PercentEncoding.encode(identifier) + ".ics"))
    }

    // MARK: Tokens

    // MARK: Added marks

    /// GET /events/{id}/added: the user's "added" mark on an event.
    func addedMark(event identifier: String) throws(APIProblem) -> HTTPResponse {
        _ = try visibleEvent(identifier)
        guard
            let mark = try attempt({ () throws(StoreError) in
                try backend.appState.addedMark(event: identifier, user: principal.user)
            })
        else {
            throw APIProblem(.notFound, "event \(identifier) is not marked as added")
        }
        return json(Self.json(mark))
    }

    /// PUT /events/{id}/added (idempotent; optional body `{"platform": "ios|android|web",
    /// "nativeIdentifier": "…"}`): marks the event as added to a device calendar.
    func markAdded(event identifier: String) throws(APIProblem) -> HTTPResponse {
        _ = try visibleEvent(identifier)
        var mark = AddedMark(eventIdentifier: identifier)
        if !request.body.isEmpty {
            let body = try body(allowing: ["platform", "nativeIdentifier"])
            if let platform = try body["platform"].flatMap({ (value) throws(APIProblem) in
                try APIModel.optionalString(value, "platform")
            }) {
                guard ["ios", "android", "web"].contains(platform) else {
                    throw APIModel.wrongType("platform", "ios, android or web")
                }
                mark.platform = platform
            }
            mark.nativeIdentifier = try body["nativeIdentifier"].flatMap { (value) throws(APIProblem) in
                try APIModel.optionalString(value, "nativeIdentifier")
            }
        }
        let stored = try attempt { () throws(StoreError) in try backend.appState.markAdded(mark, user: principal.user) }
        return json(Self.json(stored))
    }

    /// DELETE /events/{id}/added: removes the mark.
    func removeAddedMark(event identifier: String) throws(APIProblem) -> HTTPResponse {
        _ = try visibleEvent(identifier)
        try attempt { () throws(StoreError) in
            try backend.appState.removeAddedMark(event: identifier, user: principal.user)
        }
        return HTTPResponse(status: 204)
    }

    static func json(_ mark: AddedMark) -> JSONValue {
        .object([
            ("eventId", .string(mark.eventIdentifier)), ("platform", mark.platform.map(JSONValue.string) ?? .null),
            ("nativeIdentifier", mark.nativeIdentifier.map(JSONValue.string) ?? .null),
            ("added", .string(CivilDateTime(secondsSinceEpoch: mark.added).description + "Z")),
        ])
    }
}
