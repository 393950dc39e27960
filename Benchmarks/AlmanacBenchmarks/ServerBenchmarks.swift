import AlmanacTestSupport
import CalendarStore
import Foundation
import Synchronization

/// CalDAV throughput and latency of `almanac serve` against Radicale (from PyPI),
/// in the same run, on the same generated events (one .ics per UID): sequential
/// durable PUTs (beside the machine's `fdatasync` rate, their floor), the same
/// number of PUTs from eight writers at once, one-week calendar-query, one-month query with expand, PROPFIND
/// Depth 1, and initial and incremental sync-collection. Both run on loopback
/// with their own data directory; each figure is printed for both, then the ratio.
///
/// PUT throughput is timed over the first `putSample` events (then the next
/// `putSample` from eight writers); the rest are loaded
/// untimed (Almanac by PUT, Radicale by writing its storage files, as 20,000
/// sequential PUTs to Radicale would take half an hour). Each latency figure takes
/// its sample count or as many samples as fit in `budget` seconds, at least one.
enum ServerBenchmarks {
    static let budget = 90.0

    static func run(events: Int, putSample: Int, withPeer: Bool, postgres: BenchPostgres? = nil) {
        var postgresFigures: [String: Double] = [:]
        var sqliteFigures: [String: Double] = [:]
        var syncs = 0.0
        defer {
            // Sequential acknowledged writes against the disk's flush rate measured first.
            if let put = sqliteFigures["put_per_second"], syncs > 0 {
                Report.figure(
                    "ratio.server.almanac.put-vs-fdatasync", put / syncs, unit: "x",
                    ["put_per_second": put, "fdatasync_per_second": syncs, "goal": 0.5])
            }
            // PostgreSQL beside SQLite: the same figure on each, as SQLite's value over PostgreSQL's.
            for (name, value) in postgresFigures.sorted(by: { $0.key < $1.key }) {
                guard let sqlite = sqliteFigures[name] else { continue }
                let ratio = name.hasSuffix("_per_second") ? value / sqlite : sqlite / value
                Report.figure(
                    "ratio.server.\(name).postgres-vs-sqlite", ratio, unit: "x",
                    ["events": events, "above_1": "PostgreSQL faster"])
            }
        }
        let work = Corpus.workDirectory.appendingPathComponent("server-\(events)")
        try? FileManager.default.removeItem(at: work)
        try! FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        syncs = syncLimit(in: work)
        // One resource per generated event, as a client would PUT them.
        let objects = try! CalendarFileSplitter.split(
            [UInt8](FileManager.default.contents(atPath: Corpus.file(events: events).path) ?? Data())
        ).objects
        let bodies = objects.enumerated().map {
            (name: String(format: "event-%06d.ics", $0.offset), body: $0.element.data)
        }

        let almanac = releaseAlmanac()
        if let postgres {
            // The same figures with the store on PostgreSQL, then one process against two.
            let database = postgres.freshDatabase("server_\(events)")
            guard let onPostgres = Server.almanac(binary: almanac, data: "", database: database) else {
                fatalError("almanac on PostgreSQL did not start")
            }
            let figures = measure(onPostgres, bodies: bodies, putSample: putSample, label: "almanac-postgres") {
                client, rest in
                for (name, body) in rest {
                    let status = client.send(
                        "PUT", onPostgres.collection + name, body: body, headers: ["Content-Type": "text/calendar"]
                    ).status
                    precondition(
                        status == 201 || status == 204, "almanac on PostgreSQL: PUT \(name) answered \(status)")
                }
            }
            postgresFigures = figures
            ScaleOutBenchmark.run(almanac: almanac, first: onPostgres, database: database, bodies: bodies)
            onPostgres.stop()
        }
        guard let ours = Server.almanac(binary: almanac, data: work.appendingPathComponent("almanac").path) else {
            fatalError("almanac did not start")
        }
        defer { ours.stop() }
        let radicaleData = work.appendingPathComponent("radicale")
        guard withPeer, let radicale = Server.radicale(data: radicaleData.path) else {
            if withPeer {
                Report.note("Radicale did not start (scripts/install-deps test installs it); measuring Almanac alone")
            }
            sqliteFigures = measure(ours, bodies: bodies, putSample: putSample, label: "almanac") { client, rest in
                for (name, body) in rest {
                    _ = client.send(
                        "PUT", ours.collection + name, body: body, headers: ["Content-Type": "text/calendar"])
                }
            }
            return
        }
        defer { radicale.stop() }
        let a = measure(ours, bodies: bodies, putSample: putSample, label: "almanac") { client, rest in
            for (name, body) in rest {
                let status = client.send(
                    "PUT", ours.collection + name, body: body, headers: ["Content-Type": "text/calendar"]
                ).status
                precondition(status == 201 || status == 204, "almanac: PUT \(name) answered \(status)")
            }
        }
        sqliteFigures = a
        let r = measure(radicale, bodies: bodies, putSample: putSample, label: "radicale") { _, rest in
            // Radicale keeps one file per item in the collection's folder and lists it on each request.
            let folder = radicaleData.appendingPathComponent("collection-root/bench/bench")
            for (name, body) in rest {
                _ = FileManager.default.createFile(
                    atPath: folder.appendingPathComponent(name).path, contents: Data(body))
            }
        }
        for (name, ourValue) in a.sorted(by: { $0.key < $1.key }) {
            guard let theirs = r[name] else { continue }
            // Rates: ours / theirs; latencies: theirs / ours. Either way, above 1 means Almanac is ahead.
            let ratio = name.hasSuffix("_per_second") ? ourValue / theirs : theirs / ourValue
            Report.figure("ratio.server.\(name).vs-radicale", ratio, unit: "x", ["events": events])
        }
    }

