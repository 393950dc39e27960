import Foundation

/// `almanac serve` as a real process on a free loopback port, with the account its
/// first start created. Stopped (SIGTERM) when released.
public final class ServerProcess {
    public let process: Process
    public let port: UInt16
    public let user: String
    public let password: String
    /// What the server printed on start (URLs, the created account).
    public let banner: String
    /// The rest of its standard output.
    public let output: FileHandle

    /// Starts the built `almanac` on `data` with `arguments` after `serve --port 0`.
    public init(data: String, user: String = "anna", arguments: [String] = []) throws {
        process = Process()
        process.executableURL = Checkout.buildDirectory.appendingPathComponent("almanac")
        process.arguments = ["serve", "--port", "0", "--quiet", "--data", data] + arguments
        process.environment = ["USER": user, "PATH": "/usr/bin:/bin"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        output = pipe.fileHandleForReading
        try process.run()
        var text = ""
        while !text.contains("CalDAV:") {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        banner = text
        self.user = user
        let lines = text.split(separator: "\n")
        guard let created = lines.first(where: { $0.hasPrefix("Created user \(user) with password ") }),
            let secret = created.split(separator: " ").last,
            let url = lines.first(where: { $0.hasPrefix("CalDAV: ") }),
            let portText = url.split(separator: ":")[safe: 3]?.split(separator: "/").first,
            let port = UInt16(portText)
        else {
            process.terminate()
            throw ConnectionRefused()
        }
        password = String(secret)
        self.port = port
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// `Authorization: Basic …` for the created user.
    public var authorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    /// One request on its own connection; the raw path is sent exactly as given.
    public func send(
        _ method: String, _ path: String, body: [UInt8] = [], headers: [String: String] = [:], signedIn: Bool = true
    )
        throws -> HTTPExchange
    {
        var head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        if signedIn { head += "Authorization: \(authorization)\r\n" }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        return HTTPExchange(try RawHTTP.exchange(port: port, bytes: Array((head + "\r\n").utf8) + body))
    }

    public func send(_ method: String, _ path: String, _ body: String, headers: [String: String] = [:]) throws
        -> HTTPExchange
    {
        try send(method, path, body: Array(body.utf8), headers: headers)
    }
}

/// A response read off the wire.
public struct HTTPExchange {
    public var status: Int
    public var headers: [String: String]
    public var body: String

    init(_ raw: String) {
        let parts = raw.components(separatedBy: "\r\n\r\n")
        let head = parts.first?.components(separatedBy: "\r\n") ?? []
        status = head.first.flatMap { $0.split(separator: " ")[safe: 1] }.flatMap { Int($0) } ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        self.headers = headers
        body = parts.dropFirst().joined(separator: "\r\n\r\n")
    }
}

extension Array {
    public subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
