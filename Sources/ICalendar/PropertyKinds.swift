/// What RFC 5545, RFC 7986 and RFC 7953 say about each known property: its
/// value type and the shape of its value. Unknown properties are not in the
/// table; they are kept and never validated.
struct PropertyKind: Sendable {
    /// How the value is laid out beyond its type.
    enum Shape: Sendable {
        /// One value.
        case single
        /// Comma-separated values (EXDATE, RDATE, CATEGORIES, FREEBUSY).
        case list
        /// `float;float` (GEO).
        case geo
        /// `code;description[;data]` (REQUEST-STATUS).
        case requestStatus
        /// `version` or `min;max` (VERSION).
        case version
    }

    var defaultType: ValueType
    /// The value types `VALUE=` may name, as a bit set over `ValueType.allCases`.
    var allowedMask: UInt32
    var shape: Shape = .single
    /// A single-valued text for people (SUMMARY): an unescaped `,` is an error.
    var isProse = false
    /// RFC 5545 requires the UTC form (DTSTAMP, CREATED, LAST-MODIFIED, COMPLETED).
    var requiresUTC = false
    /// The bit this property has in ``ComponentRules`` masks, if any rule names it.
    var bit: UInt64 = 0

    init(
        defaultType: ValueType, allowedTypes: [ValueType], shape: Shape = .single, isProse: Bool = false,
        requiresUTC: Bool = false
    ) {
        self.defaultType = defaultType
        self.allowedMask = allowedTypes.reduce(0) { $0 | $1.bit }
        self.shape = shape
        self.isProse = isProse
        self.requiresUTC = requiresUTC
    }

    func allows(_ type: ValueType) -> Bool { allowedMask & type.bit != 0 }

    var allowedTypes: [ValueType] { ValueType.allCases.filter(allows) }

    static func lookup(_ name: String) -> PropertyKind? { names.index(of: name).map { all[$0] } }

    /// Every known property's name, for byte-level lookups while parsing; ``all`` holds their kinds.
    static let names = NameTable(table.keys.sorted())
    /// The kinds in the order of ``names``.
    static let all = names.names.map { table[$0]! }

    private static let orderedBits: [String] = [
        "PRODID", "VERSION", "CALSCALE", "METHOD", "UID", "DTSTAMP", "DTSTART", "DTEND", "DURATION", "CLASS",
        "CREATED", "DESCRIPTION", "GEO", "LAST-MODIFIED", "LOCATION", "ORGANIZER", "PRIORITY", "SEQUENCE", "STATUS",
        "SUMMARY", "TRANSP", "URL", "RECURRENCE-ID", "DUE", "COMPLETED", "PERCENT-COMPLETE", "CONTACT", "TZID",
        "TZURL", "TZOFFSETFROM", "TZOFFSETTO", "ACTION", "TRIGGER", "REPEAT",
    ]

    static let durationBit = bit("DURATION")
    static let dtendBit = bit("DTEND")
    static let dueBit = bit("DUE")
    static let dtstartBit = bit("DTSTART")
    static let methodBit = bit("METHOD")

    static func bit(_ name: String) -> UInt64 {
        guard let index = orderedBits.firstIndex(of: name) else { preconditionFailure("no bit for \(name)") }
        return 1 << UInt64(index)
    }

