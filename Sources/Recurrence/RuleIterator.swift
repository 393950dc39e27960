import CivilTime
import ICalendar

/// Where a rule's UNTIL stops it, in the terms of the series it belongs to.
///
/// RFC 5545 §3.3.10 wants UNTIL in UTC when DTSTART is zoned, and of the same
/// value type as DTSTART. Real producers do otherwise; each decision here is
/// what Google Calendar and Apple Calendar are seen to do:
/// - a UTC UNTIL against a zoned DTSTART compares instants (the last
///   instance is the one at or before UNTIL, whatever the local clock says);
/// - a floating UNTIL (no Z) compares wall clocks in the series' own zone;
/// - a DATE UNTIL against a DATE-TIME series keeps every instance on that date
///   (inclusive to the end of the day);
/// - against an all-day or floating series, a UTC UNTIL compares wall clocks.
struct UntilBound {
    enum Kind {
        case none, local, date, instant
    }

    let kind: Kind
    let local: CivilDateTime
    let instant: Int
    /// Read in place (never bound out of an enum payload), so checking costs no retain.
    let zone: ZoneRules

    init(_ until: DateTimeValue?, seriesIsDate: Bool, zone: ZoneRules?) {
        self.zone = zone ?? .utc
        local = until?.civil ?? CivilDateTime(secondsSinceEpoch: 0)
        instant = local.secondsSinceEpoch
        if let until {
            if until.isDate {
                kind = .date
            } else if until.form == .utc, !seriesIsDate, zone != nil {
                kind = .instant
            } else {
                kind = .local
            }
        } else {
            kind = .none
        }
    }

    @inline(__always)
    func isExceeded(by candidate: CivilDateTime) -> Bool {
        switch kind {
        case .none: false
        case .local: candidate > local
        case .date: candidate.date > local.date
        case .instant: zone.instant(for: candidate) > instant
        }
    }
}

/// Expands one recurrence rule (RFC 5545 §3.3.10) into wall-clock start times,
/// in order, lazily.
///
/// Each period of the rule's frequency (a year, a month, a week, a day, an
/// hour, …) is taken in turn, INTERVAL apart. Within a period the candidate
/// days are the days of the period that pass every BY* day filter, which is
/// RFC 5545's expand/limit table seen from the period's side: a BY* part that
/// "expands" a coarser frequency selects days within the period, and one that
/// "limits" a finer frequency rejects the period's only day. Candidate times
/// are BYHOUR × BYMINUTE × BYSECOND (each defaulting to DTSTART's). BYSETPOS
/// then picks from the period's sorted candidates.
///
/// Dates that do not exist (February 30) are never candidates, so they are
/// skipped, never moved. DTSTART is always the first instance and counts
/// toward COUNT, even when the rule would not produce it (RFC 5545 §3.8.5.3).
/// A rule that produces nothing for ``ExpansionLimits/maxIdlePeriods`` periods
/// (or 400 years of them, when fewer) ends. Every period visited, day tested and
/// candidate built counts as a step; past ``ExpansionLimits/maxSteps`` the
/// iterator ends and reports ``isExhausted``.
struct RuleIterator: IteratorProtocol {
    let frequency: RecurrenceRule.Frequency
    let interval: Int
    let start: CivilDateTime
    let count: Int?
    let until: UntilBound
    let weekStart: Weekday

    // The rule's BY parts, normalized.
    let monthMask: UInt16  // bit m for month m; 0 = any
    let weekNumbers: [Int]
    let yearDays: [Int]
    let monthDays: [Int]
    let weekdayMask: UInt8  // bit (weekday.rawValue - 1) for plain BYDAY items
    let ordinalDays: [RecurrenceRule.WeekdayNumber]
    let hasDayFilter: Bool
    /// BYMONTH/BYMONTHDAY are the only day filters, so days can be computed directly.
    let onlyMonthDays: Bool
    let needsDayOfYear: Bool
    let ordinalsInMonth: Bool
    let hours: [Int]
    let minutes: [Int]
    let seconds: [Int]
    let setPositions: [Int]
    let idlePeriodLimit: Int
    /// The steps this iterator may take (a request's budget may lower the rule's limit).
    var maxSteps: Int
    /// The period holding 9999-12-31T23:59:59: iCalendar cannot name a later time, so a
    /// rule ends there (a huge INTERVAL would otherwise walk past `Int`'s range).
    private var lastPeriodIndex = Int.max
    // The rule's own BYHOUR/BYMINUTE/BYSECOND, which limit the sub-daily frequencies.
    let limitHours: [Int]
    let limitMinutes: [Int]
    let limitSeconds: [Int]

