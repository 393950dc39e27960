import CivilTime
import ICalendar

/// Expands an RFC 7529 rule: one with `RSCALE` (its years and months counted in that
/// calendar, `BYMONTH=5L` a leap month, 13 a thirteenth month) or `SKIP`, which says what
/// becomes of a day the year or month does not have: `OMIT` (the default) leaves it out,
/// `BACKWARD` takes the day before it (the last of the month, the month before a missing
/// leap month), `FORWARD` the day after (the first of the next month, the month after).
///
/// FREQ=YEARLY, MONTHLY, WEEKLY and DAILY with BYMONTH, BYMONTHDAY, BYDAY, BYHOUR,
/// BYMINUTE, BYSECOND and BYSETPOS; a rule with more (BYYEARDAY, BYWEEKNO, a finer
/// FREQ), or of a scale Foundation has no calendar for, is refused by name
/// (``refusal(of:)``), never expanded as a Gregorian one. DTSTART is the first instance
/// and counts toward COUNT; a day SKIP moves onto another instance is that one instance.
struct ScaledRuleIterator {
    enum Skip: String {
        case omit = "OMIT"
        case backward = "BACKWARD"
        case forward = "FORWARD"
    }

    let scale: CalendarScale
    let skip: Skip
    let frequency: RecurrenceRule.Frequency
    let interval: Int
    let start: CivilDateTime
    let startFields: (year: Int, month: CalendarScale.Month, day: Int)
    let count: Int?
    let until: UntilBound
    let weekStart: Weekday
    let months: [CalendarScale.Month]
    let monthDays: [Int]
    let weekdays: [RecurrenceRule.WeekdayNumber]
    let hours: [Int]
    let minutes: [Int]
    let seconds: [Int]
    let setPositions: [Int]
    let idlePeriodLimit: Int
    var maxSteps: Int

    private var periodIndex = 0
    private var pending: [CivilDateTime] = []
    private var pendingIndex = 0
    private var produced = 0
    private var startEmitted: Bool
    private var last: CivilDateTime
    private var finished = false
    private var idlePeriods = 0
    private(set) var steps = 0
    private(set) var isExhausted = false

    /// The rule's scale (GREGORIAN when only SKIP is given), nil when the rule says
    /// neither RSCALE nor SKIP.
    static func scaleName(of rule: RecurrenceRule) -> String? {
        if let name = rule.extensions.first(where: { $0.name == "RSCALE" })?.value { return name.uppercased() }
        return rule.extensions.contains { $0.name == "SKIP" } ? "GREGORIAN" : nil
    }

    /// Why `rule` is not expanded, or nil when it is (or is no RFC 7529 rule).
    static func refusal(of rule: RecurrenceRule) -> String? {
        guard let name = scaleName(of: rule) else { return nil }
        guard CalendarScale(named: name) != nil else {
            return "RSCALE=\(name) is not a calendar Almanac expands (it expands "
                + CalendarScale.supported.keys.sorted().joined(separator: ", ") + ")"
        }
        if let skip = rule.extensions.first(where: { $0.name == "SKIP" })?.value,
            Skip(rawValue: skip.uppercased()) == nil
        {
            return "SKIP=\(skip): expected OMIT, BACKWARD or FORWARD (RFC 7529)"
        }
        if let months = rule.extensions.first(where: { $0.name == "BYMONTH" })?.value,
            months.split(separator: ",").contains(where: { CalendarScale.Month($0) == nil })
        {
            return "BYMONTH=\(months): expected months 1 to 13, a leap month with L (RFC 7529)"
        }
        if frequencyRank(rule.frequency) < frequencyRank(.daily) {
            return "RSCALE=\(name) with FREQ=\(rule.frequency.rawValue) is not expanded (DAILY or coarser is)"
        }
        if !rule.byYearDay.isEmpty || !rule.byWeekNo.isEmpty {
            return "RSCALE=\(name) with BYYEARDAY or BYWEEKNO is not expanded"
        }
        return nil
    }

    private static func frequencyRank(_ frequency: RecurrenceRule.Frequency) -> Int {
        RecurrenceRule.Frequency.allCases.firstIndex(of: frequency) ?? 0
    }

