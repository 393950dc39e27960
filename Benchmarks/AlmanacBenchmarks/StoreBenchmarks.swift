import CalendarStore
import Foundation

/// The event store at scale, on SQLite or PostgreSQL (each figure names its
/// `backend`): bulk import, one-week queries, find by UID, incremental sync,
/// database size and peak memory.
///
/// Data: `calendars` calendars of `eventsPerCalendar` generated events each (seeds
/// 1…N of the project's corpus generator, about 15% recurring, some with overrides), imported into a
/// fresh database under `.build/benchmarks/store-…`.
enum StoreBenchmarks {
    /// The directory of the store with `calendars` × `eventsPerCalendar` generated events.
    static func directory(calendars: Int, eventsPerCalendar: Int) -> URL {
        Corpus.workDirectory.appendingPathComponent("store-\(calendars)x\(eventsPerCalendar)")
    }

    /// That store, imported unless a complete one is there already (user `bench`).
    static func ensure(calendars: Int, eventsPerCalendar: Int) -> URL {
        let directory = directory(calendars: calendars, eventsPerCalendar: eventsPerCalendar)
        if let backend = try? DatabaseBackend(directory: directory.path),
            let store = try? backend.eventStore(for: "bench"),
            (try? store.calendars().count) == calendars
        {
            return directory
        }
        run(calendars: calendars, eventsPerCalendar: eventsPerCalendar, queries: 10, reuse: false)
        return directory
    }

    /// Where a run keeps its store: a data directory, or a PostgreSQL cluster and database.
    enum Location {
        case sqlite(URL)
        case postgres(BenchPostgres, String)

        func open() throws(StoreError) -> DatabaseBackend {
            switch self {
            case .sqlite(let directory): try DatabaseBackend(directory: directory.path)
            case .postgres(_, let database): try DatabaseBackend(postgresURL: database)
            }
        }

        var name: String {
            if case .postgres = self { return "postgres" }
            return "sqlite"
        }
    }

    static func run(
        calendars: Int, eventsPerCalendar: Int, queries: Int, reuse: Bool, postgres: (BenchPostgres, String)? = nil
    ) {
        let directory = directory(calendars: calendars, eventsPerCalendar: eventsPerCalendar)
        let location = postgres.map { Location.postgres($0.0, $0.1) } ?? .sqlite(directory)
        if reuse, postgres == nil,
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("almanac.sqlite").path)
        {
            return measure(location, queries: queries)
        }
        let files = generateFiles(calendars: calendars, events: eventsPerCalendar)
        if postgres == nil { try? FileManager.default.removeItem(at: directory) }
        let store: any EventStore
        do {
            let backend = try location.open()
            try backend.createUser(named: "bench")
            store = try backend.eventStore(for: "bench")
        } catch {
            fatalError("cannot open the benchmark store: \(error)")
        }

        // Bulk import: split each file into objects and write them in batches.
        var imported = 0
        var rejected = 0
        var recurring = 0
        let clock = ContinuousClock()
        var importTime = Duration.zero
        var splitTime = Duration.zero
        for (index, file) in files.enumerated() {
            guard let data = FileManager.default.contents(atPath: file.path) else {
                fatalError("cannot read \(file.path)")
            }
            let start = clock.now
            do {
                let calendar = try store.createCalendar(EventCalendar(title: "Calendar \(index + 1)"))
                let splitStart = clock.now
                let objects = try CalendarFileSplitter.split([UInt8](data)).objects
                splitTime += clock.now - splitStart
                for batch in stride(from: 0, to: objects.count, by: 1_000) {
                    let slice = objects[batch..<min(objects.count, batch + 1_000)]
                    for result in try store.importObjects(Array(slice), calendar: calendar.id) {
                        if case .success = result { imported += 1 } else { rejected += 1 }
                    }
                }
                importTime += clock.now - start
                recurring += objects.filter { isRecurring($0.data) }.count
            } catch {
                fatalError("import failed: \(error)")
            }
            if (index + 1) % 10 == 0 { Report.note("imported \(index + 1) of \(files.count) calendars") }
        }
        let importSeconds = seconds(importTime)
        Report.figure(
            "store.import", Double(imported) / importSeconds, unit: "events/s",
            [
                "events": imported, "rejected": rejected, "recurring": recurring, "calendars": calendars,
                "goal": 20_000,
                "split_share": (seconds(splitTime) / importSeconds * 1000).rounded() / 1000, "backend": location.name,
            ])

