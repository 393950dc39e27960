import CMicroHTTPD
import HTTPTypes

// libmicrohttpd calls these on its own threads. They are plain global functions
// (nonisolated, capturing nothing), as C function pointers must be; they reach the
// server through the context pointer and hand the request to its responder.

/// MHD_AccessHandlerCallback: called first with no body, then with each chunk of the
/// body, then once more with none — the point at which the request is answered.
///
/// With a pool of transport threads, the work that may block (the admission, which may
/// check a password, and the responder) runs on the server's ``RequestQueue``: the
/// connection is suspended meanwhile, and libmicrohttpd calls again once it is resumed,
/// in the same step, to send what was decided. A thread of the pool so never waits for
/// a responder, and the queue shares the responders' threads fairly between clients.
/// With a thread per connection, everything runs on that thread.
func handleAccess(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?,
    _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let context, let connection, let requestContext, let uploadSize else { return MHD_Result.NO }
    let server = Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue()

    guard let existing = requestContext.pointee else {
        // First call: headers only.
        let headers = collectHeaders(connection)
        let socketAddress = clientAddress(connection)
        let state = RequestState(
            method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
            query: collectQuery(connection), headers: headers,
            remoteAddress: ClientAddress.resolve(
                socket: socketAddress, forwardedFor: headers.values("X-Forwarded-For"),
                trusted: server.configuration.trustedProxies))
        state.connection = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
        state.bodyLimit = server.configuration.maxBodySize
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
        server.inFlight.add(1, ordering: .relaxed)
        let length = headers["Content-Length"].flatMap { Int($0) }
        if let length, length > state.bodyLimit {
            // Refuse before reading a byte of it.
            state.tooLarge = true
            return send(tooLarge(state.bodyLimit), on: connection, state: state)
        }
        guard let admission = server.admission, (length ?? 0) > 0 || headers["Transfer-Encoding"] != nil else {
            return MHD_Result.YES
        }
        // A body is coming: whoever sends it must be let in, and told how much they may
        // send, before it is read (an unauthenticated upload gets its 401 now, not after
        // 16 MiB are buffered).
        let request = HTTPRequest(
            method: state.method, path: state.path, query: state.query, headers: headers,
            remoteAddress: state.remoteAddress)
        guard server.queue != nil else { return admit(admission(request), state: state, on: connection) }
        state.phase = .admitting
        run(on: server, state: state, connection: connection) { state.decision = admission(request) }
        return MHD_Result.YES
    }
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    if state.phase == .admitting {
        // Called again after the admission ran (the first call, once more).
        state.phase = .receiving
        return admit(state.decision ?? .answer(unavailable), state: state, on: connection)
    }
    if uploadSize.pointee > 0 {
        let size = uploadSize.pointee
        uploadSize.pointee = 0
        if !state.tooLarge {
            if state.body.count + size > state.bodyLimit {
                state.tooLarge = true
                state.body = []
            } else if let uploadData {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
                    state.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
                }
            }
        }
        if state.tooLarge {
            // Nothing past the limit is kept; a client that keeps sending long after it
            // (a chunked body has no length to refuse up front) loses the connection.
            state.discarded += size
            if state.discarded > ServerContext.drainAllowance { return MHD_Result.NO }
        }
        return MHD_Result.YES
    }
    if state.status != 0 { return MHD_Result.YES }
    if state.phase == .responding {
        // Called again after the responder ran.
        return send(state.response ?? unavailable, on: connection, state: state)
    }
    if state.tooLarge { return send(tooLarge(state.bodyLimit), on: connection, state: state) }
    var request = HTTPRequest(
        method: state.method, path: state.path, query: state.query, headers: state.headers, body: state.body,
        remoteAddress: state.remoteAddress)
    // The connection outlives the responder (it is answered only after), so asking it is safe.
    let address = state.connection
    request.isClientGone = { OpaquePointer(bitPattern: address).map { cmhd_client_gone($0) != 0 } ?? false }
    guard server.queue != nil else { return send(server.responder(request), on: connection, state: state) }
    state.phase = .responding
    run(on: server, state: state, connection: connection) { state.response = server.responder(request) }
    return MHD_Result.YES
}

