import CivilTime

/// The value types of RFC 5545 §3.3, named as they are in `VALUE=`.
public enum ValueType: String, Sendable, Hashable, CaseIterable {
    case binary = "BINARY"
    case boolean = "BOOLEAN"
    case calAddress = "CAL-ADDRESS"
    case date = "DATE"
    case dateTime = "DATE-TIME"
    case duration = "DURATION"
    case float = "FLOAT"
    case integer = "INTEGER"
    case period = "PERIOD"
    case recur = "RECUR"
    case text = "TEXT"
    case time = "TIME"
    case uri = "URI"
    case utcOffset = "UTC-OFFSET"
    /// A property whose type is not known (an `X-` property without `VALUE=`); RFC 7265 calls it `unknown`.
    case unknown = "UNKNOWN"

    /// Reads a `VALUE=` parameter value, ignoring case; `nil` for a type RFC 5545 does not define.
    public init?(parameterValue: String) {
        self.init(rawValue: parameterValue.uppercased())
    }
}

/// How a DATE-TIME's wall clock relates to an instant (RFC 5545 §3.3.5).
public enum DateTimeForm: Sendable, Hashable {
    /// No zone: the same wall-clock time wherever the viewer is (form #1).
    case floating
    /// Coordinated Universal Time, written with a trailing `Z` (form #2).
    case utc
    /// Local time in the zone named by the `TZID` parameter (form #3).
    case zoned(tzid: String)
}

/// A DATE or DATE-TIME value (RFC 5545 §3.3.4, §3.3.5).
public struct DateTimeValue: Sendable, Hashable {
    /// The date.
    public var date: CivilDate
    /// The time of day; `nil` for a DATE value (an all-day date).
    public var time: TimeOfDay?
    /// Floating, UTC or zoned; a DATE is always `.floating`.
    public var form: DateTimeForm

    /// A DATE value.
    public init(date: CivilDate) {
        self.date = date
        self.time = nil
        self.form = .floating
    }

    /// A DATE-TIME value.
    public init(_ dateTime: CivilDateTime, form: DateTimeForm) {
        self.date = dateTime.date
        self.time = dateTime.time
        self.form = form
    }

    /// Whether this is a DATE (no time of day).
    public var isDate: Bool { time == nil }

    /// The wall-clock date-time; midnight for a DATE.
    public var civil: CivilDateTime { CivilDateTime(date: date, time: time ?? .midnight) }

    /// The `TZID` of a zoned value.
    public var tzid: String? {
        if case .zoned(let tzid) = form { return tzid }
        return nil
    }

    /// The iCalendar text of the value: `20261129`, `20261129T100000`, `20261129T100000Z`.
    public var icalendarText: String {
        var text = ValueFormat.date(date)
        if let time {
            text += "T" + ValueFormat.time(time)
            if form == .utc { text += "Z" }
        }
        return text
    }
}

/// A PERIOD value (RFC 5545 §3.3.9): a start and either an end or a duration.
public struct Period: Sendable, Hashable {
    public enum End: Sendable, Hashable {
        case dateTime(DateTimeValue)
        case duration(CalendarDuration)
    }

    public var start: DateTimeValue
    public var end: End

    public init(start: DateTimeValue, end: End) {
        self.start = start
        self.end = end
    }

    /// `start/end` or `start/duration`.
    public var icalendarText: String {
        switch end {
        case .dateTime(let value): start.icalendarText + "/" + value.icalendarText
        case .duration(let duration): start.icalendarText + "/" + duration.description
        }
    }
}

/// A GEO value (RFC 5545 §3.8.1.6): latitude and longitude in degrees.
public struct GeoCoordinate: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

enum ValueFormat {
    static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    static func date(_ date: CivilDate) -> String {
        digits(date.year, 4) + digits(date.month, 2) + digits(date.day, 2)
    }

    static func time(_ time: TimeOfDay) -> String {
        digits(time.hour, 2) + digits(time.minute, 2) + digits(time.second, 2)
    }
}

/// Scanners for value syntax, over bytes. They accept exactly the RFC 5545
/// grammar and return `nil` for anything else; callers turn `nil` into a
/// located diagnostic.
enum ValueSyntax {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    @inline(__always)
    static func digit(_ byte: UInt8) -> Int? {
        byte >= 0x30 && byte <= 0x39 ? Int(byte - 0x30) : nil
    }