        measure(location, queries: queries, storedEvents: imported)
    }

    /// The query, lookup and sync figures on an imported store.
    static func measure(_ location: Location, queries: Int, storedEvents: Int? = nil) {
        let clock = ContinuousClock()
        let backend = try! location.open()
        let store = try! backend.eventStore(for: "bench")
        let calendarIDs = try! store.calendars().map(\.id)
        let imported = storedEvents ?? (try! backend.statistics().objects)
        var uids: [String] = []
        for calendar in calendarIDs.prefix(10) {
            uids += try! store.resources(calendar: calendar).prefix(1_000).map { String($0.name.dropLast(4)) }
        }
        // One-week queries: a random calendar and a random week of the corpus's years (2024–2027).
        var generator = SystemRandomNumberGenerator()
        let firstMonday = 1_704_067_200  // 2024-01-01T00:00:00Z, a Monday
        func randomWeek() -> TimeRange {
            let start = firstMonday + Int.random(in: 0..<(4 * 52), using: &generator) * 7 * 86_400
            return TimeRange(start: start, end: start + 7 * 86_400)
        }
        func measureQueries(_ label: String, calendarsToUse: [String], _ extra: [String: Any]) {
            var samples: [Double] = []
            var returned = 0
            for _ in 0..<queries {
                let calendar = calendarsToUse.randomElement(using: &generator)!
                let week = randomWeek()
                let start = clock.now
                let found = try! store.events(in: week, calendars: [calendar])
                samples.append(seconds(clock.now - start) * 1000)
                returned += found.count
            }
            samples.sort()
            let p50 = samples[samples.count / 2]
            let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
            var fields = extra
            fields["p99"] = (p99 * 1000).rounded() / 1000
            fields["queries"] = queries
            fields["occurrences_per_query"] = Double(returned) / Double(queries)
            fields["stored_events"] = imported
            fields["backend"] = location.name
            Report.figure(label, p50, unit: "ms (p50)", fields)
        }
        measureQueries(
            "store.week_query.random_calendar", calendarsToUse: calendarIDs, ["goal_p50": 2, "goal_p99": 10])
        measureQueries(
            "store.week_query.one_calendar", calendarsToUse: [calendarIDs[0]], ["goal_p50": 2, "goal_p99": 10])

        // Find by UID (the external identifier), which the generator also uses as the resource name.
        let lookups = min(2_000, uids.count)
        let lookupStart = clock.now
        for uid in uids.shuffled().prefix(lookups) { _ = try! store.event(withIdentifier: uid) }
        Report.figure(
            "store.find_by_uid", seconds(clock.now - lookupStart) * 1e6 / Double(max(1, lookups)), unit: "µs",
            ["backend": location.name])

        // changes(since:) after 100 writes to one calendar.
        let calendar = calendarIDs[calendarIDs.count / 2]
        let token = try! store.changes(since: nil, calendar: calendar).token
        for index in 0..<100 {
            let text =
                "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Bench//EN\r\nBEGIN:VEVENT\r\nUID:sync-\(index)\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261201T090000Z\r\nSUMMARY:Write \(index)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            _ = try! store.putResource(
                Array(text.utf8), name: "sync-\(index).ics", calendar: calendar, ifMatch: nil, ifNoneMatch: false)
        }
        let syncTime = medianSeconds(iterations: 20) { try! store.changes(since: token, calendar: calendar) }
        Report.figure("store.changes_since_after_100_writes", syncTime * 1000, unit: "ms", ["backend": location.name])

        // Size on disk (database and WAL, or PostgreSQL's files) and peak memory.
        let size: Int
        switch location {
        case .sqlite:
            size = ["", "-wal"].compactMap { suffix in
                (try? FileManager.default.attributesOfItem(atPath: backend.location + suffix))?[.size] as? Int
            }.reduce(0, +)
        case .postgres(let cluster, let database):
            size = cluster.size(of: database)
        }
        Report.figure(
            "store.database_size", Double(size) / 1_048_576, unit: "MiB",
            ["bytes_per_event": size / max(1, imported), "backend": location.name])
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        Report.figure("store.peak_rss", Double(usage.ru_maxrss) / 1024, unit: "MiB", ["backend": location.name])
    }

    /// Whether an object's VEVENT has an RRULE (VTIMEZONE rules come before it).
    static func isRecurring(_ data: [UInt8]) -> Bool {
        func find(_ needle: String, from start: Int) -> Int? {
            let pattern = Array(needle.utf8)
            guard data.count >= pattern.count else { return nil }
            var index = start
            while index <= data.count - pattern.count {
                if data[index] == pattern[0] && data[index..<index + pattern.count].elementsEqual(pattern) {
                    return index
                }
                index += 1
            }
            return nil
        }
        guard let event = find("BEGIN:VEVENT", from: 0) else { return false }
        return find("\nRRULE:", from: event) != nil
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Generated files, one per calendar (seeds 1…N), made two at a time and cached.
    static func generateFiles(calendars: Int, events: Int) -> [URL] {
        let urls = (1...calendars).map { Corpus.workDirectory.appendingPathComponent("corpus-\(events)-\($0).ics") }
        let missing = urls.enumerated().filter { !FileManager.default.fileExists(atPath: $0.element.path) }
        if !missing.isEmpty { Report.note("generating \(missing.count) corpus files of \(events) events") }
        DispatchQueue.concurrentPerform(iterations: missing.count) { index in
            let (offset, url) = missing[index]
            Corpus.write(events: events, seed: offset + 1, to: url)
        }
        return urls
    }
}
