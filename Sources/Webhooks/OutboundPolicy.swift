import CalendarStore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the server may send requests of its own (webhook deliveries): `http` and `https`
/// URLs only, and by default never to an address of the server's own networks —
/// loopback, link-local, private, carrier-grade NAT, multicast or reserved ranges — so
/// that a user cannot aim the server at services behind it. The check runs when a URL is
/// registered (a clear error) and again on every connection, against the address the
/// connection is actually made to, so a name that resolves elsewhere later gains nothing.
public struct OutboundPolicy: Sendable {
    /// Allows private and loopback addresses (`almanac serve --allow-private-webhooks`):
    /// for receivers on the same host or network, and for tests on 127.0.0.1.
    public var allowsPrivateAddresses: Bool

    public init(allowsPrivateAddresses: Bool = false) {
        self.allowsPrivateAddresses = allowsPrivateAddresses
    }

    /// The URL's parts a request needs, or why the URL cannot be used.
    public struct Target: Sendable, Hashable {
        public var scheme: String
        public var host: String
        public var port: Int
    }

    /// Checks a URL's form: `http` or `https`, a host, no user name or password (the
    /// signature authenticates the sender), no fragment. Returns the target, or the reason.
    public static func target(of text: String) -> Result<Target, OutboundRefusal> {
        guard text.utf8.count <= Webhook.maxURLBytes, let components = URLComponents(string: text),
            let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else {
            return .failure(OutboundRefusal("\(text.prefix(100)) is not an absolute http:// or https:// URL"))
        }
        guard scheme == "http" || scheme == "https" else {
            return .failure(OutboundRefusal("a webhook URL is http:// or https://, not \(scheme)://"))
        }
        guard components.user == nil, components.password == nil else {
            return .failure(OutboundRefusal("a webhook URL has no user name or password: check the signature instead"))
        }
        guard components.fragment == nil else {
            return .failure(OutboundRefusal("a webhook URL has no #fragment"))
        }
        if let port = components.port, !(1...65_535).contains(port) {
            return .failure(OutboundRefusal("port \(port) is not a TCP port"))
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return .success(Target(scheme: scheme, host: bare, port: components.port ?? (scheme == "https" ? 443 : 80)))
    }

    /// Checks a URL as it would be used now: its form, then every address its host
    /// resolves to. Nil when it may be used.
    public func refusal(for url: String) -> OutboundRefusal? {
        let target: Target
        switch Self.target(of: url) {
        case .failure(let refusal): return refusal
        case .success(let found): target = found
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            return OutboundRefusal("cannot resolve \(target.host): \(reason)")
        }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr, let refusal = refusal(for: UnsafeRawPointer(address)) {
                return refusal
            }
            entry = current.pointee.ai_next
        }
        return nil
    }

    /// Checks one socket address (`sockaddr_in` or `sockaddr_in6`); nil when it may be used.
    func refusal(for address: UnsafeRawPointer) -> OutboundRefusal? {
        guard !allowsPrivateAddresses else { return nil }
        let family = Int32(address.loadUnaligned(fromByteOffset: 0, as: sa_family_t.self))
        switch family {
        case AF_INET:
            let ipv4 = address.loadUnaligned(as: sockaddr_in.self)
            let bytes = withUnsafeBytes(of: ipv4.sin_addr) { Array($0) }
            return Self.refusal(ipv4: bytes)
        case AF_INET6:
            let ipv6 = address.loadUnaligned(as: sockaddr_in6.self)
            let bytes = withUnsafeBytes(of: ipv6.sin6_addr) { Array($0) }
            return Self.refusal(ipv6: bytes)
        default:
            return OutboundRefusal("address family \(family) is not IPv4 or IPv6")
        }
    }

    static let hint = " (start the server with --allow-private-webhooks to allow it)"

    /// Why an IPv4 address (4 bytes, network order) is not public, or nil.
    public static func refusal(ipv4 bytes: [UInt8]) -> OutboundRefusal? {
        let text = bytes.map(String.init).joined(separator: ".")
        let (a, b) = (bytes[0], bytes[1])
        let kind: String? =
            switch (a, b) {
            case (0, _): "a 'this network' address"
            case (10, _), (172, 16...31), (192, 168): "a private address"
            case (100, 64...127): "a carrier-grade NAT address"
            case (127, _): "a loopback address"
            case (169, 254): "a link-local address"
            case (192, 0) where bytes[2] == 0: "an IETF protocol address"
            case (198, 18...19): "a benchmarking address"
            case (224...239, _): "a multicast address"
            case (240...255, _): "a reserved address"
            default: nil
            }
        return kind.map { OutboundRefusal("\(text) is \($0)" + hint) }
    }

    /// Why an IPv6 address (16 bytes) is not public, or nil. IPv4-mapped and NAT64
    /// addresses are judged by the IPv4 address they carry.
    public static func refusal(ipv6 bytes: [UInt8]) -> OutboundRefusal? {
        let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
        let nat64 = bytes[0...3] == [0x00, 0x64, 0xFF, 0x9B] && bytes[4..<12].allSatisfy { $0 == 0 }
        if mapped || nat64 { return refusal(ipv4: Array(bytes[12...])) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
        inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
        let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let kind: String?
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && (bytes[15] == 0 || bytes[15] == 1) {
            kind = bytes[15] == 1 ? "the loopback address" : "the unspecified address"
        } else if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 {
            kind = "a link-local address"
        } else if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 {
            kind = "a site-local address"
        } else if bytes[0] & 0xFE == 0xFC {
            kind = "a unique local (private) address"
        } else if bytes[0] == 0xFF {
            kind = "a multicast address"
        } else if bytes[0..<12].allSatisfy({ $0 == 0 }) {
            kind = "an IPv4-compatible address"
        } else {
            kind = nil
        }
        return kind.map { OutboundRefusal("\(name) is \($0)" + hint) }
    }
}

/// Why a URL or an address may not be sent to.
public struct OutboundRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
