import CalendarStore
import HTTPTypes
import Scheduling

extension APIContext {
    /// The largest message POST /imip reads.
    static let maxIMIPBytes = 1 << 20

    /// POST /imip: an answer that came back by mail (the raw RFC 5322 message, as a mail
    /// service's inbound webhook posts it), applied to the signed-in user's event.
    func receiveIMIP() throws(APIProblem) -> HTTPResponse {
        guard request.body.count <= Self.maxIMIPBytes else {
            throw APIProblem(.invalidBody, "a message is at most \(Self.maxIMIPBytes) bytes")
        }
        guard !request.body.isEmpty else { throw APIProblem(.invalidBody, "the body is the mail message") }
        // A message says so (a form post from another site's page is never read as one).
        guard request.headers["Content-Type"]?.lowercased().hasPrefix("message/rfc822") == true else {
            throw APIProblem(.unsupportedMediaType, "the body is a mail message: Content-Type: message/rfc822")
        }
        let agent = SchedulingAgent(backend: backend, mail: configuration.mail, now: configuration.now)
        do {
            let applied = try agent.receive(request.body, for: store.user)
            return json(.object([("applied", .string(applied))]))
        } catch {
            throw APIProblem(.invalidBody, error.description)
        }
    }
}
