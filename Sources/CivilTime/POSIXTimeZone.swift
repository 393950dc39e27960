/// A POSIX TZ string, as the footer of a TZif file carries it (RFC 8536 §3.3):
/// a standard time and, optionally, a daylight-saving time with the yearly
/// rules for switching between them.
///
/// Examples: `CET-1CEST,M3.5.0,M10.5.0/3` (Berlin), `<+0545>-5:45`
/// (Kathmandu), `EST5EDT,M3.2.0,M11.1.0` (New York), `<-03>3` (São Paulo),
/// `IST-2IDT,M3.4.4/26,M10.5.0` (Jerusalem, whose start time of 26:00 needs
/// the version 3 extension of hours outside 0–24), `<-02>2<-01>,M3.5.0/-1,M10.5.0/0`
/// (Nuuk, a negative time). POSIX writes offsets west of Greenwich as
/// positive (`EST5`); this type stores them the other way round, as
/// ``UTCOffset`` does, east positive.
///
/// Everything is integer arithmetic on the proleptic Gregorian calendar. The
/// rules repeat every 400 years (146,097 days, a whole number of weeks), which
/// is how instants millions of years away are answered without overflow.
public struct POSIXTimeZone: Sendable, Hashable {
    /// The abbreviation of standard time, such as `CET` or `+0545` (without the `<>` quotes).
    public let standardAbbreviation: String
    /// The offset of standard time from UTC, east positive.
    public let standardOffset: UTCOffset
    /// Daylight-saving time and its rules, or `nil` when the zone keeps standard time all year.
    public let daylightSaving: DaylightSaving?

    /// Daylight-saving time: its name, its offset and when it starts and ends each year.
    public struct DaylightSaving: Sendable, Hashable {
        /// The abbreviation of daylight-saving time, such as `CEST`.
        public var abbreviation: String
        /// The offset from UTC during daylight-saving time, east positive.
        public var offset: UTCOffset
        /// When daylight-saving time starts, in standard local time.
        public var start: Rule
        /// When daylight-saving time ends, in daylight-saving local time.
        public var end: Rule

        /// Creates daylight-saving rules.
        public init(abbreviation: String, offset: UTCOffset, start: Rule, end: Rule) {
            self.abbreviation = abbreviation
            self.offset = offset
            self.start = start
            self.end = end
        }
    }

    /// A yearly moment of change: a day of the year and a local time on it.
    public struct Rule: Sendable, Hashable {
        /// Which day of the year.
        public var day: Day
        /// Seconds after local midnight of that day. POSIX allows 0…24 hours;
        /// RFC 8536 version 3 allows −167…167 hours, so a change can fall on an
        /// adjacent day ("the Thursday before the last Friday, at 24:00").
        public var time: Int

        /// Creates a rule; `time` defaults to 02:00, as in POSIX.
        public init(day: Day, time: Int = 7200) {
            self.day = day
            self.time = time
        }

        /// How a rule names its day.
        public enum Day: Sendable, Hashable {
            /// `Jn`: the n-th day of the year, 1…365, never counting February 29
            /// (so `J60` is always March 1).
            case julian(Int)
            /// `n`: the zero-based day of the year, 0…365, counting February 29.
            case zeroBasedDayOfYear(Int)
            /// `Mm.w.d`: weekday `weekday` of week `week` (1…5, where 5 means
            /// the last) of month `month`.
            case monthWeekday(month: Int, week: Int, weekday: Weekday)
        }
    }

    /// Creates a zone from its parts. Out-of-range rule fields are clamped when
    /// the rules are evaluated (a week above 5 is the last week, and so on).
    public init(standardAbbreviation: String, standardOffset: UTCOffset, daylightSaving: DaylightSaving?) {
        self.standardAbbreviation = standardAbbreviation
        self.standardOffset = standardOffset
        self.daylightSaving = daylightSaving
        self.evaluator = POSIXRuleEvaluator(standardOffset: standardOffset, daylightSaving: daylightSaving)
    }

    /// The rules as plain integers, for lookups that copy no strings.
    let evaluator: POSIXRuleEvaluator

