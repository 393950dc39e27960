// A webhook receiver for tests: a real HTTP server (the project's libmicrohttpd
// transport) on a loopback port that keeps every delivery it is sent and answers with
// the status a test chooses, so scenarios read as "write, then see what arrived".

import Accounts
import Foundation
import HTTPServer
import HTTPTypes
import Synchronization
import Webhooks

/// One request the receiver got.
public struct ReceivedDelivery: Sendable {
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The body as JSON.
    public var json: JSON
    /// The status the receiver answered.
    public var answered: Int

    public var id: String { json["id"]?.stringValue ?? "" }
    public var type: String { json["type"]?.stringValue ?? "" }
    public var calendar: String { json["calendarId"]?.stringValue ?? "" }
    public var sequence: Int { json["sequence"]?.intValue ?? -1 }
    public var eventID: String? { json["eventId"]?.stringValue }

    /// Whether `Almanac-Signature` is HMAC-SHA256 of "t.body" with `secret`, computed here
    /// with OpenSSL directly rather than through the server's own signing code.
    public func isSigned(with secret: String) -> Bool {
        guard let header = headers["Almanac-Signature"] else { return false }
        let parts = Dictionary(
            header.split(separator: ",").compactMap { part -> (String, String)? in
                let pair = part.split(separator: "=", maxSplits: 1)
                return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
        guard let timestamp = parts["t"], let signature = parts["v1"] else { return false }
        let expected = Crypto.hex(Crypto.hmacSHA256(key: Array(secret.utf8), Array((timestamp + ".").utf8) + body))
        return signature == expected
    }
}

public final class WebhookReceiver: @unchecked Sendable {
    /// A dispatcher configuration for tests: quick polls and retries, so a scenario
    /// with failures finishes in moments.
    public static func fastDispatch(pauseAfter: Int = 20) -> WebhookDispatcher.Configuration {
        var configuration = WebhookDispatcher.Configuration()
        configuration.pollMilliseconds = 20
        configuration.retry = RetryPolicy(baseMilliseconds: 10, capMilliseconds: 40)
        configuration.pauseAfterFailures = pauseAfter
        configuration.workers = 2
        return configuration
    }

    private struct State {
        var received: [ReceivedDelivery] = []
        var status: @Sendable (Int) -> Int = { _ in 204 }
    }

    private let state = Mutex(State())
    private let server: HTTPServer

    /// Starts listening on 127.0.0.1 at a free port.
    public init() throws {
        let box = Box()
        server = HTTPServer(configuration: ServerConfiguration(port: 0, threads: 2, accessLog: false)) { request in
            box.receiver?.receive(request) ?? HTTPResponse(status: 503)
        }
        box.receiver = self
        do {
            try server.start()
        } catch {
            throw TestServerError("the webhook receiver did not start: \(error)")
        }
    }

    private final class Box: @unchecked Sendable { weak var receiver: WebhookReceiver? }

    deinit { server.stop(gracePeriod: 0) }

    /// The URL deliveries go to.
    public var url: String { "http://127.0.0.1:\(server.port)/hooks/almanac" }

    /// Answers the request numbered `n` (from 0, in arrival order) with `status(n)`.
    public func answer(_ status: @escaping @Sendable (Int) -> Int) { state.withLock { $0.status = status } }

    /// Everything received so far, in arrival order.
    public var received: [ReceivedDelivery] { state.withLock { $0.received } }

    /// The deliveries answered with a 2xx, each delivery id once.
    public var delivered: [ReceivedDelivery] {
        var seen = Set<String>()
        return received.filter { (200..<300).contains($0.answered) && seen.insert($0.id).inserted }
    }

    private func receive(_ request: HTTPRequest) -> HTTPResponse {
        let json = (try? JSON(parsing: request.body)) ?? .null
        let status = state.withLock { state in
            let status = state.status(state.received.count)
            state.received.append(
                ReceivedDelivery(headers: request.headers, body: request.body, json: json, answered: status))
            return status
        }
        return HTTPResponse(status: status)
    }

    /// Waits (up to `seconds`) until `condition` holds for what was received; returns
    /// whether it did.
    @discardableResult
    public func wait(seconds: Double = 20, until condition: ([ReceivedDelivery]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(received) { return true }
            usleep(5_000)
        }
        return condition(received)
    }
}
