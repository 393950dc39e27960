import CivilTime

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command reads its input and writes its output, so tests can run
/// commands in process and capture what they print.
public protocol CommandIO: AnyObject {
    /// The bytes of a file, or of standard input when `path` is `-`.
    func read(path: String) throws(CommandFailure) -> [UInt8]
    /// Writes to standard output.
    func write(_ bytes: [UInt8])
    /// Writes a line to standard error.
    func writeError(_ line: String)
    /// Writes a whole file, replacing it.
    func writeFile(_ path: String, _ bytes: [UInt8]) throws(CommandFailure)
    /// Writes to standard error without a newline (a progress line redrawn with `\r`).
    func writeProgress(_ text: String)
    /// Whether standard error is a terminal (progress bars only go to people).
    var isTerminal: Bool { get }
    /// Whether standard input is a terminal (passwords are then prompted for).
    var isInputTerminal: Bool { get }
    /// Prompts on the terminal and reads a line without echoing it; nil at end of input.
    func readSecret(prompt: String) -> String?
    /// The process environment.
    var environment: [String: String] { get }
    /// The current time, Unix seconds.
    var now: Int { get }
}

extension CommandIO {
    /// Writes text to standard output.
    public func write(_ text: String) { write(Array(text.utf8)) }
}

/// Why a command stopped, and the exit status that says so.
public struct CommandFailure: Error, Sendable, Equatable {
    /// 1 for bad data or an unreadable file, 2 for a usage mistake.
    public var status: Int32
    public var message: String

    public init(status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }

    static func usage(_ message: String) -> CommandFailure { CommandFailure(status: 2, message) }
}

/// The real process: files through POSIX calls, standard streams unbuffered.
public final class ProcessIO: CommandIO {
    public init() {}

    public func read(path: String) throws(CommandFailure) -> [UInt8] {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY)
        guard descriptor >= 0 else {
            throw CommandFailure(status: 1, "\(path): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var result: [UInt8] = []
        // A regular file is read into an array of its size at once (no regrowth, no copy).
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 {
            var failure: Int32 = 0
            result = [UInt8](unsafeUninitializedCapacity: Int(status.st_size)) { buffer, count in
                while count < buffer.count {
                    let got = Glibc.read(descriptor, buffer.baseAddress! + count, buffer.count - count)
                    if got < 0 && errno == EINTR { continue }
                    if got < 0 { failure = errno }
                    if got <= 0 { break }
                    count += got
                }
            }
            if failure != 0 { throw CommandFailure(status: 1, "\(path): \(String(cString: strerror(failure)))") }
        }
        // Then whatever is left: all of a pipe, or what a file gained meanwhile.
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandFailure(status: 1, "\(path): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }

    public func write(_ bytes: [UInt8]) { Self.writeAll(STDOUT_FILENO, bytes) }

    public func writeError(_ line: String) { Self.writeAll(STDERR_FILENO, Array((line + "\n").utf8)) }

    public func writeProgress(_ text: String) { Self.writeAll(STDERR_FILENO, Array(text.utf8)) }

    public func writeFile(_ path: String, _ bytes: [UInt8]) throws(CommandFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw CommandFailure(status: 1, "\(path): \(String(cString: strerror(errno)))") }
        Self.writeAll(descriptor, bytes)
        guard close(descriptor) == 0 else {
            throw CommandFailure(status: 1, "\(path): \(String(cString: strerror(errno)))")
        }
    }

    public var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    public var isInputTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    public func readSecret(prompt: String) -> String? {
        writeProgress(prompt)
        var original = termios()
        let isTerminal = tcgetattr(STDIN_FILENO, &original) == 0
        if isTerminal {
            var quiet = original
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        }
        defer {
            if isTerminal {
                tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
                writeProgress("\n")
            }
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(STDIN_FILENO, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    public var environment: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    public var now: Int { Clock.now() }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// The system clock.
enum Clock {
    /// Unix seconds.
    static func now() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int(now.tv_sec)
    }

    /// Today's date in UTC.
    static func today() -> CivilDate { CivilDate(daysSinceEpoch: now() / 86_400) }
}
