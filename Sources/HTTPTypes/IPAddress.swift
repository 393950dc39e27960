#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// IP addresses as bytes and text (inet_pton and inet_ntop).
public enum IPAddress {
    /// The 4 or 16 bytes of an IPv4 or IPv6 literal, or nil.
    public static func bytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// The usual text of 4 or 16 bytes.
    public static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if bytes.count == 4 {
            var v4 = in_addr()
            withUnsafeMutableBytes(of: &v4) { $0.copyBytes(from: bytes) }
            inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count))
        } else {
            var v6 = in6_addr()
            withUnsafeMutableBytes(of: &v6) { $0.copyBytes(from: bytes.prefix(16)) }
            inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension IPAddress {
    /// Whether a URL's host names this machine: `localhost`, an address in 127.0.0.0/8,
    /// or `::1` (bracketed or not). A name that merely starts like one
    /// (`127.example.com`) does not.
    public static func isLoopback(host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { return true }
        guard let bytes = bytes(host) else { return false }
        return bytes.count == 4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// What fairness between clients counts as one client: an IPv4 address, or the /64
    /// network of an IPv6 address (one site is given a whole /64, so its addresses are
    /// one client); an IPv4-mapped IPv6 address is its IPv4 address. Anything else is
    /// kept as given.
    public static func clientKey(_ address: String) -> String {
        guard let bytes = bytes(address), bytes.count == 16 else { return address }
        if bytes.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF][...] { return text(Array(bytes.suffix(4))) }
        return text(Array(bytes.prefix(8)) + [UInt8](repeating: 0, count: 8)) + "/64"
    }
}
