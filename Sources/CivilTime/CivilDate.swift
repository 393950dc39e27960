/// A date in the proleptic Gregorian calendar, with no time and no zone.
///
/// All arithmetic is integer arithmetic on days since 1970-01-01
/// (Howard Hinnant's days-from-civil algorithms); nothing here goes through
/// Foundation's `Calendar`. Any year representable in `Int` works, including
/// years before 1 (year 0 is 1 BCE).
public struct CivilDate: Sendable, Hashable, Comparable {
    /// The year, proleptic Gregorian.
    public let year: Int
    /// The month, 1...12.
    public let month: Int
    /// The day of the month, 1...28/29/30/31.
    public let day: Int

    /// Creates a date, or `nil` when the day does not exist (February 30, month 13).
    @inlinable
    public init?(year: Int, month: Int, day: Int) {
        guard month >= 1, month <= 12, day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Creates a date from components already known to be valid.
    @inlinable
    init(unchecked year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (negative values go back).
    @inlinable
    public init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.init(unchecked: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days since 1970-01-01 (negative before it).
    @inlinable
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The day of the week.
    @inlinable
    public var weekday: Weekday {
        // 1970-01-01 was a Thursday (ISO 4).
        Weekday(rawValue: ((daysSinceEpoch % 7 + 7 + 3) % 7) + 1)!
    }

    /// The day of the year, 1...365 (366 in leap years).
    @inlinable
    public var dayOfYear: Int {
        daysSinceEpoch - CivilDate(unchecked: year, 1, 1).daysSinceEpoch + 1
    }

    /// The date `count` days later (earlier when negative).
    @inlinable
    public func adding(days count: Int) -> CivilDate {
        CivilDate(daysSinceEpoch: daysSinceEpoch + count)
    }

    /// Days from `other` to this date (positive when this date is later).
    @inlinable
    public func days(since other: CivilDate) -> Int {
        daysSinceEpoch - other.daysSinceEpoch
    }

    /// Whether `year` is a leap year in the proleptic Gregorian calendar.
    @inlinable
    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in a month of a year; 0 for a month outside 1...12.
    @inlinable
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: 31
        case 4, 6, 9, 11: 30
        case 2: isLeapYear(year) ? 29 : 28
        default: 0
        }
    }

    /// The number of days in a year: 365 or 366.
    @inlinable
    public static func daysInYear(_ year: Int) -> Int { isLeapYear(year) ? 366 : 365 }

    @inlinable
    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

// MARK: - Weeks

extension CivilDate {
    /// The week number of this date and the year that week belongs to, for weeks
    /// that start on `weekStart`.
    ///
    /// Week 1 is the first week with at least four days in the year, which is
    /// ISO 8601's rule when `weekStart` is Monday and RFC 5545's rule for
    /// `BYWEEKNO` with any `WKST` (§3.3.10). Days before week 1 belong to the
    /// last week of the previous year (52 or 53); days after the last week
    /// belong to week 1 of the next year.
    public func weekOfYear(weekStart: Weekday = .monday) -> (year: Int, week: Int) {
        let days = daysSinceEpoch
        var weekYear = year
        var start = CivilDate.firstDayOfWeekOne(year: weekYear, weekStart: weekStart)
        if days < start {
            weekYear -= 1
            start = CivilDate.firstDayOfWeekOne(year: weekYear, weekStart: weekStart)
        } else {
            let nextStart = CivilDate.firstDayOfWeekOne(year: weekYear + 1, weekStart: weekStart)
            if days >= nextStart {
                weekYear += 1
                start = nextStart
            }
        }
        return (weekYear, (days - start) / 7 + 1)
    }

    /// The number of weeks (52 or 53) in `year` for weeks starting on `weekStart`.
    public static func numberOfWeeks(inYear year: Int, weekStart: Weekday = .monday) -> Int {
        (firstDayOfWeekOne(year: year + 1, weekStart: weekStart)
            - firstDayOfWeekOne(year: year, weekStart: weekStart)) / 7
    }

    /// Days since the epoch of the first day of week 1 of `year`.
    public static func firstDayOfWeekOne(year: Int, weekStart: Weekday) -> Int {
        let januaryFirst = CivilDate(unchecked: year, 1, 1)
        let offset = januaryFirst.weekday.days(after: weekStart)
        let days = januaryFirst.daysSinceEpoch - offset
        // The week holding January 1 is week 1 when at least four of its days are in the new year.
        return offset <= 3 ? days : days + 7
    }
}

extension CivilDate: CustomStringConvertible {
    /// The ISO 8601 form, `YYYY-MM-DD` (a sign and more digits outside 0...9999).
    public var description: String {
        "\(CivilFormat.year(year))-\(CivilFormat.twoDigits(month))-\(CivilFormat.twoDigits(day))"
    }
}

extension CivilDate {
    /// Appends ``description``'s text as UTF-8, without making a string (for writers of
    /// many dates, such as `ics expand`).
    public func appendDescription(to output: inout [UInt8]) {
        guard year >= 0 && year <= 9999 else {
            output += Array(description.utf8)
            return
        }
        CivilFormat.appendDigits(year, count: 4, to: &output)
        output.append(UInt8(ascii: "-"))
        CivilFormat.appendDigits(month, count: 2, to: &output)
        output.append(UInt8(ascii: "-"))
        CivilFormat.appendDigits(day, count: 2, to: &output)
    }
}

@usableFromInline
enum CivilFormat {
    /// `value` (0 or more, below 10^count) as exactly `count` decimal digits.
    static func appendDigits(_ value: Int, count: Int, to output: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            output.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    static func year(_ year: Int) -> String {
        if year >= 0 && year <= 9999 {
            let digits = String(year)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }
        return year < 0 ? "-" + Self.year(-year) : "+\(year)"
    }
}