    /// A run of exactly `count` digits at `start`.
    @inline(__always)
    static func number(_ bytes: Bytes, _ start: Int, _ count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var value = 0
        for index in start..<(start + count) {
            guard let digit = digit(bytes[index]) else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// `YYYYMMDD`.
    static func date(_ bytes: Bytes) -> CivilDate? {
        guard bytes.count == 8 else { return nil }
        return date(bytes, at: 0)
    }

    static func date(_ bytes: Bytes, at start: Int) -> CivilDate? {
        guard let year = number(bytes, start, 4), let month = number(bytes, start + 4, 2),
            let day = number(bytes, start + 6, 2)
        else { return nil }
        return CivilDate(year: year, month: month, day: day)
    }

    /// `HHMMSS` at `start`.
    static func time(_ bytes: Bytes, at start: Int) -> TimeOfDay? {
        guard let hour = number(bytes, start, 2), let minute = number(bytes, start + 2, 2),
            let second = number(bytes, start + 4, 2)
        else { return nil }
        return TimeOfDay(hour: hour, minute: minute, second: second)
    }

    /// `HHMMSS` or `HHMMSSZ`.
    static func time(_ bytes: Bytes) -> (TimeOfDay, isUTC: Bool)? {
        guard bytes.count == 6 || (bytes.count == 7 && bytes[6] == UInt8(ascii: "Z")),
            let time = time(bytes, at: 0)
        else { return nil }
        return (time, bytes.count == 7)
    }

    /// `YYYYMMDDTHHMMSS` or `YYYYMMDDTHHMMSSZ`.
    static func dateTime(_ bytes: Bytes) -> (CivilDateTime, isUTC: Bool)? {
        guard bytes.count == 15 || (bytes.count == 16 && bytes[15] == UInt8(ascii: "Z")),
            bytes[8] == UInt8(ascii: "T"),
            let date = date(bytes, at: 0), let time = time(bytes, at: 9)
        else { return nil }
        return (CivilDateTime(date: date, time: time), bytes.count == 16)
    }

    /// A DATE or DATE-TIME, as `type` says; with `type == nil` the form decides
    /// (eight digits is a DATE), which is how lenient readers treat a missing `VALUE=DATE`.
    static func dateOrDateTime(_ bytes: Bytes, type: ValueType?, tzid: String?) -> DateTimeValue? {
        if type == .date || (type == nil && bytes.count == 8) {
            return date(bytes).map(DateTimeValue.init(date:))
        }
        guard let (civil, isUTC) = dateTime(bytes) else { return nil }
        if isUTC { return DateTimeValue(civil, form: .utc) }
        if let tzid { return DateTimeValue(civil, form: .zoned(tzid: tzid)) }
        return DateTimeValue(civil, form: .floating)
    }

    /// `[+/-]P…` (§3.3.6). Accepts `PnW`, `PnD`, `PnDTnHnMnS`, `PTnHnMnS` and
    /// each time unit alone or in H, M, S order.
    static func duration(_ bytes: Bytes) -> CalendarDuration? {
        var index = 0
        var result = CalendarDuration()
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            result.isNegative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "p") else { return nil }
        index += 1
        var inTime = false
        var sawUnit = false
        var lastRank = 0  // W=1, D=2, H=3, M=4, S=5: units must ascend
        var sawWeek = false
        while index < bytes.count {
            if bytes[index] | 0x20 == UInt8(ascii: "t") {
                guard !inTime, !sawWeek else { return nil }
                inTime = true
                index += 1
                guard index < bytes.count else { return nil }
                continue
            }
            var value = 0
            let digitsStart = index
            while index < bytes.count, let digit = digit(bytes[index]) {
                value = value &* 10 &+ digit
                guard value <= 999_999_999 else { return nil }
                index += 1
            }
            guard index > digitsStart, index < bytes.count else { return nil }
            let unit = bytes[index] | 0x20
            index += 1
            let rank: Int
            switch (unit, inTime) {
            case (UInt8(ascii: "w"), false):
                rank = 1
                result.weeks = value
                sawWeek = true
            case (UInt8(ascii: "d"), false):
                rank = 2
                result.days = value
            case (UInt8(ascii: "h"), true):
                rank = 3
                result.hours = value
            case (UInt8(ascii: "m"), true):
                rank = 4
                result.minutes = value
            case (UInt8(ascii: "s"), true):
                rank = 5
                result.seconds = value
            default: return nil
            }
            guard rank > lastRank, !(sawWeek && rank > 1) else { return nil }
            lastRank = rank
            sawUnit = true
        }
        // "PT" with nothing after it, or "P" alone, is not a duration.
        guard sawUnit, !(inTime && lastRank < 3) else { return nil }
        // Each field is below 10^9, so this sum cannot overflow.
        guard abs(result.secondsAssumingUniformDays) <= CalendarDuration.maxSeconds else { return nil }
        return result
    }

    /// `+HHMM` or `+HHMMSS` (§3.3.14); `-0000` is not allowed.
    static func utcOffset(_ bytes: Bytes) -> UTCOffset? {
        guard bytes.count == 5 || bytes.count == 7 else { return nil }
        let sign: Int
        switch bytes[0] {
        case UInt8(ascii: "+"): sign = 1
        case UInt8(ascii: "-"): sign = -1
        default: return nil
        }
        guard let hours = number(bytes, 1, 2), let minutes = number(bytes, 3, 2), minutes < 60 else { return nil }
        var seconds = 0
        if bytes.count == 7 {
            guard let value = number(bytes, 5, 2), value < 60 else { return nil }
            seconds = value
        }
        let total = hours * 3600 + minutes * 60 + seconds
        if sign < 0 && total == 0 { return nil }
        return UTCOffset(seconds: sign * total)
    }

    /// `[+/-]digits`, within the 32-bit range RFC 5545 §3.3.8 gives.
    static func integer(_ bytes: Bytes) -> Int? {
        var index = 0
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < bytes.count else { return nil }
        var value = 0
        while index < bytes.count {
            guard let digit = digit(bytes[index]) else { return nil }
            value = value * 10 + digit
            guard value <= 2_147_483_648 else { return nil }
            index += 1
        }
        value = negative ? -value : value
        return value <= 2_147_483_647 ? value : nil
    }

    /// `[+/-]digits[.digits]` (§3.3.7).
    static func float(_ bytes: Bytes) -> Double? {
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while index < bytes.count, digit(bytes[index]) != nil { index += 1 }
        guard index > integerStart else { return nil }
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: ".") else { return nil }
            index += 1
            let fractionStart = index
            while index < bytes.count, digit(bytes[index]) != nil { index += 1 }
            guard index > fractionStart, index == bytes.count else { return nil }
        }
        return Double(String(decoding: bytes, as: UTF8.self))
    }

    /// `TRUE` or `FALSE`, any case.
    static func boolean(_ bytes: Bytes) -> Bool? {
        switch String(decoding: bytes, as: UTF8.self).uppercased() {
        case "TRUE": true
        case "FALSE": false
        default: nil
        }
    }

    /// `float;float`, the GEO property.
    static func geo(_ bytes: Bytes) -> GeoCoordinate? {
        guard let split = bytes.firstIndex(of: UInt8(ascii: ";")),
            let latitude = float(Bytes(rebasing: bytes[..<split])),
            let longitude = float(Bytes(rebasing: bytes[(split + 1)...]))
        else { return nil }
        return GeoCoordinate(latitude: latitude, longitude: longitude)
    }

    /// `start/end` or `start/duration`; the start must be a DATE-TIME.
    static func period(_ bytes: Bytes, tzid: String?) -> Period? {
        guard let split = bytes.firstIndex(of: UInt8(ascii: "/")),
            let start = dateOrDateTime(Bytes(rebasing: bytes[..<split]), type: .dateTime, tzid: tzid)
        else { return nil }
        let rest = Bytes(rebasing: bytes[(split + 1)...])
        if let first = rest.first,
            first == UInt8(ascii: "P") || first == UInt8(ascii: "+") || first == UInt8(ascii: "-")
                || first == UInt8(ascii: "p")
        {
            guard let duration = duration(rest), !duration.isNegative else { return nil }
            return Period(start: start, end: .duration(duration))
        }
        guard let end = dateOrDateTime(rest, type: .dateTime, tzid: tzid) else { return nil }
        return Period(start: start, end: .dateTime(end))
    }

    /// A URI: a scheme (`ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`) then `:` (RFC 3986 §3.1).
    static func isURI(_ bytes: Bytes) -> Bool {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return false }
        for index in 0..<colon {
            let byte = bytes[index]
            let isAlpha = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            if index == 0 ? !isAlpha : !(isAlpha || digit(byte) != nil || byte == 0x2B || byte == 0x2D || byte == 0x2E)
            {
                return false
            }
        }
        return true
    }

    /// Splits a list value on unescaped commas (TEXT lists keep `\,` inside an item).
    static func splitList(_ bytes: Bytes, honoringEscapes: Bool) -> [Bytes] {
        var parts: [Bytes] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if honoringEscapes && byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: ",") {
                parts.append(Bytes(rebasing: bytes[start..<index]))
                start = index + 1
            }
            index += 1
        }
        parts.append(Bytes(rebasing: bytes[start..<min(index, bytes.count)]))
        return parts
    }
}

extension String {
    /// Runs `body` over the UTF-8 bytes of this string without copying when possible.
    func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        return try Array(utf8).withUnsafeBufferPointer(body)
    }
}
