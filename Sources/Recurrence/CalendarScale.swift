import CivilTime
import Foundation
import ICalendar

/// A calendar system an RFC 7529 rule (`RSCALE=…`) counts its years, months and days
/// in, through Foundation's ICU calendars. Days are civil (Gregorian) dates; a month is
/// named as RFC 7529 names it: a number, and `L` for a leap month (`5L`: the Hebrew
/// Adar I, a Chinese intercalary month).
struct CalendarScale: Sendable {
    /// A month as RFC 7529 names it; ordered as months follow each other in a year.
    struct Month: Hashable, Comparable, Sendable, CustomStringConvertible {
        var number: Int
        var isLeap: Bool

        static func < (lhs: Month, rhs: Month) -> Bool {
            (lhs.number, lhs.isLeap ? 1 : 0) < (rhs.number, rhs.isLeap ? 1 : 0)
        }
        var description: String { "\(number)\(isLeap ? "L" : "")" }

        /// `5`, `5L`, `13`.
        init?(_ text: Substring) {
            let leap = text.hasSuffix("L") || text.hasSuffix("l")
            guard let number = Int(leap ? text.dropLast() : text), (1...13).contains(number) else { return nil }
            self.number = number
            isLeap = leap
        }

        init(number: Int, isLeap: Bool) {
            self.number = number
            self.isLeap = isLeap
        }
    }

    /// How a scale's months are numbered in ICU.
    enum Numbering {
        /// 1…12 or 1…13, no leap months.
        case plain
        /// 1…12, a leap month flagged (Chinese, Dangi); years counted in 60-year cycles.
        case leapFlagged
        /// ICU's 1…13 with 6 as Adar I, present only in leap years (Hebrew).
        case hebrew
    }

    /// The scales expanded (RFC 7529 uses CLDR's calendar names). BUDDHIST, JAPANESE and
    /// ROC count years differently from the Gregorian calendar but share its months and
    /// days, which is all a rule sees.
    static let supported: [String: (Calendar.Identifier, Numbering)] = [
        "GREGORIAN": (.gregorian, .plain), "ISO8601": (.gregorian, .plain), "BUDDHIST": (.gregorian, .plain),
        "JAPANESE": (.gregorian, .plain), "ROC": (.gregorian, .plain),
        "CHINESE": (.chinese, .leapFlagged), "DANGI": (.dangi, .leapFlagged),
        "HEBREW": (.hebrew, .hebrew),
        "ISLAMIC": (.islamic, .plain), "ISLAMIC-CIVIL": (.islamicCivil, .plain),
        "ISLAMIC-TBLA": (.islamicTabular, .plain), "ISLAMIC-UMALQURA": (.islamicUmmAlQura, .plain),
        "ETHIOPIC": (.ethiopicAmeteMihret, .plain), "ETHIOAA": (.ethiopicAmeteAlem, .plain),
        "ETHIOPIC-AMETE-ALEM": (.ethiopicAmeteAlem, .plain), "COPTIC": (.coptic, .plain),
        "PERSIAN": (.persian, .plain), "INDIAN": (.indian, .plain),
    ]

    let name: String
    let calendar: Calendar
    let numbering: Numbering

    init?(named name: String) {
        guard let (identifier, numbering) = Self.supported[name.uppercased()] else { return nil }
        var calendar = Calendar(identifier: identifier)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        self.name = name.uppercased()
        self.calendar = calendar
        self.numbering = numbering
    }

    /// A day's year, month and day of the month in this scale.
    func fields(of day: CivilDate) -> (year: Int, month: Month, day: Int) {
        let date = Date(timeIntervalSince1970: TimeInterval(day.daysSinceEpoch) * 86_400)
        let parts = calendar.dateComponents([.era, .year, .month, .day, .isLeapMonth], from: date)
        let year = parts.year ?? 0
        let number = parts.month ?? 1
        let month: Month
        switch numbering {
        case .plain: month = Month(number: number, isLeap: false)
        case .leapFlagged: month = Month(number: number, isLeap: parts.isLeapMonth ?? false)
        case .hebrew:
            month =
                number < 6
                ? Month(number: number, isLeap: false)
                : number == 6 ? Month(number: 5, isLeap: true) : Month(number: number - 1, isLeap: false)
        }
        let absoluteYear = numbering == .leapFlagged ? (parts.era ?? 0) * 60 + year : year
        return (absoluteYear, month, parts.day ?? 1)
    }

    /// The day `day` of `month` of `year`, nil when the year has no such month or the
    /// month no such day.
    func day(year: Int, month: Month, day: Int) -> CivilDate? {
        guard day >= 1, day <= 31 else { return nil }
        var parts = DateComponents()
        switch numbering {
        case .plain:
            guard !month.isLeap else { return nil }
            parts.year = year
            parts.month = month.number
        case .leapFlagged:
            parts.era = (year - 1) / 60
            parts.year = (year - 1) % 60 + 1
            parts.month = month.number
            parts.isLeapMonth = month.isLeap
        case .hebrew:
            guard !month.isLeap || month.number == 5 else { return nil }
            parts.year = year
            parts.month = month.isLeap ? 6 : month.number < 6 ? month.number : month.number + 1
        }
        parts.day = day
        guard let date = calendar.date(from: parts) else { return nil }
        let found = CivilDate(daysSinceEpoch: Int((date.timeIntervalSince1970 / 86_400).rounded(.down)))
        let back = fields(of: found)
        return back.year == year && back.month == month && back.day == day ? found : nil
    }

    /// The months of `year`, in order.
    func months(inYear year: Int) -> [Month] {
        guard var first = day(year: year, month: Month(number: 1, isLeap: false), day: 1) else { return [] }
        var months: [Month] = []
        while months.count < 14 {
            let here = fields(of: first)
            guard here.year == year else { break }
            months.append(here.month)
            first = first.adding(days: length(of: first))
        }
        return months
    }

    /// How many days the month holding `day` has.
    func length(of day: CivilDate) -> Int {
        let date = Date(timeIntervalSince1970: TimeInterval(day.daysSinceEpoch) * 86_400)
        return calendar.range(of: .day, in: .month, for: date)?.count ?? 30
    }

    /// The first day of the month `months` months after the one holding `day` (leap
    /// months count as months).
    func firstDay(monthsAfter months: Int, from day: CivilDate) -> CivilDate? {
        let fields = fields(of: day)
        guard let first = self.day(year: fields.year, month: fields.month, day: 1) else { return nil }
        let date = Date(timeIntervalSince1970: TimeInterval(first.daysSinceEpoch) * 86_400)
        guard let moved = calendar.date(byAdding: .month, value: months, to: date) else { return nil }
        let found = CivilDate(daysSinceEpoch: Int((moved.timeIntervalSince1970 / 86_400).rounded(.down)))
        return found.adding(days: 1 - self.fields(of: found).day)
    }
}
