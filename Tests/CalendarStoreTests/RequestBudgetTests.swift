import AlmanacTestSupport
import Recurrence
import Testing

@testable import CalendarStore

/// One budget for all the expansion one request causes: many stored series that each
/// stay inside their own bounds cannot add up to a request that pins a worker.
@Suite struct RequestBudgetTests {
    static let day = TimeRange(start: utc(2026, 12, 10), end: utc(2026, 12, 11))

    /// `count` series that walk 146,097 idle seconds (about 290,000 steps; the read of a
    /// day looks a day to each side) on every read, against a budget of two million steps.
    static func idle(_ fixture: StoreFixture, count: Int) throws -> EventCalendar {
        (fixture.backend as! DatabaseBackend).expansionBudget = ExpansionBudget(steps: 2_000_000)
        let work = try fixture.calendar()
        for index in 0..<count {
            _ = try fixture.store.putResource(
                resource(vevent(uid: "idle\(index)", ["DTSTART:20261201T090000Z", "RRULE:FREQ=SECONDLY;BYSETPOS=2"])),
                name: "idle\(index).ics",
                calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        }
        return work
    }

    @Test func aFewHeavySeriesAreAnswered() throws {
        let fixture = try StoreFixture(.sqlite)
        let work = try Self.idle(fixture, count: 5)
        #expect(try fixture.store.events(in: Self.day, calendars: [work.id]).isEmpty)
        #expect(try fixture.store.busyTime(in: Self.day, calendars: [work.id], timeZone: nil).isEmpty)
    }

    @Test func manyHeavySeriesAreRefusedNotWalkedForever() throws {
        // Ten of them (about 2.9 million steps) are past the budget; five (1.5 million) are not.
        let fixture = try StoreFixture(.sqlite)
        let work = try Self.idle(fixture, count: 10)
        let refused = #expect(throws: StoreError.self) { try fixture.store.events(in: Self.day, calendars: [work.id]) }
        #expect(refused?.code == .expansionLimit && refused?.message.contains("shorter range") == true)
        #expect(throws: StoreError.self) {
            try fixture.store.busyTime(in: Self.day, calendars: [work.id], timeZone: nil)
        }
        #expect(throws: StoreError.self) {
            try fixture.store.resources(overlapping: Self.day, componentType: .event, calendar: work.id)
        }
    }

    @Test func aLimitedQueryKeepsOnlyTheEarliest() throws {
        let fixture = try StoreFixture(.sqlite)
        let work = try fixture.calendar()
        for index in 0..<3 {
            _ = try fixture.store.putResource(
                resource(
                    vevent(
                        uid: "tick\(index)",
                        ["DTSTART:20261210T0\(index)0000Z", "DURATION:PT1S", "RRULE:FREQ=SECONDLY"])),
                name: "tick\(index).ics",
                calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        }
        let earliest = try fixture.store.events(
            in: Self.day, calendars: [work.id], matching: .all, timeZone: nil, limit: 5)
        #expect(earliest.map(\.startInstant) == (0..<5).map { utc(2026, 12, 10) + $0 })  // 00:00:00Z to 00:00:04Z
    }

    @Test func workForAClientThatWentAwayStops() throws {
        // One heavy series (about 290,000 steps): answered while the client is there, and
        // given up at the next check once it is gone.
        let fixture = try StoreFixture(.sqlite)
        let work = try Self.idle(fixture, count: 1)
        let present: @Sendable () -> Bool = { false }
        let gone: @Sendable () -> Bool = { true }
        #expect(
            try ExpansionBudget.withCancellation(present) {
                try fixture.store.events(in: Self.day, calendars: [work.id])
            }.isEmpty)
        #expect(throws: StoreError.self) {
            try ExpansionBudget.withCancellation(gone) {
                try fixture.store.events(in: Self.day, calendars: [work.id])
            }
        }
    }
}