    /// Nil for a rule without RSCALE or SKIP, or one ``refusal(of:)`` refuses.
    init?(
        rule: RecurrenceRule, start: CivilDateTime, isDate: Bool, zone: ZoneRules?, limits: ExpansionLimits,
        startIsInstance: Bool
    ) {
        guard let name = Self.scaleName(of: rule), Self.refusal(of: rule) == nil,
            let scale = CalendarScale(named: name)
        else { return nil }
        self.scale = scale
        skip = rule.extensions.first { $0.name == "SKIP" }.flatMap { Skip(rawValue: $0.value.uppercased()) } ?? .omit
        frequency = rule.frequency
        interval = max(1, rule.interval)
        self.start = start
        startFields = scale.fields(of: start.date)
        count = rule.count
        until = UntilBound(rule.until, seriesIsDate: isDate, zone: zone)
        weekStart = rule.weekStart ?? .monday
        months =
            rule.extensions.first { $0.name == "BYMONTH" }.map { text in
                text.value.split(separator: ",").compactMap(CalendarScale.Month.init)
            } ?? rule.byMonth.map { CalendarScale.Month(number: $0, isLeap: false) }
        monthDays = rule.byMonthDay
        weekdays = rule.byDay
        hours = (rule.byHour.isEmpty ? [start.time.hour] : rule.byHour).sortedUnique()
        minutes = (rule.byMinute.isEmpty ? [start.time.minute] : rule.byMinute).sortedUnique()
        seconds = (rule.bySecond.isEmpty ? [start.time.second] : rule.bySecond).sortedUnique()
        setPositions = rule.bySetPos
        idlePeriodLimit = limits.maxIdlePeriods
        maxSteps = limits.maxSteps
        startEmitted = !startIsInstance
        last = start.adding(seconds: startIsInstance ? 0 : -1)
    }

    mutating func next() -> CivilDateTime? {
        guard !finished else { return nil }
        if let count, produced >= count {
            finished = true
            return nil
        }
        if !startEmitted {
            startEmitted = true
            produced += 1
            return start
        }
        while true {
            while pendingIndex < pending.count {
                let candidate = pending[pendingIndex]
                pendingIndex += 1
                // In order, each once: SKIP can move a day onto another instance.
                guard candidate > last else { continue }
                if until.isExceeded(by: candidate) {
                    finished = true
                    return nil
                }
                last = candidate
                produced += 1
                idlePeriods = 0
                return candidate
            }
            if idlePeriods > idlePeriodLimit || steps > maxSteps {
                isExhausted = steps > maxSteps
                finished = true
                return nil
            }
            guard let days = days(inPeriod: periodIndex) else {
                finished = true
                return nil
            }
            periodIndex += 1
            idlePeriods += 1
            steps += 1 + days.count
            var candidates: [CivilDateTime] = []
            for day in days.sorted() {
                for hour in hours {
                    for minute in minutes {
                        for second in seconds {
                            if let time = TimeOfDay(hour: hour, minute: minute, second: second) {
                                candidates.append(CivilDateTime(date: day, time: time))
                            }
                        }
                    }
                }
            }
            if !setPositions.isEmpty {
                candidates = setPositions.compactMap { position in
                    let index = position > 0 ? position - 1 : candidates.count + position
                    return candidates.indices.contains(index) ? candidates[index] : nil
                }.sortedUnique()
            }
            pending = candidates
            pendingIndex = 0
        }
    }

    // MARK: The days of a period

    /// The days the rule gives in its `index`th period (from DTSTART's), nil past
    /// 9999 or where the scale ends.
    private func days(inPeriod index: Int) -> [CivilDate]? {
        // A huge INTERVAL ends the rule (there is no year 10000) rather than leave Int's range.
        let (step, overflow) = index.multipliedReportingOverflow(by: interval)
        guard !overflow, step <= Self.lastStep(frequency) else { return nil }
        switch frequency {
        case .yearly:
            let year = startFields.year + step
            guard let probe = scale.day(year: year, month: CalendarScale.Month(number: 1, isLeap: false), day: 1),
                probe.year <= 9999
            else { return nil }
            if months.isEmpty, monthDays.isEmpty, !weekdays.isEmpty {
                // BYDAY alone: the weekdays of the whole year, ordinals counted in it.
                let all = scale.months(inYear: year).flatMap { daysOfMonth(year: year, month: $0) }
                return matching(weekdays, in: all)
            }
            let wanted = months.isEmpty ? [startFields.month] : months
            return wanted.flatMap { days(year: year, month: $0) }
        case .monthly:
            guard let first = scale.firstDay(monthsAfter: step, from: start.date), first.year <= 9999 else {
                return nil
            }
            let fields = scale.fields(of: first)
            if !months.isEmpty, !months.contains(fields.month) { return [] }
            return days(year: fields.year, month: fields.month)
        case .weekly:
            let weekBegins = start.date.adding(days: -start.date.weekday.days(after: weekStart) + 7 * step)
            guard weekBegins.year <= 9999 else { return nil }
            let wanted = weekdays.isEmpty ? [start.date.weekday] : weekdays.map(\.weekday)
            return (0..<7).map { weekBegins.adding(days: $0) }.filter { wanted.contains($0.weekday) && passes($0) }
        default:
            let day = start.date.adding(days: step)
            guard day.year <= 9999 else { return nil }
            if !weekdays.isEmpty, !weekdays.contains(where: { $0.weekday == day.weekday }) { return [] }
            return passes(day) ? [day] : []
        }
    }

