import AlmanacTestSupport
import CalendarStore
import ICalendar
import Testing

@testable import CalendarStore

/// One read per report: the store selects a calendar's resources, filters them, and
/// returns each with its bytes or its instances, in one call on a calendar resolved once.
@Suite("Reports and calendar handles") struct ReportTests {
    /// Alice's calendar with a weekly series (Mondays 09:00 Berlin from 2026-11-30, five
    /// times, the 2026-12-14 instance moved to 11:00), a one-off in the week of 2026-12-07,
    /// one outside it, and a to-do.
    func fill(_ fixture: StoreFixture) throws -> CalendarHandle {
        let work = try fixture.calendar()
        let store = fixture.store
        let series =
            vevent(
                uid: "weekly",
                ["DTSTART;TZID=Europe/Berlin:20261130T090000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=5"])
            + vevent(
                uid: "weekly",
                [
                    "RECURRENCE-ID;TZID=Europe/Berlin:20261214T090000", "DTSTART;TZID=Europe/Berlin:20261214T110000",
                    "DURATION:PT1H",
                ])
        let writes: [(String, [String])] = [
            ("weekly.ics", series),
            ("in-week.ics", vevent(uid: "in", ["DTSTART:20261209T120000Z", "DTEND:20261209T130000Z"])),
            ("later.ics", vevent(uid: "later", ["DTSTART:20270109T120000Z", "DTEND:20270109T130000Z"])),
            (
                "task.ics",
                ["BEGIN:VTODO", "UID:task", "DTSTAMP:20261101T000000Z", "DUE:20261208T100000Z", "END:VTODO"]
            ),
        ]
        for (name, lines) in writes {
            _ = try store.putResource(resource(lines), name: name, calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        }
        return try store.calendarHandle(named: work.name)
    }

    static let week = TimeRange(start: utc(2026, 12, 7), end: utc(2026, 12, 14))

    @Test(arguments: Backend.allCases) func aWeekWithExpandIsOneCallExpandingOnlyTheMatches(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let calendar = try fill(fixture)
        let report = try fixture.store.report(
            ResourceQuery(componentTypes: [.event], overlapping: Self.week),
            content: .instances(Self.week, limit: 100), calendar: calendar)
        #expect(report.items.map(\.info.name) == ["in-week.ics", "weekly.ics"])
        #expect(!report.isTruncated && report.missing.isEmpty)
        // The series' one instance in the week: Monday 2026-12-07 09:00 Berlin = 08:00 UTC.
        #expect(report.items[1].instances.map(\.startInstant) == [utc(2026, 12, 7, 8)])
        #expect(report.items[0].instances.map(\.startInstant) == [utc(2026, 12, 9, 12)])
        // The next week holds the moved instance, at 11:00 Berlin (10:00 UTC).
        let next = TimeRange(start: utc(2026, 12, 14), end: utc(2026, 12, 21))
        let moved = try fixture.store.report(
            ResourceQuery(componentTypes: [.event], overlapping: next), content: .instances(next, limit: 100),
            calendar: calendar)
        #expect(moved.items.map(\.info.name) == ["weekly.ics"])
        #expect(moved.items[0].instances.map(\.startInstant) == [utc(2026, 12, 14, 10)])
        #expect(moved.items[0].instances.first?.isDetached == true)
    }

    @Test(arguments: Backend.allCases) func namedResourcesComeInTheOrderAskedWithTheMissingNamed(_ kind: Backend) throws
    {
        let fixture = try StoreFixture(kind)
        let calendar = try fill(fixture)
        let report = try fixture.store.report(
            ResourceQuery(names: ["task.ics", "nothing.ics", "in-week.ics"]), content: .data, calendar: calendar)
        #expect(report.items.map(\.info.name) == ["task.ics", "in-week.ics"])
        #expect(report.missing == ["nothing.ics"])
        let stored = try fixture.store.resource(named: "task.ics", calendar: calendar)
        #expect(report.items[0].data == stored.data && report.items[0].info.etag == stored.etag)
    }

    @Test(arguments: Backend.allCases) func aPredicateReadsEachSelectedObject(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let calendar = try fill(fixture)
        let report = try fixture.store.report(
            ResourceQuery(predicate: { calendar, _ in calendar.components.contains { $0.name == "VTODO" } }),
            content: .listing, calendar: calendar)
        #expect(report.items.map(\.info.name) == ["task.ics"])
        #expect(report.items[0].data == nil)
    }

    @Test(arguments: Backend.allCases) func instancesPastTheLimitAreCutAndTheReportSaysSo(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let calendar = try fill(fixture)
        // Three instances of the series from 2026-11-30 to 2026-12-21, and the one-off: the
        // limit of two keeps the earliest two starts.
        let range = TimeRange(start: utc(2026, 11, 30), end: utc(2026, 12, 21))
        let report = try fixture.store.report(
            ResourceQuery(componentTypes: [.event], overlapping: range), content: .instances(range, limit: 2),
            calendar: calendar)
        #expect(report.isTruncated)
        let starts = report.items.flatMap(\.instances).map(\.startInstant).sorted()
        #expect(starts == [utc(2026, 11, 30, 8), utc(2026, 12, 7, 8)])
    }

    @Test(arguments: Backend.allCases) func aHandleServesOnlyTheStoreThatResolvedIt(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let calendar = try fill(fixture)
        let bob = try fixture.store(for: "bob")
        // Bob cannot see alice's calendar: her handle is looked up for him, and not found.
        let hidden = try #require(throws: StoreError.self) { try bob.resources(calendar: calendar) }
        #expect(hidden.code == .notFound)
        // Shared read-only, he reads it through the same handle but may not write with it.
        try fixture.store.share(calendar: calendar.calendar.id, with: "bob", access: .read)
        #expect(try bob.resources(calendar: calendar).count == 4)
        let refused = try #require(throws: StoreError.self) {
            try bob.writeResource(
                resource(vevent(uid: "bob", ["DTSTART:20261210T120000Z"])), name: "bob.ics", calendar: calendar,
                ifMatch: nil, ifNoneMatch: true)
        }
        #expect(refused.code == .forbidden)
        // A handle of a calendar deleted since then writes nothing.
        try fixture.store.deleteCalendar(withIdentifier: calendar.calendar.id)
        let gone = try #require(throws: StoreError.self) {
            try fixture.store.writeResource(
                resource(vevent(uid: "late", ["DTSTART:20261210T120000Z"])), name: "late.ics", calendar: calendar,
                ifMatch: nil, ifNoneMatch: true)
        }
        #expect(gone.code == .notFound)
    }

    @Test(arguments: Backend.allCases) func theSeriesPreparedToIndexAPutServesTheFirstRead(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let backend = try #require(fixture.backend as? DatabaseBackend)
        let work = try fixture.calendar()
        #expect(backend.cache.bytes == 0)
        _ = try fixture.store.putResource(
            resource(vevent(uid: "daily", ["DTSTART:20261201T090000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=3"])),
            name: "daily.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        // Cached by the write, before any read; a one-off object is answered from its row.
        let afterSeries = backend.cache.bytes
        #expect(afterSeries > 0)
        _ = try fixture.store.putResource(
            resource(vevent(uid: "once", ["DTSTART:20261201T090000Z", "DURATION:PT1H"])), name: "once.ics",
            calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        #expect(backend.cache.bytes == afterSeries)
        let listed = try fixture.store.occurrences(
            in: TimeRange(start: utc(2026, 12, 1), end: utc(2026, 12, 4)), calendars: [work.id],
            matching: EventFilter(), timeZone: nil, limit: .max)
        #expect(listed.occurrences.count == 4)
        #expect(backend.cache.bytes == afterSeries)
    }
}