    /// Runs every measurement against one server; returns the figures by name.
    static func measure(
        _ server: Server, bodies: [(name: String, body: [UInt8])], putSample: Int, label: String,
        load: (HTTPClient, ArraySlice<(name: String, body: [UInt8])>) -> Void
    ) -> [String: Double] {
        var figures: [String: Double] = [:]
        let client = server.client()
        let collection = server.collection
        precondition(client.send("MKCALENDAR", collection).status == 201, "\(label): MKCALENDAR failed")
        func query(_ start: String, _ end: String, expand: Bool) -> [UInt8] {
            let data = expand ? "<C:calendar-data><C:expand start=\"\(start)\" end=\"\(end)\"/></C:calendar-data>" : ""
            return Array(
                ("<?xml version=\"1.0\"?><C:calendar-query xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><D:getetag/>\(data)</D:prop>"
                    + "<C:filter><C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"><C:time-range start=\"\(start)\" end=\"\(end)\"/>"
                    + "</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>").utf8)
        }
        let clock = ContinuousClock()
        let start = clock.now
        let timed = bodies.prefix(putSample)
        for (name, body) in timed {
            let status = client.send(
                "PUT", collection + name, body: body, headers: ["Content-Type": "text/calendar; charset=utf-8"]
            ).status
            precondition(status == 201 || status == 204, "\(label): PUT \(name) answered \(status)")
        }
        figures["put_per_second"] = Double(timed.count) / seconds(clock.now - start)
        Report.figure("server.\(label).put", figures["put_per_second"]!, unit: "PUTs/s", ["events": timed.count])
        // The same number of new events from eight writers at once, each on its own connection.
        let writers = 8
        let concurrent = Array(bodies.dropFirst(putSample).prefix(putSample))
        let failures = Atomic<Int>(0)
        let (port, authorization) = (server.port, server.authorization)
        let concurrentStart = clock.now
        // Threads of their own: concurrentPerform would run only as many as there are cores.
        let finished = DispatchGroup()
        for writer in 0..<writers {
            finished.enter()
            Thread {
                let own = HTTPClient(port: port, authorization: authorization)
                for index in stride(from: writer, to: concurrent.count, by: writers) {
                    let (name, body) = concurrent[index]
                    let status = own.send(
                        "PUT", collection + name, body: body,
                        headers: ["Content-Type": "text/calendar; charset=utf-8"]
                    ).status
                    if status != 201 && status != 204 { failures.add(1, ordering: .relaxed) }
                }
                finished.leave()
            }.start()
        }
        finished.wait()
        precondition(failures.load(ordering: .relaxed) == 0, "\(label): a concurrent PUT failed")
        figures["put_8_writers_per_second"] = Double(concurrent.count) / seconds(clock.now - concurrentStart)
        Report.figure(
            "server.\(label).put_8_writers", figures["put_8_writers_per_second"]!, unit: "PUTs/s",
            [
                "events": concurrent.count, "writers": writers,
                "server_threads": Server.threads.map(String.init) ?? "one per core",
            ])
        Report.figure(
            "ratio.server.\(label).put-8-writers-vs-1",
            figures["put_8_writers_per_second"]! / figures["put_per_second"]!, unit: "x", ["goal": 3])
        load(client, bodies.dropFirst(putSample + concurrent.count))
        // One untimed query first: a server may build caches on first read.
        _ = client.send(
            "REPORT", collection, body: query("20240101T000000Z", "20240108T000000Z", expand: false),
            headers: ["Depth": "1"])

        var generator = SplitMix64(seed: 42)
        func latencies(_ count: Int, _ request: () -> HTTPClient.Response) -> (median: Double, p99: Double) {
            var samples: [Double] = []
            let began = clock.now
            while samples.isEmpty || (samples.count < count && seconds(clock.now - began) < budget) {
                let begin = clock.now
                let response = request()
                samples.append(seconds(clock.now - begin) * 1000)
                // A server that gives up (closes the connection) fails the benchmark loudly.
                precondition(
                    response.status == 207, "\(label): answered \(response.status) after \(Int(samples.last!)) ms")
            }
            samples.sort()
            return (samples[samples.count / 2], samples[min(samples.count - 1, samples.count * 99 / 100)])
        }
        let week = latencies(100) {
            let day = Int.random(in: 0..<(4 * 52), using: &generator) * 7
            let begin = Date(timeIntervalSince1970: 1_704_067_200 + Double(day) * 86_400)
            return client.send(
                "REPORT", collection,
                body: query(davStamp(begin), davStamp(begin.addingTimeInterval(7 * 86_400)), expand: false),
                headers: ["Depth": "1"])
        }
        figures["week_query_ms"] = week.median
        Report.figure(
            "server.\(label).week_query", week.median, unit: "ms (median)", ["p99": week.p99, "events": bodies.count])
        let month = latencies(10) {
            let monthIndex = Int.random(in: 0..<48, using: &generator)
            let begin = "\(2024 + monthIndex / 12)\(String(format: "%02d", monthIndex % 12 + 1))01T000000Z"
            let next = monthIndex + 1
            let end = "\(2024 + next / 12)\(String(format: "%02d", next % 12 + 1))01T000000Z"
            return client.send("REPORT", collection, body: query(begin, end, expand: true), headers: ["Depth": "1"])
        }
        figures["month_expand_ms"] = month.median
        Report.figure(
            "server.\(label).month_expand", month.median, unit: "ms (median)",
            ["p99": month.p99, "events": bodies.count])
        let propfind = latencies(10) {
            client.send(
                "PROPFIND", collection,
                body: Array("<D:propfind xmlns:D=\"DAV:\"><D:prop><D:getetag/></D:prop></D:propfind>".utf8),
                headers: ["Depth": "1"])
        }
        figures["propfind_depth1_ms"] = propfind.median
        Report.figure("server.\(label).propfind_depth1", propfind.median, unit: "ms (median)")
        let syncBody = Array(
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>"
                .utf8)
        var token = ""
        let initial = latencies(5) {
            let response = client.send("REPORT", collection, body: syncBody)
            if let range = response.text.range(of: "sync-token>") {
                token = String(response.text[range.upperBound...].prefix { $0 != "<" })
            }
            return response
        }
        figures["initial_sync_ms"] = initial.median
        Report.figure("server.\(label).initial_sync", initial.median, unit: "ms (median)")
        for (name, body) in bodies.prefix(10) {
            let changed = String(decoding: body, as: UTF8.self).replacingOccurrences(
                of: "SUMMARY:", with: "SUMMARY:Changed ")
            _ = client.send(
                "PUT", collection + name, body: Array(changed.utf8),
                headers: ["Content-Type": "text/calendar; charset=utf-8"])
        }
        let incremental = latencies(5) {
            client.send(
                "REPORT", collection,
                body: Array(
                    ("<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token>\(token)</D:sync-token><D:sync-level>1</D:sync-level><D:prop><D:getetag/></D:prop></D:sync-collection>")
                        .utf8))
        }
        figures["incremental_sync_ms"] = incremental.median
        Report.figure("server.\(label).incremental_sync", incremental.median, unit: "ms (median)", ["changes": 10])
        return figures
    }

