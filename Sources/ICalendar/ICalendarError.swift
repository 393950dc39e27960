/// A problem found in iCalendar data: where it is, what is wrong, and what
/// was expected.
///
/// The same type describes errors (which make strict parsing fail) and
/// warnings (what lenient parsing recovered from). `docs/icalendar-diagnostics.md`
/// lists every code, when each mode raises it, and where it is reported.
public struct ICalendarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. The raw values are stable.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case invalidUTF8
        case invalidLineEnding
        case missingColon
        case invalidName
        case invalidParameter
        case unterminatedQuote
        case mismatchedEnd
        case unclosedComponent
        case propertyOutsideComponent
        case notCalendar
        case emptyLine
        case invalidValue
        /// A control character other than HTAB in a value (RFC 5545 §3.1); lenient mode
        /// keeps it with a warning, ``AcceptancePolicy`` refuses it.
        case controlCharacter
        /// A TEXT escape other than `\\ \; \, \n \N`, or a lone trailing backslash
        /// (RFC 5545 §3.3.11); lenient mode keeps it with a warning, ``AcceptancePolicy``
        /// refuses it.
        case invalidEscape
        case missingProperty
        case duplicateProperty
        case conflictingProperties
        case limitExceeded
        case emptyInput
        /// jCal input that is not the JSON shape RFC 7265 describes.
        case invalidJCal
        /// Lenient mode rewrote a near-miss value into the form RFC 5545 requires
        /// (a DATE-TIME without seconds, an RRULE part that is invalid beside a valid one).
        case repairedValue
        /// Lenient mode dropped a property that carries nothing (an empty `RRULE:`).
        case droppedProperty
        /// Lenient mode read a content line past whitespace around its name, `;` and `=`,
        /// or past a backslash escape in a parameter value.
        case repairedLine
        /// Lenient mode read a misspelt `END` (`END:VTOOD`) as closing the open component.
        case misspeltEnd
        /// Floating times read in the zone a calendar names with `X-WR-TIMEZONE`.
        case calendarTimeZone
        /// A second component of one kind with the UID and RECURRENCE-ID of an earlier
        /// one (two masters of one series); found by `ObjectChecks`, not the parser.
        case duplicateComponent
        /// A DTEND or DUE before DTSTART, or of another value type (RFC 5545 §3.8.2.2);
        /// found by `ObjectChecks`, not the parser.
        case endBeforeStart
        /// An override (RECURRENCE-ID) of an instance an EXDATE removes: kept, not shown;
        /// found by `ObjectChecks`, always a warning.
        case excludedOverride
    }

    /// Whether the problem stopped (or would stop) a parse.
    public enum Severity: String, Sendable, Hashable {
        case error, warning
    }

    public var code: Code
    public var severity: Severity
    /// 1-based physical line of the input; `nil` when the problem is not tied to input
    /// (a typed accessor called on a property built in code).
    public var line: Int?
    /// 1-based byte offset in that line; `nil` when the whole line or component is meant.
    public var column: Int?
    /// The innermost component involved (`VEVENT`), if any.
    public var component: String?
    /// The property involved (`DTSTART`), if any.
    public var property: String?
    /// What is wrong and what was expected, in a sentence for people.
    public var message: String

    public init(
        _ code: Code, _ message: String, severity: Severity = .error, line: Int? = nil, column: Int? = nil,
        component: String? = nil, property: String? = nil
    ) {
        self.code = code
        self.severity = severity
        self.line = line
        self.column = column
        self.component = component
        self.property = property
        self.message = message
    }

    /// `LINE:COLUMN: message (in VEVENT, property DTSTART)`, the form tools print after a file name.
    public var description: String {
        var text = ""
        if let line {
            text += "\(line):"
            if let column { text += "\(column):" }
            text += " "
        }
        text += severity == .warning ? "warning: " : ""
        text += message
        var context: [String] = []
        if let property { context.append("property \(property)") }
        if let component { context.append("in \(component)") }
        if !context.isEmpty { text += " (" + context.joined(separator: ", ") + ")" }
        text += " [\(code.rawValue)]"
        return text
    }
}