    /// Parses a POSIX TZ string (POSIX.1-2017 §8.3 `TZ`, with the RFC 8536
    /// §3.3.1 extensions); `nil` when the text is not one.
    ///
    /// A daylight-saving name without rules gets the United States rules
    /// `M3.2.0,M11.1.0`, as glibc does; a daylight-saving name without an
    /// offset is one hour ahead of standard time.
    public init?(_ text: String) {
        var parser = POSIXTimeZoneParser(bytes: Array(text.utf8))
        guard let zone = parser.zone(), parser.isAtEnd else { return nil }
        self = zone
    }

    // MARK: Instants

    /// The offset from UTC at `instant` (Unix seconds).
    public func offset(at instant: Int) -> UTCOffset {
        UTCOffset(seconds: evaluator.offset(at: instant))
    }

    /// Whether daylight-saving time is in force at `instant` (Unix seconds).
    public func isDaylightSaving(at instant: Int) -> Bool {
        evaluator.period(containing: instant).isDaylightSaving
    }

    /// The abbreviation in force at `instant` (Unix seconds).
    public func abbreviation(at instant: Int) -> String {
        guard let daylightSaving, evaluator.period(containing: instant).isDaylightSaving else {
            return standardAbbreviation
        }
        return daylightSaving.abbreviation
    }

    /// The changes the rules make for `year`, in instant order: none without
    /// daylight-saving time, otherwise its start and its end (in either order:
    /// in the southern hemisphere the end comes first).
    ///
    /// A rule that starts daylight-saving time at the very instant the
    /// previous year's rule ends it (RFC 8536 §3.3.1's "daylight saving all
    /// year", `EST5EDT,0/0,J365/25`) changes nothing, so both changes are left out.
    public func transitions(inYear year: Int) -> [ZoneTransition] {
        guard let daylightSaving else { return [] }
        let (start, end) = evaluator.changeInstants(year: year)
        guard start != end else { return [] }
        let previous = evaluator.changeInstants(year: year - 1)
        let next = evaluator.changeInstants(year: year + 1)
        let startStays = start != previous.end && start != next.end
        let endStays = end != previous.start && end != next.start
        let toDaylight = ZoneTransition(
            instant: start, offsetBefore: standardOffset, offsetAfter: daylightSaving.offset,
            isDaylightSaving: true, abbreviation: daylightSaving.abbreviation)
        let toStandard = ZoneTransition(
            instant: end, offsetBefore: daylightSaving.offset, offsetAfter: standardOffset,
            isDaylightSaving: false, abbreviation: standardAbbreviation)
        var result: [ZoneTransition] = []
        result.reserveCapacity(2)
        for (transition, stays) in start < end
            ? [(toDaylight, startStays), (toStandard, endStays)] : [(toStandard, endStays), (toDaylight, startStays)]
        where stays {
            result.append(transition)
        }
        return result
    }
}

extension POSIXTimeZone: CustomStringConvertible {
    /// The TZ string in its shortest form: `CET-1CEST,M3.5.0,M10.5.0/3`,
    /// `<+0545>-5:45`. Parsing it gives back an equal value.
    public var description: String {
        var text = Self.name(standardAbbreviation) + Self.duration(-standardOffset.seconds)
        guard let daylightSaving else { return text }
        text += Self.name(daylightSaving.abbreviation)
        if daylightSaving.offset.seconds != standardOffset.seconds + 3600 {
            text += Self.duration(-daylightSaving.offset.seconds)
        }
        for rule in [daylightSaving.start, daylightSaving.end] {
            switch rule.day {
            case .julian(let n): text += ",J\(n)"
            case .zeroBasedDayOfYear(let n): text += ",\(n)"
            case .monthWeekday(let month, let week, let weekday): text += ",M\(month).\(week).\(weekday.rawValue % 7)"
            }
            if rule.time != 7200 { text += "/" + Self.duration(rule.time) }
        }
        return text
    }

    /// An abbreviation, quoted in `<>` unless it is three or more ASCII letters.
    private static func name(_ abbreviation: String) -> String {
        let isAlphabetic = abbreviation.utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }
        return isAlphabetic && abbreviation.utf8.count >= 3 ? abbreviation : "<\(abbreviation)>"
    }

    /// `[-]h[:mm[:ss]]`, the form of POSIX offsets and rule times.
    private static func duration(_ seconds: Int) -> String {
        let magnitude = abs(seconds)
        var text = (seconds < 0 ? "-" : "") + "\(magnitude / 3600)"
        if magnitude % 3600 != 0 { text += ":" + CivilFormat.twoDigits(magnitude / 60 % 60) }
        if magnitude % 60 != 0 { text += ":" + CivilFormat.twoDigits(magnitude % 60) }
        return text
    }
}

