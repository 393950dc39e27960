import Foundation
import ICalendar
import JSON

/// The extras of Android's `Intent.ACTION_INSERT` on `CalendarContract.Events`, and the
/// `intent:` URI that carries them from a web page. All-day entries are given at
/// midnight UTC with the UTC zone, as the calendar provider requires.
public struct AndroidInsertIntent: Sendable, Hashable {
    public var title: String
    public var beginTime: Int64
    public var endTime: Int64
    public var allDay: Bool
    public var eventLocation: String?
    public var description: String?
    public var rrule: String?
    public var eventTimezone: String
    /// `CalendarContract.Events.AVAILABILITY_*`: 0 busy, 1 free, 2 tentative.
    public var availability: Int
    public var uri: String
    /// The intent has no reminders and no URL field.
    public var lost: [AddToCalendarTargets.Loss]

    public init(_ entry: CalendarEntry) {
        title = entry.title
        if let dates = entry.dates {
            beginTime = milliseconds(utcMidnight(dates.first))
            endTime = milliseconds(utcMidnight(dates.afterLast))
            eventTimezone = "UTC"
        } else {
            beginTime = milliseconds(entry.start)
            endTime = milliseconds(entry.end)
            eventTimezone = entry.zoneName ?? "UTC"
        }
        allDay = entry.isAllDay
        eventLocation = entry.location
        description = entry.notes
        rrule = entry.recurrenceRule
        availability = entry.isTransparent ? 1 : entry.isTentative ? 2 : 0
        lost = AddToCalendarTargets.losses(
            entry, recurrence: true, alarms: .none, timeZone: true, url: false, availability: true)

        // Intent.toUri form: typed extras (S. string, l. long, B. boolean, i. int), values %-encoded.
        var parts = [
            "scheme=content", "action=android.intent.action.INSERT", "S.title=\(Self.encode(title))",
            "l.beginTime=\(beginTime)",
            "l.endTime=\(endTime)", "B.allDay=\(allDay)",
        ]
        if let eventLocation { parts.append("S.eventLocation=\(Self.encode(eventLocation))") }
        if let description { parts.append("S.description=\(Self.encode(description))") }
        if let rrule { parts.append("S.rrule=\(Self.encode(rrule))") }
        parts.append("S.eventTimezone=\(Self.encode(eventTimezone))")
        parts.append("i.availability=\(availability)")
        uri = "intent://com.android.calendar/events#Intent;" + parts.joined(separator: ";") + ";end"
    }

    /// The extras, the URI and the losses.
    public var json: JSONValue {
        .object([
            (
                "extras",
                .object([
                    ("title", .string(title)), ("beginTime", .integer(Int(beginTime))),
                    ("endTime", .integer(Int(endTime))), ("allDay", .bool(allDay)),
                    ("eventLocation", nullable(eventLocation)), ("description", nullable(description)),
                    ("rrule", nullable(rrule)),
                    ("eventTimezone", .string(eventTimezone)), ("availability", .integer(availability)),
                ])
            ),
            ("uri", .string(uri)), ("lost", lossesJSON(lost)),
        ])
    }

    /// Android's `Uri.encode`: everything but letters, digits and `-_.!~*'()` is escaped.
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(
                charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()")) ?? ""
    }
}
