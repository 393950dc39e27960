import AlmanacTestSupport
import CalendarStore
import Foundation
import Synchronization
import Testing

@Suite("Durability") struct DurabilityTests {
    @Test func dataSurvivesReopeningAndBackupsAreComplete() throws {
        let directory = try TemporaryDirectory()
        var etag = ""
        var calendarID = ""
        do {
            let backend = try DatabaseBackend(directory: directory.path)
            try backend.createUser(named: "alice")
            let store = try backend.eventStore(for: "alice")
            calendarID = try store.createCalendar(EventCalendar(title: "Work")).id
            etag = try store.putResource(
                resource(vevent(uid: "a", ["DTSTART:20261201T090000Z", "SUMMARY:Kept"])), name: "a.ics",
                calendar: calendarID, ifMatch: nil,
                ifNoneMatch: false)
            let copy = directory.url.appendingPathComponent("backup.sqlite").path
            try backend.backup(to: copy)
            let restored = try DatabaseBackend(sqlitePath: copy)
            #expect(try restored.integrityCheck() == ["ok"])
            #expect(try restored.eventStore(for: "alice").resource(named: "a.ics", calendar: calendarID).etag == etag)
        }
        let reopened = try DatabaseBackend(directory: directory.path)
        #expect(try reopened.integrityCheck() == ["ok"])
        let store = try reopened.eventStore(for: "alice")
        #expect(try store.resource(named: "a.ics", calendar: calendarID).etag == etag)
        #expect(try store.events(in: firstDecemberWeek).map(\.title) == ["Kept"])
    }

    /// Runs SQL on a database file with the sqlite3 shell, as an operator would.
    static func sqlite3(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", path, sql]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
    }

    @Test func aNewerSchemaIsRefused() throws {
        let directory = try TemporaryDirectory()
        _ = try DatabaseBackend(directory: directory.path)
        try Self.sqlite3(directory.path + "/almanac.sqlite", "PRAGMA user_version = 99")
        let error = try #require(throws: StoreError.self) { try DatabaseBackend(directory: directory.path) }
        #expect(error.code == .database)
        #expect(error.message.contains("newer"))
    }

