import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import CivilTime
import ICalendar
import Recurrence
import Testing

/// A calendar exported as one file (the CLI's export and the feeds): one VTIMEZONE per
/// zone name, right over every member's years, whatever block each object carried.
@Suite struct ExportTests {
    @Test(arguments: Backend.allCases)
    func oneZoneBlockCoversEveryMember(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.calendar()
        // The first object carries a block for 2026–2027 only; the second, years later, none.
        let early = resource(
            LegacyVTimeZone.berlin
                + vevent(uid: "early@x", ["DTSTART;TZID=Europe/Berlin:20261110T143000", "DURATION:PT1H"]))
        let late = resource(
            TestZones.berlin + vevent(uid: "late@x", ["DTSTART;TZID=Europe/Berlin:20350715T100000", "DURATION:PT1H"]))
        _ = try fixture.store.writeResource(
            early, name: "early.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        _ = try fixture.store.writeResource(late, name: "late.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: true)

        let exported = try CalendarExport.icalendar(of: work, in: fixture.store).bytes
        let calendar = try ICalendarParser.parse(exported).components[0]
        let blocks = calendar.components(named: "VTIMEZONE")
        #expect(blocks.count == 1)
        let rules = try VTimeZone.rules(from: try #require(blocks.first))
        // CET in November 2026 and CEST in July 2035 (the EU rule).
        #expect(rules.offset(at: local("Europe/Berlin", 2026, 11, 10, 14, 30)) == UTCOffset(seconds: 3600))
        #expect(rules.offset(at: local("Europe/Berlin", 2035, 7, 15, 10)) == UTCOffset(seconds: 7200))
        #expect(!VTimeZone.isEarlierAlmanacForm(blocks[0]))
    }
}
