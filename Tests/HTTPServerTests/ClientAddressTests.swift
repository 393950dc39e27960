import HTTPTypes
import Testing

/// `X-Forwarded-For` names the client only behind a trusted proxy (README, "Scaling out").
@Suite struct ClientAddressTests {
    @Test(
        arguments: [
            // (socket, X-Forwarded-For, trusted, client)
            ("192.0.2.7", ["203.0.113.9"], [], "192.0.2.7"),  // no proxy trusted: the header is ignored
            ("192.0.2.7", ["203.0.113.9"], ["10.0.0.1"], "192.0.2.7"),  // not from the proxy: ignored
            ("10.0.0.1", ["203.0.113.9"], ["10.0.0.1"], "203.0.113.9"),
            // a client's own made-up first hop is skipped
            ("10.0.0.1", ["1.1.1.1, 203.0.113.9"], ["10.0.0.1"], "203.0.113.9"),
            ("10.0.0.1", ["203.0.113.9, 10.0.0.2"], ["10.0.0.1", "10.0.0.2"], "203.0.113.9"),  // two proxies in a row
            // two headers: the last one's last hop
            ("10.0.0.1", ["1.1.1.1", "203.0.113.9"], ["10.0.0.1"], "203.0.113.9"),
            ("10.0.0.1", [], ["10.0.0.1"], "10.0.0.1"),  // no header: the proxy itself
        ] as [(String, [String], Set<String>, String)])
    func theClientIsTheLastHopNoTrustedProxyVouchesFor(
        _ socket: String, _ forwarded: [String], _ trusted: Set<String>, _ client: String
    ) {
        #expect(ClientAddress.resolve(socket: socket, forwardedFor: forwarded, trusted: trusted) == client)
    }
}