    /// A file from before objects kept their size (schema 2) is brought up to date on
    /// opening: each object's size and transparency are filled in from its bytes, and
    /// each calendar's object count and bytes from its objects.
    @Test func anOlderSchemaIsMigrated() throws {
        let directory = try TemporaryDirectory()
        let body = resource(vevent(uid: "a", ["DTSTART:20261201T090000Z", "SUMMARY:Kept", "TRANSP:TRANSPARENT"]))
        let calendarID = try Self.storeWork(["a.ics": body], in: directory)
        // Undo migrations 3 and later, as a file written by an Almanac with schema 2 would be.
        try Self.sqlite3(
            directory.path + "/almanac.sqlite",
            """
            DROP TABLE sessions; ALTER TABLE users DROP COLUMN first_weekday; ALTER TABLE users DROP COLUMN time_zone;
            ALTER TABLE users DROP COLUMN role; ALTER TABLE users DROP COLUMN disabled;
            ALTER TABLE users DROP COLUMN max_objects; ALTER TABLE users DROP COLUMN max_bytes;
            DROP TABLE api_token_events; DROP TABLE api_tokens; DROP TABLE added_marks;
            ALTER TABLE objects DROP COLUMN transparent; ALTER TABLE objects DROP COLUMN size;
            ALTER TABLE calendars DROP COLUMN object_count; ALTER TABLE calendars DROP COLUMN object_bytes;
            \(Self.rangeIndexBeforeSchema8) \(Self.undoSchemas9To20) PRAGMA user_version = 2;
            """)
        let reopened = try DatabaseBackend(directory: directory.path)
        let listed = try reopened.eventStore(for: "alice").resources(calendar: calendarID)
        #expect(listed.map(\.size) == [body.count])
        #expect(try reopened.eventStore(for: "alice").events(in: firstDecemberWeek).map(\.isTransparent) == [true])
        #expect(try reopened.integrityCheck() == ["ok"])
        // Migration 7 counted the calendar's objects for the quota: one more fits exactly.
        reopened.quota = StoreQuota(maxObjects: 2)
        let store = try reopened.eventStore(for: "alice")
        _ = try store.putResource(
            resource(vevent(uid: "b", ["DTSTART:20261201T090000Z"])), name: "b.ics", calendar: calendarID, ifMatch: nil,
            ifNoneMatch: false)
        #expect(throws: StoreError.self) {
            try store.putResource(
                resource(vevent(uid: "c", ["DTSTART:20261201T090000Z"])), name: "c.ics", calendar: calendarID,
                ifMatch: nil, ifNoneMatch: false)
        }
    }

    /// A store in `directory` with user alice and her calendar Work holding `objects` (by
    /// name), closed again before the caller edits the file; the calendar's identifier.
    static func storeWork(_ objects: [String: [UInt8]], in directory: TemporaryDirectory) throws -> String {
        let backend = try DatabaseBackend(directory: directory.path)
        try backend.createUser(named: "alice")
        let store = try backend.eventStore(for: "alice")
        let calendarID = try store.createCalendar(EventCalendar(title: "Work")).id
        for (name, data) in objects {
            _ = try store.putResource(data, name: name, calendar: calendarID, ifMatch: nil, ifNoneMatch: false)
        }
        return calendarID
    }

    /// Puts the range index back in the form of schemas 1 to 7: an R*Tree of the same boxes.
    static let rangeIndexBeforeSchema8 = """
        CREATE VIRTUAL TABLE old_ranges USING rtree_i32(id, calendar_min, calendar_max, start_min, end_max);
        INSERT INTO old_ranges SELECT id, calendar_id, calendar_id, start_min, end_max FROM object_ranges;
        DROP TABLE object_ranges; ALTER TABLE old_ranges RENAME TO object_ranges;
        """

    /// Removes what schemas 9 and 11 to 20 (and 25 to 27) added: push subscriptions, the
    /// alarm queue, the users' OpenID Connect identity, when each object was created, what a
    /// tombstone's resource held, the idempotency keys, the webhooks' tables and the
    /// objects' identifier index, the availability schedules, the bookings' tables and the
    /// sharing columns and tables (schema 10's token column goes with the tokens' table, or
    /// by itself; schema 14's webhook column with the webhooks' tables).
    static let undoSchemas9To20 = """
        DROP TABLE push_pending; DROP TABLE push_subscriptions;
        DROP TABLE alarm_instances; DROP TABLE alarm_dirty; DROP TABLE alarm_plan; DROP INDEX objects_alarms;
        DROP INDEX users_identity; ALTER TABLE users DROP COLUMN identity;
        DROP TABLE schedule_inbox_tombstones; DROP TABLE schedule_inbox_state; DROP TABLE personal_data; DROP TABLE grant_properties; DROP TABLE store_repairs; DROP TABLE server_secrets; DROP INDEX bookings_retry_key; ALTER TABLE bookings DROP COLUMN retry_key;
        ALTER TABLE objects DROP COLUMN created_sequence; ALTER TABLE tombstones DROP COLUMN identifier;
        ALTER TABLE tombstones DROP COLUMN uid; DROP TABLE idempotency_keys;
        DROP TABLE webhook_attempts; DROP TABLE webhook_queues; DROP TABLE webhook_deliveries;
        DROP TABLE webhook_calendars; DROP TABLE webhooks; DROP INDEX objects_calendar_identifier;
        DROP TABLE availability_schedules; DROP TABLE bookings; DROP TABLE booking_holds; DROP TABLE booking_types;
        DROP INDEX grants_alias; ALTER TABLE grants DROP COLUMN status; ALTER TABLE grants DROP COLUMN alias;
        ALTER TABLE grants DROP COLUMN summary; DROP TABLE share_notifications; DROP TABLE user_addresses;
        DROP INDEX calendars_busy_feed_token; ALTER TABLE calendars DROP COLUMN busy_feed_token;
        DROP TABLE feed_sources; DROP INDEX calendars_feed_url; DROP TABLE schedule_inbox;
        ALTER TABLE objects DROP COLUMN schedule_tag;
        """

    /// A file whose range index is still the R*Tree (schema 7) gets the B-tree on opening,
    /// with every box: a short event, one of more than a week and an open series are found
    /// where they were, and writes after it are indexed too.
    @Test func theRangeIndexOfSchema7IsRebuilt() throws {
        let directory = try TemporaryDirectory()
        let objects = [
            ("short", ["DTSTART:20261201T090000Z", "DTEND:20261201T100000Z"]),
            ("long", ["DTSTART:20261120T090000Z", "DTEND:20261215T090000Z"]),
            ("series", ["DTSTART:20250106T090000Z", "DTEND:20250106T100000Z", "RRULE:FREQ=WEEKLY;BYDAY=TU"]),
        ]
        let calendarID = try Self.storeWork(
            Dictionary(
                uniqueKeysWithValues: objects.map { uid, lines in
                    ("\(uid).ics", resource(vevent(uid: uid, lines + ["SUMMARY:\(uid)"])))
                }), in: directory)
        try Self.sqlite3(
            directory.path + "/almanac.sqlite",
            Self.rangeIndexBeforeSchema8 + Self.undoSchemas9To20
                + " ALTER TABLE api_tokens DROP COLUMN rate_limit; ALTER TABLE api_tokens DROP COLUMN expires;"
                + " ALTER TABLE api_tokens DROP COLUMN kind; ALTER TABLE api_tokens DROP COLUMN calendars;"
                + " ALTER TABLE api_tokens DROP COLUMN last_used; ALTER TABLE users DROP COLUMN role;"
                + " ALTER TABLE users DROP COLUMN disabled; ALTER TABLE users DROP COLUMN max_objects;"
                + " ALTER TABLE users DROP COLUMN max_bytes; PRAGMA user_version = 7;"
        )
        let reopened = try DatabaseBackend(directory: directory.path)
        #expect(try reopened.integrityCheck() == ["ok"])
        let store = try reopened.eventStore(for: "alice")
        #expect(try store.events(in: firstDecemberWeek).compactMap(\.title).sorted() == ["long", "series", "short"])
        #expect(
            try store.events(in: TimeRange(start: utc(2026, 12, 10), end: utc(2026, 12, 11))).compactMap(\.title) == [
                "long"
            ])
        _ = try store.putResource(
            resource(vevent(uid: "later", ["DTSTART:20261101T090000Z", "DTEND:20261231T090000Z", "SUMMARY:later"])),
            name: "later.ics", calendar: calendarID, ifMatch: nil, ifNoneMatch: false)
        #expect(
            try store.events(in: TimeRange(start: utc(2026, 12, 10), end: utc(2026, 12, 11))).compactMap(\.title)
                .sorted() == ["later", "long"])
    }

    /// A child process writes events and prints each acknowledgement; it is killed with
    /// SIGKILL at random moments. After every kill the file is sound, restarts cleanly,
    /// and holds every acknowledged write (or a later write of the same resource).
    @Test func acknowledgedWritesSurviveSIGKILL() throws {
        let directory = try TemporaryDirectory()
        let worker = Checkout.buildDirectory.appendingPathComponent("StoreCrashWorker")
        try #require(
            FileManager.default.isExecutableFile(atPath: worker.path),
            "build StoreCrashWorker first (swift build --build-tests)")
        var generator = SplitMix64(seed: 4242)
        var acknowledged: [String: String] = [:]
        var kills = 0
        for round in 0..<8 {
            let process = Process()
            process.executableURL = worker
            let last = round == 7
            process.arguments = [directory.path, String(round), last ? "300" : "3000"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            if !last {
                usleep(UInt32.random(in: 80_000...600_000, using: &generator))
                kill(process.processIdentifier, SIGKILL)
            }
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { kills += 1 }
            if last { #expect(process.terminationStatus == 0 && text.hasSuffix("done\n")) }
            for line in text.split(separator: "\n") where line.hasPrefix("ack ") {
                let parts = line.split(separator: " ")
                acknowledged[String(parts[1])] = String(parts[2])
            }

            let backend = try DatabaseBackend(directory: directory.path)
            #expect(try backend.integrityCheck() == ["ok"])
            let store = try backend.eventStore(for: "crash")
            let calendar = try #require(try store.calendar(titled: "Crash", createIfMissing: false))
            let stored = Dictionary(
                uniqueKeysWithValues: try store.resources(calendar: calendar.id).map { ($0.name, $0.etag) })
            for (name, etag) in acknowledged {
                let current = try #require(stored[name], "acknowledged \(name) is missing after round \(round)")
                #expect(
                    current == etag || sequence(current) > sequence(etag),
                    "\(name): acknowledged \(etag), found \(current)")
            }
        }
        #expect(kills >= 5)
        #expect(acknowledged.count > 300)
    }

    private func sequence(_ etag: String) -> Int {
        Int(etag.dropFirst().prefix { $0 != "-" }) ?? -1
    }
}

