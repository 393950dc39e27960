import CivilTime
import Foundation
import ICalendar
import Testing

@testable import Recurrence

/// What the lenient-export fixtures mean once expanded: instance lists worked out
/// by hand from each file (dates and zone offsets in the comments).
@Suite struct LenientExpansionTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ICalendarTests/Fixtures/lenient-exports")

    static func calendar(_ file: String) throws -> Component {
        let data = try Data(contentsOf: fixtures.appendingPathComponent(file))
        return try ICalendarParser.parse(Array(data), options: .lenient).components[0]
    }

    static func expand(_ calendar: Component, mode: ParseOptions.Mode = .lenient, calendarZone: Bool = false) throws
        -> (starts: [String], uids: [String], resolver: ZoneResolver)
    {
        let resolver = ZoneResolver(calendar: calendar, mode: mode, readsFloatingInCalendarZone: calendarZone)
        let occurrences = try CalendarObjectExpansion(resolver: resolver).expand(calendar, from: nil, to: nil)
            .occurrences
        return (occurrences.map(\.start.text), occurrences.map(\.uid), resolver)
    }

    @Test func googleFloatingTimesAreReadInXWRTimeZone() throws {
        let calendar = try Self.calendar("google-floating-x-wr-timezone.ics")
        // Mondays at 09:00 in Berlin from 2026-03-16, COUNT=4: CET (UTC+1) until the
        // switch on Sunday 2026-03-29, CEST (UTC+2) after; the other event is in UTC.
        let read = try Self.expand(calendar, calendarZone: true)
        #expect(
            read.starts == [
                "2026-03-16T08:00:00Z", "2026-03-20T17:00:00Z", "2026-03-23T08:00:00Z", "2026-03-30T07:00:00Z",
                "2026-04-06T07:00:00Z",
            ])
        #expect(read.resolver.warnings.map(\.code) == [.calendarTimeZone])
        // Without being asked (RFC 5545's reading, and strict mode's), floating stays floating.
        let floating = try Self.expand(calendar, mode: .strict)
        #expect(floating.starts.first == "2026-03-16T09:00:00")
        #expect(floating.resolver.warnings.isEmpty)
    }

    @Test func twoRulesGiveTheUnionOfTheirInstances() throws {
        let calendar = try Self.calendar("outlook-whitespace-and-escapes.ics")
        // From Monday 2018-01-15 10:00 in W. Europe Standard Time (Europe/Berlin, UTC+1 until
        // 2018-03-25): the third Monday of three months (Jan 15, Feb 19, Mar 19) and the 15th
        // of three months (Jan 15, Feb 15, Mar 15); Jan 15 is in both and counts once.
        let read = try Self.expand(calendar)
        #expect(
            read.starts == [
                "2018-01-15T09:00:00Z", "2018-02-15T09:00:00Z", "2018-02-19T09:00:00Z", "2018-03-15T09:00:00Z",
                "2018-03-19T09:00:00Z",
            ])
    }

    @Test func eventsWithoutUIDAreEachTheirOwnSeries() throws {
        let calendar = try Self.calendar("school-feed-without-uids.ics")
        // Two weekly all-day pairs (Sep 7 and 14; Sep 8 and 15) and one evening: five
        // instances. Before, all three shared the UID "" and only the first series was expanded.
        let read = try Self.expand(calendar)
        #expect(read.starts == ["2026-09-07", "2026-09-08", "2026-09-14", "2026-09-15", "2026-09-15T17:00:00Z"])
        let events = calendar.components(named: "VEVENT")
        #expect(Set(read.uids) == Set(events.map(\.derivedUID)))
        #expect(Set(read.uids).count == 3)
    }

    @Test func holidayRulesExpandAfterRepair() throws {
        let calendar = try Self.calendar("holiday-empty-rrule.ics")
        // Neujahr once (its empty RRULE dropped); Christmas yearly 2026 to UNTIL 2030: five.
        let read = try Self.expand(calendar)
        #expect(read.starts == ["2026-12-25", "2027-01-01", "2027-12-25", "2028-12-25", "2029-12-25", "2030-12-25"])
    }
}
