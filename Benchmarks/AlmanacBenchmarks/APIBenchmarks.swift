import Accounts
import AlmanacServer
import CalendarStore
import Foundation
import HTTPServer
import HTTPTypes

/// The JSON API, in process through the server's routes (token authentication,
/// routing, the store, JSON): free slots over 90 days across 10 calendars of 10,000
/// events, and one month of occurrences of one calendar among 1,000,000 stored events.
enum APIBenchmarks {
    static func run(samples: Int) {
        availability(samples: samples)
        occurrences(samples: samples)
    }

    /// A server over a benchmark store, and a read-write token for its user.
    static func server(_ directory: URL) -> (AlmanacServer, String, [EventCalendar]) {
        let backend = try! DatabaseBackend(directory: directory.path)
        let (id, secret) = APITokenSecret.generate()
        try! backend.appState.createAccessToken(
            AccessToken(
                id: id, user: "bench", name: "benchmark", scope: .readWrite, created: Int(Date().timeIntervalSince1970)),
            secretHash: APITokenSecret.hash(secret))
        let calendars = try! backend.eventStore(for: "bench").calendars()
        return (
            AlmanacServer(backend: backend, configuration: ServerConfiguration(port: 0, accessLog: false)), secret,
            calendars
        )
    }

    static func time(
        _ label: String, samples: Int, _ extra: [String: Any],
        _ request: (inout SystemRandomNumberGenerator) -> HTTPRequest, server: AlmanacServer
    ) {
        var generator = SystemRandomNumberGenerator()
        var times: [Double] = []
        var sizes: [Int] = []
        let clock = ContinuousClock()
        for round in 0...samples {
            let asked = request(&generator)
            let start = clock.now
            let response = server.respond(to: asked)
            let elapsed = clock.now - start
            precondition(
                response.status == 200, "\(label): \(response.status) \(String(decoding: response.body, as: UTF8.self))"
            )
            if round > 0 {
                times.append(
                    (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * 1000)
                sizes.append(response.body.count)
            }
        }
        times.sort()
        var fields = extra
        fields["p99"] = (times[min(times.count - 1, times.count * 99 / 100)] * 1000).rounded() / 1000
        fields["samples"] = times.count
        fields["median_bytes"] = sizes.sorted()[sizes.count / 2]
        Report.figure(label, times[times.count / 2], unit: "ms (p50)", fields)
    }

    /// Random days of the corpus's years (2024–2027).
    static func randomDay(_ generator: inout SystemRandomNumberGenerator, spanDays: Int) -> (String, String) {
        let first = 1_704_067_200 + Int.random(in: 0..<(4 * 365 - spanDays), using: &generator) * 86_400
        func day(_ seconds: Int) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            return formatter.string(from: Date(timeIntervalSince1970: Double(seconds)))
        }
        return (day(first), day(first + spanDays * 86_400))
    }

    static func availability(samples: Int) {
        let directory = StoreBenchmarks.ensure(calendars: 10, eventsPerCalendar: 10_000)
        let (server, token, calendars) = server(directory)
        let ids = calendars.map(\.id).joined(separator: ",")
        // A running server has read its series once: warm the cache over the corpus's years first.
        for year in 2024...2027 {
            _ = server.respond(
                to: HTTPRequest(
                    method: "GET", path: "/api/v1/availability",
                    query: "calendars=\(ids)&from=\(year)-01-01&to=\(year)-12-31&duration=60",
                    headers: ["Authorization": "Bearer " + token]))
        }
        time(
            "api.availability_90_days", samples: samples,
            ["calendars": calendars.count, "events": 100_000, "goal_ms": 20],
            { generator in
                let (from, to) = randomDay(&generator, spanDays: 90)
                return HTTPRequest(
                    method: "GET", path: "/api/v1/availability",
                    query:
                        "calendars=\(ids)&from=\(from)&to=\(to)&tz=Europe/Berlin&duration=60&step=30&workingHours=Mon-Fri%2009:00-17:00&bufferBefore=10&bufferAfter=10",
                    headers: ["Authorization": "Bearer " + token])
            }, server: server)
    }

    static func occurrences(samples: Int) {
        let directory = StoreBenchmarks.ensure(calendars: 100, eventsPerCalendar: 10_000)
        let (server, token, calendars) = server(directory)
        time(
            "api.occurrences_one_month", samples: samples,
            ["calendars": calendars.count, "events": 1_000_000, "goal_ms": 10],
            { generator in
                let (from, to) = randomDay(&generator, spanDays: 30)
                let calendar = calendars[Int.random(in: 0..<calendars.count, using: &generator)]
                return HTTPRequest(
                    method: "GET", path: "/api/v1/calendars/\(calendar.id)/occurrences",
                    query: "from=\(from)&to=\(to)&tz=Europe/Berlin",
                    headers: ["Authorization": "Bearer " + token])
            }, server: server)
    }
}
