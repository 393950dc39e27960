import Accounts
import Foundation
import HTTPTypes
import Outbound

/// The OpenID Connect provider's requests through the server's outbound client and
/// rules: TLS verified, no redirects, short deadlines (the provider's answers are
/// awaited by a sign-in), at most 256 KiB read, and no private or loopback address
/// without `--allow-private-identity`. Each request has its own client (they are rare:
/// discovery and keys are cached, and sign-ins take their turns one at a time).
struct ServerIdentityTransport: IdentityTransport {
    let options: OutboundHTTPClient.Options

    init(policy: OutboundPolicy) {
        var options = OutboundHTTPClient.Options(policy: policy)
        options.connectTimeoutMilliseconds = 2_000
        options.firstByteTimeoutMilliseconds = 3_000
        options.timeoutMilliseconds = 5_000
        options.userAgent = "Almanac-Identity/1"
        self.options = options
    }

    func get(_ url: String, maxBytes: Int) -> IdentityResponse {
        exchange { $0.get(url, headers: [("Accept", "application/json")], maxBytes: maxBytes) }
    }

    func postForm(_ url: String, fields: [(String, String)], user: String, password: String, maxBytes: Int)
        -> IdentityResponse
    {
        // RFC 6749 §2.3.1: client_secret_basic, the name and secret form-encoded first.
        let credentials = Data((PercentEncoding.encode(user) + ":" + PercentEncoding.encode(password)).utf8)
            .base64EncodedString()
        let body = fields.map { PercentEncoding.encode($0.0) + "=" + PercentEncoding.encode($0.1) }.joined(
            separator: "&")
        var limited = options
        limited.maxResponseBytes = maxBytes
        return exchange(limited) {
            $0.post(
                url,
                headers: [
                    ("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json"),
                    ("Authorization", "Basic " + credentials),
                ], body: Array(body.utf8), keepingBody: true)
        }
    }

    private func exchange(
        _ options: OutboundHTTPClient.Options? = nil, _ request: (OutboundHTTPClient) -> OutboundHTTPClient.Response
    )
        -> IdentityResponse
    {
        do throws(OutboundRefusal) {
            let answer = request(try OutboundHTTPClient(options: options ?? self.options))
            return IdentityResponse(
                status: answer.status, error: answer.error, headers: answer.headers, body: answer.body)
        } catch {
            return IdentityResponse(status: nil, error: error.description)
        }
    }
}
