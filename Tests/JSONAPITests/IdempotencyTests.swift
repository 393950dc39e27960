import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// `Idempotency-Key` on the JSON API's changes: a retry gets the first answer and does
/// nothing again, whether the first answer was read, lost with its connection, or is
/// still being made by a racing twin.
@Suite struct IdempotencyTests {
    /// A clock the test moves (the server's `now`).
    final class Clock: Sendable {
        let seconds = Mutex(1_796_083_200)
        var now: @Sendable () -> Int { { self.seconds.withLock { $0 } } }
    }

    let clock = Clock()
    let server: TestServer
    let token: String
    let calendar: String

    init(_ setup: ServerSetup = .inProcess) throws {
        server = try TestServer(setup, users: ["anna"], now: clock.now)
        token = try server.createAPIToken(for: "anna", scope: .readWrite)
        calendar = try server.eventStore(for: "anna").createCalendar(EventCalendar(title: "Work")).id
    }

    func post(_ title: String, key: String?) throws -> APIAnswer {
        var headers = HTTPHeaders()
        if let key { headers.set("Idempotency-Key", key) }
        return try server.api(bearer: token).call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "\#(title)", "start": "2026-12-02T10:00:00Z"}"#,
            headers: headers)
    }

    func titles() throws -> [String] {
        try server.eventStore(for: "anna").resources(calendar: calendar).map { info in
            let text = String(
                decoding: try server.eventStore(for: "anna").resource(named: info.name, calendar: calendar).data,
                as: UTF8.self)
            return text.split(separator: "\r\n").first { $0.hasPrefix("SUMMARY:") }.map { String($0.dropFirst(8)) }
                ?? ""
        }.sorted()
    }

    @Test(arguments: ServerSetup.all) func aRetryGetsTheFirstAnswerAndChangesNothing(_ setup: ServerSetup) throws {
        let test = try IdempotencyTests(setup)
        let first = try test.post("Spin", key: "key-1")
        #expect(first.status == 201 && first.headers["Idempotent-Replayed"] == nil)
        let again = try test.post("Spin", key: "key-1")
        #expect(again.status == 201 && again.headers["Idempotent-Replayed"] == "true")
        #expect(again.body == first.body)
        #expect(
            again.headers["Location"] == first.headers["Location"] && again.headers["ETag"] == first.headers["ETag"])
        #expect(try test.titles() == ["Spin"])
        // The same key for another request is refused and does nothing.
        let other = try test.post("Yoga", key: "key-1")
        #expect(other.status == 422 && other["type"]?.stringValue == "urn:almanac:problem:idempotency-key-reused")
        #expect(try test.titles() == ["Spin"])
        // Without a key, or with another, each request is its own.
        #expect(try test.post("Spin", key: nil).status == 201)
        #expect(try test.post("Spin", key: "key-2").status == 201)
        #expect(try test.titles() == ["Spin", "Spin", "Spin"])
        // A refusal that wrote nothing keeps nothing: the corrected request under the same key runs.
        let refused = try test.server.api(bearer: test.token).call(
            "POST", "/api/v1/events", #"{"calendarId": "nope", "title": "X", "start": "2026-12-02T10:00:00Z"}"#,
            headers: ["Idempotency-Key": "key-3"])
        #expect(refused.status == 404)
        #expect(try test.post("Fixed", key: "key-3").status == 201)
        // A PATCH and a DELETE replay too.
        let id = try #require(first["id"]?.stringValue)
        let patch = { () throws -> APIAnswer in
            try test.server.api(bearer: test.token).call(
                "PATCH", "/api/v1/events/\(id)", #"{"title": "Spin (moved)"}"#, headers: ["Idempotency-Key": "p"])
        }
        let patched = try patch()
        #expect(patched.status == 200)
        #expect(try patch().body == patched.body)
        let delete = { () throws -> APIAnswer in
            try test.server.api(bearer: test.token).call(
                "DELETE", "/api/v1/events/\(id)", headers: ["Idempotency-Key": "d"])
        }
        #expect(try delete().status == 204)
        #expect(try delete().status == 204)  // the replay, not a 404
        #expect(try test.titles() == ["Fixed", "Spin", "Spin"])
    }

    @Test func keysLastADayAndAreChecked() throws {
        #expect(try post("Spin", key: "daily").status == 201)
        clock.seconds.withLock { $0 += 86_400 }
        #expect(try post("Spin", key: "daily").headers["Idempotent-Replayed"] == "true")
        clock.seconds.withLock { $0 += 1 }
        // A day and a second later the key is forgotten: the request runs again.
        let later = try post("Spin", key: "daily")
        #expect(later.status == 201 && later.headers["Idempotent-Replayed"] == nil)
        #expect(try titles() == ["Spin", "Spin"])
        for bad in ["", String(repeating: "k", count: 256), "with space", "tab\tkey", "ümlaut"] {
            let refused = try post("Bad", key: bad)
            #expect(refused.status == 400, "\(bad)")
        }
        #expect(try titles() == ["Spin", "Spin"])
    }

    /// Eight clients send one request with one key at once: one event is created, and
    /// every answer is that creation (first or replayed) or 409 while it was running.
    @Test(arguments: ServerSetup.all)
    func racingTwinsCreateOneEvent(_ setup: ServerSetup) throws {
        let test = try IdempotencyTests(setup)
        for round in 0..<5 {
            let statuses = Mutex<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let status = (try? test.post("Race \(round)", key: "race-\(round)").status) ?? -1
                statuses.withLock { $0.append(status) }
            }
            let seen = statuses.withLock { $0 }
            #expect(seen.allSatisfy { $0 == 201 || $0 == 409 }, "\(seen)")
            #expect(seen.contains(201))
        }
        #expect(try test.titles() == (0..<5).map { "Race \($0)" })
    }

    /// The client's connection drops after it sent the request: the server still carries
    /// it out, and the client's retry gets that answer instead of a second event.
    @Test func aRetryAfterADroppedConnectionCreatesNothingMore() throws {
        let test = try IdempotencyTests(.loopback)
        let body = #"{"calendarId": "\#(test.calendar)", "title": "Dropped", "start": "2026-12-02T10:00:00Z"}"#
        let request =
            "POST /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(test.token)\r\n"
            + "Content-Type: application/json\r\nIdempotency-Key: dropped\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
            + body
        let socket = try RawHTTP.connect(port: test.server.port)
        _ = request.withCString { send(socket, $0, strlen($0), 0) }
        close(socket)
        // Wait (bounded) for the server to have carried it out.
        var waited = 0
        while try test.titles().isEmpty && waited < 3_000 {
            usleep(10_000)
            waited += 1
        }
        #expect(try test.titles() == ["Dropped"])
        // Until the server has kept its answer, a retry hears 409 (still running); then the answer.
        var retry = try test.post("Dropped", key: "dropped")
        var retries = 0
        while retry.status == 409 && retries < 300 {
            usleep(10_000)
            retry = try test.post("Dropped", key: "dropped")
            retries += 1
        }
        #expect(retry.status == 201 && retry.headers["Idempotent-Replayed"] == "true")
        #expect(retry["title"]?.stringValue == "Dropped")
        #expect(try test.titles() == ["Dropped"])
    }

    /// Authorization comes before any replay (issue 33, instance 7): a read-write token
    /// creates a webhook with key K; the same user's read-only and add-only tokens, and
    /// another user, get 403 (or their own request) with K too, never the first answer
    /// with its secret; the same key from another token of the user is 422.
    @Test(arguments: ServerSetup.everyStore) func authorizationComesBeforeAReplay(_ setup: ServerSetup) throws {
        let server = try TestServer(setup, users: ["anna", "eve"])
        let writer = try server.createAPIToken(for: "anna", scope: .readWrite)
        let reader = try server.createAPIToken(for: "anna", scope: .read)
        let adder = try server.createAPIToken(for: "anna", scope: .addOnly)
        let otherWriter = try server.createAPIToken(for: "anna", scope: .readWrite)
        let body = #"{"url": "http://127.0.0.1:9/hook"}"#
        let headers: HTTPHeaders = ["Idempotency-Key": "K"]
        let created = try server.api(bearer: writer).call("POST", "/api/v1/webhooks", body, headers: headers)
        #expect(created.status == 201, "\(created.text)")
        let secret = try #require(created["secret"]?.stringValue)
        for (name, token) in [("read-only", reader), ("add-only", adder)] {
            let replayed = try server.api(bearer: token).call("POST", "/api/v1/webhooks", body, headers: headers)
            #expect(replayed.status == 403, "\(name): \(replayed.text)")
            #expect(replayed.headers["Idempotent-Replayed"] == nil)
            #expect(!replayed.text.contains(secret), "\(name) never sees the secret")
        }
        let sameUserOtherToken = try server.api(bearer: otherWriter).call(
            "POST", "/api/v1/webhooks", body, headers: headers)
        #expect(sameUserOtherToken.status == 422, "\(sameUserOtherToken.text)")
        #expect(!sameUserOtherToken.text.contains(secret))
        let password = try server.api("anna").call("POST", "/api/v1/webhooks", body, headers: headers)
        #expect(password.status == 422, "the user signed in by password is another principal: \(password.text)")
        // Another user's key K is their own.
        let eves = try server.api("eve").call("POST", "/api/v1/webhooks", body, headers: headers)
        #expect(eves.status == 201 && eves.headers["Idempotent-Replayed"] == nil, "\(eves.text)")
        #expect(eves["secret"]?.stringValue != secret)
        // The writer's own retry still replays.
        let retry = try server.api(bearer: writer).call("POST", "/api/v1/webhooks", body, headers: headers)
        #expect(retry.status == 201 && retry.headers["Idempotent-Replayed"] == "true")
        #expect(try server.api(bearer: writer).get("/api/v1/webhooks")["webhooks"]?.arrayValue?.count == 1)
    }
}
