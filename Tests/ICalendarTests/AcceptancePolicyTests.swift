import CivilTime
import Foundation
import ICalendar
import Testing

/// `AcceptancePolicy`, what the server stores: RFC 5545 strictly, with documented
/// repairs (docs/icalendar-diagnostics.md).
@Suite struct AcceptancePolicyTests {
    /// RFC 5545 §3.3.6: `dur-date = dur-day [dur-time]`, `dur-time = "T" (dur-hour /
    /// dur-minute / dur-second)`. `P1DT0H` is a dur-day then a dur-time with a dur-hour
    /// of 0: valid, one day, in every mode.
    @Test func p1dt0hIsValidGrammar() throws {
        let bytes = Support.calendar(event: ["DURATION:P1DT0H"])
        let strict = ICalendarParser.check(bytes, options: .strict)
        #expect(strict.diagnostics.isEmpty)
        let event = try #require(strict.document?.components.first?.components.first)
        #expect(try event.property("DURATION")?.durationValue() == CalendarDuration(days: 1))
        #expect(AcceptancePolicy.check(bytes).diagnostics.isEmpty)
    }

    /// `P1DT` breaks §3.3.6 (a `T` needs an hour, minute or second after it): strict
    /// refuses it; the policy reads it as `P1D`, one day, with a `repairedValue` warning.
    @Test(arguments: [("P1DT", CalendarDuration(days: 1)), ("-P2WT", CalendarDuration(isNegative: true, weeks: 2))])
    func aTrailingTIsRepaired(_ value: String, _ expected: CalendarDuration) throws {
        let bytes = Support.calendar(event: ["DURATION:\(value)"])
        let strict = ICalendarParser.check(bytes, options: .strict)
        #expect(strict.document == nil)
        #expect(strict.errors.map(\.code) == [.invalidValue])

        let accepted = AcceptancePolicy.check(bytes)
        let document = try #require(accepted.document, "\(accepted.errors)")
        #expect(accepted.diagnostics.map(\.code) == [.repairedValue])
        #expect(accepted.diagnostics.first?.property == "DURATION")
        #expect(accepted.diagnostics.first?.line == 8)
        let event = try #require(document.components.first?.components.first)
        #expect(try event.property("DURATION")?.durationValue() == expected)
    }

    /// `PT` says no length at all: dropping its `T` leaves `P`, which is no duration either.
    @Test func ptAloneIsRefused() {
        let result = AcceptancePolicy.check(Support.calendar(event: ["DURATION:PT"]))
        #expect(result.document == nil)
        #expect(result.errors.map(\.code) == [.invalidValue])
    }

    /// RFC 5545 §3.1: `VALUE-CHAR = WSP / %x21-7E / NON-US-ASCII`, so no CONTROL but HTAB,
    /// in any property. Strict and the policy refuse it; lenient keeps it with a warning.
    @Test(arguments: ["SUMMARY:a\u{07}b", "X-NOTE:a\u{1B}b", "DESCRIPTION:a\u{7F}"])
    func aControlCharacterIsRefused(_ line: String) throws {
        let bytes = Support.calendar(event: [line])
        #expect(ICalendarParser.check(bytes, options: .strict).errors.map(\.code) == [.controlCharacter])
        let result = AcceptancePolicy.check(bytes)
        #expect(result.document == nil)
        let error = try #require(result.errors.first)
        #expect(error.code == .controlCharacter && error.line == 8 && error.column != nil)
        #expect(ICalendarParser.check(bytes, options: .lenient).warnings.map(\.code) == [.controlCharacter])
    }

    /// RFC 5545 §3.3.11: `ESCAPED-CHAR = ("\\" / "\;" / "\," / "\N" / "\n")`. `\"`, `\:`
    /// and a lone backslash are none of them; an unescaped `,` in SUMMARY is a separator
    /// that has one reading, and is repaired (escaped) instead.
    @Test(arguments: ["SUMMARY:say \\\"hi\\\"", "DESCRIPTION:C\\:\\temp", "SUMMARY:trailing\\", "CATEGORIES:a\\:b,c"])
    func anInvalidEscapeIsRefused(_ line: String) throws {
        let bytes = Support.calendar(event: [line])
        #expect(ICalendarParser.check(bytes, options: .strict).errors.map(\.code) == [.invalidEscape])
        let result = AcceptancePolicy.check(bytes)
        #expect(result.document == nil)
        #expect(result.errors.map(\.code) == [.invalidEscape])
    }

    @Test func anUnescapedCommaIsARepair() throws {
        let result = AcceptancePolicy.check(Support.calendar(event: ["SUMMARY:Lunch, dinner"]))
        let document = try #require(result.document)
        #expect(result.warnings.map(\.code) == [.invalidValue])
        #expect(document.components.first?.components.first?.property("SUMMARY")?.textValue() == "Lunch, dinner")
    }

    /// What the policy refuses, strict mode refuses too: the policy only adds repairs.
    @Test func everyRefusalIsAStrictError() throws {
        for directory in ["malformed", "lenient-exports", "real-world"] {
            let url = Support.fixtures.appendingPathComponent(directory)
            for file in try FileManager.default.contentsOfDirectory(atPath: url.path) where file.hasSuffix(".ics") {
                let bytes = try Support.read(url.appendingPathComponent(file))
                let policy = AcceptancePolicy.check(bytes)
                if ICalendarParser.check(bytes, options: .strict).document != nil {
                    #expect(policy.document != nil, "\(directory)/\(file): strict accepts it")
                }
                if policy.document != nil {
                    #expect(ICalendarParser.check(bytes, options: .lenient).document != nil, "\(directory)/\(file)")
                }
            }
        }
    }

    /// The exports real producers write (Fixtures/real-world, Fixtures/lenient-exports)
    /// pass: the policy refuses what is corrupt, not what exporters habitually write. The
    /// one exception is a bare VEVENT, which is a file (`almanac import` reads it), not
    /// a stored object.
    @Test func realExportsPass() throws {
        for directory in ["lenient-exports", "real-world"] {
            let url = Support.fixtures.appendingPathComponent(directory)
            for file in try FileManager.default.contentsOfDirectory(atPath: url.path) where file.hasSuffix(".ics") {
                let result = AcceptancePolicy.check(try Support.read(url.appendingPathComponent(file)))
                if file == "bare-vevent-download.ics" {
                    #expect(result.errors.map(\.code) == [.notCalendar])
                } else {
                    #expect(result.document != nil, "\(directory)/\(file): \(result.errors)")
                }
            }
        }
    }
}
