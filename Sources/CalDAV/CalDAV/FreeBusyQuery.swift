import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar

/// free-busy-query (RFC 4791 §7.10): the busy time of a range as a VFREEBUSY.
/// Transparent and cancelled instances leave time free; tentative ones are
/// BUSY-TENTATIVE; time outside the calendar owner's availability schedule (RFC 7953)
/// is BUSY-UNAVAILABLE. Floating and all-day events are placed in a `CALDAV:timezone` the
/// request adds as calendar-query's does (§9.8), else in the calendar's
/// `calendar-timezone` (§7.10), else in UTC.
struct FreeBusyQueryReport {
    var start: Int
    var end: Int
    /// The request's `CALDAV:timezone`, when it has one.
    var timeZone: ZoneRules?

    init(_ body: XMLElement) throws(DAVError) {
        guard let timeRange = body.child(DAVNamespace.caldav, "time-range"),
            let start = timeRange.attributes["start"].flatMap(DAVTime.instant),
            let end = timeRange.attributes["end"].flatMap(DAVTime.instant), start < end
        else {
            throw DAVError(400, "free-busy-query needs a time-range with start and end in UTC")
        }
        self.start = start
        self.end = end
        timeZone = try QueryFilter.requestZone(in: body)
    }

    /// The most FREEBUSY periods one free-busy answer lists (RFC 4791 §7.10).
    static let maxFreeBusyPeriods = 10_000

    func answer(in context: DAVContext, calendar handle: CalendarHandle) throws(StoreError) -> HTTPResponse {
        // Busy time complete by construction: a series a bound of expansion stopped counts
        // as busy from its last instance on (more busy time, never less).
        let busy = try context.store.busyTime(
            in: TimeRange(start: start, end: end), calendar: handle, timeZone: timeZone)
        let freeBusy = Self.freeBusy(
            busy, from: start, to: end, owner: handle.calendar.owner, stamp: context.handler.now(),
            backend: context.handler.backend)
        let document = Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
            ],
            components: [freeBusy])
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "text/calendar; charset=utf-8"], body: document.serialized())
    }

    /// A VFREEBUSY of `busy` within `from..<to` (Unix seconds), with the time outside
    /// `owner`'s availability schedule as BUSY-UNAVAILABLE, stamped `stamp`; `heading`
    /// goes before the periods (a reply's UID, ORGANIZER and ATTENDEE).
    static func freeBusy(
        _ busy: [BusyTime], from: Int, to: Int, owner: String, stamp: Int, backend: any StoreBackend,
        heading: [Property] = []
    ) -> Component {
        func utc(_ seconds: Int) -> DateTimeValue {
            DateTimeValue(CivilDateTime(secondsSinceEpoch: seconds), form: .utc)
        }
        // DTSTAMP: when the answer was made (RFC 5545 §3.8.7.2), not when the range starts.
        var freeBusy = Component(
            name: "VFREEBUSY",
            properties: [
                Property(name: "DTSTAMP", dateTime: utc(stamp)), Property(name: "DTSTART", dateTime: utc(from)),
                Property(name: "DTEND", dateTime: utc(to)),
            ] + heading)
        for period in unavailable(start: from, end: to, owner: owner, backend: backend) {
            freeBusy.properties.append(
                Property(
                    name: "FREEBUSY", parameters: [Parameter(name: "FBTYPE", value: "BUSY-UNAVAILABLE")],
                    value: DAVTime.period(period.start, period.end)))
        }
        let periods = busy.compactMap { time -> (start: Int, end: Int, tentative: Bool)? in
            let start = max(from, time.start)
            let end = min(to, time.end)
            return end > start ? (start, end, time.isTentative) : nil
        }
        for period in BusyTime.coalesced(periods, span: to - from, limit: maxFreeBusyPeriods) {
            freeBusy.properties.append(
                Property(
                    name: "FREEBUSY",
                    parameters: [Parameter(name: "FBTYPE", value: period.tentative ? "BUSY-TENTATIVE" : "BUSY")],
                    value: DAVTime.period(period.start, period.end)))
        }
        return freeBusy
    }
}
