import CivilTime
import Recurrence

/// How a one-off object's times are kept in its row.
enum SingleTiming: Int {
    case instant = 0
    case floating = 1
    case date = 2

    /// Joins CATEGORIES values in their column (the unit separator never appears in text).
    static let categorySeparator = "\u{1F}"

    init(_ time: OccurrenceTime) {
        switch time {
        case .instant: self = .instant
        case .floating: self = .floating
        case .date: self = .date
        }
    }

    func key(_ time: OccurrenceTime) -> Int {
        switch time {
        case .instant(let instant): instant
        case .floating(let local): local.secondsSinceEpoch
        case .date(let date): CivilDateTime(date: date, time: .midnight).secondsSinceEpoch
        }
    }

    func time(_ key: Int) -> OccurrenceTime {
        switch self {
        case .instant: .instant(key)
        case .floating: .floating(CivilDateTime(secondsSinceEpoch: key))
        case .date: .date(CivilDateTime(secondsSinceEpoch: key).date)
        }
    }
}

/// How object boxes are laid out in the range index: minutes since the epoch in
/// 32-bit integers (about ±4,000 years), rounded outward so a box always holds its
/// object, with the largest value for a series without end.
///
/// SQLite keeps boxes in an R*Tree (calendar on one axis, minutes on the other).
/// PostgreSQL keeps one `int8range` per object under a GiST index, with the calendar
/// in the high 32 bits and the minute (offset to be non-negative) in the low 32, so one
/// range overlap finds the candidates of one calendar.
enum IntervalIndex {
    static let openEnd = Int(Int32.max)

    /// Stores an object's box; binds (row id, calendar row id, calendar row id, lower minute, upper minute).
    static func upsert(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            "INSERT OR REPLACE INTO object_ranges (id, calendar_min, calendar_max, start_min, end_max) VALUES (?, ?, ?, ?, ?)"
        case .postgres:
            """
            INSERT INTO object_ranges (id, calendar_id, span)
            VALUES (?1, ?2, int8range(?2 * 4294967296 + ?4 + 2147483648, ?3 * 4294967296 + ?5 + 2147483648, '[]'))
            ON CONFLICT (id) DO UPDATE SET calendar_id = excluded.calendar_id, span = excluded.span
            """
        }
    }

    /// The condition on `object_ranges r` for boxes that overlap; binds (calendar row id, lower minute, upper minute) as ?1–?3.
    static func overlap(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            "r.calendar_min <= ?1 AND r.calendar_max >= ?1 AND r.start_min <= ?3 AND r.end_max >= ?2"
        case .postgres:
            "r.span && int8range(?1 * 4294967296 + ?2 + 2147483648, ?1 * 4294967296 + ?3 + 2147483648, '[]')"
        }
    }

    static func lowerMinute(_ seconds: Int) -> Int {
        if seconds == Int.min { return Int(Int32.min) }
        let minute = seconds >= 0 ? seconds / 60 : -((-seconds + 59) / 60)
        return max(Int(Int32.min), min(openEnd - 1, minute))
    }

    static func upperMinute(_ seconds: Int?) -> Int {
        guard let seconds else { return openEnd }
        let minute = seconds >= 0 ? (seconds + 59) / 60 : -(-seconds / 60)
        return max(Int(Int32.min), min(openEnd, minute))
    }
}
