import Foundation
import Synchronization

/// A TCP server on a loopback port that accepts every connection, reads what it is sent
/// and never answers: the slowest receiver there is. Connections stay open until it is
/// closed (or the value goes away). Tests aim the server's own requests at it to show
/// they give up in time and delay nobody else.
public final class Tarpit: Sendable {
    /// `http://127.0.0.1:PORT`, to append a path to.
    public var url: String { "http://127.0.0.1:\(port)" }
    public let port: UInt16
    private let listener: Int32
    private let state: Held

    /// What the accepting thread and the owner share.
    private final class Held: Sendable {
        let connections = Mutex<[Int32]>([])
        let accepted = Atomic<Int>(0)
        let closed = Atomic<Bool>(false)
    }

    public init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ConnectionRefused() }
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 128) == 0 else {
            Glibc.close(listener)
            throw ConnectionRefused()
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        let state = Held()
        self.state = state
        let thread = Thread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }  // closed
                state.accepted.add(1, ordering: .relaxed)
                state.connections.withLock { $0.append(connection) }
            }
        }
        thread.start()
    }

    /// Connections accepted so far.
    public var connections: Int { state.accepted.load(ordering: .relaxed) }

    /// Closes the listener and every connection it holds.
    public func close() {
        guard !state.closed.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
        let held = state.connections.withLock { connections in
            defer { connections = [] }
            return connections
        }
        for connection in held { Glibc.close(connection) }
    }

    deinit { close() }
}
