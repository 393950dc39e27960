import Availability
import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar

// RFC 7953 §7 over CalDAV: the user's default availability schedule as the
// CALDAV:calendar-availability of their schedule inbox (where RFC 7953 §7.2.4 puts it)
// and of their calendar home (where clients that predate the inbox look) (a VCALENDAR with one VAVAILABILITY and its
// VTIMEZONE), read with PROPFIND and changed with PROPPATCH, and the time outside it as
// FBTYPE=BUSY-UNAVAILABLE in free-busy-query. It is the same schedule the booking types,
// GET /api/v1/availability?schedule=default and `almanac hours` use.
extension DAVContext {
    /// The owner's default schedule as the property's text, nil without one.
    func calendarAvailability(of owner: String) -> String? {
        guard let stored = try? handler.backend.appState.defaultSchedule(user: owner) else { return nil }
        return String(decoding: stored.data, as: UTF8.self)
    }

    /// PROPPATCH of the user's own calendar home or schedule inbox: `calendar-availability`
    /// alone may be set (replacing the default schedule's hours, or making one) or removed
    /// (deleting the default schedule). All or nothing, as on a calendar.
    func proppatchAvailability(sets: [XMLElement], removals: [XMLElement]) -> HTTPResponse {
        switch path {
        case .home(let owner) where owner == user, .inbox(let owner) where owner == user: break
        default: return DAVError(403, "only your own calendar home's and inbox's properties change").response
        }
        var statuses: [(name: PropertyName, status: Int)] = []
        var schedule: AvailabilitySchedule?
        var remove = false
        for element in sets {
            let name = PropertyName(element)
            guard name == .calendarAvailability else {
                statuses.append((name, 403))
                continue
            }
            // XML reads every line break as LF (XML 1.0 §2.11): iCalendar's are CRLF again.
            var bytes: [UInt8] = []
            for byte in element.text.utf8 {
                if byte == 0x0A, bytes.last != 0x0D { bytes.append(0x0D) }
                bytes.append(byte)
            }
            // RFC 4918 §9.2.1: 409 for a value the property cannot take.
            if let parsed = try? AvailabilitySchedule(calendarData: bytes) {
                schedule = parsed
                statuses.append((name, 200))
            } else {
                statuses.append((name, 409))
            }
        }
        for element in removals {
            let name = PropertyName(element)
            if name == .calendarAvailability { remove = true }
            statuses.append((name, name == .calendarAvailability ? 200 : 403))
        }
        var multistatus = Multistatus()
        guard !statuses.contains(where: { $0.status != 200 }) else {
            multistatus.add(href: path.href, statuses: statuses.map { ($0.name, $0.status == 200 ? 424 : $0.status) })
            return multistatus.response()
        }
        do throws(StoreError) {
            let appState = handler.backend.appState
            let current = try appState.defaultSchedule(user: user)
            if let schedule {
                var stored =
                    current
                    ?? StoredSchedule(user: user, title: StoredSchedule.defaultTitle, data: [], isDefault: true)
                stored.data = schedule.calendarData(
                    uid: stored.id, stamp: CivilDateTime(secondsSinceEpoch: handler.now()))
                stored.isDefault = true
                _ = try appState.saveSchedule(stored, ifMatch: nil)
            } else if remove, let current {
                try appState.deleteSchedule(id: current.id, user: user, ifMatch: nil)
            }
        } catch {
            return DAVError(error).response
        }
        multistatus.add(href: path.href, statuses: statuses)
        return multistatus.response()
    }
}

extension FreeBusyQueryReport {
    /// The parts of `start..<end` outside `owner`'s default schedule (none without one).
    /// Days past ``maxScheduleDays`` count as unavailable: more busy time, never less.
    static func unavailable(start: Int, end: Int, owner: String, backend: any StoreBackend) -> [(start: Int, end: Int)]
    {
        guard let stored = try? backend.appState.defaultSchedule(user: owner),
            let schedule = try? AvailabilitySchedule(calendarData: stored.data),
            let zone = TimeZoneDatabase.zone(named: schedule.timeZone)
        else { return [] }
        var available: [(start: Int, end: Int)] = []
        var date = zone.localTime(at: start).date.adding(days: -1)
        let last = zone.localTime(at: end).date
        var days = 0
        var covered = end
        while date <= last {
            if days == maxScheduleDays {
                covered = zone.instant(for: CivilDateTime(date: date, time: .midnight))
                break
            }
            for span in schedule.hours(on: date) {
                let midnight = CivilDateTime(date: date, time: .midnight)
                available.append(
                    (
                        zone.instant(for: midnight.adding(seconds: span.start * 60)),
                        zone.instant(for: midnight.adding(seconds: span.end * 60))
                    ))
            }
            date = date.adding(days: 1)
            days += 1
        }
        var result: [(start: Int, end: Int)] = []
        var cursor = start
        for span in available.sorted(by: { $0.start < $1.start }) where span.end > cursor {
            if span.start > cursor { result.append((cursor, min(span.start, end))) }
            cursor = max(cursor, span.end)
            if cursor >= min(end, covered) { break }
        }
        if cursor < end { result.append((cursor, end)) }
        return result.filter { $0.start < $0.end && $0.start < end }
    }

    /// The most days of a schedule one answer walks (about 110 years).
    static let maxScheduleDays = 40_000
}
