/// An RFC 5545 duration (§3.3.6): a nominal part in weeks and days and an
/// exact part in hours, minutes and seconds.
///
/// The two parts behave differently across a daylight-saving change: a day
/// is "the same wall-clock time on the next date" (23, 24 or 25 hours), while
/// `PT24H` is exactly 86,400 seconds. The fields are kept as written so a
/// duration serializes back the way it was given (`P1W` stays `P1W`,
/// `PT90M` stays `PT90M`).
public struct CalendarDuration: Sendable, Hashable {
    /// Whether the duration points backwards (`-PT15M`, a trigger before the start).
    public var isNegative: Bool
    /// Whole weeks, nominal (seven days each, whatever their length in seconds).
    public var weeks: Int
    /// Whole days, nominal (the same wall-clock time on a later date).
    public var days: Int
    /// Hours, exact (3,600 seconds each).
    public var hours: Int
    /// Minutes, exact.
    public var minutes: Int
    /// Seconds, exact.
    public var seconds: Int

    /// Creates a duration; all fields are magnitudes, the sign is `isNegative`.
    public init(
        isNegative: Bool = false, weeks: Int = 0, days: Int = 0, hours: Int = 0, minutes: Int = 0, seconds: Int = 0
    ) {
        self.isNegative = isNegative
        self.weeks = weeks
        self.days = days
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
    }

    /// The longest duration a value may hold, either way: 10,000 Gregorian years
    /// (3,652,425 days). Longer ones are refused where they are read, so that a
    /// duration added to any time, or multiplied by a 32-bit count with overflow
    /// checks, stays within the integers' range.
    public static let maxSeconds = 3_652_425 * 86_400

    /// The zero duration, `PT0S`.
    public static let zero = CalendarDuration(seconds: 0)

    /// The nominal part in days, signed (weeks count as seven days).
    @inlinable
    public var nominalDays: Int { (weeks * 7 + days) * (isNegative ? -1 : 1) }

    /// The exact part in seconds, signed.
    @inlinable
    public var exactSeconds: Int { (hours * 3600 + minutes * 60 + seconds) * (isNegative ? -1 : 1) }

    /// The length in seconds when every day has 86,400 seconds (true for UTC
    /// and floating times; for zoned times use ``nominalDays`` and ``exactSeconds``).
    @inlinable
    public var secondsAssumingUniformDays: Int { nominalDays * 86_400 + exactSeconds }

    /// `start` moved by this duration on the civil timeline: first the nominal
    /// days (keeping the wall-clock time), then the exact seconds.
    @inlinable
    public func added(to start: CivilDateTime) -> CivilDateTime {
        start.adding(days: nominalDays).adding(seconds: exactSeconds)
    }

    /// `date` moved by the nominal part; a DATE value can only carry whole days.
    @inlinable
    public func added(to date: CivilDate) -> CivilDate {
        date.adding(days: nominalDays + exactSeconds / 86_400)
    }
}

extension CalendarDuration: CustomStringConvertible {
    /// The RFC 5545 form, such as `P1W`, `-PT15M`, `P1DT2H`, `PT0S`.
    public var description: String {
        var text = isNegative ? "-P" : "P"
        if weeks != 0 {
            text += "\(weeks)W"
            if days == 0 && hours == 0 && minutes == 0 && seconds == 0 { return text }
        }
        if days != 0 { text += "\(days)D" }
        if hours != 0 || minutes != 0 || seconds != 0 {
            text += "T"
            if hours != 0 { text += "\(hours)H" }
            if minutes != 0 { text += "\(minutes)M" }
            if seconds != 0 { text += "\(seconds)S" }
        } else if weeks == 0 && days == 0 {
            text += "T0S"
        }
        return text
    }
}

/// A fixed offset from UTC, as RFC 5545's UTC-OFFSET (§3.3.14) writes it.
public struct UTCOffset: Sendable, Hashable, Comparable {
    /// Seconds east of UTC (negative west of it).
    public var seconds: Int

    /// Creates an offset of `seconds` east of UTC (negative west of it).
    public init(seconds: Int) { self.seconds = seconds }

    /// Offset zero: UTC itself.
    public static let zero = UTCOffset(seconds: 0)

    /// Whether `lhs` is further west than `rhs`.
    public static func < (lhs: UTCOffset, rhs: UTCOffset) -> Bool { lhs.seconds < rhs.seconds }
}

extension UTCOffset: CustomStringConvertible {
    /// The RFC 5545 form: `+0100`, `-0530`, `+053045` when seconds are not zero.
    public var description: String {
        let magnitude = abs(seconds)
        var text =
            (seconds < 0 ? "-" : "+") + CivilFormat.twoDigits(magnitude / 3600)
            + CivilFormat.twoDigits(magnitude / 60 % 60)
        if magnitude % 60 != 0 { text += CivilFormat.twoDigits(magnitude % 60) }
        return text
    }
}
