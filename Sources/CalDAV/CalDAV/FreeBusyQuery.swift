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
        var freeBusy = Component(
            name: "VFREEBUSY",
            properties: [
                // When the answer was made (RFC 5545 §3.8.7.2), not when the range starts.
                Property(
                    name: "DTSTAMP",
                    dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: context.handler.now()), form: .utc)),
                Property(name: "DTSTART", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: start), form: .utc)),
                Property(name: "DTEND", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: end), form: .utc)),
            ])
        let periods = busy.compactMap { time -> (start: Int, end: Int, tentative: Bool)? in
            let from = max(start, time.start)
            let to = min(end, time.end)
            return to > from ? (from, to, time.isTentative) : nil
        }
        for period in Self.unavailable(
            start: start, end: end, owner: handle.calendar.owner, backend: context.handler.backend)
        {
            freeBusy.properties.append(
                Property(
                    name: "FREEBUSY", parameters: [Parameter(name: "FBTYPE", value: "BUSY-UNAVAILABLE")],
                    value: DAVTime.period(period.start, period.end)))
        }
        for period in BusyTime.coalesced(periods, span: end - start, limit: Self.maxFreeBusyPeriods) {
            freeBusy.properties.append(
                Property(
                    name: "FREEBUSY",
                    parameters: [Parameter(name: "FBTYPE", value: period.tentative ? "BUSY-TENTATIVE" : "BUSY")],
                    value: DAVTime.period(period.start, period.end)))
        }
        let document = Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
            ],
            components: [freeBusy])
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "text/calendar; charset=utf-8"], body: document.serialized())
    }
}