/// Reads a POSIX TZ string from its bytes, advancing an index by what it consumed.
struct POSIXTimeZoneParser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index == bytes.count }

    private var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard next == byte else { return false }
        index += 1
        return true
    }

    /// `std offset [dst [offset] [,start[/time],end[/time]]]`.
    mutating func zone() -> POSIXTimeZone? {
        guard let standardName = name(), let standardWest = duration(maximumHours: 24) else { return nil }
        let standardOffset = UTCOffset(seconds: -standardWest)
        if isAtEnd {
            return POSIXTimeZone(
                standardAbbreviation: standardName, standardOffset: standardOffset, daylightSaving: nil)
        }
        guard let daylightName = name() else { return nil }
        var daylightOffset = UTCOffset(seconds: standardOffset.seconds + 3600)
        if let byte = next, byte != UInt8(ascii: ",") {
            guard let west = duration(maximumHours: 24) else { return nil }
            daylightOffset = UTCOffset(seconds: -west)
        }
        var start = POSIXTimeZone.Rule(day: .monthWeekday(month: 3, week: 2, weekday: .sunday))
        var end = POSIXTimeZone.Rule(day: .monthWeekday(month: 11, week: 1, weekday: .sunday))
        if consume(UInt8(ascii: ",")) {
            guard let first = rule(), consume(UInt8(ascii: ",")), let second = rule() else { return nil }
            (start, end) = (first, second)
        }
        return POSIXTimeZone(
            standardAbbreviation: standardName, standardOffset: standardOffset,
            daylightSaving: .init(abbreviation: daylightName, offset: daylightOffset, start: start, end: end))
    }

    /// An abbreviation: three or more ASCII letters, or `<` one or more of
    /// `[A-Za-z0-9+-]` `>`.
    private mutating func name() -> String? {
        let begin = index
        if consume(UInt8(ascii: "<")) {
            while let byte = next, Self.isLetter(byte) || Self.isDigit(byte) || byte == 0x2B || byte == 0x2D {
                index += 1
            }
            let end = index
            guard end > begin + 1, consume(UInt8(ascii: ">")) else { return nil }
            return String(decoding: bytes[(begin + 1)..<end], as: UTF8.self)
        }
        while let byte = next, Self.isLetter(byte) { index += 1 }
        guard index - begin >= 3 else { return nil }
        return String(decoding: bytes[begin..<index], as: UTF8.self)
    }

    /// `[+|-]hh[:mm[:ss]]` in seconds, hours at most `maximumHours`.
    private mutating func duration(maximumHours: Int) -> Int? {
        var sign = 1
        if consume(UInt8(ascii: "-")) {
            sign = -1
        } else {
            _ = consume(UInt8(ascii: "+"))
        }
        guard let hours = number(maximumDigits: maximumHours > 99 ? 3 : 2), hours <= maximumHours else { return nil }
        var seconds = hours * 3600
        if consume(UInt8(ascii: ":")) {
            guard let minutes = number(maximumDigits: 2), minutes <= 59 else { return nil }
            seconds += minutes * 60
            if consume(UInt8(ascii: ":")) {
                guard let rest = number(maximumDigits: 2), rest <= 59 else { return nil }
                seconds += rest
            }
        }
        return sign * seconds
    }

    /// `Jn`, `n` or `Mm.w.d`, then an optional `/time`.
    private mutating func rule() -> POSIXTimeZone.Rule? {
        let day: POSIXTimeZone.Rule.Day
        if consume(UInt8(ascii: "J")) {
            guard let n = number(maximumDigits: 3), (1...365).contains(n) else { return nil }
            day = .julian(n)
        } else if consume(UInt8(ascii: "M")) {
            guard let month = number(maximumDigits: 2), (1...12).contains(month), consume(UInt8(ascii: ".")),
                let week = number(maximumDigits: 1), (1...5).contains(week), consume(UInt8(ascii: ".")),
                let weekday = number(maximumDigits: 1), weekday <= 6
            else { return nil }
            // POSIX numbers weekdays from Sunday = 0; ISO from Monday = 1 to Sunday = 7.
            day = .monthWeekday(month: month, week: week, weekday: Weekday(rawValue: weekday == 0 ? 7 : weekday)!)
        } else {
            guard let n = number(maximumDigits: 3), n <= 365 else { return nil }
            day = .zeroBasedDayOfYear(n)
        }
        guard consume(UInt8(ascii: "/")) else { return POSIXTimeZone.Rule(day: day) }
        guard let time = duration(maximumHours: 167) else { return nil }
        return POSIXTimeZone.Rule(day: day, time: time)
    }

    /// One to `maximumDigits` decimal digits.
    private mutating func number(maximumDigits: Int) -> Int? {
        var value = 0
        var count = 0
        while count < maximumDigits, let byte = next, Self.isDigit(byte) {
            value = value * 10 + Int(byte - 0x30)
            index += 1
            count += 1
        }
        return count > 0 ? value : nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
}

