/// A day of the week, numbered as ISO 8601 does (Monday is 1, Sunday is 7).
public enum Weekday: Int, Sendable, Hashable, CaseIterable, Comparable {
    case monday = 1
    case tuesday, wednesday, thursday, friday, saturday, sunday

    /// The two-letter code RFC 5545 uses in `BYDAY` and `WKST` (`MO` … `SU`).
    public var icalendarCode: String {
        switch self {
        case .monday: "MO"
        case .tuesday: "TU"
        case .wednesday: "WE"
        case .thursday: "TH"
        case .friday: "FR"
        case .saturday: "SA"
        case .sunday: "SU"
        }
    }

    /// Reads an RFC 5545 weekday code, ignoring ASCII case; `nil` when it is not one.
    public init?(icalendarCode code: some StringProtocol) {
        let utf8 = Array(code.utf8)
        guard utf8.count == 2 else { return nil }
        self.init(icalendarCodeBytes: utf8[0], utf8[1])
    }

    /// Reads a weekday code from its two ASCII bytes, ignoring case.
    @inlinable
    public init?(icalendarCodeBytes first: UInt8, _ second: UInt8) {
        switch (first | 0x20, second | 0x20) {
        case (0x6D, 0x6F): self = .monday  // mo
        case (0x74, 0x75): self = .tuesday  // tu
        case (0x77, 0x65): self = .wednesday  // we
        case (0x74, 0x68): self = .thursday  // th
        case (0x66, 0x72): self = .friday  // fr
        case (0x73, 0x61): self = .saturday  // sa
        case (0x73, 0x75): self = .sunday  // su
        default: return nil
        }
    }

    /// The weekday `count` days after this one (negative counts go back).
    @inlinable
    public func advanced(by count: Int) -> Weekday {
        let zeroBased = ((rawValue - 1 + count) % 7 + 7) % 7
        return Weekday(rawValue: zeroBased + 1)!
    }

    /// Days from `start` forward to this weekday, in 0...6.
    @inlinable
    public func days(after start: Weekday) -> Int {
        ((rawValue - start.rawValue) % 7 + 7) % 7
    }

    /// Orders weekdays as ISO 8601 does, Monday first.
    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension Weekday {
    /// `Monday` … `Sunday`.
    public var englishName: String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][rawValue - 1]
    }

    /// Reads an English day name or its first three letters or more (`monday`, `Mon`,
    /// `tues`), ignoring case; nil otherwise.
    public init?(englishName text: some StringProtocol) {
        let lowered = text.lowercased()
        guard lowered.count >= 3,
            let day = Weekday.allCases.first(where: { $0.englishName.lowercased().hasPrefix(lowered) })
        else { return nil }
        self = day
    }
}

extension CivilDate {
    /// The first day of the week holding this date, for weeks that start on `firstWeekday`.
    public func startOfWeek(firstWeekday: Weekday) -> CivilDate {
        adding(days: -((weekday.rawValue - firstWeekday.rawValue + 7) % 7))
    }

    /// `January` … `December`.
    public var monthName: String {
        [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ][month - 1]
    }

    /// `Monday, 23 November 2026`: the date as a person reads it.
    public var longText: String { "\(weekday.englishName), \(day) \(monthName) \(year)" }
}

extension TimeOfDay {
    /// `09:05`: hours and minutes on a 24-hour clock.
    public var clockText: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}

extension ZoneRules {
    /// `Monday, 23 November 2026, 09:00–10:00 (Europe/Berlin)`: `start..<end` (Unix
    /// seconds) on this zone's clock, named `zoneName`; the end's date too when it is
    /// another day.
    public func spanText(_ start: Int, _ end: Int, zoneName: String) -> String {
        let from = localTime(at: start)
        let to = localTime(at: end)
        let endText = to.date == from.date ? to.time.clockText : to.date.longText + " " + to.time.clockText
        return from.date.longText + ", " + from.time.clockText + "–" + endText + " (" + zoneName + ")"
    }
}
