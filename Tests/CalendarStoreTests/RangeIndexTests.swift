import AlmanacTestSupport
import CalendarStore
import CivilTime
import Testing

/// The range index finds every object with time in a window, whatever its length: on
/// SQLite, boxes of up to a week and longer ones are found by different ranges of one
/// B-tree, so lengths around a week and windows around their ends are where it could miss.
@Suite("Range index") struct RangeIndexTests {
    /// One-off events of lengths around a week (and far past it), each starting at a
    /// different minute, against every window of several sizes slid across them by hours.
    /// The expected titles come from the events' own start and end, not from the store.
    @Test(arguments: Backend.allCases) func everyOverlappingEventIsFoundWhateverItsLength(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let calendar = try fixture.calendar()
        let week = 7 * 86_400
        let lengths = [60, 1_800, week - 60, week, week + 60, week + 3_600, 3 * week, 40 * 86_400]
        let base = utc(2026, 12, 1, 9)
        var events: [(title: String, start: Int, end: Int)] = []
        for (index, length) in lengths.enumerated() {
            let start = base + index * 7_260  // two hours and a minute apart
            events.append(("e\(index)", start, start + length))
        }
        for event in events {
            _ = try fixture.store.putResource(
                resource(
                    vevent(
                        uid: event.title,
                        ["DTSTART:\(basic(event.start))", "DTEND:\(basic(event.end))", "SUMMARY:\(event.title)"])),
                name: "\(event.title).ics", calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
        }
        var windows = 0
        for size in [60, 3_600, 86_400, week] {
            var from = base - week - 3_600
            while from < base + 42 * 86_400 {
                let range = TimeRange(start: from, end: from + size)
                let expected = Set(events.filter { $0.start < range.end && $0.end > range.start }.map(\.title))
                let found = Set(try fixture.store.events(in: range, calendars: [calendar.id]).compactMap(\.title))
                #expect(found == expected, "window \(basic(range.start)) + \(size) s")
                from += size >= 86_400 ? 5 * 3_600 + 60 : 3_600 + 60
                windows += 1
            }
        }
        #expect(windows > 600)
    }

    /// A recurring series without end and one with UNTIL are found in a window far
    /// from their start, and no longer after the UNTIL.
    @Test(arguments: Backend.allCases) func seriesAreFoundFarFromTheirStart(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let calendar = try fixture.calendar()
        for (uid, rule) in [("open", "FREQ=WEEKLY;BYDAY=MO"), ("until", "FREQ=DAILY;UNTIL=20270301T000000Z")] {
            _ = try fixture.store.putResource(
                resource(
                    vevent(
                        uid: uid,
                        ["DTSTART:20261130T100000Z", "DTEND:20261130T110000Z", "RRULE:\(rule)", "SUMMARY:\(uid)"])),
                name: "\(uid).ics", calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
        }
        func titles(_ from: Int) throws -> [String] {
            try fixture.store.events(in: TimeRange(start: from, end: from + 7 * 86_400), calendars: [calendar.id])
                .compactMap(\.title)
        }
        #expect(try titles(utc(2027, 2, 1)).sorted() == ["open"] + Array(repeating: "until", count: 7))
        #expect(try titles(utc(2031, 6, 2)) == ["open"])
    }

    /// `20261201T090000Z` for Unix seconds.
    func basic(_ seconds: Int) -> String {
        let time = CivilDateTime(secondsSinceEpoch: seconds)
        return String(time.description.filter { $0 != "-" && $0 != ":" }) + "Z"
    }
}
