import CivilTime

/// A RECUR value (RFC 5545 §3.3.10): the parts of an `RRULE` or `EXRULE`.
///
/// Reading is case-insensitive and tolerates a trailing `;` (Google writes
/// one). Parts RFC 5545 does not define (RFC 7529's `RSCALE`, `SKIP`, `X-`
/// parts) are kept in ``extensions`` so they survive a round trip.
public struct RecurrenceRule: Sendable, Hashable {
    public enum Frequency: String, Sendable, Hashable, CaseIterable, Comparable {
        case secondly = "SECONDLY"
        case minutely = "MINUTELY"
        case hourly = "HOURLY"
        case daily = "DAILY"
        case weekly = "WEEKLY"
        case monthly = "MONTHLY"
        case yearly = "YEARLY"

        /// Shorter periods sort first.
        public static func < (lhs: Frequency, rhs: Frequency) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// A `BYDAY` item: a weekday, with an ordinal (`-1SU`, `2MO`) or without (`TU`, every Tuesday).
    public struct WeekdayNumber: Sendable, Hashable, CustomStringConvertible {
        /// ±1…53, or `nil` for every such weekday in the period.
        public var ordinal: Int?
        public var weekday: Weekday

        public init(_ weekday: Weekday, ordinal: Int? = nil) {
            self.weekday = weekday
            self.ordinal = ordinal
        }

        public var description: String {
            (ordinal.map { String($0) } ?? "") + weekday.icalendarCode
        }
    }

    public var frequency: Frequency
    /// 1 or more.
    public var interval: Int
    public var count: Int?
    /// A DATE, a UTC DATE-TIME, or (as some producers write) a floating DATE-TIME.
    public var until: DateTimeValue?
    public var bySecond: [Int]
    public var byMinute: [Int]
    public var byHour: [Int]
    public var byDay: [WeekdayNumber]
    public var byMonthDay: [Int]
    public var byYearDay: [Int]
    public var byWeekNo: [Int]
    public var byMonth: [Int]
    public var bySetPos: [Int]
    /// `WKST`; `nil` when the rule does not say (Monday is then in force).
    public var weekStart: Weekday?
    /// Parts this type does not model, as `(NAME, value)` in their order.
    public var extensions: [Extension]

    /// A rule part outside RFC 5545, kept as written.
    public struct Extension: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(
        frequency: Frequency, interval: Int = 1, count: Int? = nil, until: DateTimeValue? = nil,
        bySecond: [Int] = [], byMinute: [Int] = [], byHour: [Int] = [], byDay: [WeekdayNumber] = [],
        byMonthDay: [Int] = [], byYearDay: [Int] = [], byWeekNo: [Int] = [], byMonth: [Int] = [],
        bySetPos: [Int] = [], weekStart: Weekday? = nil, extensions: [Extension] = []
    ) {
        self.frequency = frequency
        self.interval = interval
        self.count = count
        self.until = until
        self.bySecond = bySecond
        self.byMinute = byMinute
        self.byHour = byHour
        self.byDay = byDay
        self.byMonthDay = byMonthDay
        self.byYearDay = byYearDay
        self.byWeekNo = byWeekNo
        self.byMonth = byMonth
        self.bySetPos = bySetPos
        self.weekStart = weekStart
        self.extensions = extensions
    }

    /// Reads a rule from its iCalendar text.
    ///
    /// - Parameter strict: also reject what RFC 5545 says MUST NOT appear
    ///   (`COUNT` with `UNTIL`, `BYWEEKNO` outside YEARLY, ordinal `BYDAY` outside
    ///   MONTHLY and YEARLY, `BYMONTHDAY` in WEEKLY, `BYYEARDAY` in DAILY, WEEKLY, MONTHLY).
    /// - Throws: `ICalendarError` with code `invalidValue` naming the bad part.
    public init(parsing text: String, strict: Bool = true) throws(ICalendarError) {
        let result: Result<RecurrenceRule, ICalendarError> = text.withUTF8Bytes { bytes in
            switch RecurrenceRule.parse(bytes, strict: strict) {
            case .success(let rule): .success(rule)
            case .failure(let problem): .failure(ICalendarError(.invalidValue, problem.message, property: "RRULE"))
            }
        }
        self = try result.get()
    }

