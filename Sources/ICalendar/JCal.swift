import CivilTime
import JSON

/// jCal, the JSON form of iCalendar (RFC 7265), in both directions.
///
/// A component becomes `[name, [properties], [components]]` and a property
/// `[name, {parameters}, type, value, …]`, names in lower case. Values take
/// their JSON shape from their type: dates as `2026-11-29`, date-times as
/// `2026-11-29T10:00:00Z`, recurrence rules as objects, integers and floats
/// as numbers, TEXT unescaped. Properties of unknown type keep their
/// iCalendar text as type `unknown`, so nothing is lost.
public enum JCal {
    // MARK: iCalendar → jCal

    /// The jCal form of a component and everything inside it.
    public static func json(for component: Component) throws(ICalendarError) -> JSONValue {
        .array([
            .string(component.name.lowercased()),
            .array(try component.properties.map { (property) throws(ICalendarError) in try json(for: property) }),
            .array(try component.components.map { (child) throws(ICalendarError) in try json(for: child) }),
        ])
    }

    /// The jCal form of a document: one component, or an array of them when there are several.
    public static func json(for document: ICalendarDocument) throws(ICalendarError) -> JSONValue {
        let values = try document.components.map { (component) throws(ICalendarError) in try json(for: component) }
        return values.count == 1 ? values[0] : .array(values)
    }

    /// The jCal form of one property.
    public static func json(for property: Property) throws(ICalendarError) -> JSONValue {
        let kind = PropertyKind.lookup(property.name)
        let type = property.valueType
        var parameters: [(key: String, value: JSONValue)] = []
        for parameter in property.parameters where parameter.name != "VALUE" {
            parameters.append(
                (
                    parameter.name.lowercased(),
                    parameter.values.count == 1
                        ? .string(parameter.values[0]) : .array(parameter.values.map(JSONValue.string))
                ))
        }
        var result: [JSONValue] = [
            .string(property.name.lowercased()), .object(parameters), .string(type.rawValue.lowercased()),
        ]
        func invalid() -> ICalendarError {
            ICalendarError(
                .invalidValue, "\(property.name) value \"\(property.value)\" is not a valid \(type.rawValue)",
                property: property.name)
        }
        switch kind?.shape {
        case .geo?:
            let geo = try property.geoValue()
            result.append(.array([.number(geo.latitude), .number(geo.longitude)]))
            return .array(result)
        case .requestStatus?:
            result.append(.array(property.withValueBytes { splitStructured($0) }.map { .string($0) }))
            return .array(result)
        default:
            break
        }
        let isList = kind?.shape == .list
        let items: [String] =
            if type == .text {
                isList ? property.textValues() : [property.textValue()]
            } else if isList || type == .date || type == .dateTime || type == .period {
                property.withValueBytes { bytes in
                    ValueSyntax.splitList(bytes, honoringEscapes: false).map { String(decoding: $0, as: UTF8.self) }
                }
            } else {
                [property.value]
            }
        for item in items {
            switch type {
            case .text, .binary, .uri, .calAddress, .unknown, .duration:
                result.append(.string(item))
            case .date, .dateTime:
                guard let value = item.withUTF8Bytes({ ValueSyntax.dateOrDateTime($0, type: type, tzid: nil) }) else {
                    throw invalid()
                }
                result.append(.string(jcalText(value)))
            case .time:
                guard let (time, isUTC) = item.withUTF8Bytes({ ValueSyntax.time($0) }) else { throw invalid() }
                result.append(.string(time.description + (isUTC ? "Z" : "")))
            case .period:
                guard let period = item.withUTF8Bytes({ ValueSyntax.period($0, tzid: nil) }) else { throw invalid() }
                switch period.end {
                case .dateTime(let end): result.append(.string(jcalText(period.start) + "/" + jcalText(end)))
                case .duration(let duration):
                    result.append(.string(jcalText(period.start) + "/" + duration.description))
                }
            case .utcOffset:
                guard let offset = item.withUTF8Bytes({ ValueSyntax.utcOffset($0) }) else { throw invalid() }
                let text = offset.description
                var jcal = String(text.prefix(3)) + ":" + String(text.dropFirst(3).prefix(2))
                if text.count > 5 { jcal += ":" + String(text.suffix(2)) }
                result.append(.string(jcal))
            case .integer:
                guard let integer = item.withUTF8Bytes({ ValueSyntax.integer($0) }) else { throw invalid() }
                result.append(.integer(integer))
            case .float:
                guard let float = item.withUTF8Bytes({ ValueSyntax.float($0) }) else { throw invalid() }
                result.append(.number(float))
            case .boolean:
                guard let boolean = item.withUTF8Bytes({ ValueSyntax.boolean($0) }) else { throw invalid() }
                result.append(.bool(boolean))
            case .recur:
                let rule = try property.recurrenceRule()
                result.append(json(for: rule))
            }
        }
        return .array(result)
    }

