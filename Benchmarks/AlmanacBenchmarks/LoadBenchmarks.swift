import AlmanacServer
import AlmanacTestSupport
import CMallocCounter
import CalendarStore
import Foundation
import HTTPServer
import HTTPTypes
import Synchronization

/// Mixed CalDAV load on `almanac serve` (release build), shaped like many synced
/// clients on one calendar: `connections` keep-alive connections, one thread each,
/// each sending its next request as soon as the last is answered, for `seconds`
/// after a warm-up that is not counted. The calendar starts with the corpus's first
/// `events` events (one .ics per UID, loaded by PUT, untimed). Each mix runs on a
/// fresh server and store of its own (``Mix``):
/// - steady (`load.almanac.*`, issue 19): 30% PROPFIND Depth 0 of the calendar for its
///   CTag and sync token; 20% incremental `sync-collection` from the token the
///   connection last saw; 20% GET of a random object (one of those loaded, or one the
///   connection made); 20% one-week `calendar-query` with `calendar-data`, a random
///   week of the corpus's years (2024–2028); 10% a write: PUT of a new event
///   (`If-None-Match: *`, a corpus event under a fresh UID), or, once the connection
///   holds `kept` events of its own, DELETE of its oldest, so the calendar stays at
///   its size (`events_at_end` says where it ended);
/// - stale token (`load.almanac.stale_token.*`): 40% PROPFIND Depth 0, 25% week
///   query, 10% `sync-collection` from a token taken before the run (its answer grows
///   with every write), 10% GET, 15% PUT of new events;
/// - synced (`load.almanac.synced.*`): clients that keep their token: 40% PROPFIND
///   Depth 0, 25% week query, 10% `sync-collection` from their last token, 10%
///   `calendar-multiget` of the hrefs that sync named (else of four random events),
///   10% GET, 5% PUT of new events;
/// - each kind alone (`load.almanac.only_<kind>.requests_per_second`, shorter runs):
///   its throughput at `connections`, with p50 and p99.
///
/// Each connection draws with its own SplitMix64 (seeded by its number). Any status
/// but 207 (PROPFIND, REPORT), 200 (GET) or 201/204 (PUT), or a connection that
/// fails, is an error. Figures: requests/s; p50, p99 and max latency, overall and
/// per kind; errors; the client's own CPU share of the machine over the window
/// (`getrusage`; it shares the cores with the server); the server's CPU share and its
/// peak RSS (`/proc/<pid>`); and heap allocations per request in the server's handler
/// (routing, authentication, DAV, the store; not libmicrohttpd), replayed in this
/// process on the same store after the run. With PostgreSQL the steady mix follows on
/// it, then a ratio line per figure.
enum LoadBenchmarks {
    /// Events of its own a connection keeps before its writes delete them again.
    static let kept = 4

    static func run(events: Int, connections: Int, seconds: Double, postgres: BenchPostgres?) {
        let work = Corpus.workDirectory.appendingPathComponent("load-\(events)")
        try? FileManager.default.removeItem(at: work)
        try! FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let objects = try! CalendarFileSplitter.split(
            [UInt8](FileManager.default.contents(atPath: Corpus.file(events: events).path) ?? Data())
        ).objects
        let bodies = objects.enumerated().map {
            (name: String(format: "event-%06d.ics", $0.offset), body: $0.element.data)
        }
        let almanac = ServerBenchmarks.releaseAlmanac()
        // Each mix, then each kind alone, on a server and store of its own.
        var sqlite: [String: Double] = [:]
        let kinds = Kind.allCases.filter { $0 != .delete }
        for mix in [Mix.steady, .staleToken, .synced] + kinds.map(Mix.only) {
            let data = work.appendingPathComponent("almanac-\(mix.name ?? "steady")").path
            guard let onSQLite = Server.almanac(binary: almanac, data: data) else {
                fatalError("almanac did not start")
            }
            let brief = mix.shares.count == 1
            let figures = measure(
                onSQLite, label: "almanac", mix: mix, bodies: bodies, connections: connections,
                seconds: brief ? min(seconds, 10) : seconds, warmUp: brief ? 2 : 5,
                backend: brief ? nil : { () throws(StoreError) in try DatabaseBackend(directory: data) })
            if mix.name == nil { sqlite = figures }
        }
        guard let postgres else { return }
        let database = postgres.freshDatabase("load_\(events)")
        guard let onPostgres = Server.almanac(binary: almanac, data: "", database: database) else {
            fatalError("almanac on PostgreSQL did not start")
        }
        let figures = measure(
            onPostgres, label: "almanac-postgres", mix: .steady, bodies: bodies, connections: connections,
            seconds: seconds, warmUp: 5
        ) { () throws(StoreError) in try DatabaseBackend(location: database) }
        for (name, value) in figures.sorted(by: { $0.key < $1.key }) {
            guard let base = sqlite[name], base > 0, value > 0 else { continue }
            // Above 1 when PostgreSQL is ahead: rates over SQLite's, SQLite's costs over PostgreSQL's.
            let ratio = name.hasSuffix("_per_second") ? value / base : base / value
            Report.figure(
                "ratio.load.\(name).postgres-vs-sqlite", ratio, unit: "x",
                ["events": events, "connections": connections, "above_1": "PostgreSQL ahead"])
        }
    }

