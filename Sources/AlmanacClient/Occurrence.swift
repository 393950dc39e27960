import Foundation

/// One instance of an event in a range: a one-off event, or one occurrence of a series
/// (an override's own values when it has been changed alone).
public struct Occurrence: Sendable, Hashable, Codable, Identifiable {
    /// Stable: the event's id, and for an instance of a series `/` and its RECURRENCE-ID
    /// (`9E07…/2026-12-08T17:00:00Z`); the path of ``AlmanacClient/occurrence(id:timeZone:)``.
    public var id: String
    /// The event (the series) it belongs to.
    public var eventID: String
    /// The calendar it is in.
    public var calendarID: String
    /// The title, or nil.
    public var title: String?
    /// When it starts: in UTC (`…Z`), or a date for an all-day occurrence.
    public var start: EventTime
    /// When it ends (exclusive), as ``start``.
    public var end: EventTime
    /// True for an all-day occurrence.
    public var allDay: Bool
    /// The IANA zone of the event's wall-clock times, or nil.
    public var timeZone: String?
    /// The RECURRENCE-ID of an instance of a series; nil for a one-off event.
    public var recurrenceID: String?
    /// True when this instance has been changed alone (an override).
    public var detached: Bool
    /// Confirmed, tentative or cancelled, or nil.
    public var status: EventStatus?
    /// The ETag of the event's stored object, for `ifMatch:` on the occurrence.
    public var etag: String

    enum CodingKeys: String, CodingKey {
        case id
        case eventID = "eventId"
        case calendarID = "calendarId"
        case title, start, end, allDay, timeZone
        case recurrenceID = "recurrenceId"
        case detached, status, etag
    }

    /// Reads an occurrence; unknown members are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        eventID = try container.decodeIfPresent(String.self, forKey: .eventID) ?? ""
        calendarID = try container.decodeIfPresent(String.self, forKey: .calendarID) ?? ""
        title = try container.decodeIfPresent(String.self, forKey: .title)
        start = try container.decode(EventTime.self, forKey: .start)
        end = try container.decodeIfPresent(EventTime.self, forKey: .end) ?? start
        allDay = try container.decodeIfPresent(Bool.self, forKey: .allDay) ?? false
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
        recurrenceID = try container.decodeIfPresent(String.self, forKey: .recurrenceID)
        detached = try container.decodeIfPresent(Bool.self, forKey: .detached) ?? false
        status = try container.decodeIfPresent(EventStatus.self, forKey: .status)
        etag = try container.decodeIfPresent(String.self, forKey: .etag) ?? ""
    }
}

/// Which instances an edit or removal of one occurrence applies to.
public enum Span: String, Sendable, Hashable, CaseIterable {
    /// This instance alone: an override, or an EXDATE for a removal.
    case this
    /// This instance and every later one: the series ends before it (an edit starts a new
    /// series from it).
    case future
}

/// Occurrences in a range, earliest first, and whether the answer was cut.
public struct OccurrenceListing: Sendable, Hashable, Codable {
    /// The occurrences (at most 10,000 an answer).
    public var occurrences: [Occurrence]
    /// True when not every occurrence in the range is listed; ``continueFrom`` says where
    /// the rest begin.
    public var truncated: Bool
    /// With ``truncated``: the start (UTC) of the first occurrence left out; ask again
    /// from there for the rest.
    public var continueFrom: Date?
    /// With ``truncated`` by a bound of expansion: each series cut, and how far it was listed.
    public var truncatedSeries: [TruncatedSeries]
    /// With ``truncated`` by a page's `limit`: the next page's link; nil otherwise.
    /// ``AlmanacClient/allOccurrences(inCalendar:from:to:title:timeZone:pageSize:)`` follows it.
    public var next: String?

    enum CodingKeys: String, CodingKey {
        case occurrences, truncated, continueFrom, truncatedSeries, next
    }

    /// Reads a listing; unknown members are ignored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        occurrences = try container.decodeIfPresent([Occurrence].self, forKey: .occurrences) ?? []
        truncated = try container.decodeIfPresent(Bool.self, forKey: .truncated) ?? false
        continueFrom = try container.decodeIfPresent(Date.self, forKey: .continueFrom)
        truncatedSeries = try container.decodeIfPresent([TruncatedSeries].self, forKey: .truncatedSeries) ?? []
        next = try container.decodeIfPresent(String.self, forKey: .next)
    }
}

/// A series whose expansion a bound stopped before the end of the asked range.
public struct TruncatedSeries: Sendable, Hashable, Codable {
    /// The series.
    public var eventID: String
    /// Its calendar.
    public var calendarID: String?
    /// Its UID.
    public var uid: String
    /// Its title.
    public var title: String?
    /// How many of its instances in the range were listed.
    public var listed: Int?
    /// The start (UTC) of the last instance listed; nil when none was.
    public var lastListedStart: Date?

    enum CodingKeys: String, CodingKey {
        case eventID = "eventId"
        case calendarID = "calendarId"
        case uid, title, listed, lastListedStart
    }
}

/// One day of a month grid or a week, for the markers of a month view.
public struct SummaryDay: Sendable, Hashable, Codable {
    /// The day (`2026-12-03`), in the summary's zone.
    public var date: String
    /// How many occurrences touch it.
    public var count: Int
    /// The colours of the calendars with occurrences that day, once each.
    public var colors: [String]
    /// The first titles (as many as asked for, 3 by default).
    public var titles: [String]
    /// True when two busy timed occurrences overlap that day.
    public var conflict: Bool
    /// False for the days of the grid's first and last weeks outside the month; nil for a week.
    public var inMonth: Bool?
}

/// Per-day markers over a month grid (whole weeks) or one ISO week.
public struct CalendarSummary: Sendable, Hashable, Codable {
    /// The zone the days begin in at midnight.
    public var timeZone: String
    /// The first column (`monday`).
    public var firstWeekday: String
    /// Every day of the grid, in order.
    public var days: [SummaryDay]
    /// True when a series had more instances than one series may: it is counted only up to
    /// where it stopped.
    public var truncated: Bool?
    /// The series cut, when ``truncated``.
    public var truncatedSeries: [TruncatedSeries]?
}

/// The user's device mark for an event: it was added to a device's calendar.
public struct AddedMark: Sendable, Hashable, Codable {
    /// The event.
    public var eventID: String
    /// `ios`, `android` or `web`, or nil.
    public var platform: String?
    /// The device calendar's identifier for it, or nil.
    public var nativeIdentifier: String?
    /// When it was marked (UTC).
    public var added: Date

    enum CodingKeys: String, CodingKey {
        case eventID = "eventId"
        case platform, nativeIdentifier, added
    }
}
