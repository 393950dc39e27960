import Outbound
import Scheduling
import Synchronization

/// The server's iMIP mail: one SMTP client to the relay (`serve --smtp`), used by one
/// request at a time.
public final class ServerMail: IMIPSender {
    private let client: Mutex<SMTPClient>

    public init(relay: SMTPClient.Relay) throws(OutboundRefusal) {
        client = Mutex(try SMTPClient(relay: relay))
    }

    public func send(_ message: IMIP.Outgoing) -> String? {
        client.withLock { $0.send(message.data, from: message.sender, to: message.recipients) }
    }
}
