import CalendarStore
import Foundation
import HTTPTypes
import ICalendar
import Scheduling

extension DAVContext {
    /// PUT of a calendar object (RFC 4791 §5.3.2), with If-Match / If-None-Match.
    func put() -> HTTPResponse {
        guard case .object(_, let calendarName, let name) = path else {
            return DAVError(405, "PUT stores calendar objects inside a calendar collection").response
        }
        if let type = request.headers["Content-Type"]?.lowercased(), !type.hasPrefix("text/calendar") {
            return DAVError(403, "calendar objects are text/calendar, not \(type)", caldav: "supported-calendar-data")
                .response
        }
        if request.body.count > handler.maxResourceSize {
            return DAVError(
                413, "the object is larger than \(handler.maxResourceSize) bytes", caldav: "max-resource-size"
            ).response
        }
        if let refusal = Self.timeZoneRefusal(request.body) { return refusal.response }
        let ifMatch = self.ifMatch
        let ifNoneMatch = request.headers["If-None-Match"]?.trimmingCharacters(in: .whitespaces) == "*"
        let calendar: CalendarHandle
        do {
            calendar = try self.calendar(named: calendarName)
        } catch {
            // No calendar to put it in: 409 (RFC 4918 §9.7.1), not 404.
            guard error.code == .notFound else { return DAVError(error).response }
            return DAVError(409, "there is no calendar \(calendarName) to hold \(name); make it with MKCALENDAR first")
                .response
        }
        do {
            // A scheduling object (one with an ORGANIZER) is read for whom it concerns first.
            // (So is one that replaces a scheduling object: removing every attendee cancels.)
            var plan: SchedulingAgent.Plan?
            let mentions = Self.mentionsOrganizer(request.body)
            let stored = ifNoneMatch ? nil : try? store.resource(named: name, calendar: calendar)
            let previous = stored?.data
            if mentions || previous.map(Self.mentionsOrganizer) == true {
                // The client's preconditions come first: a stale tag is 412, whatever the
                // new version would change (the store checks both again as it writes).
                if let ifMatch, ifMatch != "*", stored?.etag != ifMatch {
                    return DAVError(412, "the resource changed since it was read (its ETag is not \(ifMatch))").response
                }
                if let tag = ifScheduleTagMatch, let stored, let refusal = Self.scheduleTagRefusal(tag, stored) {
                    return refusal.response
                }
                do {
                    plan = try handler.scheduling.prepare(
                        request.body, previous: previous, by: user, in: calendar.calendar, name: name)
                } catch {
                    return DAVError(403, error.message, caldav: error.precondition.rawValue).response
                }
            }
            let data = plan?.data ?? request.body
            // A scheduling object keeps a Schedule-Tag (RFC 6638 §3.2.10): the organizer's
            // writes change it, an attendee's answers do not.
            let tag = plan?.scheduleTag ?? (mentions ? .keep : nil)
            let written = try store.writeResource(
                data, name: name, calendar: calendar, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, scheduleTag: tag,
                ifScheduleTagMatch: ifScheduleTagMatch)
            if let plan { handler.scheduling.deliver(plan) }
            // What was stored differs from what was sent (SCHEDULE-STATUS set): no ETag, so
            // the client fetches it (RFC 4791 §5.3.4).
            var headers: HTTPHeaders = data == request.body ? ["ETag": written.etag] : [:]
            if let scheduleTag = written.scheduleTag { headers.set("Schedule-Tag", scheduleTag) }
            for warning in Self.warningHeaders(for: written.warnings) { headers.add("Warning", warning) }
            return HTTPResponse(status: written.created ? 201 : 204, headers: headers)
        } catch {
            return DAVError(error, collectionHref: DAVPath.calendar(user: user, name: calendarName).href).response
        }
    }

    /// Why a PUT body cannot be stored as it names time zones: a TZID without its
    /// VTIMEZONE (RFC 4791 §4.1: one "MUST be specified for each unique TZID"; the server
    /// does not advertise RFC 7809's `calendar-no-timezone`, and Apple's, DAVx⁵'s,
    /// Thunderbird's and Evolution's clients all send them): 403
    /// `valid-calendar-object-resource`. Nil when every TZID has one, or the bytes are
    /// not read (the store's own checks answer those).
    static func timeZoneRefusal(_ body: [UInt8]) -> DAVError? {
        guard body.firstRange(of: Array("TZID=".utf8)) != nil || body.firstRange(of: Array("tzid=".utf8)) != nil,
            let document = try? ICalendarParser.parse(body, options: .lenient)
        else { return nil }
        let missing = document.components.flatMap(\.undefinedTimeZones)
        guard let first = missing.first else { return nil }
        return DAVError(
            403,
            "TZID=\(first) has no VTIMEZONE in the object (RFC 4791 §4.1): send the VTIMEZONE with it, or the times in UTC",
            caldav: "valid-calendar-object-resource")
    }

    /// Whether iCalendar bytes name an ORGANIZER (in either case): only those can schedule.
    static func mentionsOrganizer(_ bytes: [UInt8]) -> Bool {
        let upper = Array("ORGANIZER".utf8)
        let lower = Array("organizer".utf8)
        guard bytes.count >= upper.count else { return false }
        for start in 0...(bytes.count - upper.count) where bytes[start] == upper[0] || bytes[start] == lower[0] {
            var matches = true
            for offset in 1..<upper.count
            where bytes[start + offset] != upper[offset] && bytes[start + offset] != lower[offset] {
                matches = false
                break
            }
            if matches { return true }
        }
        return false
    }

    /// The most `Warning` headers a PUT answer carries; more are summed up in one last.
    static let maxWarningHeaders = 10

    /// `Warning: 199 almanac "LINE:COLUMN: warning: ... [code]"` (RFC 7234 §5.5, 199
    /// "Miscellaneous Warning") for each problem lenient reading recovered from in a PUT
    /// body, so a client can see that its object was read past a mistake. The object is
    /// stored as sent (and read the same way each time). Header text is ASCII without
    /// control characters; anything else in a message becomes `?`.
    static func warningHeaders(for warnings: [ICalendarError]) -> [String] {
        func quoted(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"", "\\": result += "\\" + String(scalar)
                case " "..."~": result.unicodeScalars.append(scalar)
                default: result += "?"
                }
            }
            return result + "\""
        }
        var headers = warnings.prefix(maxWarningHeaders).map { "199 almanac " + quoted($0.description) }
        if warnings.count > maxWarningHeaders {
            headers.append("199 almanac " + quoted("and \(warnings.count - maxWarningHeaders) more warnings"))
        }
        return headers
    }
}
