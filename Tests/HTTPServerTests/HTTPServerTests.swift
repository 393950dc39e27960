import AlmanacTestSupport
import Foundation
import HTTPServer
import HTTPTypes
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real libmicrohttpd server on a loopback port, driven over real sockets.
@Suite struct HTTPServerTests {
    func server(
        maxBodySize: Int = 1_024, threads: Int = 2, workers: Int? = nil, admission: HTTPAdmission? = nil,
        _ responder: @escaping HTTPResponder
    ) throws -> HTTPServer {
        let server = HTTPServer(
            configuration: ServerConfiguration(
                host: "127.0.0.1", port: 0, threads: threads, workers: workers, maxBodySize: maxBodySize,
                accessLog: false),
            admission: admission, responder: responder)
        try server.start()
        #expect(server.port != 0)
        return server
    }

    @Test func requestsArriveAsValuesAndResponsesGoOut() throws {
        let server = try server { request in
            var headers = HTTPHeaders()
            headers.set("X-Method", request.method)
            headers.set("X-Path", request.path)
            headers.set("X-Query", request.query ?? "-")
            headers.set("X-Depth", request.headers["depth"] ?? "-")
            return HTTPResponse(status: 207, headers: headers, body: request.body)
        }
        defer { server.stop() }
        let response = try RawHTTP.exchange(
            port: server.port,
            "PROPFIND /dav/anna%40example.com/?a=1&b=x%20y HTTP/1.1\r\nHost: x\r\nDepth: 1\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
        )
        #expect(response.hasPrefix("HTTP/1.1 207"))
        #expect(response.contains("X-Method: PROPFIND"))
        // The path stays %-encoded, as sent; decoding is the caller's choice.
        #expect(response.contains("X-Path: /dav/anna%40example.com/"))
        #expect(response.contains("X-Query: a=1&b=x%20y"))
        #expect(response.contains("X-Depth: 1"))
        #expect(response.contains("Content-Length: 5"))
        #expect(response.hasSuffix("\r\n\r\nhello"))
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let server = try server { request in .text(200, request.path) }
        defer { server.stop() }
        let response = try RawHTTP.exchange(
            port: server.port,
            "GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(response.components(separatedBy: "HTTP/1.1 200").count == 3)
        #expect(response.hasSuffix("/two"))
    }

    /// While one request waits, the others are answered (the waiting one goes on only
    /// after another was answered, so if it held up the rest this test could not
    /// finish): with a thread per connection (`threads: 0`), and with a pool of one
    /// transport thread, which hands requests to the workers and goes on reading.
    @Test(arguments: [0, 1])
    func aWaitingRequestHoldsUpNoOtherConnection(threads: Int) throws {
        let answered = DispatchSemaphore(value: 0)
        let server = try server(threads: threads) { request in
            if request.path == "/wait" { answered.wait() }
            return .text(200, request.path)
        }
        defer { server.stop() }
        let waiting = DispatchGroup()
        let slow = LockedText()
        waiting.enter()
        Thread {
            slow.set(
                (try? RawHTTP.exchange(port: server.port, "GET /wait HTTP/1.1\r\nConnection: close\r\n\r\n")) ?? "")
            waiting.leave()
        }.start()
        let others = try (0..<5).map { index in
            try RawHTTP.exchange(port: server.port, "GET /other\(index) HTTP/1.1\r\nConnection: close\r\n\r\n")
        }
        answered.signal()
        waiting.wait()
        #expect(others.enumerated().allSatisfy { $0.element.hasSuffix("/other\($0.offset)") })
        #expect(slow.text.hasSuffix("/wait"))
    }

    @Test func bodiesPastTheLimitGet413() throws {
        let server = try server(maxBodySize: 16) { request in .text(200, "got \(request.body.count)") }
        defer { server.stop() }
        // Declared too large: refused before the body is read.
        let declared = try RawHTTP.exchange(
            port: server.port,
            "PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\nConnection: close\r\n\r\n"
                + String(repeating: "a", count: 17))
        #expect(declared.hasPrefix("HTTP/1.1 413"))
        // Chunked, so only found out while reading.
        let chunked = try RawHTTP.exchange(
            port: server.port,
            "PUT /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n10\r\n0123456789abcdef\r\n4\r\nmore\r\n0\r\n\r\n"
        )
        #expect(chunked.hasPrefix("HTTP/1.1 413"))
        let fits = try RawHTTP.exchange(
            port: server.port,
            "PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\nConnection: close\r\n\r\n0123456789abcdef")
        #expect(fits.hasPrefix("HTTP/1.1 200") && fits.hasSuffix("got 16"))
    }

    /// An admission's limit holds while a body streams in chunks (413, nothing past the
    /// limit kept), and a refusal is sent before the body is read (with the workers and
    /// with a thread per connection).
    @Test(arguments: [0, 2])
    func admissionDecidesBeforeTheBodyAndLimitsItWhileItStreams(threads: Int) throws {
        let admission: HTTPAdmission = { request in
            request.path == "/secret" ? .answer(.text(401, "sign in first\n")) : .read(upTo: 16)
        }
        let server = try server(maxBodySize: 1 << 20, threads: threads, admission: admission) { request in
            .text(200, "got \(request.body.count)")
        }
        defer { server.stop() }
        let refused = try RawHTTP.exchange(
            port: server.port,
            "PUT /secret HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
        #expect(refused.hasPrefix("HTTP/1.1 401") && refused.hasSuffix("sign in first\n"), "\(refused)")
        let declared = try RawHTTP.exchange(
            port: server.port,
            "PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\nConnection: close\r\n\r\n"
                + String(repeating: "a", count: 17))
        #expect(declared.hasPrefix("HTTP/1.1 413") && declared.contains("the limit is 16 bytes"), "\(declared)")
        let chunked = try RawHTTP.exchange(
            port: server.port,
            "PUT /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n10\r\n0123456789abcdef\r\n4\r\nmore\r\n0\r\n\r\n"
        )
        #expect(chunked.hasPrefix("HTTP/1.1 413"), "\(chunked)")
        let fits = try RawHTTP.exchange(
            port: server.port,
            "PUT /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n10\r\n0123456789abcdef\r\n0\r\n\r\n"
        )
        #expect(fits.hasPrefix("HTTP/1.1 200") && fits.hasSuffix("got 16"), "\(fits)")
    }

    /// The workers take the next request from the address with the fewest being
    /// answered: with one worker held by 127.0.0.2 and nine more of its requests
    /// waiting, a request from 127.0.0.3 that comes last is answered next.
    @Test func anotherAddressGoesBeforeAFloodsBacklog() throws {
        let gate = DispatchSemaphore(value: 0)
        let order = Mutex<[String]>([])
        let server = try server(workers: 1) { request in
            if request.path == "/first" { gate.wait() }
            order.withLock { $0.append(request.remoteAddress + request.path) }
            return .text(200, request.path)
        }
        defer { server.stop() }
        let done = DispatchGroup()
        func send(_ path: String, from source: String) {
            done.enter()
            Thread {
                _ = try? RawHTTP.exchangeBytes(
                    port: server.port, Array("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8),
                    timeout: 30, from: source)
                done.leave()
            }.start()
        }
        send("/first", from: "127.0.0.2")
        while server.requestsInFlight < 1 { usleep(1_000) }
        for index in 0..<9 { send("/flood\(index)", from: "127.0.0.2") }
        while server.requestsInFlight < 10 { usleep(1_000) }
        send("/other", from: "127.0.0.3")
        while server.requestsInFlight < 11 { usleep(1_000) }
        gate.signal()
        #expect(done.wait(timeout: .now() + 60) == .success)
        let answered = order.withLock { $0 }
        #expect(answered.count == 11)
        #expect(Array(answered.prefix(2)) == ["127.0.0.2/first", "127.0.0.3/other"], "\(answered)")
    }

    @Test func gracefulStopLetsARequestInProgressFinish() async throws {
        let started = DispatchSemaphore(value: 0)
        let server = try server { _ in
            started.signal()
            usleep(300_000)
            return .text(200, "finished")
        }
        let port = server.port
        let task = Task.detached {
            try RawHTTP.exchange(port: port, "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        }
        started.wait()
        server.stop(gracePeriod: 5)
        let response = try await task.value
        #expect(response.hasSuffix("finished"))
        // Stopped: new connections are refused.
        #expect(throws: ConnectionRefused.self) {
            try RawHTTP.exchange(port: port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        }
    }

    @Test func percentDecodingAndQueryItems() {
        #expect(PercentEncoding.decode("/dav/anna%40example.com/") == "/dav/anna@example.com/")
        #expect(PercentEncoding.decode("%zz") == nil)
        #expect(PercentEncoding.decode("%C3%A9") == "é")
        #expect(PercentEncoding.decode("%FF") == nil)
        #expect(PercentEncoding.encode("a b/é", allowing: [UInt8(ascii: "/")]) == "a%20b/%C3%A9")
        let request = HTTPRequest(method: "GET", path: "/", query: "from=2026-11-30&title=Leg+day&x")
        #expect(request.queryValue("title") == "Leg day")
        #expect(request.queryItems.map(\.name) == ["from", "title", "x"])
    }
}

/// Text set on one thread and read on another.
final class LockedText: Sendable {
    private let value = Mutex("")
    func set(_ text: String) { value.withLock { $0 = text } }
    var text: String { value.withLock { $0 } }
}
