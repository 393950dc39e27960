import AlmanacTestSupport
import Recurrence
import Testing

@testable import CalendarStore

/// A series with more instances in a range than one series may expand (100,000) is never
/// cut silently: the store's answer names it, and reads that cannot say so refuse.
@Suite struct TruncationTests {
    /// 100 days from 2026-12-01T00:00Z: a minutely series has 144,000 instances there.
    static let hundredDays = TimeRange(start: utc(2026, 12, 1), end: utc(2026, 12, 1) + 100 * 86_400)

    /// A minutely series (with an alarm) and a three-week series beside it.
    static func calendar(_ fixture: StoreFixture) throws -> EventCalendar {
        let work = try fixture.calendar()
        _ = try fixture.store.putResource(
            resource(
                vevent(
                    uid: "ticker",
                    [
                        "DTSTART:20261201T000000Z", "DURATION:PT30S", "RRULE:FREQ=MINUTELY", "SUMMARY:Ticker",
                        "BEGIN:VALARM", "ACTION:DISPLAY",
                        "DESCRIPTION:tick", "TRIGGER:-PT10S", "END:VALARM",
                    ])), name: "ticker.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        _ = try fixture.store.putResource(
            resource(
                vevent(
                    uid: "weekly",
                    ["DTSTART:20261202T090000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=3", "SUMMARY:Weekly"])),
            name: "weekly.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        return work
    }

    @Test(arguments: Backend.allCases) func aCutSeriesIsNamedWithWhereItStopped(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let work = try Self.calendar(fixture)
        let found = try fixture.store.occurrences(
            in: Self.hundredDays, calendars: [work.id], matching: .all, timeZone: nil, limit: .max)
        #expect(!found.isComplete)
        #expect(found.truncatedSeries.count == 1)
        let cut = try #require(found.truncatedSeries.first)
        #expect(cut.externalIdentifier == "ticker" && cut.title == "Ticker" && cut.calendarIdentifier == work.id)
        // It stopped after its 100,000th minute: 99,999 minutes after its first.
        #expect(cut.listed == 100_000)
        #expect(cut.lastListedStart == utc(2026, 12, 1) + 99_999 * 60)
        #expect(found.occurrences.filter { $0.title == "Ticker" }.count == 100_000)
        // The other series is whole.
        #expect(found.occurrences.filter { $0.title == "Weekly" }.count == 3)
        #expect(found.truncationNotice?.contains("UID ticker") == true)
    }

    @Test(arguments: Backend.allCases) func readsThatCannotSaySoRefuseNamingTheSeries(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let work = try Self.calendar(fixture)
        let listed = #expect(throws: StoreError.self) {
            try fixture.store.events(in: Self.hundredDays, calendars: [work.id])
        }
        #expect(
            listed?.code == .expansionLimit && listed?.message.contains("UID ticker") == true
                && listed?.message.contains("shorter range") == true)
        let alarms = #expect(throws: StoreError.self) {
            try fixture.store.alarms(firingIn: Self.hundredDays, calendars: [work.id], limit: .max)
        }
        #expect(alarms?.message.contains("UID ticker") == true)
        // A removal that would leave the instances past the bound behind removes nothing.
        let before = try fixture.store.resource(named: "ticker.ics", calendar: work.id).etag
        #expect(throws: StoreError.self) {
            try fixture.store.removeEvents(in: Self.hundredDays, calendar: work.id, title: "Ticker")
        }
        #expect(try fixture.store.resource(named: "ticker.ics", calendar: work.id).etag == before)
    }

    @Test(arguments: Backend.allCases) func aCutPastTheLimitChangesNothing(_ backend: Backend) throws {
        // The earliest ten are whole however far the ticker goes: nothing to report.
        let fixture = try StoreFixture(backend)
        let work = try Self.calendar(fixture)
        let found = try fixture.store.occurrences(
            in: Self.hundredDays, calendars: [work.id], matching: .all, timeZone: nil, limit: 10)
        #expect(found.isComplete)
        #expect(found.occurrences.map(\.startInstant) == (0..<10).map { utc(2026, 12, 1) + 60 * $0 })
        #expect(try fixture.store.alarms(firingIn: Self.hundredDays, calendars: [work.id], limit: 10).count == 10)
        // A shorter range holds fewer than the bound: whole.
        let day = TimeRange(start: utc(2026, 12, 2), end: utc(2026, 12, 3))
        #expect(try fixture.store.events(in: day, calendars: [work.id]).count == 1_440 + 1)
    }

    @Test(arguments: Backend.allCases) func aSeriesStoppedBySteps(_ backend: Backend) throws {
        // One instance a day at midnight from a secondly rule: every second is a step, so the
        // 2,000,000 steps of one series end after 23 days of its 40. Its index entry must
        // not end there (its later instances would vanish from every range), and a range
        // past that point says it could not expand it.
        let fixture = try StoreFixture(backend)
        let work = try fixture.calendar()
        try Self.putMidnightSeries(fixture, calendar: work.id)
        let day30 = TimeRange(start: utc(2026, 12, 30), end: utc(2026, 12, 31))
        let found = try fixture.store.occurrences(
            in: day30, calendars: [work.id], matching: .all, timeZone: nil, limit: .max)
        #expect(found.occurrences.isEmpty)
        #expect(found.truncatedSeries.map(\.externalIdentifier) == ["midnight"])
        #expect(
            try fixture.store.resources(overlapping: day30, componentType: .event, calendar: work.id).map(\.name) == [
                "midnight.ics"
            ])
    }
}

