import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every address of this host's own network interfaces (getifaddrs), IPv4 and IPv6: a
/// request the server makes to one of them reaches a service on this host, however
/// public the address is. Read again when the last reading is older than a few seconds,
/// so an address added while the server runs is known soon after.
public enum HostAddresses {
    /// How long one reading is trusted, in seconds.
    static let lifetime: Int = 5

    private static let cache = Mutex<(read: Int?, addresses: Set<[UInt8]>)>((nil, []))

    /// The host's addresses now (4 or 16 bytes each).
    public static var current: Set<[UInt8]> {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let seconds = Int(now.tv_sec)
        let fresh = cache.withLock { cached in
            cached.read.map { seconds - $0 < lifetime } == true ? cached.addresses : nil
        }
        if let fresh { return fresh }
        let addresses = read()
        cache.withLock { $0 = (seconds, addresses) }
        return addresses
    }

    /// Whether `address` (4 or 16 bytes) is one of the host's own.
    public static func contains(_ address: [UInt8]) -> Bool { current.contains(address) }

    static func read() -> Set<[UInt8]> {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var found = Set<[UInt8]>()
        var entry: UnsafeMutablePointer<ifaddrs>? = first
        while let current = entry {
            if let address = current.pointee.ifa_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    let ipv4 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in.self)
                    found.insert(withUnsafeBytes(of: ipv4.sin_addr) { Array($0) })
                case AF_INET6:
                    let ipv6 = UnsafeRawPointer(address).loadUnaligned(as: sockaddr_in6.self)
                    found.insert(withUnsafeBytes(of: ipv6.sin6_addr) { Array($0) })
                default: break
                }
            }
            entry = current.pointee.ifa_next
        }
        return found
    }
}
