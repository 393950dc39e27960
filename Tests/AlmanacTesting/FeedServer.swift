// A feed publisher for tests: a real HTTP server (the project's libmicrohttpd transport)
// on a loopback port serving one `.ics` at a time, with an ETag and Last-Modified that
// change with it, answering conditional GETs with 304, and counting what it was asked.

import Foundation
import HTTPServer
import HTTPTypes
import Synchronization

public final class FeedServer: @unchecked Sendable {
    /// One request the publisher answered.
    public struct Hit: Sendable {
        public var path: String
        public var conditional: Bool
        public var status: Int
    }

    private struct State {
        var body: [UInt8] = []
        var version = 1
        var status: Int?
        var redirect: (from: String, to: String)?
        var hits: [Hit] = []
    }

    private let state = Mutex(State())
    private let server: HTTPServer

    public init() throws {
        let box = Box()
        server = HTTPServer(configuration: ServerConfiguration(port: 0, threads: 2, accessLog: false)) { request in
            box.publisher?.answer(request) ?? HTTPResponse(status: 503)
        }
        box.publisher = self
        do {
            try server.start()
        } catch {
            throw TestServerError("the feed server did not start: \(error)")
        }
    }

    private final class Box: @unchecked Sendable { weak var publisher: FeedServer? }

    deinit { server.stop(gracePeriod: 0) }

    /// The feed's URL (any path serves it).
    public func url(_ path: String = "/feed.ics") -> String { "http://127.0.0.1:\(server.port)\(path)" }

    /// Publishes `text` as the feed's new version (a new ETag and Last-Modified).
    public func publish(_ text: String) {
        state.withLock {
            $0.body = Array(text.utf8)
            $0.version += 1
            $0.status = nil
        }
    }

    /// Answers every request with `status` and no feed (nil: serve the feed again).
    public func fail(with status: Int?) { state.withLock { $0.status = status } }

    /// Redirects `from` (a path) to `to` (a URL).
    public func redirect(_ from: String, to: String) { state.withLock { $0.redirect = (from, to) } }

    public var hits: [Hit] { state.withLock { $0.hits } }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        state.withLock { state in
            let etag = "\"v\(state.version)\""
            let modified = "Tue, 01 Dec 2026 \(String(format: "%02d", state.version % 24)):00:00 GMT"
            let conditional = request.headers["If-None-Match"] != nil || request.headers["If-Modified-Since"] != nil
            var response: HTTPResponse
            if let redirect = state.redirect, request.path == redirect.from {
                response = HTTPResponse(status: 302, headers: ["Location": redirect.to])
            } else if let status = state.status {
                response = .text(status, "broken\n")
            } else if request.headers["If-None-Match"] == etag {
                response = HTTPResponse(status: 304, headers: ["ETag": etag])
            } else {
                response = HTTPResponse(
                    status: 200,
                    headers: ["Content-Type": "text/calendar; charset=utf-8", "ETag": etag, "Last-Modified": modified],
                    body: state.body)
            }
            state.hits.append(Hit(path: request.path, conditional: conditional, status: response.status))
            return response
        }
    }
}
