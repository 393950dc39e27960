import CivilTime

/// Typed reading and writing of property values (RFC 5545 §3.3).
///
/// Readers throw ``ICalendarError`` with code `invalidValue` when the value
/// is not of the asked type; the error names the property. Constructors
/// build a property whose value text and `VALUE=`/`TZID=` parameters say
/// exactly the typed value.
extension Property {
    /// The value type in force: `VALUE=` when given, else the property's default, else `.unknown`.
    public var valueType: ValueType {
        if let parameter = self[parameter: "VALUE"] { return ValueType(parameterValue: parameter) ?? .unknown }
        return PropertyKind.lookup(name)?.defaultType ?? .unknown
    }

    /// The `TZID` parameter, if any.
    public var tzid: String? { self[parameter: "TZID"] }

    private func invalid(_ expected: String) -> ICalendarError {
        ICalendarError(.invalidValue, "\(name) value \"\(value)\" is not \(expected)", property: name)
    }

    private func explicitType() -> ValueType? {
        self[parameter: "VALUE"].flatMap { ValueType(parameterValue: $0) }
    }

    // MARK: Text

    /// The value as TEXT, unescaped (`\n` becomes a newline, `\,` a comma).
    public func textValue() -> String { withValueBytes { TextEscaping.unescape($0) } }

    /// The items of a multi-valued TEXT property (CATEGORIES, RESOURCES), unescaped.
    public func textValues() -> [String] { withValueBytes { TextEscaping.splitList($0) } }

    /// A TEXT property; `text` is escaped as RFC 5545 §3.3.11 requires.
    public init(name: String, text: String, parameters: [Parameter] = []) {
        self.init(name: name, parameters: parameters, value: TextEscaping.escape(text))
    }

    /// A multi-valued TEXT property, each item escaped.
    public init(name: String, texts: [String], parameters: [Parameter] = []) {
        self.init(name: name, parameters: parameters, value: texts.map(TextEscaping.escape).joined(separator: ","))
    }

    // MARK: Dates and times

    /// The value as a DATE or DATE-TIME; `VALUE=DATE` or an eight-digit value is a DATE.
    public func dateTimeValue() throws(ICalendarError) -> DateTimeValue {
        let type = explicitType()
        let tzid = self.tzid
        guard let result = withValueBytes({ ValueSyntax.dateOrDateTime($0, type: type, tzid: tzid) }) else {
            throw invalid(type == .date ? "a DATE (YYYYMMDD)" : "a DATE-TIME (YYYYMMDDTHHMMSS[Z])")
        }
        return result
    }

    /// The comma-separated DATE or DATE-TIME values of EXDATE or RDATE.
    public func dateTimeValues() throws(ICalendarError) -> [DateTimeValue] {
        let type = explicitType()
        let tzid = self.tzid
        let values: [DateTimeValue]? = withValueBytes { bytes in
            var result: [DateTimeValue] = []
            for item in ValueSyntax.splitList(bytes, honoringEscapes: false) {
                guard let parsed = ValueSyntax.dateOrDateTime(item, type: type, tzid: tzid) else { return nil }
                result.append(parsed)
            }
            return result
        }
        guard let values else { throw invalid("a list of DATE or DATE-TIME values") }
        return values
    }

    /// The comma-separated PERIOD values of FREEBUSY or `RDATE;VALUE=PERIOD`.
    public func periodValues() throws(ICalendarError) -> [Period] {
        let tzid = self.tzid
        let values: [Period]? = withValueBytes { bytes in
            var result: [Period] = []
            for item in ValueSyntax.splitList(bytes, honoringEscapes: false) {
                guard let parsed = ValueSyntax.period(item, tzid: tzid) else { return nil }
                result.append(parsed)
            }
            return result
        }
        guard let values else { throw invalid("a list of PERIOD values (start/end or start/duration)") }
        return values
    }

    /// The value as a TIME (§3.3.12) and whether it is UTC.
    public func timeValue() throws(ICalendarError) -> (time: TimeOfDay, isUTC: Bool) {
        guard let result = withValueBytes({ ValueSyntax.time($0) }) else { throw invalid("a TIME (HHMMSS[Z])") }
        return (result.0, result.isUTC)
    }

    /// A DATE or DATE-TIME property: `VALUE=DATE` for a date, `TZID=` for a zoned time, `Z` for UTC.
    public init(name: String, dateTime: DateTimeValue, parameters: [Parameter] = []) {
        var parameters = parameters.filter { $0.name != "VALUE" && $0.name != "TZID" }
        if dateTime.isDate { parameters.insert(Parameter(uncheckedName: "VALUE", values: ["DATE"]), at: 0) }
        if let tzid = dateTime.tzid { parameters.insert(Parameter(uncheckedName: "TZID", values: [tzid]), at: 0) }
        self.init(name: name, parameters: parameters, value: dateTime.icalendarText)
    }