    private static let table: [String: PropertyKind] = {
        let text = PropertyKind(defaultType: .text, allowedTypes: [.text])
        let prose = PropertyKind(defaultType: .text, allowedTypes: [.text], isProse: true)
        let textList = PropertyKind(defaultType: .text, allowedTypes: [.text], shape: .list)
        let dateOrTime = PropertyKind(defaultType: .dateTime, allowedTypes: [.dateTime, .date])
        let utcStamp = PropertyKind(defaultType: .dateTime, allowedTypes: [.dateTime], requiresUTC: true)
        let integer = PropertyKind(defaultType: .integer, allowedTypes: [.integer])
        let uri = PropertyKind(defaultType: .uri, allowedTypes: [.uri])
        let uriOrBinary = PropertyKind(defaultType: .uri, allowedTypes: [.uri, .binary])
        let address = PropertyKind(defaultType: .calAddress, allowedTypes: [.calAddress])
        let offset = PropertyKind(defaultType: .utcOffset, allowedTypes: [.utcOffset])
        let recur = PropertyKind(defaultType: .recur, allowedTypes: [.recur])
        var table: [String: PropertyKind] = [
            // RFC 5545 §3.7 calendar properties
            "CALSCALE": text, "METHOD": text, "PRODID": text,
            "VERSION": PropertyKind(defaultType: .text, allowedTypes: [.text], shape: .version),
            // §3.8.1 descriptive
            "ATTACH": uriOrBinary, "CATEGORIES": textList, "CLASS": text, "COMMENT": prose, "DESCRIPTION": prose,
            "GEO": PropertyKind(defaultType: .float, allowedTypes: [.float], shape: .geo),
            "LOCATION": prose, "PERCENT-COMPLETE": integer, "PRIORITY": integer, "RESOURCES": textList,
            "STATUS": text, "SUMMARY": prose,
            // §3.8.2 date and time
            "COMPLETED": utcStamp, "DTEND": dateOrTime, "DUE": dateOrTime, "DTSTART": dateOrTime,
            "DURATION": PropertyKind(defaultType: .duration, allowedTypes: [.duration]),
            "FREEBUSY": PropertyKind(defaultType: .period, allowedTypes: [.period], shape: .list),
            "TRANSP": text,
            // §3.8.3 time zone
            "TZID": text, "TZNAME": prose, "TZOFFSETFROM": offset, "TZOFFSETTO": offset, "TZURL": uri,
            // §3.8.4 relationship
            "ATTENDEE": address, "CONTACT": prose, "ORGANIZER": address, "RECURRENCE-ID": dateOrTime,
            "RELATED-TO": text, "URL": uri, "UID": text,
            // §3.8.5 recurrence
            "EXDATE": PropertyKind(defaultType: .dateTime, allowedTypes: [.dateTime, .date], shape: .list),
            "RDATE": PropertyKind(defaultType: .dateTime, allowedTypes: [.dateTime, .date, .period], shape: .list),
            "RRULE": recur, "EXRULE": recur,
            // §3.8.6 alarm
            "ACTION": text, "REPEAT": integer,
            "TRIGGER": PropertyKind(defaultType: .duration, allowedTypes: [.duration, .dateTime]),
            // §3.8.7 change management
            "CREATED": utcStamp, "DTSTAMP": utcStamp, "LAST-MODIFIED": utcStamp, "SEQUENCE": integer,
            // §3.8.8 miscellaneous
            "REQUEST-STATUS": PropertyKind(defaultType: .text, allowedTypes: [.text], shape: .requestStatus),
            // RFC 7986
            "NAME": prose, "REFRESH-INTERVAL": PropertyKind(defaultType: .duration, allowedTypes: [.duration]),
            "SOURCE": uri, "COLOR": text, "IMAGE": uriOrBinary, "CONFERENCE": uri,
            // RFC 7953
            "BUSYTYPE": text,
        ]
        for name in orderedBits { table[name]?.bit = bit(name) }
        return table
    }()
}

/// Which properties a component must have and may have only once
/// (docs/icalendar-diagnostics.md has the same table for people).
struct ComponentRules: Sendable {
    var required: [(name: String, bit: UInt64)]
    var once: UInt64
    var requiredMask: UInt64

    init(required: [String], once: [String]) {
        self.required = required.map { ($0, PropertyKind.bit($0)) }
        self.requiredMask = required.reduce(0) { $0 | PropertyKind.bit($1) }
        self.once = once.reduce(0) { $0 | PropertyKind.bit($1) }
    }

    /// The required properties whose bits are not in `seen`.
    func missing(from seen: UInt64) -> [String] {
        seen & requiredMask == requiredMask ? [] : required.filter { seen & $0.bit == 0 }.map(\.name)
    }