    /// The most periods of `frequency` a rule steps from its DTSTART: more than 10,000
    /// years of them, whatever the scale, so any later period is past 9999.
    static func lastStep(_ frequency: RecurrenceRule.Frequency) -> Int {
        switch frequency {
        case .yearly: 10_100
        case .monthly: 10_100 * 13
        case .weekly: 10_100 * 53
        default: 10_100 * 366
        }
    }

    /// The days of `month` of `year` the rule's BYMONTHDAY, BYDAY or DTSTART's day give,
    /// with SKIP applied to a leap month the year lacks (BACKWARD: the month it follows;
    /// FORWARD: the month after that) and to days the month lacks.
    private func days(year: Int, month: CalendarScale.Month) -> [CivilDate] {
        if let first = scale.day(year: year, month: month, day: 1) { return days(ofMonthStarting: first) }
        guard skip != .omit,
            let plain = scale.day(year: year, month: CalendarScale.Month(number: month.number, isLeap: false), day: 1)
        else { return [] }
        return days(ofMonthStarting: skip == .backward ? plain : plain.adding(days: scale.length(of: plain)))
    }

    private func days(ofMonthStarting first: CivilDate) -> [CivilDate] {
        let length = scale.length(of: first)
        if !monthDays.isEmpty || weekdays.isEmpty {
            let wanted = monthDays.isEmpty ? [startFields.day] : monthDays
            return wanted.compactMap { number -> CivilDate? in
                let day = number > 0 ? number : length + 1 + number
                if (1...length).contains(day) {
                    let date = first.adding(days: day - 1)
                    return weekdays.isEmpty || matching(weekdays, in: [date]) == [date] ? date : nil
                }
                switch skip {
                case .omit: return nil
                case .backward: return number > 0 ? first.adding(days: length - 1) : first.adding(days: -1)
                case .forward: return number > 0 ? first.adding(days: length) : first
                }
            }
        }
        return matching(weekdays, in: (0..<length).map { first.adding(days: $0) })
    }

    private func daysOfMonth(year: Int, month: CalendarScale.Month) -> [CivilDate] {
        guard let first = scale.day(year: year, month: month, day: 1) else { return [] }
        return (0..<scale.length(of: first)).map { first.adding(days: $0) }
    }

    /// The days of `days` (in order) that BYDAY names: each plain weekday, and each
    /// ordinal one counted among the same weekdays of `days` (from the end when negative).
    private func matching(_ weekdays: [RecurrenceRule.WeekdayNumber], in days: [CivilDate]) -> [CivilDate] {
        var chosen = Set<CivilDate>()
        for item in weekdays {
            let same = days.filter { $0.weekday == item.weekday }
            if let ordinal = item.ordinal {
                let index = ordinal > 0 ? ordinal - 1 : same.count + ordinal
                if same.indices.contains(index) { chosen.insert(same[index]) }
            } else {
                chosen.formUnion(same)
            }
        }
        return days.filter { chosen.contains($0) }
    }

    /// Whether a day of a WEEKLY or DAILY rule passes BYMONTH and BYMONTHDAY, in the scale.
    private func passes(_ day: CivilDate) -> Bool {
        guard !months.isEmpty || !monthDays.isEmpty else { return true }
        let fields = scale.fields(of: day)
        if !months.isEmpty, !months.contains(fields.month) { return false }
        if !monthDays.isEmpty {
            let length = scale.length(of: day)
            return monthDays.contains { $0 > 0 ? $0 == fields.day : length + 1 + $0 == fields.day }
        }
        return true
    }
}

extension RecurrenceRule {
    /// Why this engine does not expand the rule (an RFC 7529 scale it has no calendar
    /// for, or such a rule with parts it does not expand), nil when it does: a rule it
    /// cannot expand is refused, never expanded as another.
    public var expansionRefusal: String? { ScaledRuleIterator.refusal(of: self) }
}