    struct Problem: Error {
        var offset: Int
        var message: String
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, strict: Bool) -> Result<RecurrenceRule, Problem> {
        var rule = RecurrenceRule(frequency: .daily)
        var sawFrequency = false
        var seen = Set<String>()
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
            defer { start = end + 1 }
            if end == start { continue }  // a trailing or doubled ';'
            let part = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard let equals = part.firstIndex(of: UInt8(ascii: "=")) else {
                return .failure(Problem(offset: start, message: "rule part without '=': expected NAME=VALUE"))
            }
            let name = String(decoding: UnsafeBufferPointer(rebasing: part[..<equals]), as: UTF8.self).uppercased()
            let value = UnsafeBufferPointer(rebasing: part[(equals + 1)...])
            let valueOffset = start + equals + 1
            guard seen.insert(name).inserted else {
                return .failure(Problem(offset: start, message: "rule part \(name) appears twice"))
            }
            func fail(_ message: String) -> Result<RecurrenceRule, Problem> {
                .failure(Problem(offset: valueOffset, message: "\(name): \(message)"))
            }
            func list(_ range: ClosedRange<Int>, allowNegative: Bool) -> [Int]? {
                var numbers: [Int] = []
                for item in ValueSyntax.splitList(value, honoringEscapes: false) {
                    guard let number = ValueSyntax.integer(item), range.contains(abs(number)),
                        allowNegative || number > 0
                    else { return nil }
                    numbers.append(number)
                }
                return numbers
            }
            func unsignedList(_ range: ClosedRange<Int>) -> [Int]? {
                var numbers: [Int] = []
                for item in ValueSyntax.splitList(value, honoringEscapes: false) {
                    guard let first = item.first, ValueSyntax.digit(first) != nil,
                        let number = ValueSyntax.integer(item), range.contains(number)
                    else { return nil }
                    numbers.append(number)
                }
                return numbers
            }
            switch name {
            case "FREQ":
                let text = String(decoding: value, as: UTF8.self).uppercased()
                guard let frequency = Frequency(rawValue: text) else {
                    return fail("expected SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY")
                }
                rule.frequency = frequency
                sawFrequency = true
            case "INTERVAL":
                guard let number = ValueSyntax.integer(value), number >= 1 else {
                    return fail("expected a positive integer")
                }
                rule.interval = number
            case "COUNT":
                guard let number = ValueSyntax.integer(value), number >= 1 else {
                    return fail("expected a positive integer")
                }
                rule.count = number
            case "UNTIL":
                guard let until = ValueSyntax.dateOrDateTime(value, type: nil, tzid: nil) else {
                    return fail("expected a DATE (YYYYMMDD) or DATE-TIME (YYYYMMDDTHHMMSSZ)")
                }
                rule.until = until
            case "BYSECOND":
                guard let numbers = unsignedList(0...60) else { return fail("expected numbers 0 to 60") }
                rule.bySecond = numbers
            case "BYMINUTE":
                guard let numbers = unsignedList(0...59) else { return fail("expected numbers 0 to 59") }
                rule.byMinute = numbers
            case "BYHOUR":
                guard let numbers = unsignedList(0...23) else { return fail("expected numbers 0 to 23") }
                rule.byHour = numbers
            case "BYMONTHDAY":
                guard let numbers = list(1...31, allowNegative: true) else { return fail("expected ±1 to ±31") }
                rule.byMonthDay = numbers
            case "BYYEARDAY":
                guard let numbers = list(1...366, allowNegative: true) else { return fail("expected ±1 to ±366") }
                rule.byYearDay = numbers
            case "BYWEEKNO":
                guard let numbers = list(1...53, allowNegative: true) else { return fail("expected ±1 to ±53") }
                rule.byWeekNo = numbers
            case "BYMONTH":
                if let numbers = list(1...12, allowNegative: false) {
                    rule.byMonth = numbers
                } else if ValueSyntax.splitList(value, honoringEscapes: false).allSatisfy(Self.isScaledMonth) {
                    // RFC 7529: a leap month (5L) or a thirteenth month, kept as written for the
                    // RSCALE the rule must name (checked below).
                    rule.extensions.append(Extension(name: "BYMONTH", value: String(decoding: value, as: UTF8.self)))
                } else {
                    return fail("expected 1 to 12 (with RSCALE also 13, and a leap month such as 5L)")
                }
            case "BYSETPOS":
                guard let numbers = list(1...366, allowNegative: true) else { return fail("expected ±1 to ±366") }
                rule.bySetPos = numbers
            case "BYDAY":
                var days: [WeekdayNumber] = []
                for item in ValueSyntax.splitList(value, honoringEscapes: false) {
                    guard item.count >= 2,
                        let weekday = Weekday(icalendarCodeBytes: item[item.count - 2], item[item.count - 1])
                    else { return fail("expected weekdays such as MO, -1SU, 2TU") }
                    var ordinal: Int?
                    if item.count > 2 {
                        guard
                            let number = ValueSyntax.integer(UnsafeBufferPointer(rebasing: item[..<(item.count - 2)])),
                            number != 0, abs(number) <= 53
                        else { return fail("a weekday's ordinal must be ±1 to ±53") }
                        ordinal = number
                    }
                    days.append(WeekdayNumber(weekday, ordinal: ordinal))
                }
                rule.byDay = days
            case "WKST":
                guard value.count == 2, let weekday = Weekday(icalendarCodeBytes: value[0], value[1]) else {
                    return fail("expected MO, TU, WE, TH, FR, SA or SU")
                }
                rule.weekStart = weekday
            default:
                guard !name.isEmpty else { return fail("empty rule part name") }
                rule.extensions.append(Extension(name: name, value: String(decoding: value, as: UTF8.self)))
            }
        }
        guard sawFrequency else { return .failure(Problem(offset: 0, message: "a rule needs FREQ")) }
        let scaled = rule.extensions.contains { $0.name == "RSCALE" }
        if !scaled, rule.extensions.contains(where: { $0.name == "BYMONTH" }) {
            return .failure(
                Problem(offset: 0, message: "BYMONTH: a leap month or month 13 needs RSCALE (RFC 7529)"))
        }
        if strict, !scaled, rule.extensions.contains(where: { $0.name == "SKIP" }) {
            return .failure(Problem(offset: 0, message: "SKIP needs RSCALE (RFC 7529 §3.1)"))
        }
        if strict {
            if rule.count != nil && rule.until != nil {
                return .failure(Problem(offset: 0, message: "COUNT and UNTIL must not both appear (RFC 5545 §3.3.10)"))
            }
            if !rule.byWeekNo.isEmpty && rule.frequency != .yearly {
                return .failure(Problem(offset: 0, message: "BYWEEKNO is only valid with FREQ=YEARLY"))
            }
            if rule.byDay.contains(where: { $0.ordinal != nil }) {
                if rule.frequency != .monthly && rule.frequency != .yearly {
                    return .failure(
                        Problem(offset: 0, message: "BYDAY with an ordinal is only valid with FREQ=MONTHLY or YEARLY"))
                }
                if rule.frequency == .yearly && !rule.byWeekNo.isEmpty {
                    return .failure(
                        Problem(offset: 0, message: "BYDAY with an ordinal is not valid together with BYWEEKNO"))
                }
            }
            if !rule.byMonthDay.isEmpty && rule.frequency == .weekly {
                return .failure(Problem(offset: 0, message: "BYMONTHDAY is not valid with FREQ=WEEKLY"))
            }
            if !rule.byYearDay.isEmpty && [.daily, .weekly, .monthly].contains(rule.frequency) {
                return .failure(
                    Problem(offset: 0, message: "BYYEARDAY is not valid with FREQ=DAILY, WEEKLY or MONTHLY"))
            }
        }
        return .success(rule)
    }

