import Foundation
import HTTPTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the server may send requests of its own (webhook deliveries, feed fetches, test
/// pings): `http` and `https` URLs of at most ``maxURLBytes`` with no control characters
/// or spaces, and by default only to addresses the IANA special-purpose registries mark
/// globally reachable (``SpecialPurposeAddresses``: not loopback, private, link-local,
/// shared, documentation, benchmarking, reserved or multicast, in IPv4 or IPv6, IPv4
/// embedded in NAT64 judged as itself) and never to an address of this host's own
/// interfaces (``HostAddresses``), so that a user cannot aim the server at services
/// behind it or on it. The check runs when a URL is registered (a clear error; on a
/// request thread without asking DNS, ``refusalWithoutResolving(for:)``) and again on
/// every connection, against the address the connection is actually made to (every
/// redirect hop is a connection of its own), so a name that resolves elsewhere later
/// gains nothing.
public struct OutboundPolicy: Sendable {
    /// Allows every address (`almanac serve --allow-private-webhooks`, `--allow-private-feeds`):
    /// for receivers on the same host or network, and for tests on 127.0.0.1.
    public var allowsPrivateAddresses: Bool
    /// The option that would allow a refused address, named in refusals.
    public var permission: String

    public init(allowsPrivateAddresses: Bool = false, permission: String = "--allow-private-webhooks") {
        self.allowsPrivateAddresses = allowsPrivateAddresses
        self.permission = permission
    }

    /// The longest URL the server sends to.
    public static let maxURLBytes = 2_048

    /// The URL's parts a request needs, or why the URL cannot be used.
    public struct Target: Sendable, Hashable {
        public var scheme: String
        public var host: String
        public var port: Int

        public init(scheme: String, host: String, port: Int) {
            self.scheme = scheme
            self.host = host
            self.port = port
        }
    }

    /// Checks a URL's form: at most ``maxURLBytes``, printable ASCII without spaces (a
    /// CR, LF or NUL could split a request line or a header), `http` or `https`, a host,
    /// no user name or password (the signature authenticates the sender), no fragment.
    /// Returns the target, or the reason.
    public static func target(of text: String) -> Result<Target, OutboundRefusal> {
        guard text.utf8.count <= maxURLBytes else {
            return .failure(OutboundRefusal("a URL is at most \(maxURLBytes) bytes"))
        }
        if let byte = text.utf8.first(where: { $0 <= 0x20 || $0 >= 0x7F }) {
            let what =
                switch byte {
                case 0x0D: "a carriage return"
                case 0x0A: "a line feed"
                case 0x00: "a NUL"
                case 0x20: "a space"
                case 0x7F...: "a character outside ASCII (percent-encode it)"
                default: "a control character"
                }
            return .failure(OutboundRefusal("the URL holds \(what); a URL is printable ASCII without spaces"))
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            return .failure(OutboundRefusal("\(text.prefix(100)) is not an absolute http:// or https:// URL"))
        }
        guard scheme == "http" || scheme == "https" else {
            return .failure(OutboundRefusal("a URL the server sends to is http:// or https://, not \(scheme)://"))
        }
        guard components.user == nil, components.password == nil else {
            return .failure(OutboundRefusal("a URL the server sends to has no user name or password"))
        }
        guard components.fragment == nil else {
            return .failure(OutboundRefusal("a URL the server sends to has no #fragment"))
        }
        if let port = components.port, !(1...65_535).contains(port) {
            return .failure(OutboundRefusal("port \(port) is not a TCP port"))
        }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return .success(Target(scheme: scheme, host: bare, port: components.port ?? (scheme == "https" ? 443 : 80)))
    }

    /// Checks a URL without asking DNS, for request threads (a user naming a slow
    /// resolver must not hold one): its form, and a host given as an address or as
    /// `localhost`. A name is judged by what it resolves to on every connection. Nil
    /// when it may be used as far as can be told now.
    public func refusalWithoutResolving(for url: String) -> OutboundRefusal? {
        let target: Target
        switch Self.target(of: url) {
        case .failure(let refusal): return refusal
        case .success(let found): target = found
        }
        // A host the C library reads as an address (every form it takes, `0x7f000001` and
        // `127.1` too) is judged as that address; AI_NUMERICHOST never asks DNS.
        switch lookUp(target, flags: AI_NUMERICHOST) {
        case .allowed: return nil
        case .refused(let refusal): return refusal
        case .unresolved: break  // a name
        }
        var name = target.host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if !allowsPrivateAddresses, name == "localhost" || name.hasSuffix(".localhost") {
            return OutboundRefusal(
                "\(target.host) is this server itself (start the server with \(permission) to allow it)")
        }
        return nil
    }

    /// Checks a URL as it would be used now: its form, then every address its host
    /// resolves to (which can take as long as the resolver's timeout: for the command
    /// line; request threads use ``refusalWithoutResolving(for:)``). Nil when it may be used.
    public func refusal(for url: String) -> OutboundRefusal? {
        let target: Target
        switch Self.target(of: url) {
        case .failure(let refusal): return refusal
        case .success(let found): target = found
        }
        switch lookUp(target, flags: 0) {
        case .allowed: return nil
        case .refused(let refusal): return refusal
        case .unresolved(let reason): return OutboundRefusal("cannot resolve \(target.host): \(reason)")
        }
    }

    /// What `getaddrinfo` (with `flags`) makes of a target's host.
    private enum Lookup {
        /// Every address it gave may be used.
        case allowed
        /// The first of its addresses that may not.
        case refused(OutboundRefusal)
        /// It gave none, for this reason.
        case unresolved(String)
    }

    private func lookUp(_ target: Target, flags: Int32) -> Lookup {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = flags
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(target.host, String(target.port), &hints, &list)
        guard status == 0, let first = list else { return .unresolved(String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let address = current.pointee.ai_addr, let refusal = refusal(for: UnsafeRawPointer(address)) {
                return .refused(refusal)
            }
            entry = current.pointee.ai_next
        }
        return .allowed
    }

    /// Checks one socket address (`sockaddr_in` or `sockaddr_in6`); nil when it may be used.
    func refusal(for address: UnsafeRawPointer) -> OutboundRefusal? {
        guard !allowsPrivateAddresses else { return nil }
        let family = Int32(address.loadUnaligned(fromByteOffset: 0, as: sa_family_t.self))
        switch family {
        case AF_INET:
            let ipv4 = address.loadUnaligned(as: sockaddr_in.self)
            return refusal(address: withUnsafeBytes(of: ipv4.sin_addr) { Array($0) })
        case AF_INET6:
            let ipv6 = address.loadUnaligned(as: sockaddr_in6.self)
            return refusal(address: withUnsafeBytes(of: ipv6.sin6_addr) { Array($0) })
        default:
            return OutboundRefusal("address family \(family) is not IPv4 or IPv6")
        }
    }

    /// Why the server may not connect to `address` (4 or 16 bytes), or nil: an address no
    /// registry marks globally reachable, or one of this host's own.
    public func refusal(address: [UInt8]) -> OutboundRefusal? {
        guard !allowsPrivateAddresses else { return nil }
        let hint = " (start the server with \(permission) to allow it)"
        if let refusal = Self.refusal(address: address) {
            return OutboundRefusal(refusal.description + hint)
        }
        if HostAddresses.contains(address) {
            return OutboundRefusal("\(IPAddress.text(address)) is an address of this server itself" + hint)
        }
        return nil
    }

    /// Why `address` (4 or 16 bytes) is not globally reachable, by the registries alone
    /// (not the host's own addresses), or nil. An IPv4 address inside the NAT64 prefix
    /// 64:ff9b::/96 is judged as itself.
    public static func refusal(address: [UInt8]) -> OutboundRefusal? {
        guard address.count == 4 || address.count == 16 else {
            return OutboundRefusal("an address is 4 or 16 bytes")
        }
        let block = SpecialPurposeAddresses.block(of: address)
        if address.count == 16, let block, block.isGloballyReachable, block.length == 96,
            block.prefix.starts(with: [0x00, 0x64, 0xFF, 0x9B])
        {
            return refusal(address: Array(address[12...]))
        }
        guard let block, !block.isGloballyReachable else { return nil }
        return OutboundRefusal(
            "\(IPAddress.text(address)) is in \(block) (\(block.name), \(block.reference)), which is not globally reachable"
        )
    }
}

/// Why a URL or an address may not be sent to.
public struct OutboundRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
