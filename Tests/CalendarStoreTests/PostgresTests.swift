import AlmanacTestSupport
import Foundation
import Synchronization
import Testing

@testable import CalendarStore

/// What only the PostgreSQL backend has to prove: migrations by processes starting
/// together, and `db copy` between the two databases. Runs when
/// `ALMANAC_TEST_POSTGRES` names a test cluster (as `make test` does).
@Suite("PostgreSQL", .enabled(if: TestPostgres.url != nil)) struct PostgresTests {
    /// Eight backends opening one new schema at once: each waits on the advisory
    /// lock, one migrates, and all of them can then work.
    @Test func backendsStartingTogetherMigrateOnce() throws {
        let url = try TestPostgres.freshURL()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let outcomes = Mutex<[String]>([])
        for index in 0..<8 {
            done.enter()
            Thread {
                gate.wait()
                do {
                    let backend = try DatabaseBackend(postgresURL: url)
                    try backend.createUser(named: "user\(index)")
                    outcomes.withLock { $0.append("ok") }
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                }
                done.leave()
            }.start()
        }
        for _ in 0..<8 { gate.signal() }
        done.wait()
        #expect(outcomes.withLock { $0 } == Array(repeating: "ok", count: 8))
        let backend = try DatabaseBackend(postgresURL: url)
        #expect(try backend.users().count == 8)
        #expect(try backend.integrityCheck() == ["ok"])
        let version = try backend.database.read { (connection) throws(StoreError) -> [Int] in
            try connection.rows("SELECT version FROM almanac_schema") { $0.int(0) }
        }
        #expect(version == [PostgresSchema.migrations.count])
    }

    /// A generated installation (imported corpus, edits, deletions, sharing, dead
    /// properties, a feed, tokens, sessions, marks) copied SQLite → PostgreSQL →
    /// SQLite comes back row for row, and a client's sync token keeps working on
    /// the copy.
    @Test func copyRoundTripsAnInstallationExactly() throws {
        let directory = try TemporaryDirectory()
        let original = try DatabaseBackend(sqlitePath: directory.path + "/original.sqlite")
        try populate(original)
        let alice = try original.eventStore(for: "alice")
        let work = try #require(try alice.calendar(titled: "Work", createIfMissing: false))
        let token = try alice.changes(since: nil, calendar: work.id).token
        _ = try alice.putResource(
            resource(vevent(uid: "after-token", ["DTSTART:20261203T090000Z", "SUMMARY:After"])), name: "after.ics",
            calendar: work.id,
            ifMatch: nil, ifNoneMatch: false)
        try alice.deleteResource(named: "one-off-1.ics", calendar: work.id, ifMatch: nil)

        let postgres = try DatabaseBackend(postgresURL: try TestPostgres.freshURL())
        let there = try original.copy(to: postgres)
        let back = try DatabaseBackend(sqlitePath: directory.path + "/back.sqlite")
        let again = try postgres.copy(to: back)
        #expect(there == again)
        #expect(there.verifiedObjects > 1_000)

        for (table, columns) in DatabaseBackend.copiedTables {
            #expect(try dump(table, columns, original) == dump(table, columns, back), "table \(table)")
            #expect(
                try dump(table, columns, original) == dump(table, columns, postgres), "table \(table) on PostgreSQL")
        }
        for backend in [postgres, back] {
            #expect(try backend.integrityCheck() == ["ok"])
            let store = try backend.eventStore(for: "alice")
            let changes = try store.changes(since: token, calendar: work.id)
            #expect(changes.changed.map(\.name) == ["after.ics"])
            #expect(changes.deleted == ["one-off-1.ics"])
            // Queries answer the same from the copied range index.
            let week = TimeRange(start: utc(2026, 11, 30), end: utc(2026, 12, 7))
            #expect(try store.events(in: week).map(\.eventIdentifier) == alice.events(in: week).map(\.eventIdentifier))
            // New rows are numbered after the copied ones.
            _ = try store.putResource(
                resource(vevent(uid: "new-after-copy", ["DTSTART:20261204T090000Z"])), name: "new.ics",
                calendar: work.id, ifMatch: nil,
                ifNoneMatch: false)
        }

        // Into a database that holds anything: refused, and nothing written.
        let refused = try #require(throws: StoreError.self) { try original.copy(to: back) }
        #expect(refused.code == .alreadyExists)
    }

    /// Every row of a table, in a stable order, as the values stored.
    func dump(_ table: String, _ columns: [String], _ backend: DatabaseBackend) throws -> [[SQLValue]] {
        let order = (1...columns.count).map(String.init).joined(separator: ", ")
        return try backend.database.read { (connection) throws(StoreError) -> [[SQLValue]] in
            try connection.rows("SELECT \(columns.joined(separator: ", ")) FROM \(table) ORDER BY \(order)") { row in
                (0..<Int32(columns.count)).map { row.value($0) }
            }
        }
    }

    func populate(_ backend: DatabaseBackend) throws {
        try backend.createUser(named: "alice", displayName: "Alice", passwordHash: "pbkdf2-sha256$1$c2FsdA$aGFzaA")
        try backend.createUser(named: "bob")
        let alice = try backend.eventStore(for: "alice")
        var work = try alice.createCalendar(EventCalendar(title: "Work", componentTypes: [.event, .todo]))
        work.deadProperties["{http://apple.com/ns/ical/}calendar-order"] = "3"
        work.color = "#FF8800"
        work.timeZone = "Europe/Berlin"
        work = try alice.updateCalendar(work)
        _ = try alice.setFeedToken(DatabaseBackend.newFeedToken(), calendar: work.id)
        try alice.share(calendar: work.id, with: "bob", access: .read)
        let corpus = try Corpus.generate(events: 1_000, seed: 11)
        let objects = try CalendarFileSplitter.split(corpus).objects
        let results = try alice.importObjects(objects, calendar: work.id)
        #expect(results.allSatisfy { if case .success = $0 { true } else { false } })
        for index in 0..<5 {
            _ = try alice.putResource(
                resource(
                    vevent(
                        uid: "one-off-\(index)", ["DTSTART:20261201T090000Z", "DURATION:PT1H", "SUMMARY:Café \(index)"])
                ),
                name: "one-off-\(index).ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        }
        try alice.deleteResource(named: "one-off-4.ics", calendar: work.id, ifMatch: nil)
        let saved = try alice.save(
            Event(title: "Leg day", start: zoned("Europe/Berlin", 2026, 12, 1, 18), calendarIdentifier: work.id))
        let token = AccessToken(id: "tok1", user: "alice", name: "phone", scope: .addOnly, created: 1_795_000_000)
        try backend.appState.createAccessToken(token, secretHash: "hash-of-secret")
        try backend.appState.noteCreation(ofEvent: try #require(saved.localIdentifier), byToken: "tok1")
        try backend.appState.createSession(
            SignInSession(user: "alice", csrfToken: "csrf", expires: Int(Date().timeIntervalSince1970) + 3_600),
            secretHash: "session-hash")
        try backend.appState.setViewSettings(ViewSettings(firstWeekday: 2, timeZone: "Europe/Berlin"), user: "alice")
        _ = try backend.appState.markAdded(
            AddedMark(eventIdentifier: try #require(saved.localIdentifier), platform: "ios", nativeIdentifier: "EK-1"),
            user: "alice")
    }
}