@Suite("Concurrency") struct ConcurrencyTests {
    /// Writers race with If-Match on one resource: each round exactly one wins, and
    /// the winner's write is what is stored.
    @Test(arguments: Backend.allCases) func exactlyOneIfMatchWriterWins(_ kind: Backend) async throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        var etag = try store.putResource(
            resource(vevent(uid: "race", ["DTSTART:20261201T090000Z", "SUMMARY:Start"])), name: "race.ics",
            calendar: work.id, ifMatch: nil,
            ifNoneMatch: false)
        for round in 0..<20 {
            let current = etag
            let results = await withTaskGroup(of: (Int, String?).self) { group in
                for writer in 0..<6 {
                    group.addTask {
                        let data = resource(
                            vevent(
                                uid: "race", ["DTSTART:20261201T090000Z", "SUMMARY:Round \(round) writer \(writer)"]))
                        let tag = try? store.putResource(
                            data, name: "race.ics", calendar: work.id, ifMatch: current, ifNoneMatch: false)
                        return (writer, tag)
                    }
                }
                return await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
            }
            let winners = results.filter { $0.1 != nil }
            #expect(winners.count == 1, "round \(round)")
            guard let winner = winners.first else { continue }
            etag = winner.1!
            let stored = try store.resource(named: "race.ics", calendar: work.id)
            #expect(stored.etag == etag)
            #expect(String(decoding: stored.data, as: UTF8.self).contains("SUMMARY:Round \(round) writer \(winner.0)"))
        }
    }

    /// Many writers creating distinct events at once lose nothing.
    @Test(arguments: Backend.allCases) func parallelCreatesAreAllKept(_ kind: Backend) async throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        _ = try store.save(
                            Event(
                                title: "W\(writer) #\(index)", start: zoned("UTC", 2026, 12, 2, 9),
                                calendarIdentifier: work.id))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.resources(calendar: work.id).count == 200)
        #expect(try store.changes(since: nil, calendar: work.id).token.sequence == 200)
    }

    /// Callers racing to find-or-create a calendar by title (story 2's helper, run by
    /// several devices or server processes at once) all get the one calendar made.
    @Test(arguments: Backend.allCases) func racingFindOrCreateMakesOneCalendar(_ kind: Backend) throws {
        for round in 0..<5 {
            let fixture = try StoreFixture(kind)
            let title = "Trainings \(round)"
            // Sixteen threads of their own (not the two-thread task pool), released together.
            let gate = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            let found = Mutex<[String?]>([])
            for _ in 0..<16 {
                done.enter()
                let store = try fixture.store(for: "alice")
                Thread {
                    gate.wait()
                    let identifier = try? store.calendar(titled: title, createIfMissing: true)?.id
                    found.withLock { $0.append(identifier) }
                    done.leave()
                }.start()
            }
            for _ in 0..<16 { gate.signal() }
            done.wait()
            let identifiers = found.withLock { $0 }
            #expect(!identifiers.contains(nil), "round \(round): every caller gets the calendar")
            #expect(Set(identifiers).count == 1, "round \(round)")
            #expect(try fixture.store.calendars().filter { $0.title == title }.count == 1, "round \(round)")
        }
    }
}
