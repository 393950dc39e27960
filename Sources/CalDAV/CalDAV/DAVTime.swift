import CalendarStore
import CivilTime
import ICalendar
import Recurrence

/// CalDAV's time format: `20261201T000000Z` (UTC).
enum DAVTime {
    /// The `start` and `end` of a time-range, expand or limit-recurrence-set element
    /// (UTC date-times; a missing one is open unless `bothBounds`), or the 400 to answer.
    static func range(_ element: XMLElement, bothBounds: Bool = false) throws(DAVError) -> TimeRange {
        func bound(_ name: String) throws(DAVError) -> Int? {
            guard let text = element.attributes[name] else {
                if bothBounds {
                    throw DAVError(400, "\(element.name) needs a \(name) attribute")
                }
                return nil
            }
            guard let instant = instant(text) else {
                throw DAVError(
                    400,
                    "\(element.name) \(name)=\"\(text)\" is not a UTC date-time such as 20261201T000000Z",
                    caldav: "valid-filter")
            }
            return instant
        }
        let start = try bound("start")
        let end = try bound("end")
        guard start != nil || end != nil else {
            throw DAVError(400, "\(element.name) needs a start or an end", caldav: "valid-filter")
        }
        // "If both start and end are specified, end MUST be greater than start" (RFC 4791 §9.9).
        if let start, let end, end <= start {
            throw DAVError(400, "\(element.name) ends at or before its start", caldav: "valid-filter")
        }
        return TimeRange(start: start ?? Int(Int32.min) * 60, end: end ?? Int(Int32.max - 1) * 60)
    }

    static func instant(_ text: String) -> Int? {
        guard let value = try? Property(name: "DTSTART", value: text).dateTimeValue(), value.form == .utc, !value.isDate
        else { return nil }
        return value.civil.secondsSinceEpoch
    }

    /// `20261201T090000Z/20261201T100000Z`, a FREEBUSY period.
    static func period(_ start: Int, _ end: Int) -> String {
        DateTimeValue(CivilDateTime(secondsSinceEpoch: start), form: .utc).icalendarText + "/"
            + DateTimeValue(CivilDateTime(secondsSinceEpoch: end), form: .utc).icalendarText
    }

    /// A value for an expanded instance: dates stay dates, times become UTC.
    static func value(_ time: OccurrenceTime, zone: ZoneRules) -> DateTimeValue {
        if case .date(let date) = time { return DateTimeValue(date: date) }
        return DateTimeValue(CivilDateTime(secondsSinceEpoch: time.instant(in: zone)), form: .utc)
    }
}
