import AlmanacClient
import AlmanacTesting
import Foundation
import Testing

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