    /// The machine's floor for a durable write: 4 KiB appended to a file in the data
    /// directory's file system and `fdatasync`ed, 2,000 times. A sequential client can
    /// get no more acknowledged writes per second than this.
    static func syncLimit(in directory: URL) -> Double {
        let path = directory.appendingPathComponent("fdatasync-probe").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(descriptor >= 0, "cannot create \(path)")
        defer {
            close(descriptor)
            unlink(path)
        }
        let page = [UInt8](repeating: 0x61, count: 4_096)
        let count = 2_000
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<count {
            let written = page.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            precondition(written == page.count && fdatasync(descriptor) == 0, "the fdatasync probe failed")
        }
        let rate = Double(count) / seconds(clock.now - start)
        Report.figure("machine.fdatasync", rate, unit: "syncs/s", ["bytes": 4_096])
        return rate
    }

    /// The path of the release `almanac`, built first when it is missing.
    static func releaseAlmanac() -> String {
        let almanac = Corpus.packageRoot.appendingPathComponent(".build/release/almanac").path
        if !FileManager.default.isExecutableFile(atPath: almanac) {
            Report.note("building the release almanac")
            _ = runProgram(
                "/usr/bin/env",
                ["swift", "build", "-c", "release", "--product", "almanac", "--package-path", Corpus.packageRoot.path])
        }
        return almanac
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func davStamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}

/// A server process under test, reached on a loopback port.
final class Server {
    /// `almanac serve --threads` for every server started (`--server-threads`); nil for its default.
    nonisolated(unsafe) static var threads: Int?