    static func lookup(_ name: String) -> ComponentRules? { names.index(of: name).map { all[$0] } }

    /// The names of the components that have rules; ``all`` holds the rules in the same order.
    static let names = NameTable(table.keys.sorted())
    static let all = names.names.map { table[$0]! }

    private static let table: [String: ComponentRules] = {
        let event = ComponentRules(
            required: ["UID", "DTSTAMP"],
            once: [
                "UID", "DTSTAMP", "DTSTART", "DTEND", "DURATION", "CLASS", "CREATED", "DESCRIPTION", "GEO",
                "LAST-MODIFIED", "LOCATION", "ORGANIZER", "PRIORITY", "SEQUENCE", "STATUS", "SUMMARY", "TRANSP",
                "URL", "RECURRENCE-ID",
            ])
        let todo = ComponentRules(
            required: ["UID", "DTSTAMP"],
            once: [
                "UID", "DTSTAMP", "DTSTART", "DUE", "DURATION", "CLASS", "COMPLETED", "CREATED", "DESCRIPTION",
                "GEO", "LAST-MODIFIED", "LOCATION", "ORGANIZER", "PERCENT-COMPLETE", "PRIORITY", "SEQUENCE",
                "STATUS", "SUMMARY", "URL", "RECURRENCE-ID",
            ])
        let journal = ComponentRules(
            required: ["UID", "DTSTAMP"],
            once: [
                "UID", "DTSTAMP", "DTSTART", "CLASS", "CREATED", "LAST-MODIFIED", "ORGANIZER", "SEQUENCE", "STATUS",
                "SUMMARY", "URL", "RECURRENCE-ID",
            ])
        let freeBusy = ComponentRules(
            required: ["UID", "DTSTAMP"], once: ["UID", "DTSTAMP", "DTSTART", "DTEND", "ORGANIZER", "URL", "CONTACT"])
        let observance = ComponentRules(
            required: ["DTSTART", "TZOFFSETFROM", "TZOFFSETTO"], once: ["DTSTART", "TZOFFSETFROM", "TZOFFSETTO"])
        return [
            "VCALENDAR": ComponentRules(
                required: ["PRODID", "VERSION"], once: ["PRODID", "VERSION", "CALSCALE", "METHOD"]),
            "VEVENT": event, "VTODO": todo, "VJOURNAL": journal, "VFREEBUSY": freeBusy,
            "VTIMEZONE": ComponentRules(required: ["TZID"], once: ["TZID", "LAST-MODIFIED", "TZURL"]),
            "STANDARD": observance, "DAYLIGHT": observance,
            "VALARM": ComponentRules(
                required: ["ACTION", "TRIGGER"], once: ["ACTION", "TRIGGER", "DURATION", "REPEAT"]),
        ]
    }()
}

/// Checks a value against its property's type; the parser turns a problem into a diagnostic.
enum ValueValidation {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// The first problem in `value`, as a byte offset and a message, or `nil`.
    static func problem(in value: Bytes, kind: PropertyKind, type explicitType: ValueType?) -> (
        offset: Int, message: String
    )? {
        let type = explicitType ?? kind.defaultType
        if let explicitType, explicitType != .unknown, !kind.allows(explicitType) {
            return (
                0,
                "VALUE=\(explicitType.rawValue) is not allowed here; expected "
                    + kind.allowedTypes.map(\.rawValue).joined(separator: " or ")
            )
        }
        switch kind.shape {
        case .geo:
            return ValueSyntax.geo(value) == nil ? (0, "expected GEO as latitude;longitude (two FLOAT values)") : nil
        case .requestStatus:
            guard let first = value.first, ValueSyntax.digit(first) != nil else {
                return (0, "expected REQUEST-STATUS as code;description, such as 2.0;Success")
            }
            return nil
        case .version:
            return value.isEmpty ? (0, "VERSION must not be empty") : nil
        case .single:
            return problem(inItem: value, type: type, kind: kind, singleProse: kind.isProse)
        case .list:
            if type == .text {
                return problem(inItem: value, type: .text, kind: kind, singleProse: false)
            }
            var offset = 0
            for item in ValueSyntax.splitList(value, honoringEscapes: false) {
                if let found = problem(inItem: item, type: type, kind: kind, singleProse: false) {
                    return (offset + found.offset, found.message)
                }
                offset += item.count + 1
            }
            return nil
        }
    }

