import HTTPServer
import HTTPTypes

/// What the webhook and push benchmarks deliver to: a libmicrohttpd server on 127.0.0.1
/// (four threads) handing each request to its owner while the owner lives.
protocol LoopbackReceiver: AnyObject, Sendable {
    func receive(_ request: HTTPRequest) -> HTTPResponse
}

extension LoopbackReceiver {
    /// Starts the receiver's server; the server holds its owner weakly (a 503 once it is gone).
    func listen() -> HTTPServer {
        let owner = LoopbackOwner()
        owner.receiver = self
        let server = HTTPServer(configuration: ServerConfiguration(port: 0, threads: 4, accessLog: false)) { request in
            owner.receiver?.receive(request) ?? HTTPResponse(status: 503)
        }
        try! server.start()
        return server
    }
}

/// The weak reference from a receiver's server to its owner.
private final class LoopbackOwner: @unchecked Sendable { weak var receiver: (any LoopbackReceiver)? }