    /// `5`, `13` or `5L`: a month RFC 7529 may name (1 to 13, `L` for a leap month).
    static func isScaledMonth(_ item: UnsafeBufferPointer<UInt8>) -> Bool {
        var digits = item[...]
        if let last = digits.last, last == UInt8(ascii: "L") || last == UInt8(ascii: "l") { digits = digits.dropLast() }
        guard (1...2).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
        let number = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return (1...13).contains(number)
    }

    /// The canonical iCalendar text: FREQ first, then the other parts in RFC 5545's order.
    public var icalendarText: String {
        var parts = ["FREQ=" + frequency.rawValue]
        if let until { parts.append("UNTIL=" + until.icalendarText) }
        if let count { parts.append("COUNT=\(count)") }
        if interval != 1 { parts.append("INTERVAL=\(interval)") }
        func add(_ name: String, _ values: [Int]) {
            if !values.isEmpty { parts.append(name + "=" + values.map(String.init).joined(separator: ",")) }
        }
        add("BYSECOND", bySecond)
        add("BYMINUTE", byMinute)
        add("BYHOUR", byHour)
        if !byDay.isEmpty { parts.append("BYDAY=" + byDay.map(\.description).joined(separator: ",")) }
        add("BYMONTHDAY", byMonthDay)
        add("BYYEARDAY", byYearDay)
        add("BYWEEKNO", byWeekNo)
        add("BYMONTH", byMonth)
        add("BYSETPOS", bySetPos)
        if let weekStart { parts.append("WKST=" + weekStart.icalendarCode) }
        for item in extensions { parts.append(item.name + "=" + item.value) }
        return parts.joined(separator: ";")
    }
}
