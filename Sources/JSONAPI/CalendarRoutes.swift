import CalendarStore
import Foundation
import HTTPTypes
import ICalendar

extension APIContext {
    /// GET /calendars: the user's calendars.
    func listCalendars() throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        let calendars = try attempt { () throws(StoreError) in try store.calendars() }
        return json(.object([("calendars", .array(calendars.map(APIModel.json)))]))
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

    /// The request's `If-Match`, which the store checks inside the write's transaction.
    var ifMatch: String? { request.headers["If-Match"] }
}
