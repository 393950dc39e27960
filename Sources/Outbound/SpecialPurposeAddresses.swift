import HTTPTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A block of addresses: a prefix and its length in bits, with what the registry says of it.
public struct AddressBlock: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), in network order, the bits past `length` zero.
    public var prefix: [UInt8]
    public var length: Int
    /// The registry's name for it and where it comes from.
    public var name: String
    public var reference: String
    /// Whether the registry marks it globally reachable: only then may the server connect.
    public var isGloballyReachable: Bool

    /// A block from its text (`192.0.2.0/24`, `2001:db8::/32`); the text must be valid.
    init(_ text: String, _ name: String, _ reference: String, reachable: Bool) {
        let parts = text.split(separator: "/")
        prefix = IPAddress.bytes(String(parts[0])) ?? []
        length = Int(parts[1]) ?? 0
        self.name = name
        self.reference = reference
        isGloballyReachable = reachable
        precondition(prefix.count * 8 >= length && !prefix.isEmpty, "a malformed block in the table: \(text)")
    }

    /// Whether `address` (of the same family) lies in the block.
    public func contains(_ address: [UInt8]) -> Bool {
        guard address.count == prefix.count else { return false }
        var bits = length
        for index in prefix.indices where bits > 0 {
            let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
            if address[index] & mask != prefix[index] & mask { return false }
            bits -= 8
        }
        return true
    }

    public var description: String { IPAddress.text(prefix) + "/\(length)" }
}

