import AlmanacTestSupport
import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster for the benchmarks, made and removed by
/// `scripts/test-postgres` (127.0.0.1, a temporary directory), with a fresh
/// database per figure set.
final class BenchPostgres: Sendable {
    let url: String
    let state: String

    static let script = Corpus.packageRoot.appendingPathComponent("scripts/test-postgres").path

    /// Starts the cluster; nil (with a note) when PostgreSQL is not installed.
    init?() {
        state = Corpus.workDirectory.appendingPathComponent("postgres.env").path
        // Through system(3), not Process: Foundation's Process does not see this script
        // exit once pg_ctl has left the server running in the background.
        let output = state + ".url"
        guard system("'\(Self.script)' start '\(state)' > '\(output)'") == 0,
            let url = try? String(contentsOfFile: output, encoding: .utf8)
        else {
            Report.note(
                "could not start PostgreSQL (scripts/install-deps installs postgresql-15); skipping its figures")
            return nil
        }
        self.url = url.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() { _ = system("'\(Self.script)' stop '\(state)'") }

    /// The URL of a new, empty database named `name` (dropped first if it exists).
    func freshDatabase(_ name: String) -> String {
        for sql in ["DROP DATABASE IF EXISTS \(name)", "CREATE DATABASE \(name)"] {
            guard runProgram("/usr/bin/env", ["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql]) != nil else {
                fatalError("psql failed: \(sql)")
            }
        }
        return String(url[..<url.lastIndex(of: "/")!]) + "/" + name
    }

    /// The size of a database's files, in bytes.
    func size(of database: String) -> Int {
        Int(
            runProgram(
                "/usr/bin/env", ["psql", "-Atq", database, "-c", "SELECT pg_database_size(current_database())"])?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
    }
}

/// Throughput of one `almanac serve` process on PostgreSQL against two on the same
/// database, with the same clients: eight keep-alive connections, split evenly
/// between the processes when there are two. Two workloads of `seconds` each: new
/// events by PUT, and one-week calendar-queries.
enum ScaleOutBenchmark {
    static let clients = 8
    static let seconds = 15.0

    static func run(almanac: String, first: Server, database: String, bodies: [(name: String, body: [UInt8])]) {
        guard
            let second = Server.almanac(
                binary: almanac, data: "", database: database, authorization: first.authorization)
        else {
            Report.note("a second almanac on PostgreSQL did not start; skipping the scale-out figures")
            return
        }
        defer { second.stop() }
        let template = bodies.first!.body
        for (workload, unit) in [("put", "PUTs/s"), ("week_query", "queries/s")] {
            var rates: [Int: Double] = [:]
            for processes in [1, 2] {
                let servers = processes == 1 ? [first] : [first, second]
                rates[processes] = measure(workload, servers: servers, template: template, round: processes)
                Report.figure(
                    "server.almanac-postgres.\(workload).\(processes == 1 ? "one_process" : "two_processes")",
                    rates[processes]!, unit: unit,
                    ["clients": clients, "seconds": seconds, "events": bodies.count])
            }
            Report.figure(
                "ratio.server.\(workload).two-processes-vs-one", rates[2]! / rates[1]!, unit: "x", ["clients": clients])
        }
    }

    /// Requests per second that `clients` threads complete against `servers` (round robin by thread).
    static func measure(_ workload: String, servers: [Server], template: [UInt8], round: Int) -> Double {
        let completed = Atomic<Int>(0)
        let failed = Atomic<Int>(0)
        let deadline = Date().addingTimeInterval(seconds)
        let group = DispatchGroup()
        let text = String(decoding: template, as: UTF8.self)
        for index in 0..<clients {
            let server = servers[index % servers.count]
            let (port, authorization, collection) = (server.port, server.authorization, server.collection)
            group.enter()
            let thread = Thread {
                let client = HTTPClient(port: port, authorization: authorization)
                var generator = SplitMix64(seed: UInt64(index + 1))
                var number = 0
                while Date() < deadline {
                    number += 1
                    let response: HTTPClient.Response
                    if workload == "put" {
                        let uid = "scale-\(round)-\(index)-\(number)"
                        let body = text.replacingOccurrences(of: "\r\nUID:", with: "\r\nUID:\(uid)-")
                        response = client.send(
                            "PUT", collection + uid + ".ics", body: Array(body.utf8),
                            headers: ["Content-Type": "text/calendar"])
                    } else {
                        let day = Int.random(in: 0..<(4 * 52), using: &generator) * 7
                        let begin = Date(timeIntervalSince1970: 1_704_067_200 + Double(day) * 86_400)
                        let query =
                            "<?xml version=\"1.0\"?><C:calendar-query xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><D:getetag/></D:prop>"
                            + "<C:filter><C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"><C:time-range start=\"\(ServerBenchmarks.davStamp(begin))\" end=\"\(ServerBenchmarks.davStamp(begin.addingTimeInterval(7 * 86_400)))\"/>"
                            + "</C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"
                        response = client.send("REPORT", collection, body: Array(query.utf8), headers: ["Depth": "1"])
                    }
                    if response.status == 201 || response.status == 207 {
                        completed.add(1, ordering: .relaxed)
                    } else {
                        failed.add(1, ordering: .relaxed)
                    }
                }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        if failed.load(ordering: .relaxed) > 0 {
            Report.note("\(workload) on \(servers.count) processes: \(failed.load(ordering: .relaxed)) requests failed")
        }
        return Double(completed.load(ordering: .relaxed)) / seconds
    }
}