    let process: Process
    let port: UInt16
    let authorization: String
    let collection: String

    init(process: Process, port: UInt16, authorization: String, collection: String) {
        self.process = process
        self.port = port
        self.authorization = authorization
        self.collection = collection
    }

    func client() -> HTTPClient { HTTPClient(port: port, authorization: authorization) }

    func stop() {
        if process.isRunning {
            process.interrupt()
            process.waitUntilExit()
        }
    }

    static func freePort() -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return UInt16(bigEndian: address.sin_port)
    }

    static func waitUntilListening(_ port: UInt16) -> Bool {
        for _ in 0..<200 {
            if HTTPClient(port: port, authorization: "").send("OPTIONS", "/").status > 0 { return true }
            usleep(50_000)
        }
        return false
    }

    /// `almanac serve` on a data directory or (`database`) a PostgreSQL URL. A second
    /// server on a shared database finds user bench made: pass the first's `authorization`.
    static func almanac(binary: String, data: String, database: String? = nil, authorization known: String? = nil)
        -> Server?
    {
        let port = freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments =
            ["serve", "--port", String(port)] + (database.map { ["--database", $0] } ?? ["--data", data]) + ["--quiet"]
            + (threads.map { ["--threads", String($0)] } ?? [])
        process.environment = ["USER": "bench", "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return nil }
        var text = ""
        while !text.contains("CalDAV:") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard waitUntilListening(port) else { return nil }
        if let known {
            return Server(process: process, port: port, authorization: known, collection: "/dav/calendars/bench/bench/")
        }
        guard let range = text.range(of: "with password ") else { return nil }
        let password = text[range.upperBound...].prefix { !$0.isWhitespace }
        let authorization = "Basic " + Data("bench:\(password)".utf8).base64EncodedString()
        return Server(
            process: process, port: port, authorization: authorization, collection: "/dav/calendars/bench/bench/")
    }

    static func radicale(data: String) -> Server? {
        let port = freePort()
        let process = Process()
        // Radicale comes from PyPI into the clients' virtualenv (scripts/install-deps test).
        let python = Corpus.packageRoot.appendingPathComponent(".build/client-venv/bin/python").path
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-m", "radicale", "--server-hosts", "127.0.0.1:\(port)", "--storage-filesystem-folder", data, "--auth-type",
            "none",
            "--logging-level", "error",
            // Radicale closes a connection after 30 s by default, and refuses an expand that
            // iterates more than 10,000 instances of one event (a daily series from years ago
            // does, on the way to the month asked); at 20,000 events a month with expand needs
            // both raised to be answered at all.
            "--server-timeout", "1800", "--reporting-max-expand-occurrence", "10000000",
            "--server-max-vevent-rrule-occurrence", "10000000",
        ]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil, waitUntilListening(port) else { return nil }
        return Server(
            process: process, port: port, authorization: "Basic " + Data("bench:bench".utf8).base64EncodedString(),
            collection: "/bench/bench/")
    }
}