    /// Loads the calendar, runs the mix for `seconds` after `warmUp` seconds not counted,
    /// prints the figures (a mix of one kind: one line), counts allocations in process
    /// on the store `backend` opens (nil: not); returns the figures that have a ratio.
    static func measure(
        _ server: Server, label: String, mix: Mix, bodies: [(name: String, body: [UInt8])], connections: Int,
        seconds: Double, warmUp: Double, backend: (() throws(StoreError) -> DatabaseBackend)?
    ) -> [String: Double] {
        let label = label + (mix.name.map { "." + $0 } ?? "")
        let setup = server.client()
        precondition(setup.send("MKCALENDAR", server.collection).status == 201, "\(label): MKCALENDAR failed")
        for (name, body) in bodies {
            let status = setup.send(
                "PUT", server.collection + name, body: body, headers: ["Content-Type": "text/calendar; charset=utf-8"]
            ).status
            precondition(status == 201 || status == 204, "\(label): PUT \(name) answered \(status)")
        }
        var workload = Workload(
            collection: server.collection, authorization: server.authorization, mix: mix, objects: bodies.map(\.name),
            templates: bodies.map(\.body))
        // The token a stale client holds: taken now, before every write of the run.
        let answer = setup.send(
            "PROPFIND", server.collection, body: Workload.propfind,
            headers: ["Depth": "0", "Content-Type": "application/xml"])
        workload.staleToken = Workload.syncToken(in: Array(answer.text.utf8)[...]) ?? []
        let prepared = workload
        let pid = server.process.processIdentifier
        let rssAtStart = ProcessStatus.kilobytes("VmRSS", pid: pid)

        let clock = ContinuousClock()
        let begin = clock.now + .seconds(warmUp)
        let finish = begin + .seconds(seconds)
        let results = Mutex<[ConnectionResult]>([])
        let group = DispatchGroup()
        let port = server.port
        for number in 0..<connections {
            group.enter()
            Thread {
                let result = prepared.drive(port: port, number: number, counting: begin, until: finish)
                results.withLock { $0.append(result) }
                group.leave()
            }.start()
        }
        func sleep(until instant: ContinuousClock.Instant) {
            let left = ServerBenchmarks.seconds(instant - clock.now)
            if left > 0 { usleep(UInt32(left * 1e6)) }
        }
        sleep(until: begin)
        let machineBefore = ProcessStatus.machineCPU()
        let clientBefore = ProcessStatus.ownCPUSeconds()
        let serverBefore = ProcessStatus.cpuSeconds(pid: pid)
        var rssSampled = 0
        while clock.now < finish {
            rssSampled = max(rssSampled, ProcessStatus.kilobytes("VmRSS", pid: pid))
            sleep(until: min(finish, clock.now + .milliseconds(250)))
        }
        let wall = ServerBenchmarks.seconds(clock.now - begin)
        let clientCPU = ProcessStatus.ownCPUSeconds() - clientBefore
        let serverCPU = ProcessStatus.cpuSeconds(pid: pid) - serverBefore
        let machineAfter = ProcessStatus.machineCPU()
        let machineBusy =
            (machineAfter.busy - machineBefore.busy) / max(1, machineAfter.total - machineBefore.total) * 100
        group.wait()
        let peakRSS = ProcessStatus.kilobytes("VmHWM", pid: pid)
        let merged = results.withLock { ConnectionResult.merge($0) }

        let cores = Double(max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let all = merged.latencies.flatMap { $0 }.sorted()
        let rate = Double(all.count) / seconds
        let context: [String: Any] = [
            "events": bodies.count, "connections": connections, "seconds": seconds, "warm_up_seconds": warmUp,
        ]
        func fields(_ extra: [String: Any]) -> [String: Any] { context.merging(extra) { _, new in new } }
        guard mix.shares.count > 1 else {
            server.stop()
            Report.figure(
                "load.\(label).requests_per_second", rate, unit: "requests/s",
                fields([
                    "p50_ms": rounded(percentile(all, 50)), "p99_ms": rounded(percentile(all, 99)),
                    "errors": merged.errors.reduce(0, +), "events_at_end": bodies.count + merged.made,
                    "server_cpu_percent": rounded(serverCPU / (wall * cores) * 100), "note": mix.note,
                ]))
            return ["requests_per_second": rate]
        }
        func byKind(_ value: ([Double]) -> Any) -> [String: Any] {
            var fields: [String: Any] = [:]
            for kind in Kind.allCases {
                let sorted = merged.latencies[kind.rawValue].sorted()
                fields[kind.name] = sorted.isEmpty ? 0 : value(sorted)
            }
            return fields
        }
        Report.figure(
            "load.\(label).requests_per_second", rate, unit: "requests/s",
            fields([
                "requests": all.count, "events_at_end": bodies.count + merged.made,
                "goal": mix.name == "synced" ? 10_000 : 2_500,
                "mix_percent": Dictionary(uniqueKeysWithValues: mix.shares.map { ($0.kind.name, $0.percent) }),
                "note": mix.note,
                "requests_by_kind": byKind { $0.count },
            ]))
        var figures: [String: Double] = ["requests_per_second": rate]
        for (name, percent) in [("p50", 50), ("p99", 99), ("max", 100)] {
            figures["\(name)_ms"] = percentile(all, percent)
            var extra: [String: Any] = ["by_kind": byKind { rounded(percentile($0, percent)) }]
            if percent == 99 { extra["goal"] = mix.name == "synced" ? 20 : 50 }
            Report.figure("load.\(label).\(name)_ms", percentile(all, percent), unit: "ms", fields(extra))
        }
        Report.figure(
            "load.\(label).errors", Double(merged.errors.reduce(0, +)), unit: "errors",
            fields([
                "by_kind": Dictionary(
                    uniqueKeysWithValues: Kind.allCases.map { ($0.name, merged.errors[$0.rawValue]) }),
                "statuses": Dictionary(uniqueKeysWithValues: merged.unexpected.map { (String($0.key), $0.value) }),
                "goal": 0,
            ]))
        Report.figure(
            "load.\(label).client_cpu_percent", clientCPU / (wall * cores) * 100, unit: "% of all cores",
            fields(["cores": cores, "cpu_seconds": rounded(clientCPU), "wall_seconds": rounded(wall)]))
        Report.figure(
            "load.\(label).server_cpu_percent", serverCPU / (wall * cores) * 100, unit: "% of all cores",
            fields([
                "cores": cores, "cpu_seconds": rounded(serverCPU),
                "note": "the almanac process only, not a PostgreSQL server",
                // Everything else that ran meanwhile (PostgreSQL, other work on a shared machine) is in here too.
                "machine_busy_percent": rounded(machineBusy),
            ]))
        // The kernel updates VmHWM lazily, so a sample can exceed it by a little: the larger is the peak.
        let peak = Double(max(peakRSS, rssSampled)) / 1024
        figures["server_peak_rss_mb"] = peak
        Report.figure(
            "load.\(label).server_peak_rss_mb", peak, unit: "MB",
            fields([
                "vm_hwm_mb": rounded(Double(peakRSS) / 1024), "sampled_max_rss_mb": rounded(Double(rssSampled) / 1024),
                "rss_before_load_mb": rounded(Double(rssAtStart) / 1024), "goal_mb": 150,
            ]))
        server.stop()

        if let backend, almanac_allocation_counting_supported() != 0 {
            do throws(StoreError) {
                let replayed = workload.replay(on: try backend(), requests: 2_000)
                figures["allocations_per_request"] = replayed.overall
                Report.figure(
                    "load.\(label).allocations_per_request", replayed.overall, unit: "allocations",
                    fields([
                        "by_kind": Dictionary(
                            uniqueKeysWithValues: replayed.byKind.map { ($0.key.name, rounded($0.value)) }),
                        "requests": 2_000, "where": "the handler in process, without the HTTP transport",
                    ]))
            } catch {
                Report.note("\(label): could not reopen the store to count allocations: \(error)")
            }
        }
        return figures
    }

    /// The value at `percent` of a sorted list (100: the largest; 0 when empty).
    static func percentile(_ sorted: [Double], _ percent: Int) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * percent / 100)]
    }

    static func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    /// One kind of request.
    enum Kind: Int, CaseIterable, Sendable {
        case propfind, sync, get, query, put, delete, staleSync, multiget

        var name: String {
            ["propfind", "sync", "get", "query", "put", "delete", "stale_sync", "multiget"][rawValue]
        }

        func expects(_ status: Int) -> Bool {
            switch self {
            case .propfind, .sync, .query, .staleSync, .multiget: status == 207
            case .get: status == 200
            case .put: status == 201 || status == 204
            case .delete: status == 204 || status == 200
            }
        }
    }

    /// The requests a run draws, by share in percent (adding up to 100).
    struct Mix: Sendable {
        /// In the figures' names: `load.<server>[.<name>].*`; nil for the steady mix.
        var name: String?
        var shares: [(kind: Kind, percent: Int)]
        /// A drawn PUT becomes a DELETE of the connection's oldest event once it holds
        /// ``LoadBenchmarks/kept`` of its own, so the calendar keeps its size.
        var deletes: Bool
        /// Said in the figures: how the mix was chosen.
        var note: String

        /// Issue 19's mix, the calendar kept at its size.
        static let steady = Mix(
            name: nil, shares: [(.propfind, 30), (.sync, 20), (.get, 20), (.query, 20), (.put, 10)], deletes: true,
            note: "a PUT of a new event, or a DELETE of the connection's oldest once it has \(kept)")
        /// Clients that sync from a token taken before the run: each answer holds every
        /// change since, and grows with every PUT (the calendar grows too).
        static let staleToken = Mix(
            name: "stale_token", shares: [(.propfind, 40), (.query, 25), (.staleSync, 10), (.get, 10), (.put, 15)],
            deletes: false, note: "sync-collection from a token taken before the run; PUTs of new events only")
        /// Clients that keep their sync token and fetch what changed by calendar-multiget.
        static let synced = Mix(
            name: "synced",
            shares: [(.propfind, 40), (.query, 25), (.sync, 10), (.multiget, 10), (.get, 10), (.put, 5)],
            deletes: false,
            note:
                "sync-collection from the client's last token, then calendar-multiget of what it named (else of 4 random events); PUTs of new events only"
        )
        /// One kind alone: its throughput.
        static func only(_ kind: Kind) -> Mix {
            Mix(name: "only_\(kind.name)", shares: [(kind, 100)], deletes: false, note: "\(kind.name) alone")
        }

        /// The next kind of request: drawn by share, but a PROPFIND while the client has
        /// no sync token yet (a sync-collection without one would be an initial sync), and
        /// a DELETE instead of a PUT when it holds `kept` events of its own and the mix deletes.
        func next(_ generator: inout SplitMix64, _ state: ClientState) -> Kind {
            switch draw(&generator) {
            case .sync where state.token.isEmpty: .propfind
            case .put where deletes && state.made.count >= LoadBenchmarks.kept: .delete
            case let kind: kind
            }
        }

        func draw(_ generator: inout SplitMix64) -> Kind {
            var roll = Int.random(in: 0..<100, using: &generator)
            for (kind, percent) in shares {
                if roll < percent { return kind }
                roll -= percent
            }
            return shares[0].kind
        }
    }

    /// What one connection recorded: milliseconds per kind, errors per kind, the
    /// unexpected statuses seen (0: the connection failed), and how many more events
    /// the calendar has for it (made less deleted).
    struct ConnectionResult: Sendable {
        var latencies = Array(repeating: [Double](), count: Kind.allCases.count)
        var errors = Array(repeating: 0, count: Kind.allCases.count)
        var unexpected: [Int: Int] = [:]
        var made = 0

        static func merge(_ results: [ConnectionResult]) -> ConnectionResult {
            var merged = ConnectionResult()
            for result in results {
                for kind in Kind.allCases {
                    merged.latencies[kind.rawValue] += result.latencies[kind.rawValue]
                    merged.errors[kind.rawValue] += result.errors[kind.rawValue]
                }
                merged.unexpected.merge(result.unexpected, uniquingKeysWith: +)
                merged.made += result.made
            }
            return merged
        }
    }

    /// One request, before it is written to a socket or handed to the handler in process.
    struct Request {
        var method: String
        var path: String
        var headers: KeyValuePairs<String, String>
        var body: [UInt8]

        /// HTTP/1.1 on the wire, into `bytes` (emptied first, its storage kept).
        func write(into bytes: inout [UInt8], authorization: String) {
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: method.utf8)
            bytes.append(0x20)
            bytes.append(contentsOf: path.utf8)
            bytes.append(contentsOf: " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ".utf8)
            bytes.append(contentsOf: authorization.utf8)
            bytes.append(contentsOf: "\r\nContent-Length: ".utf8)
            bytes.append(contentsOf: String(body.count).utf8)
            for (name, value) in headers {
                bytes.append(contentsOf: "\r\n".utf8)
                bytes.append(contentsOf: name.utf8)
                bytes.append(contentsOf: ": ".utf8)
                bytes.append(contentsOf: value.utf8)
            }
            bytes.append(contentsOf: "\r\n\r\n".utf8)
            bytes.append(contentsOf: body)
        }

        func httpRequest(authorization: String) -> HTTPRequest {
            var fields = HTTPHeaders()
            fields.add("Host", "127.0.0.1")
            fields.add("Authorization", authorization)
            fields.add("Content-Length", String(body.count))
            for (name, value) in headers { fields.add(name, value) }
            return HTTPRequest(method: method, path: path, headers: fields, body: body)
        }
    }

    /// What one client remembers between requests.
    struct ClientState {
        /// Used in the UIDs and names of the events this client makes.
        var prefix: String
        /// The sync token of its last PROPFIND or sync-collection answer.
        var token: [UInt8] = []
        /// Names of the events it made and has not deleted, oldest first.
        var made: [String] = []
        /// The hrefs its last sync-collection named, for a calendar-multiget.
        var changed: [[UInt8]] = []
        var number = 0
    }

    /// What every connection shares: where the calendar is and the requests to pick from.
    struct Workload: Sendable {
        let collection: String
        let authorization: String
        let mix: Mix
        let objects: [String]
        /// calendar-query bodies, one per week of 2024–2028.
        let weeks: [[UInt8]]
        /// Corpus events split where each UID value starts, to make new events from.
        let templates: [[[UInt8]]]
        /// A sync token taken before the run (for ``Kind/staleSync``).
        var staleToken: [UInt8] = []

        static let propfind = Array(
            ("<?xml version=\"1.0\"?><D:propfind xmlns:D=\"DAV:\" xmlns:CS=\"http://calendarserver.org/ns/\">"
                + "<D:prop><CS:getctag/><D:sync-token/></D:prop></D:propfind>").utf8)
        static let uidLine = Array("\r\nUID:".utf8)

        init(collection: String, authorization: String, mix: Mix, objects: [String], templates: [[UInt8]]) {
            self.collection = collection
            self.authorization = authorization
            self.mix = mix
            self.objects = objects
            self.templates = templates.map { Self.split($0, at: Self.uidLine) }
            // 2024-01-01 is a Monday; weeks from there.
            weeks = (0..<(5 * 52)).map { week in
                let start = Date(timeIntervalSince1970: 1_704_067_200 + Double(week * 7) * 86_400)
                return Array(
                    ("<?xml version=\"1.0\"?><C:calendar-query xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\">"
                        + "<D:prop><D:getetag/><C:calendar-data/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\">"
                        + "<C:comp-filter name=\"VEVENT\"><C:time-range start=\"\(ServerBenchmarks.davStamp(start))\" "
                        + "end=\"\(ServerBenchmarks.davStamp(start.addingTimeInterval(7 * 86_400)))\"/>"
                        + "</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>").utf8)
            }
        }

        /// `bytes` cut before every occurrence of `separator` (each piece after the first starts with it).
        static func split(_ bytes: [UInt8], at separator: [UInt8]) -> [[UInt8]] {
            var pieces: [[UInt8]] = []
            var start = 0
            var index = 0
            while index + separator.count <= bytes.count {
                if bytes[index..<index + separator.count].elementsEqual(separator), index > start {
                    pieces.append(Array(bytes[start..<index]))
                    start = index
                    index += separator.count
                } else {
                    index += 1
                }
            }
            pieces.append(Array(bytes[start...]))
            return pieces
        }

        func request(_ kind: Kind, _ generator: inout SplitMix64, _ state: inout ClientState) -> Request {
            switch kind {
            case .propfind:
                return Request(
                    method: "PROPFIND", path: collection, headers: ["Depth": "0", "Content-Type": "application/xml"],
                    body: Self.propfind)
            case .sync, .staleSync:
                let body =
                    Array("<?xml version=\"1.0\"?><D:sync-collection xmlns:D=\"DAV:\"><D:sync-token>".utf8)
                    + (kind == .sync ? state.token : staleToken)
                    + Array(
                        "</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>"
                            .utf8)
                return Request(
                    method: "REPORT", path: collection, headers: ["Content-Type": "application/xml"], body: body)
            case .get:
                return Request(method: "GET", path: collection + pick(&generator, state), headers: [:], body: [])
            case .multiget:
                var hrefs = state.changed.prefix(50)
                if hrefs.isEmpty {
                    hrefs = (0..<4).map { _ in Array((collection + pick(&generator, state)).utf8) }[...]
                }
                state.changed = []
                var body = Array(
                    ("<?xml version=\"1.0\"?><C:calendar-multiget xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\">"
                        + "<D:prop><D:getetag/><C:calendar-data/></D:prop>").utf8)
                for href in hrefs { body += Array("<D:href>".utf8) + href + Array("</D:href>".utf8) }
                body += Array("</C:calendar-multiget>".utf8)
                return Request(
                    method: "REPORT", path: collection, headers: ["Depth": "1", "Content-Type": "application/xml"],
                    body: body)
            case .query:
                return Request(
                    method: "REPORT", path: collection, headers: ["Depth": "1", "Content-Type": "application/xml"],
                    body: weeks[Int.random(in: 0..<weeks.count, using: &generator)])
            case .put:
                state.number += 1
                let uid = "\(state.prefix)-\(state.number)"
                let pieces = templates[Int.random(in: 0..<templates.count, using: &generator)]
                var body = pieces[0]
                let value = Array("\(uid)-".utf8)
                for piece in pieces.dropFirst() {
                    body += Self.uidLine
                    body += value
                    body += piece.dropFirst(Self.uidLine.count)
                }
                return Request(
                    method: "PUT", path: collection + uid + ".ics",
                    headers: ["Content-Type": "text/calendar; charset=utf-8", "If-None-Match": "*"], body: body)
            case .delete:
                return Request(method: "DELETE", path: collection + (state.made.first ?? ""), headers: [:], body: [])
            }
        }

        /// One of the loaded events or of those this client made.
        func pick(_ generator: inout SplitMix64, _ state: ClientState) -> String {
            let pick = Int.random(in: 0..<(objects.count + state.made.count), using: &generator)
            return pick < objects.count ? objects[pick] : state.made[pick - objects.count]
        }

        /// Learns from an answer: the new sync token and what it named, or the name of an
        /// event made or deleted.
        func update(_ state: inout ClientState, after request: Request, kind: Kind, body: ArraySlice<UInt8>) {
            switch kind {
            case .propfind:
                if let token = Self.syncToken(in: body) { state.token = token }
            case .sync:
                if let token = Self.syncToken(in: body) { state.token = token }
                state.changed = Self.texts(of: "href", in: body)
            case .put:
                state.made.append(String(request.path.dropFirst(collection.count)))
            case .delete:
                state.made.removeFirst()
            case .get, .query, .staleSync, .multiget:
                break
            }
        }

        /// The texts of every element whose local name is `name`, in order.
        static func texts(of name: String, in body: ArraySlice<UInt8>) -> [[UInt8]] {
            let local = Array(name.utf8)
            var found: [[UInt8]] = []
            var index = body.startIndex
            while let open = body[index...].firstIndex(of: UInt8(ascii: "<")),
                let close = body[open...].firstIndex(of: UInt8(ascii: ">"))
            {
                let tag = body[(open + 1)..<close]
                index = close + 1
                guard tag.first != UInt8(ascii: "/"), tag.last != UInt8(ascii: "/") else { continue }
                let qualified = tag.prefix { $0 != 0x20 }
                let colon = qualified.lastIndex(of: UInt8(ascii: ":")).map { $0 + 1 } ?? qualified.startIndex
                guard qualified[colon...].elementsEqual(local) else { continue }
                let end = body[index...].firstIndex(of: UInt8(ascii: "<")) ?? body.endIndex
                if end > index { found.append(Array(body[index..<end])) }
                index = end
            }
            return found
        }

        /// The text of the first `sync-token` element with content.
        static func syncToken(in body: ArraySlice<UInt8>) -> [UInt8]? {
            let name = Array("sync-token".utf8)
            var index = body.startIndex
            while index + name.count < body.endIndex {
                guard body[index..<index + name.count].elementsEqual(name) else {
                    index += 1
                    continue
                }
                index += name.count
                guard let close = body[index...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
                index = close + 1
                if body[close - 1] == UInt8(ascii: "/") { continue }
                let end = body[index...].firstIndex(of: UInt8(ascii: "<")) ?? body.endIndex
                if end > index { return Array(body[index..<end]) }
            }
            return nil
        }

        /// One connection's run: requests that start from `counting` until `finish` are recorded.
        func drive(
            port: UInt16, number: Int, counting begin: ContinuousClock.Instant, until finish: ContinuousClock.Instant
        ) -> ConnectionResult {
            let connection = LoadConnection(port: port)
            var generator = SplitMix64(seed: UInt64(number + 1))
            var state = ClientState(prefix: "load-\(number)")
            var result = ConnectionResult()
            var bytes: [UInt8] = []
            let clock = ContinuousClock()
            var kind = Kind.propfind  // the first request fetches a sync token
            while true {
                let started = clock.now
                if started >= finish { break }
                let request = request(kind, &generator, &state)
                request.write(into: &bytes, authorization: authorization)
                let status = connection.exchange(bytes)
                let elapsed = clock.now - started
                let expected = kind.expects(status)
                if expected {
                    connection.withBody { update(&state, after: request, kind: kind, body: $0) }
                    if kind == .put { result.made += 1 }
                    if kind == .delete { result.made -= 1 }
                }
                if started >= begin {
                    result.latencies[kind.rawValue].append(ServerBenchmarks.seconds(elapsed) * 1000)
                    if !expected {
                        result.errors[kind.rawValue] += 1
                        result.unexpected[status, default: 0] += 1
                    }
                }
                kind = mix.next(&generator, state)
            }
            return result
        }

        /// Heap allocations per request of the handler in process, over `requests` of the
        /// mix after as many uncounted ones: the mean, and the mean per kind.
        func replay(on backend: DatabaseBackend, requests: Int) -> (overall: Double, byKind: [Kind: Double]) {
            let server = AlmanacServer(backend: backend, configuration: ServerConfiguration(port: 0, accessLog: false))
            var generator = SplitMix64(seed: 99)
            var state = ClientState(prefix: "replay")
            var total = 0
            var counts: [Kind: (allocations: Int, requests: Int)] = [:]
            var kind = Kind.propfind
            for round in 0..<(2 * requests) {
                let request = request(kind, &generator, &state)
                let asked = request.httpRequest(authorization: authorization)
                let before = almanac_allocation_count()
                let response = server.respond(to: asked)
                let allocations = Int(almanac_allocation_count() - before)
                if kind.expects(response.status) {
                    update(&state, after: request, kind: kind, body: response.body[...])
                } else {
                    Report.note("replay: \(request.method) \(request.path) answered \(response.status)")
                }
                if round >= requests {
                    total += allocations
                    counts[kind, default: (0, 0)].allocations += allocations
                    counts[kind, default: (0, 0)].requests += 1
                }
                kind = mix.next(&generator, state)
            }
            return (
                Double(total) / Double(requests),
                counts.mapValues { Double($0.allocations) / Double(max(1, $0.requests)) }
            )
        }
    }
}

