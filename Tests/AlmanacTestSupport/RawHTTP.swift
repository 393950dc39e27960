import Foundation

/// A server refused (or no server accepted) the connection.
public struct ConnectionRefused: Error {
    public init() {}
}

/// HTTP/1.1 written by hand over a loopback TCP socket, so tests see exactly what a
/// server sends (status line, headers, keep-alive behaviour).
public enum RawHTTP {
    /// Sends raw HTTP/1.1 over one TCP connection and returns everything read until the
    /// server closes it.
    public static func exchange(port: UInt16, _ text: String) throws -> String {
        try exchange(port: port, bytes: Array(text.utf8))
    }

    /// A TCP connection to 127.0.0.1:`port`, from the loopback address `source` (any
    /// of 127.0.0.0/8; the caller closes the descriptor).
    public static func connect(port: UInt16, from source: String = "127.0.0.1") throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ConnectionRefused() }
        if source != "127.0.0.1" {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else {
                close(descriptor)
                throw ConnectionRefused()
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw ConnectionRefused()
        }
        return descriptor
    }

    /// Sends raw bytes (a request with any body) and returns everything read back.
    public static func exchange(port: UInt16, bytes: [UInt8]) throws -> String {
        String(decoding: try exchangeBytes(port: port, bytes, timeout: 5), as: UTF8.self)
    }

    /// Sends `bytes` over one connection (from `source`) and returns every byte read
    /// until the server closes it, or until a read waits `timeout` seconds.
    public static func exchangeBytes(
        port: UInt16, _ bytes: [UInt8], timeout seconds: Int, from source: String = "127.0.0.1"
    )
        throws -> [UInt8]
    {
        let descriptor = try connect(port: port, from: source)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // The server may answer (413) and close before reading a large body: stop sending then.
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { break }
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return received
    }

}