/// The IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and the RFCs
/// that added to them, as of 2025), and the other blocks no server on the Internet has:
/// IPv4 multicast (RFC 5771) and, for IPv6, everything outside global unicast 2000::/3
/// but the registry's own entries (RFC 4291 §2.4: multicast, link-local, the reserved
/// space). The most specific block holding an address decides; a deprecated block, or
/// one whose reachability the registry leaves open (TEREDO, 6to4), counts as not
/// reachable.
public enum SpecialPurposeAddresses {
    public static let ipv4: [AddressBlock] = [
        AddressBlock("0.0.0.0/8", "\"This network\"", "RFC 791", reachable: false),
        AddressBlock("0.0.0.0/32", "\"This host on this network\"", "RFC 1122", reachable: false),
        AddressBlock("10.0.0.0/8", "Private-Use", "RFC 1918", reachable: false),
        AddressBlock("100.64.0.0/10", "Shared Address Space (carrier-grade NAT)", "RFC 6598", reachable: false),
        AddressBlock("127.0.0.0/8", "Loopback", "RFC 1122", reachable: false),
        AddressBlock("169.254.0.0/16", "Link Local", "RFC 3927", reachable: false),
        AddressBlock("172.16.0.0/12", "Private-Use", "RFC 1918", reachable: false),
        AddressBlock("192.0.0.0/24", "IETF Protocol Assignments", "RFC 6890", reachable: false),
        AddressBlock("192.0.0.0/29", "IPv4 Service Continuity Prefix", "RFC 7335", reachable: false),
        AddressBlock("192.0.0.8/32", "IPv4 dummy address", "RFC 7600", reachable: false),
        AddressBlock("192.0.0.9/32", "Port Control Protocol Anycast", "RFC 7723", reachable: true),
        AddressBlock("192.0.0.10/32", "Traversal Using Relays around NAT Anycast", "RFC 8155", reachable: true),
        AddressBlock("192.0.0.170/32", "NAT64/DNS64 Discovery", "RFC 8880", reachable: false),
        AddressBlock("192.0.0.171/32", "NAT64/DNS64 Discovery", "RFC 8880", reachable: false),
        AddressBlock("192.0.2.0/24", "Documentation (TEST-NET-1)", "RFC 5737", reachable: false),
        AddressBlock("192.31.196.0/24", "AS112-v4", "RFC 7535", reachable: true),
        AddressBlock("192.52.193.0/24", "AMT", "RFC 7450", reachable: true),
        AddressBlock("192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "RFC 7526", reachable: false),
        AddressBlock("192.168.0.0/16", "Private-Use", "RFC 1918", reachable: false),
        AddressBlock("192.175.48.0/24", "Direct Delegation AS112 Service", "RFC 7534", reachable: true),
        AddressBlock("198.18.0.0/15", "Benchmarking", "RFC 2544", reachable: false),
        AddressBlock("198.51.100.0/24", "Documentation (TEST-NET-2)", "RFC 5737", reachable: false),
        AddressBlock("203.0.113.0/24", "Documentation (TEST-NET-3)", "RFC 5737", reachable: false),
        AddressBlock("224.0.0.0/4", "Multicast", "RFC 5771", reachable: false),
        AddressBlock("240.0.0.0/4", "Reserved", "RFC 1112", reachable: false),
        AddressBlock("255.255.255.255/32", "Limited Broadcast", "RFC 919", reachable: false),
    ]

    public static let ipv6: [AddressBlock] = [
        AddressBlock("::/0", "outside global unicast 2000::/3", "RFC 4291", reachable: false),
        AddressBlock("2000::/3", "Global Unicast", "RFC 4291", reachable: true),
        AddressBlock("::1/128", "Loopback Address", "RFC 4291", reachable: false),
        AddressBlock("::/128", "Unspecified Address", "RFC 4291", reachable: false),
        AddressBlock("::ffff:0:0/96", "IPv4-mapped Address", "RFC 4291", reachable: false),
        AddressBlock("64:ff9b::/96", "IPv4-IPv6 Translat.", "RFC 6052", reachable: true),
        AddressBlock("64:ff9b:1::/48", "IPv4-IPv6 Translat. (local use)", "RFC 8215", reachable: false),
        AddressBlock("100::/64", "Discard-Only Address Block", "RFC 6666", reachable: false),
        AddressBlock("100:0:0:1::/64", "Dummy IPv6 Prefix", "RFC 9780", reachable: false),
        AddressBlock("2001::/23", "IETF Protocol Assignments", "RFC 2928", reachable: false),
        AddressBlock("2001::/32", "TEREDO", "RFC 4380", reachable: false),
        AddressBlock("2001:1::1/128", "Port Control Protocol Anycast", "RFC 7723", reachable: true),
        AddressBlock("2001:1::2/128", "Traversal Using Relays around NAT Anycast", "RFC 8155", reachable: true),
        AddressBlock("2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", "RFC 9665", reachable: true),
        AddressBlock("2001:2::/48", "Benchmarking", "RFC 5180", reachable: false),
        AddressBlock("2001:3::/32", "AMT", "RFC 7450", reachable: true),
        AddressBlock("2001:4:112::/48", "AS112-v6", "RFC 7535", reachable: true),
        AddressBlock("2001:10::/28", "Deprecated (previously ORCHID)", "RFC 4843", reachable: false),
        AddressBlock("2001:20::/28", "ORCHIDv2", "RFC 7343", reachable: true),
        AddressBlock("2001:30::/28", "Drone Remote ID Protocol Entity Tags", "RFC 9374", reachable: true),
        AddressBlock("2001:db8::/32", "Documentation", "RFC 3849", reachable: false),
        AddressBlock("2002::/16", "6to4", "RFC 3056", reachable: false),
        AddressBlock("2620:4f:8000::/48", "Direct Delegation AS112 Service", "RFC 7534", reachable: true),
        AddressBlock("3fff::/20", "Documentation", "RFC 9637", reachable: false),
        AddressBlock("5f00::/16", "Segment Routing (SRv6) SIDs", "RFC 9602", reachable: false),
        AddressBlock("fc00::/7", "Unique-Local", "RFC 4193", reachable: false),
        AddressBlock("fe80::/10", "Link-Local Unicast", "RFC 4291", reachable: false),
    ]

    /// The most specific block holding `address` (4 or 16 bytes), or nil (an IPv4
    /// address no registry entry holds: an ordinary one).
    public static func block(of address: [UInt8]) -> AddressBlock? {
        let table = address.count == 4 ? ipv4 : ipv6
        var found: AddressBlock?
        for block in table where block.contains(address) && block.length >= (found?.length ?? -1) {
            found = block
        }
        return found
    }
}