/// A POSIX TZ rule as plain integers: what lookups need, with nothing to
/// retain or release, so a lookup is arithmetic only.
struct POSIXRuleEvaluator: Sendable, Hashable {
    /// Seconds east of UTC in standard and in daylight-saving time.
    let standardOffset: Int
    let daylightOffset: Int
    /// `nil` without daylight-saving time.
    let start: POSIXTimeZone.Rule?
    let end: POSIXTimeZone.Rule?
    /// Whether every change of a year lands inside that UTC year, which lets
    /// a lookup look at one or two years instead of five.
    let staysInsideItsYear: Bool

    init(standardOffset: UTCOffset, daylightSaving: POSIXTimeZone.DaylightSaving?) {
        self.standardOffset = standardOffset.seconds
        self.daylightOffset = daylightSaving?.offset.seconds ?? standardOffset.seconds
        self.start = daylightSaving?.start
        self.end = daylightSaving?.end
        // True for month-week-day rules from February to November with times
        // within a week and offsets within two days: every rule in the IANA
        // database today. Changes then stay at least three weeks from New Year.
        func inside(_ rule: POSIXTimeZone.Rule) -> Bool {
            guard abs(rule.time) <= Self.maximumRuleTime else { return false }
            switch rule.day {
            case .monthWeekday(let month, _, _): return month >= 2 && month <= 11
            case .julian(let n): return n >= 10 && n <= 355
            case .zeroBasedDayOfYear(let n): return n >= 9 && n <= 354
            }
        }
        let rulesInside = daylightSaving.map { inside($0.start) && inside($0.end) } ?? true
        self.staysInsideItsYear =
            rulesInside && abs(self.standardOffset) <= 172_800 && abs(self.daylightOffset) <= 172_800
    }

    /// The largest rule time RFC 8536 allows, 167:59:59; larger ones are clamped to it.
    static let maximumRuleTime = 167 * 3600 + 59 * 60 + 59

    /// The offset (seconds east of UTC) at `instant`.
    @inline(__always)
    func offset(at instant: Int) -> Int {
        guard start != nil else { return standardOffset }
        return period(containing: instant).isDaylightSaving ? daylightOffset : standardOffset
    }

    /// The stretch of time around an instant during which the rules make no
    /// change: `start` is the latest change at or before the instant
    /// (`Int.min` when there is none), `end` the next change after it
    /// (`Int.max` when there is none).
    struct Period {
        var start: Int
        var end: Int
        var isDaylightSaving: Bool
    }

