import Outbound
import Scheduling
import Synchronization

/// The server's iMIP mail: one SMTP client to the relay (`serve --smtp`), used by one
/// request at a time. The envelope sender is the server's own address when it has one
/// (`--smtp-from`, then also in `Sender:`), else the sending user's verified address;
/// never anything read from calendar data.
public final class ServerMail: IMIPSender {
    private let client: Mutex<SMTPClient>
    private let envelopeSender: String?

    public init(relay: SMTPClient.Relay) throws(OutboundRefusal) {
        client = Mutex(try SMTPClient(relay: relay))
        envelopeSender = relay.envelopeSender
    }

    public func send(_ message: IMIP.Outgoing) -> String? {
        var data = message.data
        if let envelopeSender { data = Array("Sender: <\(envelopeSender)>\r\n".utf8) + data }
        return client.withLock { $0.send(data, from: envelopeSender ?? message.sender, to: message.recipients) }
    }
}
