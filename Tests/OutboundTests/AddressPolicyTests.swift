import Foundation
import HTTPTypes
import Outbound
import Testing

/// The outbound address policy against the IANA special-purpose registries (the CSV
/// files in Fixtures/, as IANA publishes them) and this host's own addresses.
@Suite struct AddressPolicyTests {
    /// One registry row: a block and whether it is globally reachable ("True" only;
    /// "False", "N/A" and the empty cells of deprecated rows are not).
    struct Row: CustomStringConvertible {
        var block: String
        var name: String
        var bytes: [UInt8]
        var length: Int
        var reachable: Bool

        var description: String { "\(block) \(name)" }

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            for bit in 0..<length where (address[bit / 8] ^ bytes[bit / 8]) & (0x80 >> UInt8(bit % 8)) != 0 {
                return false
            }
            return true
        }
    }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    /// The rows of a registry file (RFC 4180 CSV: quoted fields may hold commas and "").
    static func registry(_ file: String) throws -> [Row] {
        let text = try String(contentsOf: fixtures.appendingPathComponent(file), encoding: .utf8)
        var rows: [Row] = []
        for line in text.split(separator: "\n").dropFirst() where !line.isEmpty {
            var fields: [String] = []
            var field = ""
            var quoted = false
            var characters = Array(line)[...]
            while let character = characters.popFirst() {
                if quoted {
                    if character == "\"" {
                        if characters.first == "\"" {
                            field.append("\"")
                            characters.removeFirst()
                        } else {
                            quoted = false
                        }
                    } else {
                        field.append(character)
                    }
                } else if character == "\"" {
                    quoted = true
                } else if character == "," {
                    fields.append(field)
                    field = ""
                } else {
                    field.append(character)
                }
            }
            fields.append(field)
            try #require(fields.count == 10, "\(line)")
            let parts = fields[0].split(separator: "/")
            let bytes = try #require(Self.parse(String(parts[0])), "\(fields[0])")
            rows.append(
                Row(
                    block: fields[0], name: fields[1], bytes: bytes, length: try #require(Int(parts[1])),
                    reachable: fields[8].hasPrefix("True")))
        }
        return rows
    }

    /// inet_pton, independently of the product's own parsing.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
        return nil
    }

    /// The first, last and middle address of a block.
    static func samples(of row: Row) -> [[UInt8]] {
        func filled(_ value: (Int) -> UInt8) -> [UInt8] {
            (0..<row.bytes.count).map { index in
                var byte = row.bytes[index]
                for bit in 0..<8 where index * 8 + bit >= row.length {
                    let mask = UInt8(0x80) >> UInt8(bit)
                    byte = (byte & ~mask) | (value(index * 8 + bit) & mask)
                }
                return byte
            }
        }
        let first = filled { _ in 0 }
        let last = filled { _ in 0xFF }
        // The middle: the first host bit set, the rest clear.
        let middle = filled { bit in bit == row.length ? 0xFF : 0 }
        return row.length == row.bytes.count * 8 ? [first] : [first, middle, last]
    }

    /// What the registry says of an address: the most specific row holding it decides.
    static func expected(_ address: [UInt8], in rows: [Row]) -> (reachable: Bool, row: Row?) {
        let holding = rows.filter { $0.contains(address) }.max { $0.length < $1.length }
        return (holding?.reachable ?? true, holding)
    }

    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        bytes.withUnsafeBytes { raw in
            _ = inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    @Test func everyIPv4RegistryBlockIsJudgedAsTheRegistrySays() throws {
        let rows = try Self.registry("iana-ipv4-special-registry.csv")
        #expect(rows.count >= 25, "the registry was read")
        var checked = 0
        for row in rows {
            for address in Self.samples(of: row) {
                let (reachable, decided) = Self.expected(address, in: rows)
                let refusal = OutboundPolicy.refusal(address: address)
                #expect(
                    (refusal == nil) == reachable,
                    "\(Self.text(address)) (\(decided?.description ?? "no block")): \(refusal?.description ?? "allowed")"
                )
                checked += 1
            }
        }
        #expect(checked > 60)
    }

    @Test func everyIPv6RegistryBlockIsJudgedAsTheRegistrySays() throws {
        let rows = try Self.registry("iana-ipv6-special-registry.csv")
        let ipv4 = try Self.registry("iana-ipv4-special-registry.csv")
        #expect(rows.count >= 25, "the registry was read")
        for row in rows {
            for address in Self.samples(of: row) {
                var (reachable, decided) = Self.expected(address, in: rows)
                // RFC 6052's prefix carries an IPv4 address, judged as itself (and multicast
                // is no unicast destination).
                if decided?.block == "64:ff9b::/96" {
                    let embedded = Array(address[12...])
                    reachable =
                        Self.expected(embedded, in: ipv4).reachable && !(0xE0...0xEF).contains(embedded[0])
                }
                let refusal = OutboundPolicy.refusal(address: address)
                #expect(
                    (refusal == nil) == reachable,
                    "\(Self.text(address)) (\(decided?.description ?? "no block")): \(refusal?.description ?? "allowed")"
                )
            }
        }
    }

    /// Around the registries: ordinary public addresses are allowed; IPv4 multicast
    /// (RFC 5771) and IPv6 outside global unicast 2000::/3 (RFC 4291 §2.4) are not.
    @Test(arguments: [
        ("8.8.8.8", true), ("1.1.1.1", true), ("93.184.216.34", true), ("172.32.0.1", true), ("100.128.0.1", true),
        ("198.20.0.1", true), ("224.0.0.1", false), ("239.255.255.250", false), ("233.252.0.1", false),
        ("2606:4700:4700::1111", true), ("2001:4860:4860::8888", true), ("2a00:1450:4001::1", true),
        ("ff02::1", false), ("ff0e::1", false), ("4000::1", false), ("::2", false), ("::8.8.8.8", false),
        ("fec0::1", false), ("64:ff9b::808:808", true), ("64:ff9b::7f00:1", false), ("64:ff9b::e000:1", false),
    ])
    func addressesOutsideTheRegistries(_ address: String, _ allowed: Bool) throws {
        let bytes = try #require(Self.parse(address))
        let refusal = OutboundPolicy.refusal(address: bytes)
        #expect((refusal == nil) == allowed, "\(address): \(refusal?.description ?? "allowed")")
    }

    /// This host's own addresses, as `ip` lists them (not through getifaddrs, which the
    /// product uses), are refused even when public; allowing private addresses allows them.
    @Test func theHostsOwnAddressesAreRefused() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        if !FileManager.default.isExecutableFile(atPath: "/usr/sbin/ip") {
            process.executableURL = URL(fileURLWithPath: "/sbin/ip")
        }
        process.arguments = ["-o", "addr", "show"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let listing = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let own = listing.split(separator: "\n").compactMap { line -> [UInt8]? in
            let fields = line.split(separator: " ")
            guard let at = fields.firstIndex(where: { $0 == "inet" || $0 == "inet6" }), at + 1 < fields.count
            else { return nil }
            return Self.parse(String(fields[at + 1].split(separator: "/")[0]))
        }
        #expect(own.contains(Self.parse("127.0.0.1")!), "\(listing)")
        let policy = OutboundPolicy()
        for address in own {
            let refusal = policy.refusal(address: address)
            #expect(refusal != nil, "\(Self.text(address)) is this host's")
            #expect(HostAddresses.contains(address), "\(Self.text(address))")
            #expect(OutboundPolicy(allowsPrivateAddresses: true).refusal(address: address) == nil)
        }
    }

    /// URLs are refused at registration when they could split a request or name no host.
    @Test(arguments: [
        "http://example.com/a\r\nX-Injected: 1", "http://example.com/a\nb", "http://example.com/\u{0}",
        "http://example.com/a b", "http://exa mple.com/", "http://example.com/\u{7F}", "http://example.com/caf\u{E9}",
        "ftp://example.com/x", "http://user:pass@example.com/x", "http:///x", "not a url", "http://example.com/#frag",
        "http://example.com:0/", "http://example.com:70000/",
        "http://example.com/" + String(repeating: "a", count: 2_100),
    ])
    func malformedURLsAreRefused(_ url: String) {
        guard case .failure = OutboundPolicy.target(of: url) else {
            Issue.record("\(url.debugDescription) was accepted")
            return
        }
    }

    /// On a request thread a URL is judged without DNS: by its form and by a host given
    /// as an address or as `localhost`; a name waits for the connection's check. A name
    /// under `.invalid` never resolves (RFC 6761), so an answer for it proves no lookup.
    @Test(arguments: [
        ("http://127.0.0.1:8080/hook", "127.0.0.1"), ("http://[::1]/hook", "::1"), ("https://10.1.2.3/", "10.1.2.3"),
        ("http://[::ffff:192.168.0.1]/", "::ffff:192.168.0.1"), ("http://localhost/x", "localhost"),
        ("http://0x7f000001/x", "127.0.0.1"), ("http://2130706433/", "127.0.0.1"), ("http://127.1/", "127.0.0.1"),
        ("http://LocalHost./x", "LocalHost."), ("http://api.localhost:9/x", "api.localhost"),
        ("http://hooks.invalid/x", nil), ("https://203.0.113.9.invalid/x", nil), ("http://a b/", "URL holds a space"),
    ])
    func requestThreadsCheckWithoutResolving(_ url: String, _ refusedFor: String?) {
        let policy = OutboundPolicy()
        let refusal = policy.refusalWithoutResolving(for: url)?.description
        if let refusedFor {
            #expect(refusal?.contains(refusedFor) == true, "\(url): \(refusal ?? "accepted")")
        } else {
            #expect(refusal == nil, "\(url): \(refusal ?? "")")
            #expect(policy.refusal(for: url)?.description.contains("cannot resolve") == true, "\(url)")
        }
        let allowing = OutboundPolicy(allowsPrivateAddresses: true)
        #expect((allowing.refusalWithoutResolving(for: url) == nil) == !url.contains(" "), "\(url)")
    }

    @Test func wellFormedURLsAreAccepted() throws {
        let target = try OutboundPolicy.target(of: "https://hooks.example.com:8443/in?x=1%20y").get()
        #expect(target == .init(scheme: "https", host: "hooks.example.com", port: 8443))
        #expect(try OutboundPolicy.target(of: "http://[2001:db8::1]/x").get().host == "2001:db8::1")
    }

    /// A relay or client host is loopback only as an address (or `localhost`): a name
    /// that starts like one is someone else's, and no credentials go to it in the clear.
    @Test(arguments: [
        ("127.0.0.1", true), ("127.255.0.9", true), ("localhost", true), ("::1", true), ("[::1]", true),
        ("127.evil.example", false), ("127.0.0.1.evil.example", false), ("::2", false), ("10.0.0.1", false),
    ])
    func loopbackIsThisMachineOnly(_ host: String, _ loopback: Bool) {
        #expect(IPAddress.isLoopback(host: host) == loopback, "\(host)")
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        #expect(SMTPClient.Relay("smtp://\(bracketed):25")?.isLoopback == loopback, "\(host)")
    }

    /// Fairness counts an IPv6 site (a /64) as one client, and an IPv4-mapped address
    /// as its IPv4 address.
    @Test(arguments: [
        ("192.0.2.7", "192.0.2.7"), ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"), ("::ffff:192.0.2.7", "192.0.2.7"),
        ("not an address", "not an address"),
    ])
    func clientsAreCountedBySite(_ address: String, _ key: String) {
        #expect(IPAddress.clientKey(address) == key)
    }
}
