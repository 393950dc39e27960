/// What Almanac accepts as iCalendar to store: RFC 5545, strictly, with documented
/// repairs.
///
/// Every write path uses this one policy — a CalDAV PUT, `almanac import`, and
/// `almanac ics check` in its default mode — so a file the check accepts is one a
/// PUT stores, and the reverse. The input is read the lenient way, and each
/// diagnostic is then either a **repair** the policy accepts (reported as a
/// warning) or a **refusal** (an error, with the line the parser found it on).
///
/// Accepted: the near-misses real producers write whose meaning is clear —
/// `repairedValue` (a DATE-TIME without seconds, an RRULE part invalid beside valid
/// ones, a DURATION such as `P1DT` whose `T` nothing follows), `droppedProperty`,
/// `repairedLine`, `missingColon`, `misspeltEnd`, `invalidLineEnding`, `emptyLine`,
/// a missing `END:VCALENDAR`, `missingProperty`, `duplicateProperty`,
/// `conflictingProperties`, an unescaped `,` or `;` in single-valued TEXT, and a value
/// of a property that places nothing in time that does not match its type (kept as
/// sent).
///
/// Refused: what a reader could misread or that corrupts text —
/// ``ICalendarError/Code/controlCharacter`` (§3.1), ``ICalendarError/Code/invalidEscape``
/// (§3.3.11), broken nesting, invalid UTF-8, a bare component outside VCALENDAR, and
/// an invalid DTSTART, DTEND, DUE, DURATION, RRULE, EXRULE, RDATE, EXDATE,
/// RECURRENCE-ID, UID or TRIGGER. `docs/icalendar-diagnostics.md` lists each.
public enum AcceptancePolicy {
    /// Parses `bytes` under the policy: the document when nothing is refused, and every
    /// diagnostic in the order found, the refused ones as errors.
    public static func check(_ bytes: [UInt8], limits: ParseOptions.Limits = ParseOptions.Limits())
        -> ICalendarCheckResult
    {
        var result = ICalendarParser.check(bytes, options: ParseOptions(mode: .lenient, limits: limits))
        var refused = false
        for index in result.diagnostics.indices where refuses(result.diagnostics[index]) {
            result.diagnostics[index].severity = .error
            refused = true
        }
        if refused { result.document = nil }
        return result
    }

    /// Whether the policy refuses what lenient reading reported: an error, something that
    /// corrupts a value's text, or something a reader could misread (``misleads(_:)``).
    public static func refuses(_ diagnostic: ICalendarError) -> Bool {
        if diagnostic.severity == .error { return true }
        switch diagnostic.code {
        case .controlCharacter, .invalidEscape: return true
        default: return misleads(diagnostic)
        }
    }

    /// The properties that place an instance in time or name it: an invalid one is
    /// read differently by every reader, so it is refused rather than kept.
    public static let timingProperties: Set<String> = [
        "DTSTART", "DTEND", "DUE", "DURATION", "RRULE", "EXRULE", "RDATE", "EXDATE", "RECURRENCE-ID", "UID", "TRIGGER",
    ]

    /// Whether a lenient recovery could make a reader misread the object: broken nesting
    /// (only a missing `END:VCALENDAR` after complete components loses nothing), invalid
    /// UTF-8, a bare component outside VCALENDAR, an unreadable time or rule. A store
    /// reading bytes it already holds refuses only these, so objects stored under an
    /// earlier, looser policy stay readable.
    public static func misleads(_ diagnostic: ICalendarError) -> Bool {
        switch diagnostic.code {
        case .unclosedComponent:
            return diagnostic.component != "VCALENDAR"
        case .mismatchedEnd, .propertyOutsideComponent, .notCalendar, .invalidUTF8, .unterminatedQuote, .invalidName,
            .limitExceeded:
            return true
        case .invalidValue:
            return timingProperties.contains(diagnostic.property ?? "")
        default:
            return false
        }
    }
}
