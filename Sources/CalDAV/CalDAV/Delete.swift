import CalendarStore
import HTTPTypes

extension DAVContext {
    /// DELETE of an object (with If-Match and If-Schedule-Tag-Match), of a whole calendar,
    /// of a notification or of a WebDAV-Push registration.
    func delete() -> HTTPResponse {
        do throws(StoreError) {
            switch path {
            case .object(_, let calendarName, let name):
                let calendar = try self.calendar(named: calendarName)
                // What a deleted scheduling object was, for whom it concerns.
                let old = try? store.resource(named: name, calendar: calendar)
                var expected = ifMatch
                if let tag = ifScheduleTagMatch {
                    guard let old else { throw StoreError(.notFound, "no resource \(name)", resource: name) }
                    if let refusal = Self.scheduleTagRefusal(tag, old) { return refusal.response }
                    // The version whose tag was checked is the one deleted (its ETag changes with its tag).
                    if expected == nil || expected == "*" { expected = old.etag }
                }
                try store.deleteResource(named: name, calendar: calendar, ifMatch: expected)
                if let old, Self.mentionsOrganizer(old.data) {
                    // `Schedule-Reply: F`: the attendee's client answers itself, or not at all (RFC 6638 §8.1).
                    let reply = request.headers["Schedule-Reply"]?.trimmingCharacters(in: .whitespaces) != "F"
                    handler.scheduling.deleted(old.data, by: user, in: calendar.calendar, reply: reply)
                }
            case .inboxItem(_, let name):
                try handler.backend.scheduling.removeInboxMessage(named: name, of: user)
            case .calendar(_, let name):
                // A sharee's DELETE of a calendar shared with them leaves the share.
                try store.deleteCalendar(withIdentifier: try self.calendar(named: name).calendar.id)
            case .notification(_, let name):
                try store.removeSharingNotification(try notification(named: name).uid)
            case .pushRegistration(_, let id):
                return try pushUnregister(id)
            default:
                return DAVError(403, "only calendars, calendar objects and notifications can be deleted").response
            }
            return HTTPResponse(status: 204)
        } catch {
            return DAVError(error).response
        }
    }

    /// If-Schedule-Tag-Match (RFC 6638 §8.3), trimmed; nil when not sent.
    var ifScheduleTagMatch: String? {
        request.headers["If-Schedule-Tag-Match"]?.trimmingCharacters(in: .whitespaces)
    }

    /// 412 when `resource`'s Schedule-Tag is not `tag` (a scheduling change reached it
    /// since the client read it); nil when it is.
    static func scheduleTagRefusal(_ tag: String, _ resource: StoredResource) -> DAVError? {
        guard resource.scheduleTag != tag else { return nil }
        return DAVError(
            412,
            "\(resource.name) has changed for its organizer: its Schedule-Tag is \(resource.scheduleTag ?? "none"), not \(tag)"
        )
    }
}