/// A minimal blocking HTTP/1.1 client over one loopback connection (reconnecting
/// when the server closes it), enough to time requests without a client library
/// in the measurement.
final class HTTPClient {
    struct Response {
        var status: Int
        var text: String
    }

    let port: UInt16
    let authorization: String
    private var descriptor: Int32 = -1
    private var buffer: [UInt8] = []

    init(port: UInt16, authorization: String) {
        self.port = port
        self.authorization = authorization
    }

    deinit { if descriptor >= 0 { close(descriptor) } }

    private func connectIfNeeded() -> Bool {
        if descriptor >= 0 { return true }
        guard let connected = try? RawHTTP.connect(port: port) else { return false }
        descriptor = connected
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        buffer = []
        return true
    }

    func send(_ method: String, _ path: String, body: [UInt8] = [], headers: [String: String] = [:]) -> Response {
        for attempt in 0..<2 {
            guard connectIfNeeded() else { return Response(status: 0, text: "") }
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n"
            if !authorization.isEmpty { head += "Authorization: \(authorization)\r\n" }
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            let bytes = Array((head + "\r\n").utf8) + body
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent == bytes.count, let response = readResponse(method: method) { return response }
            close(descriptor)
            descriptor = -1
            if attempt == 1 { break }
        }
        return Response(status: 0, text: "")
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    private func readLine() -> String? {
        while true {
            if let index = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<index], as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)
                buffer.removeFirst(index + 1)
                return line
            }
            guard fill() else { return nil }
        }
    }

    private func readBytes(_ count: Int) -> [UInt8]? {
        while buffer.count < count { guard fill() else { return nil } }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    private func readResponse(method: String) -> Response? {
        guard let statusLine = readLine(), statusLine.hasPrefix("HTTP/") else { return nil }
        let status = Int(statusLine.split(separator: " ")[1]) ?? 0
        var length: Int?
        var chunked = false
        var closes = statusLine.hasPrefix("HTTP/1.0")
        while let line = readLine(), !line.isEmpty {
            let parts = line.split(separator: ":", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard parts.count == 2 else { continue }
            if parts[0] == "content-length" { length = Int(parts[1]) }
            if parts[0] == "transfer-encoding" && parts[1].contains("chunked") { chunked = true }
            if parts[0] == "connection" { closes = parts[1] == "close" }
        }
        var body: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 {
        } else if chunked {
            while let sizeLine = readLine(), let size = Int(sizeLine.split(separator: ";")[0], radix: 16) {
                if size == 0 {
                    _ = readLine()
                    break
                }
                guard let chunk = readBytes(size) else { return nil }
                body += chunk
                _ = readLine()
            }
        } else if let length {
            guard let bytes = readBytes(length) else { return nil }
            body = bytes
        } else {
            while fill() {}
            body = buffer
            buffer = []
            closes = true
        }
        if closes {
            close(descriptor)
            descriptor = -1
        }
        return Response(status: status, text: String(decoding: body, as: UTF8.self))
    }
}
