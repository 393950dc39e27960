import AlmanacTesting
import Foundation
import Testing

@testable import AlmanacClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client's defaults keep credentials where they belong: no redirect is followed
/// (the `Authorization` header never reaches where one points), and nothing is sent over
/// plain http:// to another machine unless the app says so.
@Suite struct ClientDefaultsTests {
    @Test func aRedirectIsNotFollowed() async throws {
        let redirecting = try FeedServer()
        let receiver = try WebhookReceiver()
        redirecting.redirect("/api/v1/calendars/x", to: receiver.url)
        let client = AlmanacClient(
            baseURL: URL(string: redirecting.url(""))!,
            credentials: .bearer("alm_secret-that-must-not-travel"), session: URLSession(configuration: .ephemeral))
        let error = await almanacError { _ = try await client.calendar(id: "x") }
        guard case .unexpectedAnswer(let status, _, _)? = error?.kind else {
            Issue.record("a redirect is an unexpected answer, not followed: \(String(describing: error))")
            return
        }
        #expect(status == 302)
        #expect(redirecting.hits.map(\.path) == ["/api/v1/calendars/x"])
        #expect(receiver.received.isEmpty, "the credentials went nowhere else")
    }

    /// Only this machine is loopback: a name that starts like a loopback address is
    /// another host, and plain http:// to it would carry the token in the clear.
    @Test(arguments: [
        ("http://127.0.0.1:8080/", true), ("http://127.8.9.10/", true), ("http://localhost/", true),
        ("http://[::1]:80/", true), ("http://127.example.com/", false), ("http://127.0.0.1.nip.io/", false),
        ("http://[::ffff:7f00:1]/", false), ("http://calendar.example.com/", false),
    ])
    func loopbackIsThisMachineOnly(_ url: String, _ loopback: Bool) {
        #expect(AlmanacClient.isLoopback(URL(string: url)!) == loopback, "\(url)")
    }

    @Test func plainHTTPToAnotherHostIsRefusedBeforeSending() async throws {
        let client = AlmanacClient(
            baseURL: URL(string: "http://calendar.example.com")!, credentials: .bearer("alm_x"),
            session: URLSession(configuration: .ephemeral))
        let error = await almanacError { _ = try await client.calendar(id: "x") }
        guard case .transport(let cause)? = error?.kind else {
            Issue.record("refused before sending: \(String(describing: error))")
            return
        }
        #expect(cause is InsecureTransport, "\(cause)")
    }
}