/// One keep-alive HTTP/1.1 connection for the load generator. Leaner than
/// `HTTPClient` so that the generator leaves the cores to the server: the request
/// goes out as prepared bytes, and the answer is read into one buffer that is kept
/// between requests and parsed in place, without strings. It knows what
/// `almanac serve` sends (a Content-Length, or the body up to the close); a
/// chunked answer counts as a failure.
final class LoadConnection {
    let port: UInt16
    private var descriptor: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    /// Bytes read and not yet used: `buffer[unread..<filled]`.
    private var unread = 0
    private var filled = 0
    private var body = 0..<0

    init(port: UInt16) { self.port = port }

    deinit { disconnect() }

    private func disconnect() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unread = 0
        filled = 0
    }

    /// Sends one request and reads its answer; returns the status, 0 when the
    /// connection failed (it reconnects on the next request).
    func exchange(_ request: [UInt8]) -> Int {
        body = 0..<0
        if descriptor < 0 {
            guard let connected = try? RawHTTP.connect(port: port) else { return 0 }
            descriptor = connected
            var one: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            // A server that stops answering fails the request after this long instead of hanging the run.
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes {
                send(descriptor, $0.baseAddress.map { $0 + sent }, $0.count - sent, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else {
                disconnect()
                return 0
            }
            sent += count
        }
        guard let status = readResponse() else {
            disconnect()
            return 0
        }
        return status
    }

    /// Calls `body` with the last answer's body (empty after a failure).
    func withBody<R>(_ read: (ArraySlice<UInt8>) -> R) -> R { read(buffer[body]) }

    private func readResponse() -> Int? {
        if unread > 0 {
            // Keep-alive answers come one per request, so this is rare: move what is left to the front.
            buffer.withUnsafeMutableBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                memmove(base, base + unread, filled - unread)
            }
            filled -= unread
            unread = 0
        }
        var headEnd = 0
        var scanned = 0
        while true {
            if let end = headerEnd(from: scanned) {
                headEnd = end
                break
            }
            scanned = max(0, filled - 3)
            guard fill() else { return nil }
        }
        // "HTTP/1.1 207 …"
        guard headEnd >= 12, buffer[0..<7].elementsEqual("HTTP/1.".utf8) else { return nil }
        var status = 0
        for byte in buffer[9..<12] {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            status = status * 10 + Int(byte - 0x30)
        }
        var length: Int?
        var closes = buffer[7] == UInt8(ascii: "0")
        var line = (buffer[0..<headEnd].firstIndex(of: 0x0A) ?? headEnd) + 1
        while line < headEnd {
            let next = (buffer[line..<headEnd].firstIndex(of: 0x0A) ?? headEnd) + 1
            if let value = value(of: "content-length:", line: line..<next) {
                guard !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
                length = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            } else if let value = value(of: "connection:", line: line..<next) {
                closes = value.first.map { $0 | 0x20 } == UInt8(ascii: "c")
            } else if value(of: "transfer-encoding:", line: line..<next) != nil {
                return nil
            }
            line = next
        }
        let start = headEnd + 4
        if status == 204 || status == 304 { length = 0 }
        if let length {
            while filled - start < length { guard fill() else { return nil } }
            body = start..<(start + length)
        } else {
            while fill() {}
            body = start..<filled
            closes = true
        }
        unread = body.upperBound
        if unread == filled {
            unread = 0
            filled = 0
        }
        if closes {
            close(descriptor)
            descriptor = -1
        }
        return status
    }

    /// Where the head ends (the index of its blank line's `\r\n\r\n`), searching from `from`.
    private func headerEnd(from: Int) -> Int? {
        var index = from
        while index + 3 < filled {
            if buffer[index] == 0x0D, buffer[index + 1] == 0x0A, buffer[index + 2] == 0x0D, buffer[index + 3] == 0x0A {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The value's digits or letters when `line` is the header `name` (lowercase, with its colon).
    private func value(of name: StaticString, line: Range<Int>) -> ArraySlice<UInt8>? {
        guard line.count > name.utf8CodeUnitCount else { return nil }
        let matches = name.withUTF8Buffer { wanted in
            zip(wanted, buffer[line]).allSatisfy { wanted, byte in byte | 0x20 == wanted || byte == wanted }
        }
        guard matches else { return nil }
        var value = buffer[(line.lowerBound + name.utf8CodeUnitCount)..<line.upperBound]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x0D || last == 0x0A || last == 0x20 { value = value.dropLast() }
        return value
    }

    /// Reads more into the buffer (growing it when full); false at the end of the connection or on error.
    private func fill() -> Bool {
        if filled == buffer.count { buffer += repeatElement(0, count: buffer.count) }
        let count = buffer.withUnsafeMutableBytes { bytes in
            recv(descriptor, bytes.baseAddress.map { $0 + filled }, bytes.count - filled, 0)
        }
        guard count > 0 else { return false }
        filled += count
        return true
    }
}

/// Figures of a process from `/proc` and `getrusage`.
enum ProcessStatus {
    /// A `kB` line of `/proc/<pid>/status` (`VmRSS`, `VmHWM`); 0 when unreadable.
    static func kilobytes(_ field: String, pid: Int32) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
                ?? 0
        }
        return 0
    }

    /// User and system CPU seconds of another process so far (`/proc/<pid>/stat`).
    static func cpuSeconds(pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let name = text.lastIndex(of: ")")
        else { return 0 }
        // After "pid (name) ": state is field 3, utime and stime fields 14 and 15.
        let fields = text[text.index(after: name)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU time of the whole machine so far (`/proc/stat`, in clock ticks): busy, and busy plus idle.
    static func machineCPU() -> (busy: Double, total: Double) {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return (0, 0) }
        // user nice system idle iowait irq softirq steal …
        let ticks = line.split(separator: " ").dropFirst().prefix(8).compactMap { Double($0) }
        guard ticks.count == 8 else { return (0, 0) }
        let idle = ticks[3] + ticks[4]
        let total = ticks.reduce(0, +)
        return (total - idle, total)
    }

    /// User and system CPU seconds of this process so far, every thread.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