    /// An EXDATE or RDATE with several values; they must share one form (all dates, or one TZID).
    public init(name: String, dateTimes: [DateTimeValue], parameters: [Parameter] = []) {
        let first = dateTimes.first ?? DateTimeValue(date: CivilDate(year: 1970, month: 1, day: 1)!)
        self.init(name: name, dateTime: first, parameters: parameters)
        value = dateTimes.map(\.icalendarText).joined(separator: ",")
    }

    // MARK: Other value types

    /// The value as a DURATION (§3.3.6).
    public func durationValue() throws(ICalendarError) -> CalendarDuration {
        guard let result = withValueBytes({ ValueSyntax.duration($0) }) else {
            throw invalid("a DURATION such as PT15M or P1D, of at most 10,000 years")
        }
        return result
    }

    /// A DURATION property.
    public init(name: String, duration: CalendarDuration, parameters: [Parameter] = []) {
        self.init(name: name, parameters: parameters, value: duration.description)
    }

    /// The value as a RECUR rule (§3.3.10), read leniently (COUNT with UNTIL is accepted).
    public func recurrenceRule() throws(ICalendarError) -> RecurrenceRule {
        let result = withValueBytes { RecurrenceRule.parse($0, strict: false) }
        switch result {
        case .success(let rule): return rule
        case .failure(let problem):
            throw ICalendarError(.invalidValue, "invalid \(name): \(problem.message)", property: name)
        }
    }

    /// An RRULE (or EXRULE) property.
    public init(name: String = "RRULE", recurrenceRule: RecurrenceRule) {
        self.init(name: name, value: recurrenceRule.icalendarText)
    }

    /// The value as a UTC-OFFSET (§3.3.14).
    public func utcOffsetValue() throws(ICalendarError) -> UTCOffset {
        guard let result = withValueBytes({ ValueSyntax.utcOffset($0) }) else {
            throw invalid("a UTC offset such as +0100")
        }
        return result
    }

    /// The value as an INTEGER (§3.3.8).
    public func integerValue() throws(ICalendarError) -> Int {
        guard let result = withValueBytes({ ValueSyntax.integer($0) }) else { throw invalid("an INTEGER") }
        return result
    }

    /// The value as a FLOAT (§3.3.7).
    public func floatValue() throws(ICalendarError) -> Double {
        guard let result = withValueBytes({ ValueSyntax.float($0) }) else { throw invalid("a FLOAT") }
        return result
    }

    /// The value as a BOOLEAN (§3.3.2).
    public func booleanValue() throws(ICalendarError) -> Bool {
        guard let result = withValueBytes({ ValueSyntax.boolean($0) }) else { throw invalid("TRUE or FALSE") }
        return result
    }

    /// The value of GEO (§3.8.1.6).
    public func geoValue() throws(ICalendarError) -> GeoCoordinate {
        guard let result = withValueBytes({ ValueSyntax.geo($0) }) else { throw invalid("latitude;longitude") }
        return result
    }

    /// The value as a URI or CAL-ADDRESS (§3.3.13, §3.3.3), checked to have a scheme.
    public func uriValue() throws(ICalendarError) -> String {
        guard withValueBytes({ ValueSyntax.isURI($0) }) else { throw invalid("a URI") }
        return value
    }

    /// The decoded bytes of a BINARY value (§3.3.1, `ENCODING=BASE64`).
    public func binaryValue() throws(ICalendarError) -> [UInt8] {
        guard let decoded = withValueBytes({ Base64.decode($0) }) else { throw invalid("BASE64 data") }
        return decoded
    }

    /// A BINARY property (`ENCODING=BASE64;VALUE=BINARY`).
    public init(name: String, binary: [UInt8], parameters: [Parameter] = []) {
        let extra = parameters.filter { $0.name != "ENCODING" && $0.name != "VALUE" }
        self.init(
            name: name,
            parameters: [
                Parameter(uncheckedName: "ENCODING", values: ["BASE64"]),
                Parameter(uncheckedName: "VALUE", values: ["BINARY"]),
            ] + extra,
            value: Base64.encode(binary))
    }
}

/// Base64 (RFC 4648) for BINARY values, without Foundation.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(chunk >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(rest == 2 ? alphabet[Int(chunk >> 6 & 63)] : UInt8(ascii: "="))
            output.append(UInt8(ascii: "="))
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var values: [UInt8] = []
        var padding = 0
        for byte in text {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(byte - 65)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(byte - 71)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(byte + 4)
            case UInt8(ascii: "+"): values.append(62)
            case UInt8(ascii: "/"): values.append(63)
            case UInt8(ascii: "="): padding += 1
            default: return nil
            }
            if padding > 0 && byte != UInt8(ascii: "=") { return nil }
        }
        guard padding <= 2, (values.count + padding) % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index < values.count {
            let available = min(4, values.count - index)
            var chunk: UInt32 = 0
            for offset in 0..<4 { chunk = chunk << 6 | (offset < available ? UInt32(values[index + offset]) : 0) }
            output.append(UInt8(chunk >> 16 & 0xFF))
            if available > 2 { output.append(UInt8(chunk >> 8 & 0xFF)) }
            if available > 3 { output.append(UInt8(chunk & 0xFF)) }
            index += 4
        }
        return output
    }
}
