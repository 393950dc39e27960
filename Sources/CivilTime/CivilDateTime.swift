/// A wall-clock time of day: hour, minute and second.
public struct TimeOfDay: Sendable, Hashable, Comparable {
    /// 0...23.
    public let hour: Int
    /// 0...59.
    public let minute: Int
    /// 0...60 (60 is a leap second, which RFC 5545 §3.3.12 allows).
    public let second: Int

    /// Creates a time of day, or `nil` when a field is out of range.
    @inlinable
    public init?(hour: Int, minute: Int, second: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Midnight, 00:00:00.
    public static let midnight = TimeOfDay(hour: 0, minute: 0, second: 0)!

    /// Seconds since midnight.
    @inlinable
    public var secondsSinceMidnight: Int { hour * 3600 + minute * 60 + second }

    @inlinable
    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool {
        lhs.secondsSinceMidnight < rhs.secondsSinceMidnight
    }
}

extension TimeOfDay: CustomStringConvertible {
    /// `HH:MM:SS`.
    public var description: String {
        "\(CivilFormat.twoDigits(hour)):\(CivilFormat.twoDigits(minute)):\(CivilFormat.twoDigits(second))"
    }
}

/// A date and a wall-clock time with no zone attached.
///
/// What the wall clock means is decided by whoever holds it: floating
/// (the viewer's zone), UTC, or a named zone. Arithmetic here is on the
/// civil timeline, which is exact for floating and UTC times; for zoned
/// times, add nominal days here and exact seconds on the instant.
public struct CivilDateTime: Sendable, Hashable, Comparable {
    /// The date.
    public let date: CivilDate
    /// The time of day.
    public let time: TimeOfDay

    /// Combines a date and a time of day.
    @inlinable
    public init(date: CivilDate, time: TimeOfDay) {
        self.date = date
        self.time = time
    }

    /// Creates a date-time, or `nil` when any field is out of range.
    @inlinable
    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        guard let date = CivilDate(year: year, month: month, day: day),
            let time = TimeOfDay(hour: hour, minute: minute, second: second)
        else { return nil }
        self.init(date: date, time: time)
    }

    /// The date-time `seconds` seconds after 1970-01-01T00:00:00 on the civil timeline.
    @inlinable
    /// Unix milliseconds as RFC 3339 in UTC with milliseconds (`2026-12-02T05:00:00.123Z`).
    public static func utcText(milliseconds: Int) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1_000 : (milliseconds - 999) / 1_000
        let fraction = String(milliseconds - seconds * 1_000)
        return CivilDateTime(secondsSinceEpoch: seconds).description + "."
            + String(repeating: "0", count: 3 - fraction.count) + fraction + "Z"
    }

    public init(secondsSinceEpoch seconds: Int) {
        // Floor division written so that no input overflows, Int.min included.
        let remainder = seconds % 86_400
        let days = seconds / 86_400 - (remainder < 0 ? 1 : 0)
        let rest = remainder < 0 ? remainder + 86_400 : remainder
        self.init(
            date: CivilDate(daysSinceEpoch: days),
            time: TimeOfDay(hour: rest / 3600, minute: rest / 60 % 60, second: rest % 60)!)
    }

    /// Seconds since 1970-01-01T00:00:00 on the civil timeline; for a UTC
    /// date-time this is the Unix time. A leap second counts as the next second.
    @inlinable
    public var secondsSinceEpoch: Int {
        date.daysSinceEpoch * 86_400 + time.secondsSinceMidnight
    }

    /// The date-time `seconds` seconds later on the civil timeline.
    @inlinable
    public func adding(seconds: Int) -> CivilDateTime {
        CivilDateTime(secondsSinceEpoch: secondsSinceEpoch + seconds)
    }

    /// The same wall-clock time `count` days later.
    @inlinable
    public func adding(days count: Int) -> CivilDateTime {
        CivilDateTime(date: date.adding(days: count), time: time)
    }

    @inlinable
    public static func < (lhs: CivilDateTime, rhs: CivilDateTime) -> Bool {
        lhs.date != rhs.date ? lhs.date < rhs.date : lhs.time < rhs.time
    }
}

extension CivilDateTime: CustomStringConvertible {
    /// `YYYY-MM-DDTHH:MM:SS`.
    public var description: String { "\(date)T\(time)" }

    /// Appends ``description``'s text as UTF-8, without making a string.
    public func appendDescription(to output: inout [UInt8]) {
        date.appendDescription(to: &output)
        output.append(UInt8(ascii: "T"))
        CivilFormat.appendDigits(time.hour, count: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        CivilFormat.appendDigits(time.minute, count: 2, to: &output)
        output.append(UInt8(ascii: ":"))
        CivilFormat.appendDigits(time.second, count: 2, to: &output)
    }
}

extension CivilDateTime {
    static let httpWeekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    static let httpMonths = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Reads an IMF-fixdate (RFC 9110 §5.6.7), `Sun, 06 Nov 1994 08:49:37 GMT`; nil for
    /// anything else (the obsolete RFC 850 and asctime forms included) or a weekday that
    /// does not match the date.
    public init?(httpDate text: String) {
        func number(_ text: Substring, digits: Int) -> Int? {
            text.count == digits && text.utf8.allSatisfy { (0x30...0x39).contains($0) } ? Int(text) : nil
        }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            let weekday = Self.httpWeekdays.firstIndex(of: String(parts[0].dropLast())),
            let day = number(parts[1], digits: 2), let month = Self.httpMonths.firstIndex(of: String(parts[2])),
            let year = number(parts[3], digits: 4)
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, let hour = number(clock[0], digits: 2), let minute = number(clock[1], digits: 2),
            let second = number(clock[2], digits: 2),
            let value = CivilDateTime(
                year: year, month: month + 1, day: day, hour: hour, minute: minute, second: second),
            value.date.weekday.rawValue - 1 == weekday
        else { return nil }
        self = value
    }

    /// The HTTP date form of a UTC date-time (RFC 9110 §5.6.7, IMF-fixdate), as in
    /// `Last-Modified: Sun, 29 Nov 2026 08:49:37 GMT`.
    public var httpDate: String {
        let weekdays = Self.httpWeekdays
        let months = Self.httpMonths
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(date.year)
        return "\(weekdays[date.weekday.rawValue - 1]), \(two(date.day)) \(months[date.month - 1]) "
            + String(repeating: "0", count: max(0, 4 - year.count)) + year
            + " \(two(time.hour)):\(two(time.minute)):\(two(time.second)) GMT"
    }
}
