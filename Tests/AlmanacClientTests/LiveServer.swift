import AlmanacClient
import AlmanacTesting
import Foundation
import Reminders
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real server on a loopback port, and the client signed in to it with anna's
/// read-write token, as an app would be.
struct LiveServer {
    let server: TestServer
    let token: String
    let client: AlmanacClient

    init(
        rateLimit: Int? = nil, retryPolicy: RetryPolicy = .none, deliversWebhooks: Bool = false,
        firesAlarms: Bool = false
    ) throws {
        server = try TestServer(
            .loopback, users: ["anna", "bob"], webhooks: deliversWebhooks ? WebhookReceiver.fastDispatch() : nil,
            alarms: firesAlarms ? AlarmScheduler.Configuration() : nil)
        token = try server.createAPIToken(for: "anna", scope: .readWrite, rateLimit: rateLimit)
        client = AlmanacClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, credentials: .bearer(token),
            session: URLSession(configuration: .ephemeral), retryPolicy: retryPolicy)
    }

    /// The titles of the calendar's occurrences in December 2026, in order.
    func decemberTitles(_ calendarID: String) async throws -> [String] {
        try await client.occurrences(inCalendar: calendarID, from: "2026-12-01", to: "2027-01-01").occurrences.map {
            $0.title ?? ""
        }
    }
}

/// The ``AlmanacError`` `body` throws, or nil when it throws none (any other error is
/// recorded as an issue).
func almanacError(
    _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
) async -> AlmanacError? {
    do {
        try await body()
        return nil
    } catch let error as AlmanacError {
        return error
    } catch {
        Issue.record("not an AlmanacError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