    // State.
    private var periodIndex: Int
    private var pending: [CivilDateTime] = []
    private var pendingIndex = 0
    private var produced = 0
    private var startEmitted = false
    /// The candidates a period must be after: DTSTART once it was emitted, else just before it.
    private let earliest: CivilDateTime
    private var finished = false
    private var idlePeriods = 0
    private let isDead: Bool
    /// Periods visited, days tested and candidates built so far.
    private(set) var steps = 0
    /// Whether the iterator stopped because it used up its steps, not because the rule ended.
    private(set) var isExhausted = false
    /// An RFC 7529 rule (RSCALE or SKIP) is expanded by its own iterator.
    private var scaled: ScaledRuleIterator?

    /// - Parameters:
    ///   - start: DTSTART's wall clock (midnight for a DATE series).
    ///   - zone: the series' zone, for comparing a UTC UNTIL as an instant.
    ///   - startIsInstance: whether DTSTART is the first instance whatever the rule says
    ///     (an RRULE, RFC 5545 §3.8.5.3); an EXRULE excludes DTSTART only when it matches.
    init(
        rule: RecurrenceRule, start: CivilDateTime, isDate: Bool, zone: ZoneRules?, limits: ExpansionLimits,
        startIsInstance: Bool = true
    ) {
        frequency = rule.frequency
        interval = max(1, rule.interval)
        self.start = start
        count = rule.count
        until = UntilBound(rule.until, seriesIsDate: isDate, zone: zone)
        weekStart = rule.weekStart ?? .monday

        var months = rule.byMonth
        var monthDays = rule.byMonthDay
        var plainDays = rule.byDay.filter { $0.ordinal == nil }.map(\.weekday)
        var ordinals = rule.byDay.filter { $0.ordinal != nil }
        // Ordinals only mean something in MONTHLY and YEARLY rules (RFC 5545 §3.3.10);
        // elsewhere the weekday is kept and the number dropped, as other readers do.
        if rule.frequency != .monthly && rule.frequency != .yearly {
            plainDays += ordinals.map(\.weekday)
            ordinals = []
        }
        // What the rule does not say comes from DTSTART (RFC 5545 §3.3.10, "Information,
        // not contained in the rule, ... [is] derived from DTSTART").
        if rule.byWeekNo.isEmpty && rule.byYearDay.isEmpty && monthDays.isEmpty && rule.byDay.isEmpty {
            switch rule.frequency {
            case .yearly:
                if months.isEmpty { months = [start.date.month] }
                monthDays = [start.date.day]
            case .monthly:
                monthDays = [start.date.day]
            case .weekly:
                plainDays = [start.date.weekday]
            default:
                break
            }
        } else if rule.frequency == .yearly, !rule.byWeekNo.isEmpty, rule.byDay.isEmpty, rule.byYearDay.isEmpty,
            monthDays.isEmpty
        {
            // YEARLY;BYWEEKNO=20 means DTSTART's weekday in week 20.
            plainDays = [start.date.weekday]
        }
        monthMask = months.reduce(0) { $0 | UInt16(1) << UInt16($1) }
        weekNumbers = rule.byWeekNo
        yearDays = rule.byYearDay
        self.monthDays = monthDays
        weekdayMask = plainDays.reduce(0) { $0 | UInt8(1) << UInt8($1.rawValue - 1) }
        ordinalDays = ordinals
        hasDayFilter =
            monthMask != 0 || !weekNumbers.isEmpty || !yearDays.isEmpty || !monthDays.isEmpty
            || weekdayMask != 0 || !ordinals.isEmpty
        onlyMonthDays =
            (rule.frequency == .monthly || rule.frequency == .yearly) && !monthDays.isEmpty && weekNumbers.isEmpty
            && yearDays.isEmpty && weekdayMask == 0 && ordinals.isEmpty
        needsDayOfYear = !rule.byYearDay.isEmpty || (!ordinals.isEmpty && rule.frequency == .yearly && months.isEmpty)
        // In a YEARLY rule with BYMONTH, "2MO" is the second Monday of the month; without, of the year.
        ordinalsInMonth = rule.frequency == .monthly || !months.isEmpty
        hours = (rule.byHour.isEmpty ? [start.time.hour] : rule.byHour).sortedUnique()
        minutes = (rule.byMinute.isEmpty ? [start.time.minute] : rule.byMinute).sortedUnique()
        seconds = (rule.bySecond.isEmpty ? [start.time.second] : rule.bySecond).sortedUnique()
        setPositions = rule.bySetPos
        limitHours = rule.byHour
        limitMinutes = rule.byMinute
        limitSeconds = rule.bySecond

        let periodsPerYear: Int
        switch rule.frequency {
        case .yearly: periodsPerYear = 1
        case .monthly: periodsPerYear = 12
        case .weekly: periodsPerYear = 53
        case .daily: periodsPerYear = 366
        case .hourly: periodsPerYear = 366 * 24
        case .minutely: periodsPerYear = 366 * 24 * 60
        case .secondly: periodsPerYear = 366 * 24 * 3600
        }
        // The Gregorian cycle: a rule idle for 400 years of its periods never fires again.
        let cycle = 400 * periodsPerYear / interval + 1
        idlePeriodLimit = min(limits.maxIdlePeriods, cycle)
        maxSteps = limits.maxSteps
        // DTSTART is still the first instance of a rule that can never fire; nothing follows it.
        isDead = Self.neverFires(months: months, monthDays: monthDays, rule: rule)
        startEmitted = !startIsInstance
        earliest = startIsInstance ? start : start.adding(seconds: -1)
        periodIndex = 0  // every stored property must be set before index(of:) can be called
        lastPeriodIndex = index(of: CivilDateTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59)!)
        periodIndex = index(of: start)
        scaled = ScaledRuleIterator(
            rule: rule, start: start, isDate: isDate, zone: zone, limits: limits, startIsInstance: startIsInstance)
    }

    /// Rules that no year can satisfy, caught before any iteration: a BYMONTHDAY
    /// that none of the BYMONTH months has (February 30, April 31).
    private static func neverFires(months: [Int], monthDays: [Int], rule: RecurrenceRule) -> Bool {
        guard !months.isEmpty, !monthDays.isEmpty else { return false }
        let longest = months.map { CivilDate.daysInMonth(year: 2000, month: $0) }.max() ?? 31
        return monthDays.allSatisfy { abs($0) > longest }
    }

    // MARK: Periods

    /// The number of the period holding `local`, counted in the rule's frequency.
    private func index(of local: CivilDateTime) -> Int {
        switch frequency {
        case .yearly: return local.date.year
        case .monthly: return local.date.year * 12 + local.date.month - 1
        case .weekly:
            // Weeks counted from the first WKST day on or after 1970-01-01 (a Thursday).
            let weekBegins = local.date.daysSinceEpoch - local.date.weekday.days(after: weekStart)
            return floorDivide(weekBegins - weekStart.days(after: .thursday), 7)
        case .daily: return local.date.daysSinceEpoch
        case .hourly: return floorDivide(local.secondsSinceEpoch, 3600)
        case .minutely: return floorDivide(local.secondsSinceEpoch, 60)
        case .secondly: return local.secondsSinceEpoch
        }
    }

    private func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    }

    /// Moves to the last period at or before the one holding `local` that the
    /// rule's INTERVAL reaches, so a window far from DTSTART costs what its
    /// own periods cost. Only without COUNT, which must count from DTSTART.
    mutating func skip(toward local: CivilDateTime) {
        guard count == nil, local > start, scaled == nil else { return }
        let first = index(of: start)
        let target = index(of: local)
        let periods = (target - first) / interval
        guard periods > 0 else { return }
        let candidate = first + periods * interval
        guard candidate > periodIndex else { return }
        periodIndex = candidate
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
        startEmitted = true
        idlePeriods = 0
    }

    // MARK: Iteration

    mutating func next() -> CivilDateTime? {
        if scaled != nil {
            scaled!.maxSteps = maxSteps
            let next = scaled!.next()
            steps = scaled!.steps
            isExhausted = scaled!.isExhausted
            return next
        }
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
        if isDead {
            finished = true
            return nil
        }
        while true {
            while pendingIndex < pending.count {
                let candidate = pending[pendingIndex]
                pendingIndex += 1
                if candidate <= earliest { continue }
                if until.isExceeded(by: candidate) {
                    finished = true
                    return nil
                }
                produced += 1
                idlePeriods = 0
                return candidate
            }
            if idlePeriods > idlePeriodLimit || periodIndex > lastPeriodIndex {
                finished = true
                return nil
            }
            fillPeriod()
            if steps > maxSteps {
                // A period cut short would give wrong BYSETPOS picks: drop it whole.
                pending.removeAll()
                finished = true
                isExhausted = true
                return nil
            }
            periodIndex += interval
            idlePeriods += 1
        }
    }

    /// The candidates of the period `periodIndex`, sorted, after BYSETPOS.
    private mutating func fillPeriod() {
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
        steps += 1
        switch frequency {
        case .yearly:
            let year = periodIndex
            guard year > -100_000, year < 100_000 else { return }
            if monthMask != 0 {
                for month in 1...12 where monthMask & (UInt16(1) << UInt16(month)) != 0 {
                    addDays(
                        from: CivilDate(year: year, month: month, day: 1)!,
                        count: CivilDate.daysInMonth(year: year, month: month))
                }
            } else {
                addDays(from: CivilDate(year: year, month: 1, day: 1)!, count: CivilDate.daysInYear(year))
            }
        case .monthly:
            let year = floorDivide(periodIndex, 12)
            let month = periodIndex - year * 12 + 1
            guard monthMask == 0 || monthMask & (UInt16(1) << UInt16(month)) != 0 else { return }
            addDays(
                from: CivilDate(year: year, month: month, day: 1)!,
                count: CivilDate.daysInMonth(year: year, month: month))
        case .weekly:
            addDays(from: CivilDate(daysSinceEpoch: periodIndex * 7 + weekStart.days(after: .thursday)), count: 7)
        case .daily:
            addDays(from: CivilDate(daysSinceEpoch: periodIndex), count: 1)
        case .hourly, .minutely, .secondly:
            fillSubDaily()
            return
        }
        applySetPositions()
    }

    /// Adds every time of day to each day in the run that passes the day filters.
    /// Dates are stepped field by field rather than converted from day counts.
    private mutating func addDays(from first: CivilDate, count: Int) {
        if onlyMonthDays {
            addMonthDays(from: first, count: count)
            return
        }
        steps += count
        if !hasDayFilter {
            var days = first.daysSinceEpoch
            for _ in 0..<count {
                addTimes(on: CivilDate(daysSinceEpoch: days))
                days += 1
            }
            return
        }
        var year = first.year
        var month = first.month
        var day = first.day
        var weekday = first.weekday
        // Only BYYEARDAY and year-scoped ordinals need the day of the year.
        var dayOfYear = needsDayOfYear ? first.dayOfYear : 0
        var monthLength = CivilDate.daysInMonth(year: year, month: month)
        for _ in 0..<count {
            if !hasDayFilter
                || matches(
                    year: year, month: month, day: day, weekday: weekday, dayOfYear: dayOfYear, monthLength: monthLength
                )
            {
                addTimes(on: CivilDate(year: year, month: month, day: day)!)
            }
            weekday = weekday.advanced(by: 1)
            day += 1
            dayOfYear += 1
            if day > monthLength {
                day = 1
                month += 1
                if month > 12 {
                    month = 1
                    year += 1
                    dayOfYear = 1
                }
                monthLength = CivilDate.daysInMonth(year: year, month: month)
            }
        }
    }

    /// BYMONTH and BYMONTHDAY alone (the default of MONTHLY and YEARLY rules):
    /// the days are computed, not searched for.
    private mutating func addMonthDays(from first: CivilDate, count: Int) {
        let last = first.adding(days: count - 1)
        var year = first.year
        var month = first.month
        while year < last.year || (year == last.year && month <= last.month) {
            steps += 1
            if monthMask == 0 || monthMask & (UInt16(1) << UInt16(month)) != 0 {
                let length = CivilDate.daysInMonth(year: year, month: month)
                var days: [Int] = []
                for value in monthDays {
                    let day = value > 0 ? value : length + value + 1
                    if day >= 1 && day <= length { days.append(day) }
                }
                for day in days.sortedUnique() { addTimes(on: CivilDate(year: year, month: month, day: day)!) }
            }
            month += 1
            if month > 12 {
                month = 1
                year += 1
            }
        }
    }

    /// Stops building candidates (leaving `steps` past the budget) when the budget runs out,
    /// so one period of BYHOUR × BYMINUTE × BYSECOND cannot fill memory.
    private mutating func addTimes(on date: CivilDate) {
        for hour in hours {
            for minute in minutes {
                for second in seconds {
                    steps += 1
                    guard steps <= maxSteps else { return }
                    if let time = TimeOfDay(hour: hour, minute: minute, second: second) {
                        pending.append(CivilDateTime(date: date, time: time))
                    }
                }
            }
        }
    }

    /// HOURLY, MINUTELY and SECONDLY: one period is one hour, minute or second.
    /// The day filters and the rule's own BYHOUR/BYMINUTE/BYSECOND limit the
    /// period; the finer units not fixed by the period expand as usual.
    private mutating func fillSubDaily() {
        let unit = frequency == .hourly ? 3600 : frequency == .minutely ? 60 : 1
        let periodStart = CivilDateTime(secondsSinceEpoch: periodIndex * unit)
        if hasDayFilter && !matches(periodStart.date) {
            // Jump to the last period before the next day that INTERVAL reaches (next() adds one interval).
            let nextDay = (periodStart.date.daysSinceEpoch + 1) * (86_400 / unit)
            let first = index(of: start)
            let periods = (nextDay - first + interval - 1) / interval
            periodIndex = max(periodIndex, first + periods * interval - interval)
            return
        }
        let time = periodStart.time
        if !limitHours.isEmpty && !limitHours.contains(time.hour) { return }
        let candidateMinutes: [Int]
        if frequency == .hourly {
            candidateMinutes = minutes
        } else {
            if !limitMinutes.isEmpty && !limitMinutes.contains(time.minute) { return }
            candidateMinutes = [time.minute]
        }
        let candidateSeconds: [Int]
        if frequency == .secondly {
            if !limitSeconds.isEmpty && !limitSeconds.contains(time.second) { return }
            candidateSeconds = [time.second]
        } else {
            candidateSeconds = seconds
        }
        for minute in candidateMinutes {
            for second in candidateSeconds {
                steps += 1
                if let value = TimeOfDay(hour: time.hour, minute: minute, second: second) {
                    pending.append(CivilDateTime(date: periodStart.date, time: value))
                }
            }
        }
        applySetPositions()
    }

    private mutating func applySetPositions() {
        guard !setPositions.isEmpty, !pending.isEmpty else { return }
        let all = pending
        var chosen: [CivilDateTime] = []
        for position in setPositions {
            let index = position > 0 ? position - 1 : all.count + position
            if index >= 0 && index < all.count { chosen.append(all[index]) }
        }
        pending = chosen.sortedUnique()
    }

    // MARK: Day filters

    private func matches(_ date: CivilDate) -> Bool {
        matches(
            year: date.year, month: date.month, day: date.day, weekday: date.weekday, dayOfYear: date.dayOfYear,
            monthLength: CivilDate.daysInMonth(year: date.year, month: date.month))
    }

    private func matches(year: Int, month: Int, day: Int, weekday: Weekday, dayOfYear: Int, monthLength: Int) -> Bool {
        if monthMask != 0 && monthMask & (UInt16(1) << UInt16(month)) == 0 { return false }
        if !weekNumbers.isEmpty {
            let (weekYear, week) = CivilDate(year: year, month: month, day: day)!.weekOfYear(weekStart: weekStart)
            let weeks = CivilDate.numberOfWeeks(inYear: weekYear, weekStart: weekStart)
            if !weekNumbers.contains(where: { $0 == week || $0 == week - weeks - 1 }) { return false }
        }
        if !yearDays.isEmpty {
            let length = CivilDate.daysInYear(year)
            if !yearDays.contains(where: { $0 == dayOfYear || $0 == dayOfYear - length - 1 }) { return false }
        }
        if !monthDays.isEmpty {
            if !monthDays.contains(where: { $0 == day || $0 == day - monthLength - 1 }) { return false }
        }
        if weekdayMask != 0 || !ordinalDays.isEmpty {
            if weekdayMask & (UInt8(1) << UInt8(weekday.rawValue - 1)) != 0 { return true }
            for item in ordinalDays where item.weekday == weekday {
                let ordinal = item.ordinal!
                let (position, length) = ordinalsInMonth ? (day, monthLength) : (dayOfYear, CivilDate.daysInYear(year))
                if ordinal > 0 ? (position - 1) / 7 + 1 == ordinal : (length - position) / 7 + 1 == -ordinal {
                    return true
                }
            }
            return false
        }
        return true
    }
}

extension Array where Element: Comparable & Hashable {
    func sortedUnique() -> [Element] { Array(Set(self)).sorted() }
}
