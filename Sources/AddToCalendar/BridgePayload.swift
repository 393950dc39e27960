import CivilTime
import ICalendar
import JSON

/// The message a web page hands to its native shell (iOS EventKit, Android
/// `CalendarContract`) to add an event. Every key is always present; what an
/// entry does not have is `null`.
public struct BridgePayload: Sendable, Hashable {
    public var name: String
    public var startsAtInMillisecondsSinceEpoch: Int64
    public var endsAtInMillisecondsSinceEpoch: Int64
    public var allDay: Bool
    /// The first date at 00:00 UTC (how Android stores all-day events); for a timed
    /// entry, the date it starts on in its zone.
    public var allDayStartAtInMillisecondsSinceEpoch: Int64
    /// The day after the last date at 00:00 UTC; for a timed entry, the day after the
    /// date it ends on in its zone.
    public var allDayEndsAtInMillisecondsSinceEpoch: Int64
    public var location: String?
    /// The RRULE value, without the `RRULE:` prefix.
    public var rrule: String?
    public var notes: String?
    public var url: String?
    /// The IANA zone of the times.
    public var timeZone: String?
    public var alarmMinutesBefore: Int?

    public init(_ entry: CalendarEntry) {
        name = entry.title
        startsAtInMillisecondsSinceEpoch = milliseconds(entry.start)
        endsAtInMillisecondsSinceEpoch = milliseconds(entry.end)
        allDay = entry.isAllDay
        let dates = entry.dates ?? Self.datesCovered(entry)
        allDayStartAtInMillisecondsSinceEpoch = milliseconds(utcMidnight(dates.first))
        allDayEndsAtInMillisecondsSinceEpoch = milliseconds(utcMidnight(dates.afterLast))
        location = entry.location
        rrule = entry.recurrenceRule
        notes = entry.notes
        url = entry.url
        timeZone = entry.zoneName
        alarmMinutesBefore = entry.alarmMinutesBefore
    }

    /// The dates a timed entry touches in its zone (an end at midnight ends the day before).
    static func datesCovered(_ entry: CalendarEntry) -> (first: CivilDate, afterLast: CivilDate) {
        let first = entry.zone.localTime(at: entry.start).date
        let last = entry.zone.localTime(at: max(entry.start, entry.end - 1)).date
        return (first, last.adding(days: 1))
    }

    /// The payload as the native side reads it: every key present, absent values null.
    public var json: JSONValue {
        .object([
            ("name", .string(name)),
            ("startsAtInMillisecondsSinceEpoch", .integer(Int(startsAtInMillisecondsSinceEpoch))),
            ("endsAtInMillisecondsSinceEpoch", .integer(Int(endsAtInMillisecondsSinceEpoch))),
            ("allDay", .bool(allDay)),
            ("allDayStartAtInMillisecondsSinceEpoch", .integer(Int(allDayStartAtInMillisecondsSinceEpoch))),
            ("allDayEndsAtInMillisecondsSinceEpoch", .integer(Int(allDayEndsAtInMillisecondsSinceEpoch))),
            ("location", nullable(location)),
            ("rrule", nullable(rrule)), ("notes", nullable(notes)), ("url", nullable(url)),
            ("timeZone", nullable(timeZone)),
            ("alarmMinutesBefore", alarmMinutesBefore.map(JSONValue.integer) ?? .null),
        ])
    }
}