    /// The jCal object of a recurrence rule (RFC 7265 §3.6.10).
    public static func json(for rule: RecurrenceRule) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("freq", .string(rule.frequency.rawValue))]
        func numbers(_ key: String, _ values: [Int]) {
            guard !values.isEmpty else { return }
            members.append((key, values.count == 1 ? .integer(values[0]) : .array(values.map(JSONValue.integer))))
        }
        if let until = rule.until { members.append(("until", .string(jcalText(until)))) }
        if let count = rule.count { members.append(("count", .integer(count))) }
        if rule.interval != 1 { members.append(("interval", .integer(rule.interval))) }
        numbers("bysecond", rule.bySecond)
        numbers("byminute", rule.byMinute)
        numbers("byhour", rule.byHour)
        if !rule.byDay.isEmpty {
            let days = rule.byDay.map { JSONValue.string($0.description) }
            members.append(("byday", days.count == 1 ? days[0] : .array(days)))
        }
        numbers("bymonthday", rule.byMonthDay)
        numbers("byyearday", rule.byYearDay)
        numbers("byweekno", rule.byWeekNo)
        numbers("bymonth", rule.byMonth)
        numbers("bysetpos", rule.bySetPos)
        if let weekStart = rule.weekStart { members.append(("wkst", .string(weekStart.icalendarCode))) }
        for item in rule.extensions { members.append((item.name.lowercased(), .string(item.value))) }
        return .object(members)
    }

    static func jcalText(_ value: DateTimeValue) -> String {
        var text = value.date.description
        if let time = value.time {
            text += "T" + time.description
            if value.form == .utc { text += "Z" }
        }
        return text
    }

    /// Splits on unescaped `;` and unescapes each part (REQUEST-STATUS).
    static func splitStructured(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        var parts: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x5C {
                index += 2
                continue
            }
            if bytes[index] == 0x3B {
                parts.append(TextEscaping.unescape(UnsafeBufferPointer(rebasing: bytes[start..<index])))
                start = index + 1
            }
            index += 1
        }
        parts.append(TextEscaping.unescape(UnsafeBufferPointer(rebasing: bytes[min(start, bytes.count)..<bytes.count])))
        return parts
    }

    // MARK: jCal → iCalendar

    /// Reads jCal: one component (`["vcalendar", …]`) or an array of them.
    public static func document(from json: JSONValue) throws(ICalendarError) -> ICalendarDocument {
        guard case .array(let items) = json, !items.isEmpty else {
            throw ICalendarError(.invalidJCal, "expected a jCal component array such as [\"vcalendar\", [], []]")
        }
        if case .string = items[0] { return ICalendarDocument(components: [try component(from: json)]) }
        return ICalendarDocument(
            components: try items.map { (item) throws(ICalendarError) in try component(from: item) })
    }

    /// Reads jCal text.
    public static func document(fromJSON text: [UInt8]) throws(ICalendarError) -> ICalendarDocument {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: text)
        } catch {
            throw ICalendarError(.invalidJCal, "invalid JSON at byte \(error.offset + 1): \(error.message)")
        }
        return try document(from: json)
    }

    /// Reads one jCal component.
    public static func component(from json: JSONValue) throws(ICalendarError) -> Component {
        guard case .array(let items) = json, items.count == 3, case .string(let name) = items[0],
            case .array(let properties) = items[1], case .array(let children) = items[2]
        else {
            throw ICalendarError(.invalidJCal, "a jCal component is [name, [properties], [components]]")
        }
        guard isName(name) else { throw ICalendarError(.invalidJCal, "invalid component name \"\(name)\"") }
        let upper = name.uppercased()
        var component = Component(uncheckedName: upper)
        component.properties = try properties.map { (item) throws(ICalendarError) in try property(from: item, in: upper)
        }
        component.components = try children.map { (item) throws(ICalendarError) in try self.component(from: item) }
        return component
    }

    static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(ByteClass.isName)
    }

    /// Reads one jCal property.
    public static func property(from json: JSONValue, in componentName: String? = nil) throws(ICalendarError)
        -> Property
    {
        guard case .array(let items) = json, items.count >= 4, case .string(let rawName) = items[0],
            case .object(let parameterMembers) = items[1], case .string(let typeName) = items[2]
        else {
            throw ICalendarError(
                .invalidJCal, "a jCal property is [name, {parameters}, type, value, …]", component: componentName)
        }
        guard isName(rawName) else {
            throw ICalendarError(.invalidJCal, "invalid property name \"\(rawName)\"", component: componentName)
        }
        let name = rawName.uppercased()
        func fail(_ message: String) -> ICalendarError {
            ICalendarError(.invalidJCal, message, component: componentName, property: name)
        }
        var parameters: [Parameter] = []
        for member in parameterMembers {
            guard isName(member.key) else { throw fail("invalid parameter name \"\(member.key)\"") }
            switch member.value {
            case .string(let value):
                parameters.append(Parameter(uncheckedName: member.key.uppercased(), values: [value]))
            case .array(let values):
                var strings: [String] = []
                for value in values {
                    guard case .string(let string) = value else { throw fail("parameter values are strings") }
                    strings.append(string)
                }
                parameters.append(Parameter(uncheckedName: member.key.uppercased(), values: strings))
            default: throw fail("parameter \(member.key) must be a string or an array of strings")
            }
        }
        guard let type = ValueType(rawValue: typeName.uppercased()) else {
            throw fail("unknown value type \"\(typeName)\"")
        }
        let kind = PropertyKind.lookup(name)
        if type != .unknown, type != (kind?.defaultType ?? .unknown) {
            parameters.append(Parameter(uncheckedName: "VALUE", values: [type.rawValue]))
        }
        let values = Array(items[3...])
        switch kind?.shape {
        case .geo?:
            guard values.count == 1, case .array(let pair) = values[0], pair.count == 2,
                let latitude = number(pair[0]), let longitude = number(pair[1])
            else { throw fail("GEO is [latitude, longitude]") }
            return Property(
                uncheckedName: name, parameters: parameters,
                value: "\(JSONValue.numberText(latitude));\(JSONValue.numberText(longitude))")
        case .requestStatus?:
            guard values.count == 1, case .array(let parts) = values[0] else {
                throw fail("REQUEST-STATUS is an array of strings")
            }
            var texts: [String] = []
            for part in parts {
                guard case .string(let text) = part else { throw fail("REQUEST-STATUS is an array of strings") }
                texts.append(TextEscaping.escape(text))
            }
            return Property(uncheckedName: name, parameters: parameters, value: texts.joined(separator: ";"))
        default:
            break
        }
        var texts: [String] = []
        for value in values { texts.append(try icalendarText(value, type: type, fail: fail)) }
        return Property(uncheckedName: name, parameters: parameters, value: texts.joined(separator: ","))
    }

    static func controlMessage(_ scalar: Unicode.Scalar) -> String {
        "a value holds the control character \(ValueCharacters.name(of: scalar))"
    }

    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let integer): Double(integer)
        case .number(let number): number
        default: nil
        }
    }

    static func icalendarText(
        _ value: JSONValue, type: ValueType, fail: (String) -> ICalendarError
    ) throws(ICalendarError) -> String {
        switch (type, value) {
        case (.text, .string(let text)):
            // TEXT escapes line breaks; no other control character has a form in iCalendar.
            if let scalar = ValueCharacters.forbidden(in: text, allowingLineBreaks: true) {
                throw fail(controlMessage(scalar))
            }
            return TextEscaping.escape(text)
        case (.binary, .string(let text)), (.uri, .string(let text)), (.calAddress, .string(let text)),
            (.unknown, .string(let text)), (.duration, .string(let text)):
            // Written as they are, so they may hold no control character at all (a line break would start a line).
            if let scalar = ValueCharacters.forbidden(in: text, allowingLineBreaks: false) {
                throw fail(controlMessage(scalar))
            }
            return text
        case (.date, .string(let text)), (.dateTime, .string(let text)):
            guard let converted = dateTimeText(text, type: type) else {
                throw fail("\"\(text)\" is not a jCal \(type.rawValue.lowercased())")
            }
            return converted
        case (.time, .string(let text)):
            let compact = text.replacingAll(":", with: "")
            guard compact.withUTF8Bytes({ ValueSyntax.time($0) }) != nil else {
                throw fail("\"\(text)\" is not a jCal time")
            }
            return compact
        case (.period, .string(let text)):
            let halves = text.split(separator: "/", maxSplits: 1).map(String.init)
            guard halves.count == 2, let start = dateTimeText(halves[0], type: .dateTime) else {
                throw fail("\"\(text)\" is not a jCal period")
            }
            let end =
                halves[1].hasPrefix("P") || halves[1].hasPrefix("+") || halves[1].hasPrefix("-")
                ? halves[1] : dateTimeText(halves[1], type: .dateTime)
            guard let end else { throw fail("\"\(text)\" is not a jCal period") }
            return start + "/" + end
        case (.utcOffset, .string(let text)):
            let compact = text.replacingAll(":", with: "")
            guard compact.withUTF8Bytes({ ValueSyntax.utcOffset($0) }) != nil else {
                throw fail("\"\(text)\" is not a jCal utc-offset")
            }
            return compact
        case (.integer, .integer(let integer)): return String(integer)
        case (.float, let number):
            guard let double = JCal.number(number) else { throw fail("a float value must be a number") }
            return JSONValue.numberText(double)
        case (.boolean, .bool(let boolean)): return boolean ? "TRUE" : "FALSE"
        case (.recur, .object(let members)): return try recurText(members, fail: fail)
        default: throw fail("a \(type.rawValue.lowercased()) value cannot be \(value.jsonText)")
        }
    }

    /// `2026-11-29` → `20261129`; `2026-11-29T10:00:00Z` → `20261129T100000Z`.
    static func dateTimeText(_ text: String, type: ValueType) -> String? {
        let compact = text.replacingAll("-", with: "").replacingAll(":", with: "")
        let parsed = compact.withUTF8Bytes { ValueSyntax.dateOrDateTime($0, type: type, tzid: nil) }
        // The compacted form must be exactly what the dashes and colons hid.
        guard let parsed, jcalText(parsed) == text else { return nil }
        return compact
    }

    static func recurText(
        _ members: [(key: String, value: JSONValue)], fail: (String) -> ICalendarError
    ) throws(ICalendarError) -> String {
        var parts: [String] = []
        for member in members {
            let key = member.key.uppercased()
            var values: [JSONValue]
            if case .array(let list) = member.value { values = list } else { values = [member.value] }
            var texts: [String] = []
            for value in values {
                switch value {
                case .string(let text) where key == "UNTIL":
                    guard let converted = dateTimeText(text, type: text.count == 10 ? .date : .dateTime) else {
                        throw fail("\"\(text)\" is not a jCal until date")
                    }
                    texts.append(converted)
                case .string(let text): texts.append(text)
                case .integer(let integer): texts.append(String(integer))
                default: throw fail("recur part \(member.key) must hold strings or integers")
                }
            }
            parts.append(key + "=" + texts.joined(separator: ","))
        }
        let text = parts.joined(separator: ";")
        let problem = text.withUTF8Bytes { bytes -> String? in
            if case .failure(let failure) = RecurrenceRule.parse(bytes, strict: false) { return failure.message }
            return nil
        }
        if let problem { throw fail("invalid recur: \(problem)") }
        return text
    }
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
