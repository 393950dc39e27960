import CalendarStore
import Foundation
import HTTPTypes
import ICalendar

extension APIContext {
    /// GET: the user's calendars; POST: a new one.
    func calendars(_ method: String) throws(APIProblem) -> HTTPResponse {
        switch method {
        case "GET":
            try requireRead()
            _ = try query(allowing: [])
            let calendars = try attempt { () throws(StoreError) in try store.calendars() }
            return json(.object([("calendars", .array(calendars.map(APIModel.json)))]))
        case "POST":
            try requireWrite()
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
        default: throw methodNotAllowed(["GET", "POST"])
        }
    }

    /// GET, PATCH (If-Match optional) and DELETE of one calendar.
    func calendar(_ identifier: String, _ method: String) throws(APIProblem) -> HTTPResponse {
        switch method {
        case "GET":
            try requireRead()
            let calendar = try attempt { () throws(StoreError) in try store.calendar(withIdentifier: identifier) }
            return json(APIModel.json(calendar), etag: APIModel.etag(calendar))
        case "PATCH":
            try requireWrite()
            let body = try body(allowing: APIModel.calendarFields)
            var calendar = try attempt { () throws(StoreError) in try store.calendar(withIdentifier: identifier) }
            try APIModel.apply(body, to: &calendar)
            let updated = try attempt { () throws(StoreError) in try store.updateCalendar(calendar, ifMatch: ifMatch) }
            return json(APIModel.json(updated), etag: APIModel.etag(updated))
        case "DELETE":
            try requireWrite()
            try attempt { () throws(StoreError) in
                try store.deleteCalendar(withIdentifier: identifier, ifMatch: ifMatch)
            }
            return HTTPResponse(status: 204)
        default: throw methodNotAllowed(["GET", "PATCH", "DELETE"])
        }
    }

    /// PUT /calendars/by-title/{title}: the calendar with this title, created (201) when
    /// there is none; an optional body gives the new calendar's other fields.
    func calendarByTitle(_ title: String, _ method: String) throws(APIProblem) -> HTTPResponse {
        guard method == "PUT" else { throw methodNotAllowed(["PUT"]) }
        try requireWrite()
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
