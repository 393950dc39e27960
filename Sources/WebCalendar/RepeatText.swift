import CivilTime
import ICalendar

/// A recurrence rule in the words people use ("Every Tuesday and Thursday, 10 times"):
/// the common rules a calendar app makes; anything else is shown as the rule itself.
enum RepeatText {
    static func describe(_ text: String) -> String? {
        guard let rule = try? RecurrenceRule(parsing: text, strict: false) else { return nil }
        let plain =
            rule.bySecond.isEmpty && rule.byMinute.isEmpty && rule.byHour.isEmpty && rule.byYearDay.isEmpty
            && rule.byWeekNo.isEmpty && rule.bySetPos.isEmpty && rule.extensions.isEmpty
        guard plain else { return nil }
        let units: [RecurrenceRule.Frequency: (one: String, many: String)] = [
            .daily: ("day", "days"), .weekly: ("week", "weeks"), .monthly: ("month", "months"),
            .yearly: ("year", "years"),
        ]
        guard let unit = units[rule.frequency] else { return nil }
        var words: String
        let days = rule.byDay.map { day -> String? in
            guard let ordinal = day.ordinal else { return day.weekday.englishName }
            guard rule.frequency == .monthly, let position = Self.position(ordinal) else { return nil }
            return "\(position) \(day.weekday.englishName)"
        }
        if days.contains(where: { $0 == nil }) { return nil }
        let named = days.compactMap { $0 }
        switch rule.frequency {
        case .weekly where !named.isEmpty && rule.byMonthDay.isEmpty && rule.byMonth.isEmpty:
            words = (rule.interval == 1 ? "Every " : "Every \(rule.interval) weeks on ") + list(named)
        case .monthly where rule.byMonth.isEmpty && (named.isEmpty != rule.byMonthDay.isEmpty || named.isEmpty):
            let on =
                !named.isEmpty
                ? " on the " + list(named)
                : rule.byMonthDay.isEmpty
                    ? "" : " on the " + list(rule.byMonthDay.map { $0 == -1 ? "last day" : Self.ordinalNumber($0) })
            if rule.byMonthDay.contains(where: { $0 < -1 || $0 == 0 }) { return nil }
            words = (rule.interval == 1 ? "Every month" : "Every \(rule.interval) months") + on
        default:
            // Every day, week or year, with nothing narrowing it.
            guard named.isEmpty, rule.byMonthDay.isEmpty, rule.byMonth.isEmpty, rule.frequency != .monthly else {
                return nil
            }
            words = rule.interval == 1 ? "Every \(unit.one)" : "Every \(rule.interval) \(unit.many)"
        }
        if let count = rule.count { words += count == 1 ? ", once" : ", \(count) times" }
        if let until = rule.until { words += ", until \(until.date)" }
        return words
    }

    /// "Monday", "Monday and Thursday", "Monday, Wednesday and Friday".
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }

    static func position(_ ordinal: Int) -> String? {
        switch ordinal {
        case 1: "first"
        case 2: "second"
        case 3: "third"
        case 4: "fourth"
        case -1: "last"
        default: nil
        }
    }

    /// 1st, 2nd, 3rd, 4th, 11th, 21st, 22nd.
    static func ordinalNumber(_ day: Int) -> String {
        let suffix =
            (11...13).contains(day % 100)
            ? "th" : day % 10 == 1 ? "st" : day % 10 == 2 ? "nd" : day % 10 == 3 ? "rd" : "th"
        return "\(day)\(suffix)"
    }
}
