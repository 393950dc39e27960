import AlmanacTestSupport
import AlmanacTesting
import ICalendar
import Recurrence
import Testing

@testable import CalendarStore

/// The repairs a database gets once when opened after an upgrade: stored VTIMEZONEs an
/// earlier version wrote are rewritten through the write path (a new ETag, a sync
/// change), every other object keeps its bytes and ETag, and a second run does nothing.
@Suite struct StoreRepairTests {
    @Test(arguments: Backend.allCases)
    func earlierVTimeZonesAreRewrittenOnce(_ kind: Backend) throws {
        let directory = try TemporaryDirectory()
        let backend = try kind.openBackend(in: directory)
        try backend.createUser(named: "alice")
        let store = try backend.databaseStore(for: "alice")
        let work = try store.createCalendar(EventCalendar(title: "Work"))
        let event = [
            "BEGIN:VEVENT", "UID:legacy@example.com", "DTSTAMP:20261101T000000Z",
            "DTSTART;TZID=Europe/Berlin:20270311T143000", "DURATION:PT1H", "SUMMARY:Training", "END:VEVENT",
        ]
        let legacy = resource(LegacyVTimeZone.berlin + event)
        var clients = LegacyVTimeZone.berlin
        clients[clients.firstIndex(of: "TZNAME:CET")!] = "TZNAME:MEZ"
        let client = resource(clients + event.map { $0.replacingOccurrences(of: "legacy@", with: "client@") })
        let stored = try store.writeResource(
            legacy, name: "legacy.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        let kept = try store.writeResource(
            client, name: "client.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        let token = try store.changes(since: nil, calendar: work.id).token
        // As a database from before the repair: it is due.
        try backend.database.write { (connection) throws(StoreError) in
            _ = try connection.run(
                "INSERT INTO store_repairs (name) VALUES (?)", [.text(DatabaseBackend.timeZoneRepair)])
        }
        #expect(try backend.runStoreRepairs(batchSize: 1) == 1)

        let healed = try store.resource(named: "legacy.ics", calendar: work.id)
        #expect(healed.etag != stored.etag)
        let timeZone = try ICalendarParser.parse(healed.data).components[0].components[0]
        #expect(!VTimeZone.isEarlierAlmanacForm(timeZone))
        // Only the block changed: the lines around it are the bytes that were stored.
        let text = String(decoding: healed.data, as: UTF8.self)
        #expect(text.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Almanac//Tests//EN\r\nBEGIN:VTIMEZONE\r\n"))
        #expect(text.hasSuffix("END:VTIMEZONE\r\n" + (event + ["END:VCALENDAR", ""]).joined(separator: "\r\n")))
        let untouched = try store.resource(named: "client.ics", calendar: work.id)
        #expect(untouched.data == client && untouched.etag == kept.etag)
        // A client syncing from its token sees the one object that changed.
        #expect(try store.changes(since: token, calendar: work.id).entries.map(\.name) == ["legacy.ics"])
        // Done once: nothing is due on the next open.
        #expect(try backend.runStoreRepairs() == 0)
        #expect(try store.resource(named: "legacy.ics", calendar: work.id).etag == healed.etag)
    }
}
