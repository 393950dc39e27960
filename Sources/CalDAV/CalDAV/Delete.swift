import CalendarStore
import HTTPTypes

extension DAVContext {
    /// DELETE of an object (with If-Match) or of a whole calendar.
    func delete() -> HTTPResponse {
        do {
            switch path {
            case .object(_, let calendarName, let name):
                let calendar = try self.calendar(named: calendarName)
                try store.deleteResource(named: name, calendar: calendar, ifMatch: ifMatch)
            case .calendar(_, let name):
                try store.deleteCalendar(withIdentifier: try self.calendar(named: name).calendar.id)
            default:
                return DAVError(403, "only calendars and calendar objects can be deleted").response
            }
            return HTTPResponse(status: 204)
        } catch {
            return DAVError(error).response
        }
    }
}
