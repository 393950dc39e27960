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
/// SQLite keeps boxes in a B-tree on (calendar, long, start minute, end minute), where
/// `long` marks a box of more than ``shortSpan`` minutes (a series, a long event). The
/// short boxes that overlap a window start at most ``shortSpan`` before it, so one range
/// of the index finds them; the long ones of a calendar are few and read by start alone.
/// (It replaced an R*Tree, whose nodes all overlapped because every open-ended series
/// reaches the end of time: a week of one calendar among a million events took 0.65 ms
/// in the R*Tree and 0.1 ms here.)
/// PostgreSQL keeps one `int8range` per object under a GiST index, with the calendar
/// in the high 32 bits and the minute (offset to be non-negative) in the low 32, so one
/// range overlap finds the candidates of one calendar.
enum IntervalIndex {
    static let openEnd = Int(Int32.max)

    /// Stores an object's box; binds (row id, calendar row id, calendar row id, lower minute, upper minute).
    static func upsert(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            "INSERT OR REPLACE INTO object_ranges (id, calendar_id, long, start_min, end_max) VALUES (?1, ?2, ?5 - ?4 > \(shortSpan), ?4, ?5)"
        case .postgres:
            """
            INSERT INTO object_ranges (id, calendar_id, span)
            VALUES (?1, ?2, int8range(?2 * 4294967296 + ?4 + 2147483648, ?3 * 4294967296 + ?5 + 2147483648, '[]'))
            ON CONFLICT (id) DO UPDATE SET calendar_id = excluded.calendar_id, span = excluded.span
            """
        }
    }

    /// The longest box, in minutes, kept among the short ones on SQLite: a week.
    static let shortSpan = 7 * 24 * 60

    /// The condition on `objects o` for objects whose box overlaps; binds (calendar row id, lower minute, upper minute) as ?1–?3.
    static func overlap(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .sqlite:
            """
            o.id IN (SELECT id FROM object_ranges WHERE calendar_id = ?1 AND long = 0 AND start_min BETWEEN ?2 - \(shortSpan) AND ?3 AND end_max >= ?2
                UNION ALL SELECT id FROM object_ranges WHERE calendar_id = ?1 AND long = 1 AND start_min <= ?3 AND end_max >= ?2)
            """
        case .postgres:
            "o.id IN (SELECT id FROM object_ranges WHERE span && int8range(?1 * 4294967296 + ?2 + 2147483648, ?1 * 4294967296 + ?3 + 2147483648, '[]'))"
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