/// Suspends the connection and runs `work` on the server's queue (under the client's
/// address), then resumes it; if the queue no longer takes work (the server is
/// stopping), the request is answered 503 instead.
private func run(on server: ServerContext, state: RequestState, connection: OpaquePointer, _ work: @escaping () -> Void)
{
    guard let queue = server.queue else { return }
    MHD_suspend_connection(connection)
    let address = state.connection
    func resume() {
        if let connection = OpaquePointer(bitPattern: address) { MHD_resume_connection(connection) }
    }
    let job = RequestQueue.Job(
        key: IPAddress.clientKey(state.remoteAddress),
        run: {
            work()
            resume()
        },
        refuse: {
            state.decision = .answer(unavailable)
            state.response = unavailable
            resume()
        })
    if !queue.submit(job) { job.refuse() }
}

/// Acts on an admission's decision at the first call: answer now, or read the body up
/// to its limit (refusing at once a body whose announced length passes it).
private func admit(_ decision: AdmissionDecision, state: RequestState, on connection: OpaquePointer) -> MHD_Result {
    switch decision {
    case .answer(var refusal):
        refusal.headers.set("Connection", "close")
        state.tooLarge = true
        return send(refusal, on: connection, state: state)
    case .read(let limit):
        state.bodyLimit = min(limit, state.bodyLimit)
        if let length = state.headers["Content-Length"].flatMap({ Int($0) }), length > state.bodyLimit {
            state.tooLarge = true
            return send(tooLarge(state.bodyLimit), on: connection, state: state)
        }
        return MHD_Result.YES
    }
}

/// 503 for a request the server stopped before answering.
private let unavailable = HTTPResponse.text(
    503, "503 Service Unavailable: the server is stopping; try again shortly\n",
    headers: ["Connection": "close", "Retry-After": "5"])

/// MHD_RequestCompletedCallback: the response went out (or the connection died).
func handleCompletion(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    _ termination: MHD_RequestTerminationCode
) {
    guard let context, let requestContext, let pointer = requestContext.pointee else { return }
    let server = Unmanaged<ServerContext>.fromOpaque(context).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
    requestContext.pointee = nil
    server.log(state)
    server.inFlight.subtract(1, ordering: .releasing)
}

private func tooLarge(_ limit: Int) -> HTTPResponse {
    .text(413, "413 Content Too Large: the limit is \(limit) bytes\n", headers: ["Connection": "close"])
}

// MHD_RESPMEM_PERSISTENT and MHD_RESPMEM_MUST_COPY (a closed C enum, built by value).
private let persistentMemory = MHD_ResponseMemoryMode(rawValue: 0)!
private let copiedMemory = MHD_ResponseMemoryMode(rawValue: 2)!

private func send(_ response: HTTPResponse, on connection: OpaquePointer, state: RequestState) -> MHD_Result {
    state.status = response.status
    state.bytesSent = response.body.count
    let created = response.body.withUnsafeBytes { bytes -> OpaquePointer? in
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            return MHD_create_response_from_buffer(0, nil, persistentMemory)
        }
        return MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: base), copiedMemory)
    }
    guard let created else { return MHD_Result.NO }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers where name.lowercased() != "content-length" {
        MHD_add_response_header(created, name, value)
    }
    return MHD_queue_response(connection, UInt32(response.status), created)
}

private final class FieldCollector {
    var fields: [(String, String)] = []
}

private func collectFields(_ connection: OpaquePointer, kind: MHD_ValueKind) -> [(String, String)] {
    let collector = FieldCollector()
    let pointer = Unmanaged.passUnretained(collector).toOpaque()
    MHD_get_connection_values(
        connection, kind,
        { context, _, key, value in
            guard let context, let key else { return MHD_Result.YES }
            let collector = Unmanaged<FieldCollector>.fromOpaque(context).takeUnretainedValue()
            collector.fields.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return MHD_Result.YES
        }, pointer)
    return withExtendedLifetime(collector) { collector.fields }
}

private func collectHeaders(_ connection: OpaquePointer) -> HTTPHeaders {
    var headers = HTTPHeaders()
    for (name, value) in collectFields(connection, kind: .HEADER_KIND) { headers.add(name, value) }
    return headers
}

/// The query string rebuilt from libmicrohttpd's arguments (kept %-encoded), or nil.
private func collectQuery(_ connection: OpaquePointer) -> String? {
    let arguments = collectFields(connection, kind: .GET_ARGUMENT_KIND)
    guard !arguments.isEmpty else { return nil }
    return arguments.map { $0.1.isEmpty ? $0.0 : $0.0 + "=" + $0.1 }.joined(separator: "&")
}

private func clientAddress(_ connection: OpaquePointer) -> String {
    var buffer = [CChar](repeating: 0, count: 64)
    cmhd_client_address(connection, &buffer, socklen_t(buffer.count))
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
