import AlmanacTestSupport
import Testing

@testable import CalendarStore

/// Planning ahead and planning a changed object again run on threads (or processes) of
/// their own. A change planned while a window is being planned would miss that window's
/// firings of the object as it was (not yet committed), and they would fire after the
/// change: on PostgreSQL the replanning waits until the window commits.
@Suite("Alarm planning on PostgreSQL", .enabled(if: TestPostgres.url != nil)) struct AlarmPlanningRaceTests {
    static func object(start: String) -> [UInt8] {
        Array(
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VEVENT", "UID:moved",
                "DTSTAMP:20260101T000000Z", "DTSTART:\(start)", "BEGIN:VALARM", "UID:a", "ACTION:DISPLAY",
                "DESCRIPTION:x", "TRIGGER:-PT10M", "END:VALARM", "END:VEVENT", "END:VCALENDAR", "",
            ].joined(separator: "\r\n").utf8)
    }

    @Test func aChangeWaitsForTheWindowBeingPlanned() throws {
        let url = try TestPostgres.freshURL()
        let planner = try DatabaseBackend(postgresURL: url)
        let other = try DatabaseBackend(postgresURL: url)
        try planner.createUser(named: "alice", displayName: nil, passwordHash: nil)
        let store = try planner.eventStore(for: "alice")
        let calendar = try store.createCalendar(EventCalendar(title: "Work")).id
        // 2026-10-01 08:00 UTC; the alarm fires at 08:20, then is moved to fire at 08:50.
        let now = 1_790_841_600
        _ = try store.putResource(
            Self.object(start: "20261001T083000Z"), name: "moved.ics", calendar: calendar, ifMatch: nil,
            ifNoneMatch: false)
        _ = try planner.reminders.replanChanged(now: now, limit: 100)
        _ = try planner.reminders.planAhead(now: now, lookahead: 3_600, window: 3_600, grace: 3_600)
        #expect(try planner.reminders.nextDue() == now + 20 * 60)
        _ = try store.putResource(
            Self.object(start: "20261001T090000Z"), name: "moved.ics", calendar: calendar, ifMatch: nil,
            ifNoneMatch: false)
        // Another process plans a window: it holds the plan's row until it commits.
        let skipped = try other.database.write { (connection) throws(StoreError) -> Int in
            _ = try connection.firstRow("SELECT planned_until FROM alarm_plan WHERE id = 1 FOR UPDATE") { $0.int(0) }
            return try planner.reminders.replanChanged(now: now, limit: 100)
        }
        #expect(skipped == 0)
        #expect(try planner.reminders.replanChanged(now: now, limit: 100) == 1)
        #expect(try planner.reminders.nextDue() == now + 50 * 60)
    }
}
