import CalendarStore
import HTTPTypes

extension DAVContext {
    /// DELETE of an object (with If-Match), of a whole calendar or of a notification.
    func delete() -> HTTPResponse {
        do {
            switch path {
            case .object(_, let calendarName, let name):
                let calendar = try self.calendar(named: calendarName)
                // What a deleted scheduling object was, for whom it concerns.
                let old = try? store.resource(named: name, calendar: calendar).data
                try store.deleteResource(named: name, calendar: calendar, ifMatch: ifMatch)
                if let old, Self.mentionsOrganizer(old) {
                    handler.scheduling.deleted(old, by: user, in: calendar.calendar)
                }
            case .inboxItem(_, let name):
                try handler.backend.scheduling.removeInboxMessage(named: name, of: user)
            case .calendar(_, let name):
                // A sharee's DELETE of a calendar shared with them leaves the share.
                try store.deleteCalendar(withIdentifier: try self.calendar(named: name).calendar.id)
            case .notification(_, let name):
                try store.removeSharingNotification(try notification(named: name).uid)
            default:
                return DAVError(403, "only calendars, calendar objects and notifications can be deleted").response
            }
            return HTTPResponse(status: 204)
        } catch {
            return DAVError(error).response
        }
    }
}
