import CalendarStore
import Foundation
import HTTPTypes
import ICalendar
import JSON

extension APIContext {
    /// GET /calendars?limit&cursor: the user's calendars by order, then title, then id.
    func listCalendars() throws(APIProblem) -> HTTPResponse {
        let page = try page(try query(allowing: ["limit", "cursor"]), listing: "calendars")
        func key(_ calendar: EventCalendar) -> JSONValue {
            .array([.integer(calendar.order), .string(calendar.title), .string(calendar.id)])
        }
        func before(_ left: EventCalendar, _ right: EventCalendar) -> Bool {
            (left.order, left.title, left.id) < (right.order, right.title, right.id)
        }
        var calendars = try attempt { () throws(StoreError) in try store.calendars() }.sorted(by: before)
        if let after = page.after {
            guard case .array(let parts)? = try? JSONValue(parsing: after), parts.count == 3,
                case .integer(let order) = parts[0], case .string(let title) = parts[1], case .string(let id) = parts[2]
            else { throw APIProblem(.invalidQuery, "cursor is not one this listing gave", fields: ["cursor"]) }
            calendars.removeAll { ($0.order, $0.title, $0.id) <= (order, title, id) }
        }
        return try pageAnswer(
            "calendars", Array(calendars.prefix(page.limit + 1)), page: page, listing: "calendars",
            key: { key($0).jsonText }, APIModel.json)
    }

    /// GET /calendars/{id}/events?limit&cursor: the calendar's events (whole series) in
    /// id order.
    func listEvents(calendar identifier: String) throws(APIProblem) -> HTTPResponse {
        let page = try page(try query(allowing: ["limit", "cursor"]), listing: "events")
        let events = try attempt { () throws(StoreError) in
            try store.events(inCalendar: identifier, after: page.after, limit: page.limit + 1)
        }
        return try pageAnswer(
            "events", events, page: page, listing: "events", key: { $0.localIdentifier ?? "" }, APIModel.json)
    }

    /// POST /calendars: a new calendar.
    func createCalendar() throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: APIModel.calendarFields)
        guard body["title"] != nil else {
            throw APIProblem(.invalidField, "a calendar needs a title", fields: ["title"])
        }
        var calendar = EventCalendar(title: "")
        try APIModel.apply(body, to: &calendar)
        let created = try attempt { () throws(StoreError) in try store.createCalendar(calendar) }
        var response = json(APIModel.json(created), status: 201, etag: APIModel.etag(created))
        response.headers.set("Location", JSONAPIHandler.prefix + "/calendars/" + created.id)
        return response
    }

    /// GET /calendars/{id}.
    func readCalendar(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        let calendar = try attempt { () throws(StoreError) in try store.calendar(withIdentifier: identifier) }
        return json(APIModel.json(calendar), etag: APIModel.etag(calendar))
    }

    /// PATCH /calendars/{id} (If-Match optional).
    func updateCalendar(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: APIModel.calendarFields)
        var calendar = try attempt { () throws(StoreError) in try store.calendar(withIdentifier: identifier) }
        try APIModel.apply(body, to: &calendar)
        let updated = try attempt { () throws(StoreError) in try store.updateCalendar(calendar, ifMatch: ifMatch) }
        return json(APIModel.json(updated), etag: APIModel.etag(updated))
    }

    /// DELETE /calendars/{id} (If-Match optional).
    func deleteCalendar(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        try attempt { () throws(StoreError) in
            try store.deleteCalendar(withIdentifier: identifier, ifMatch: ifMatch)
        }
        return HTTPResponse(status: 204)
    }

    /// PUT /calendars/by-title/{title}: the calendar with this title, created (201) when
    /// there is none; an optional body gives the new calendar's other fields.
    func calendarByTitle(_ title: String) throws(APIProblem) -> HTTPResponse {
        var template = EventCalendar(title: title)
        if !request.body.isEmpty {
            let body = try body(allowing: APIModel.calendarFields.subtracting(["title"]))
            try APIModel.apply(body, to: &template)
        }
        let existing = try attempt { () throws(StoreError) in try store.calendar(titled: title, createIfMissing: false)
        }
        if let existing { return json(APIModel.json(existing), etag: APIModel.etag(existing)) }
        let created = try attempt { () throws(StoreError) in try store.createCalendar(template) }
        var response = json(APIModel.json(created), status: 201, etag: APIModel.etag(created))
        response.headers.set("Location", JSONAPIHandler.prefix + "/calendars/" + created.id)
        return response
    }

    /// GET /calendars/{id}/changes?since=TOKEN&limit=N&include=data: what was created,
    /// updated and deleted since the token (everything there is, without one), in change
    /// order, with `token` for next time and `next`, the link that asks for what follows.
    /// The token is the one CalDAV's sync-collection and `DAV:sync-token` name, so a client
    /// may mix both. A token this calendar did not issue, or one from before its
    /// tombstones were pruned, answers 410: sync again from the start.
    func changes(calendar identifier: String) throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["since", "limit", "include"])
        var token: SyncToken?
        if let text = parameters["since"] {
            // The store refuses a token of another calendar, or one older than its tombstones.
            guard let parsed = SyncToken(text) else {
                throw APIProblem(.resyncRequired, "\(text) is not a sync token; sync again without since")
            }
            token = parsed
        }
        var limit = configuration.maxItems
        if let text = parameters["limit"] {
            guard let value = Int(text), (1...configuration.maxItems).contains(value) else {
                throw APIProblem(
                    .invalidQuery, "limit is a number from 1 to \(configuration.maxItems)", fields: ["limit"])
            }
            limit = value
        }
        let includeData: Bool
        switch parameters["include"] {
        case nil: includeData = false
        case "data": includeData = true
        case let other?:
            throw APIProblem(.invalidQuery, "include takes data, not \(other)", fields: ["include"])
        }
        let found = try attempt { () throws(StoreError) in
            try store.changes(since: token, calendar: identifier, limit: limit, includingData: includeData)
        }
        var next = JSONAPIHandler.prefix + "/calendars/" + PercentEncoding.encode(identifier) + "/changes?since="
        next += PercentEncoding.encode(found.token.description) + "&limit=\(limit)"
        if includeData { next += "&include=data" }
        return json(
            .object([
                ("changes", .array(found.entries.map(APIModel.json))), ("token", .string(found.token.description)),
                ("more", .bool(found.isTruncated)), ("next", .string(next)),
            ]))
    }

    /// The request's `If-Match`, which the store checks inside the write's transaction.
    var ifMatch: String? { request.headers["If-Match"] }
}
