import Foundation

/// A time as the API spells it: a date (`2026-12-01`, all-day), an instant in UTC
/// (`2026-12-01T11:00:00Z`), or a wall clock (`2026-12-01T12:00:00`) in the event's
/// `timeZone` (floating without one), as RFC 5545 §3.3.5 has its three forms.
///
/// The text is kept as the server sent it, so a value read and sent back is unchanged;
/// an offset such as `+01:00` is read by the server as the instant it names, in UTC.
public struct EventTime: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The text on the wire.
    public var text: String

    /// Which of the three forms a time has.
    public enum Form: Sendable, Hashable {
        /// A date without a time: an all-day event's day.
        case date
        /// An instant: UTC, `Z` (or an offset, which the server reads as UTC).
        case utc
        /// A wall-clock time in the event's `timeZone`, or floating without one.
        case wallClock
    }

    /// A time spelt `text` (`2026-12-01`, `2026-12-01T11:00:00Z`, `2026-12-01T12:00:00`).
    public init(_ text: String) { self.text = text }

    /// A time spelt `value`.
    public init(stringLiteral value: String) { text = value }

    /// The instant `date` in UTC, to the second.
    public static func utc(_ date: Date) -> EventTime { EventTime(Timestamp.format(date)) }

    /// The date `year`-`month`-`day` (an all-day event's day, or a day in a query's `tz`).
    public static func date(year: Int, month: Int, day: Int) -> EventTime {
        EventTime("\(Timestamp.pad(year, 4))-\(Timestamp.pad(month, 2))-\(Timestamp.pad(day, 2))")
    }

    /// A wall-clock time, read in the event's `timeZone` (or the query's `tz`).
    public static func wallClock(
        year: Int, month: Int, day: Int, hour: Int, minute: Int = 0, second: Int = 0
    ) -> EventTime {
        let date = EventTime.date(year: year, month: month, day: day).text
        return EventTime(
            date + "T\(Timestamp.pad(hour, 2)):\(Timestamp.pad(minute, 2)):\(Timestamp.pad(second, 2))")
    }

    /// The form of the time, from its spelling: ten characters are a date, a `Z` or an
    /// offset make an instant, anything else is a wall clock.
    public var form: Form {
        if text.utf8.count == 10 { return .date }
        if text.hasSuffix("Z") || text.hasSuffix("z") { return .utc }
        let tail = text.utf8.suffix(6)
        if tail.count == 6, let sign = tail.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            text.utf8.count > 19
        {
            return .utc
        }
        return .wallClock
    }

    /// The instant, for a time in UTC (or with an offset); nil for a date or a wall clock,
    /// whose instant depends on a zone.
    public var instant: Date? { form == .utc ? Timestamp.parse(text) : nil }

    /// The year, month and day (and for a time with one, hour, minute and second) as
    /// written, in no zone.
    public var components: DateComponents {
        let digits = text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        var components = DateComponents()
        if digits.count >= 3 {
            components.year = digits[0]
            components.month = digits[1]
            components.day = digits[2]
        }
        if digits.count >= 6 {
            components.hour = digits[3]
            components.minute = digits[4]
            components.second = digits[5]
        }
        return components
    }

    /// Reads the time from a JSON string.
    public init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
    }

    /// Writes the time as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// The text on the wire.
    public var description: String { text }
}

/// A length of time as ISO 8601 and RFC 5545 §3.3.6 write it (`PT45M`, `P1D`, `P1W`),
/// for an event's `duration` and the availability rules.
public struct EventDuration: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The text on the wire.
    public var text: String

    /// A duration spelt `text` (`PT1H30M`).
    public init(_ text: String) { self.text = text }

    /// A duration spelt `value`.
    public init(stringLiteral value: String) { text = value }

    /// An exact number of seconds (`PT1H30M` for 5,400), as hours, minutes and seconds.
    public static func seconds(_ seconds: Int) -> EventDuration {
        var text = "PT"
        if seconds / 3_600 > 0 { text += "\(seconds / 3_600)H" }
        if seconds / 60 % 60 > 0 { text += "\(seconds / 60 % 60)M" }
        if seconds % 60 > 0 || seconds == 0 { text += "\(seconds % 60)S" }
        return EventDuration(text)
    }

    /// `minutes` minutes (`PT45M`).
    public static func minutes(_ minutes: Int) -> EventDuration { seconds(minutes * 60) }

    /// `hours` hours (`PT2H`).
    public static func hours(_ hours: Int) -> EventDuration { seconds(hours * 3_600) }

    /// `days` nominal days (`P1D`): the same wall-clock time that many days later, which
    /// across a daylight-saving change is not 24 hours (RFC 5545 §3.3.6).
    public static func days(_ days: Int) -> EventDuration { EventDuration("P\(days)D") }

    /// Reads the duration from a JSON string.
    public init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
    }

    /// Writes the duration as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// The text on the wire.
    public var description: String { text }
}
