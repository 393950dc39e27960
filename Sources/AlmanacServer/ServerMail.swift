import Scheduling
import Synchronization
import Webhooks

/// The server's iMIP mail: one SMTP client to the relay (`serve --smtp`), used by one
/// request at a time.
final class ServerMail: IMIPSender {
    private let client: Mutex<SMTPClient>

    init(relay: SMTPClient.Relay) throws(OutboundRefusal) {
        client = Mutex(try SMTPClient(relay: relay))
    }

    func send(_ message: IMIP.Outgoing) -> String? {
        client.withLock { $0.send(message.data, from: message.sender, to: message.recipients) }
    }
}
