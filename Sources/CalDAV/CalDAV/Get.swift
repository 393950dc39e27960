import CalendarStore
import CivilTime
import HTTPTypes

extension DAVContext {
    /// GET and HEAD of a calendar object: its bytes as stored, with the strong ETag; of a
    /// notification, its XML.
    func get() -> HTTPResponse {
        if case .notification(_, let name) = path {
            do {
                let note = try notification(named: name)
                return HTTPResponse(
                    status: 200,
                    headers: [
                        "Content-Type": "application/xml; charset=utf-8", "ETag": Self.etag(note),
                        "Cache-Control": "private, no-cache",
                    ],
                    body: Array(notificationXML(note).utf8))
            } catch {
                return DAVError(error).response
            }
        }
        if case .inboxItem(_, let name) = path {
            do {
                let message = try inboxMessage(named: name)
                return HTTPResponse(
                    status: 200,
                    headers: [
                        "Content-Type": "text/calendar; charset=utf-8; method=\(message.method)", "ETag": message.etag,
                        "Cache-Control": "private, no-cache",
                    ],
                    body: message.data)
            } catch {
                return DAVError(error).response
            }
        }
        guard case .object(_, let calendarName, let name) = path else {
            // A collection answers with a line for people who open it in a browser, when
            // it exists (as PROPFIND finds it: an unmapped URL is 404, RFC 9110 §15.5.5).
            do {
                _ = try properties(of: path)
            } catch {
                return DAVError(error).response
            }
            return .text(200, Self.collectionText(path))
        }
        do {
            let calendar = try self.calendar(named: calendarName)
            let resource = try store.resource(named: name, calendar: calendar)
            var response = HTTPResponse(
                status: 200,
                headers: [
                    "Content-Type": "text/calendar; charset=utf-8", "ETag": resource.etag,
                    "Cache-Control": "private, no-cache",
                    "Last-Modified": CivilDateTime(secondsSinceEpoch: resource.lastModified).httpDate,
                ],
                body: resource.data)
            if let tag = resource.scheduleTag { response.headers.set("Schedule-Tag", tag) }
            return response
        } catch {
            return DAVError(error).response
        }
    }

    /// What GET answers for a collection (its `getcontenttype` is text/plain, its
    /// `getcontentlength` this text's length: RFC 4918 §15.4–§15.5).
    static func collectionText(_ path: DAVPath) -> String {
        if case .calendar = path { return "A CalDAV calendar collection; use a calendar client.\n" }
        return "Almanac CalDAV. Add \(DAVPath.rootPath) in your calendar app.\n"
    }
}