    /// The period containing `instant`: a handful of integer operations, no allocation.
    func period(containing instant: Int) -> Period {
        guard start != nil else { return Period(start: .min, end: .max, isDaylightSaving: false) }
        let year = ZoneMath.year(ofInstant: instant)
        if staysInsideItsYear {
            // The changes of consecutive years never interleave, so at most two
            // years are needed. Within a year the start comes first when
            // start <= end (so a tie leaves standard time).
            let (start, end) = changeInstants(year: year)
            let startsFirst = start <= end
            let (first, second) = startsFirst ? (start, end) : (end, start)
            if instant < first {
                let previous = changeInstants(year: year - 1)
                let previousStartsFirst = previous.start <= previous.end
                return Period(
                    start: previousStartsFirst ? previous.end : previous.start, end: first,
                    isDaylightSaving: !previousStartsFirst)
            }
            if instant < second {
                return Period(start: first, end: second, isDaylightSaving: startsFirst)
            }
            let next = changeInstants(year: year + 1)
            return Period(start: second, end: min(next.start, next.end), isDaylightSaving: !startsFirst)
        }
        // Rules near a year's ends (January, December, Julian days at the edges,
        // v3 times of up to a week) can push a change into the next or previous
        // year: look at the changes of five years and take the nearest ones.
        var latest = Int.min
        var latestIsDaylight = false
        var next = Int.max
        func consider(_ change: Int, isDaylight: Bool) {
            if change <= instant {
                // Changes arrive in sequence order, so at equal instants the later one wins.
                if change >= latest {
                    latest = change
                    latestIsDaylight = isDaylight
                }
            } else if change < next {
                next = change
            }
        }
        for candidateYear in (year - 2)...(year + 2) {
            let (start, end) = changeInstants(year: candidateYear)
            if start <= end {
                consider(start, isDaylight: true)
                consider(end, isDaylight: false)
            } else {
                consider(end, isDaylight: false)
                consider(start, isDaylight: true)
            }
        }
        return Period(start: latest, end: next, isDaylightSaving: latestIsDaylight)
    }

    /// The instants (Unix seconds) at which daylight-saving time starts and ends in `year`.
    func changeInstants(year: Int) -> (start: Int, end: Int) {
        guard let start, let end else { return (.max, .max) }
        // The rules repeat every 400 years; far years are folded into a near cycle.
        if year > 1_000_000 || year < -1_000_000 {
            let cycles = ZoneMath.floorDivide(year - 2000, 400)
            let near = changeInstants(year: year - cycles * 400)
            let (shift, overflow) = cycles.multipliedReportingOverflow(by: 146_097 * 86_400)
            if overflow { return cycles > 0 ? (.max, .max) : (.min, .min) }
            return (ZoneMath.add(near.start, shift), ZoneMath.add(near.end, shift))
        }
        let januaryFirst = ZoneMath.januaryFirst(year)
        let isLeap = CivilDate.isLeapYear(year)
        func instant(_ rule: POSIXTimeZone.Rule, offset: Int) -> Int {
            let time = min(max(rule.time, -Self.maximumRuleTime), Self.maximumRuleTime)
            let day = Self.day(of: rule.day, januaryFirst: januaryFirst, isLeap: isLeap)
            return ZoneMath.subtract(day * 86_400 + time, offset)
        }
        return (instant(start, offset: standardOffset), instant(end, offset: daylightOffset))
    }

    /// Days since the epoch of the day a rule names in the year starting on `januaryFirst`.
    static func day(of day: POSIXTimeZone.Rule.Day, januaryFirst: Int, isLeap: Bool) -> Int {
        switch day {
        case .julian(let n):
            let n = min(max(n, 1), 365)
            // February 29 is never counted, so from day 60 on a leap year is one day ahead.
            return januaryFirst + n - 1 + (n >= 60 && isLeap ? 1 : 0)
        case .zeroBasedDayOfYear(let n):
            return januaryFirst + min(max(n, 0), 365)
        case .monthWeekday(let month, let week, let weekday):
            let month = min(max(month, 1), 12)
            let week = min(max(week, 1), 5)
            // Days before the month in a common year: (367m - 362) / 12, less 2 from March on.
            let leapDay = isLeap && month > 2 ? 1 : 0
            let firstDay = januaryFirst + (367 * month - 362) / 12 - (month > 2 ? 2 : 0) + leapDay
            // ISO weekday of the first (1970-01-01, day 0, was a Thursday, 4).
            let firstWeekday = ((firstDay + 3) % 7 + 7) % 7 + 1
            var result = firstDay + (weekday.rawValue - firstWeekday + 7) % 7 + (week - 1) * 7
            // 31 days in odd months up to July and even months from August, 30 in the others.
            let length = month == 2 ? 28 + (isLeap ? 1 : 0) : 30 + ((month + month / 8) & 1)
            // Week 5 means the last such weekday, which may be the fourth.
            while result >= firstDay + length { result -= 7 }
            return result
        }
    }
}