extension TruncationTests {
    /// A series of exactly as many instances as the bound allows is whole: its index box
    /// ends with its last instance (minute 99,999 from 2026-12-01 is 2027-02-08 10:39),
    /// so a range long after is not offered it.
    @Test(arguments: Backend.allCases) func aSeriesAtExactlyTheBoundIsWhole(_ backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let work = try fixture.calendar()
        _ = try fixture.store.putResource(
            resource(
                vevent(uid: "exact", ["DTSTART:20261201T000000Z", "RRULE:FREQ=MINUTELY;COUNT=100000", "SUMMARY:Exact"])),
            name: "exact.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        let later = TimeRange(start: utc(2028, 1, 1), end: utc(2028, 1, 2))
        #expect(try fixture.store.resources(overlapping: later, componentType: .event, calendar: work.id).isEmpty)
        let lastDay = TimeRange(start: utc(2027, 2, 8), end: utc(2027, 2, 9))
        let found = try fixture.store.occurrences(
            in: lastDay, calendars: [work.id], matching: .all, timeZone: nil, limit: .max)
        // 2027-02-08T00:00Z is minute 99,360 (69 days on); the last is minute 99,999: 640 that day.
        #expect(found.isComplete && found.occurrences.count == 640)
    }

    /// One instance a day at midnight for 40 days, from a secondly rule: every second is a
    /// step, so the 2,000,000 steps of one series end after about 23 days.
    static func putMidnightSeries(_ fixture: StoreFixture, calendar: String, extra: [String] = []) throws {
        _ = try fixture.store.putResource(
            resource(
                vevent(
                    uid: "midnight",
                    ["DTSTART:20261201T000000Z"] + extra + [
                        "RRULE:FREQ=SECONDLY;BYHOUR=0;BYMINUTE=0;BYSECOND=0;COUNT=40", "SUMMARY:Midnight",
                    ])),
            name: "midnight.ics", calendar: calendar, ifMatch: nil, ifNoneMatch: false)
    }

    @Test(arguments: Backend.allCases) func busyTimeOfACutSeriesCoversWhatItCouldNotExpand(_ backend: Backend) throws {
        // The midnight series stops about 23 days in: the nights after that are not known,
        // so the time from its last known night to the range's end counts as busy.
        let fixture = try StoreFixture(backend)
        let work = try fixture.calendar()
        try Self.putMidnightSeries(fixture, calendar: work.id, extra: ["DURATION:PT1M"])
        let january = TimeRange(start: utc(2027, 1, 1), end: utc(2027, 1, 8))
        let busy = try fixture.store.busyTime(in: january, calendars: [work.id], timeZone: nil)
        // 2027-01-05T00:00Z is the 36th night: busy.
        #expect(busy.contains { $0.start <= utc(2027, 1, 5) && $0.end > utc(2027, 1, 5) })
    }
}
