extension CivilDate {
    /// The years a date typed by a person or sent by a program (the JSON API, the web
    /// pages, the command line) may name: 0001 to 9999, the years a four-digit iCalendar
    /// value holds. Keeping input inside them keeps every instant, duration and index
    /// computed from it far inside `Int`'s range, whatever is added to it.
    public static let supportedYears: ClosedRange<Int> = 1...9999

    /// Reads `YYYY-MM-DD` (ISO 8601: exactly four, two and two ASCII digits) in
    /// ``supportedYears``; nil for anything else (a sign, `2026-1-5`, February 30, year 0).
    public init?(isoText text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = Self.digits(bytes, 0..<4), let month = Self.digits(bytes, 5..<7),
            let day = Self.digits(bytes, 8..<10),
            Self.supportedYears.contains(year)
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The number the ASCII digits in `range` spell; nil when one is not a digit.
    static func digits(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        guard range.upperBound <= bytes.count else { return nil }
        var value = 0
        for index in range {
            guard bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
            value = value * 10 + Int(bytes[index] - 0x30)
        }
        return value
    }

    /// Whether the date lies in ``supportedYears``.
    public var isSupported: Bool { Self.supportedYears.contains(year) }

    /// The first day of the month `months` after this date's month (before it when
    /// negative), keeping the day where that month has it (else its last day); nil past
    /// ``supportedYears``.
    public func addingMonths(_ months: Int) -> CivilDate? {
        let (index, overflow) = (year * 12 + month - 1).addingReportingOverflow(months)
        guard !overflow else { return nil }
        // Floor division: month index -1 is December of the year before, not month 0.
        let newYear = index >= 0 ? index / 12 : (index - 11) / 12
        let newMonth = index - newYear * 12 + 1
        guard Self.supportedYears.contains(newYear) else { return nil }
        return CivilDate(
            year: newYear, month: newMonth, day: Swift.min(day, CivilDate.daysInMonth(year: newYear, month: newMonth)))
    }
}

extension TimeOfDay {
    /// Reads `HH:MM` or `HH:MM:SS` (ISO 8601: two ASCII digits each); nil for anything
    /// else, such as `9:00` or `24:00`.
    public init?(isoText text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 5 || bytes.count == 8, bytes[2] == UInt8(ascii: ":"),
            let hour = CivilDate.digits(bytes, 0..<2),
            let minute = CivilDate.digits(bytes, 3..<5)
        else { return nil }
        var second = 0
        if bytes.count == 8 {
            guard bytes[5] == UInt8(ascii: ":"), let value = CivilDate.digits(bytes, 6..<8) else { return nil }
            second = value
        }
        self.init(hour: hour, minute: minute, second: second)
    }
}

/// Readers for the other calendar units people type: a month and an ISO week.
public enum CalendarUnitText {
    /// Reads `YYYY-MM` (four and two ASCII digits) in ``CivilDate/supportedYears``.
    public static func month(_ text: some StringProtocol) -> (year: Int, month: Int)? {
        let bytes = Array(text.utf8)
        guard bytes.count == 7, bytes[4] == UInt8(ascii: "-"), let year = CivilDate.digits(bytes, 0..<4),
            let month = CivilDate.digits(bytes, 5..<7), CivilDate.supportedYears.contains(year),
            (1...12).contains(month)
        else { return nil }
        return (year, month)
    }

    /// Reads an ISO 8601 week, `YYYY-Www` (`2026-W53`), in ``CivilDate/supportedYears``;
    /// nil for a week the year does not have.
    public static func week(_ text: some StringProtocol) -> (year: Int, week: Int)? {
        let bytes = Array(text.utf8)
        guard bytes.count == 8, bytes[4] == UInt8(ascii: "-"), bytes[5] == UInt8(ascii: "W"),
            let year = CivilDate.digits(bytes, 0..<4),
            let week = CivilDate.digits(bytes, 6..<8), CivilDate.supportedYears.contains(year),
            (1...CivilDate.numberOfWeeks(inYear: year, weekStart: .monday)).contains(week)
        else { return nil }
        return (year, week)
    }
}