    private static func problem(
        inItem value: Bytes, type: ValueType, kind: PropertyKind, singleProse: Bool
    ) -> (offset: Int, message: String)? {
        switch type {
        case .text:
            return TextEscaping.problem(in: value, singleValued: singleProse)
        case .date:
            return ValueSyntax.date(value) == nil ? (0, "expected a DATE as YYYYMMDD") : nil
        case .dateTime:
            guard let (_, isUTC) = ValueSyntax.dateTime(value) else {
                return (0, "expected a DATE-TIME as YYYYMMDDTHHMMSS, with a trailing Z for UTC")
            }
            if kind.requiresUTC && !isUTC { return (0, "this property must be in UTC (YYYYMMDDTHHMMSSZ)") }
            return nil
        case .duration:
            return ValueSyntax.duration(value) == nil
                ? (0, "expected a DURATION such as PT15M, -PT1H, P1D or P1W, of at most 10,000 years") : nil
        case .period:
            return ValueSyntax.period(value, tzid: nil) == nil
                ? (0, "expected a PERIOD as start/end or start/duration") : nil
        case .recur:
            // Always the strict reading: in lenient mode the problem becomes a warning, not silence.
            if case .failure(let failure) = RecurrenceRule.parse(value, strict: true) {
                return (failure.offset, "invalid RRULE: " + failure.message)
            }
            return nil
        case .utcOffset:
            return ValueSyntax.utcOffset(value) == nil ? (0, "expected a UTC offset such as +0100 or -0530") : nil
        case .integer:
            return ValueSyntax.integer(value) == nil ? (0, "expected an INTEGER") : nil
        case .float:
            return ValueSyntax.float(value) == nil ? (0, "expected a FLOAT") : nil
        case .boolean:
            return ValueSyntax.boolean(value) == nil ? (0, "expected TRUE or FALSE") : nil
        case .uri, .calAddress:
            return ValueSyntax.isURI(value) ? nil : (0, "expected a URI such as mailto:someone@example.com")
        case .time:
            return ValueSyntax.time(value) == nil ? (0, "expected a TIME as HHMMSS") : nil
        case .binary, .unknown:
            return nil
        }
    }

}

extension ValueType {
    /// This type's bit in ``PropertyKind/allowedMask``.
    var bit: UInt32 { 1 << UInt32(ValueType.allCases.firstIndex(of: self)!) }
}

/// The parameter names of RFC 5545, RFC 6638 and RFC 7986, so the parser
/// names a known parameter with a shared string instead of making one.
enum ParameterName {
    static let names = NameTable([
        "ALTREP", "CN", "CUTYPE", "DELEGATED-FROM", "DELEGATED-TO", "DIR", "DISPLAY", "EMAIL", "ENCODING", "FBTYPE",
        "FEATURE", "FMTTYPE", "LABEL", "LANGUAGE", "MEMBER", "PARTSTAT", "RANGE", "RELATED", "RELTYPE", "ROLE", "RSVP",
        "SCHEDULE-AGENT", "SCHEDULE-FORCE-SEND", "SCHEDULE-STATUS", "SENT-BY", "TZID", "VALUE",
    ])
    /// The index of `VALUE`, which the parser acts on.
    static let valueIndex = names.index(of: "VALUE")!
}

/// `BEGIN` and `END`: content lines that open and close components rather than name properties.
enum StructureName {
    static let names = NameTable(["BEGIN", "END"])
    static let begin = 0
    static let end = 1
}
