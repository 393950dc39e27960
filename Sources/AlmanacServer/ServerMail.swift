import Accounts
import Outbound
import Reminders
import Scheduling
import Synchronization

/// The server's iMIP mail: one SMTP client to the relay (`serve --smtp`), used by one
/// request at a time. The envelope sender is the server's own address when it has one
/// (`--smtp-from`, then also in `Sender:`), else the sending user's verified address;
/// never anything read from calendar data.
///
/// Each sending address has a budget of ``hourlyBudget`` messages an hour (in this
/// process): past it a message is not sent, and the attendee's SCHEDULE-STATUS says it
/// was not delivered (5.1). So no account can use the server's relay to mail strangers
/// in bulk.
///
/// Mail that needs no answer in the request (a booking's confirmation, move and
/// cancellation) is ``post(_:for:)``ed: sent by the server's mail threads, fairly between
/// the users it is for (``FairWorkQueue``: one message of a user at a time, at most
/// ``maxWaitingPerUser`` waiting), so a slow relay never holds a booker's page.
public final class ServerMail: IMIPSender, AlarmMailer {
    private let client: Mutex<SMTPClient>
    private let queue = FairWorkQueue(
        workers: 2, perOwner: 1, maxWaitingPerOwner: ServerMail.maxWaitingPerUser, name: "almanac-mail")
    private let envelopeSender: String?
    /// Per sending address: when its hour began (monotonic seconds) and what it sent since.
    private let spent = Mutex<[String: (since: Double, count: Int)]>([:])
    let now: @Sendable () -> Double

    /// Messages one sending address may send an hour.
    public static let hourlyBudget = 200
    /// Messages of one user waiting to be sent; more are refused.
    public static let maxWaitingPerUser = 200

    public init(relay: SMTPClient.Relay, now: @escaping @Sendable () -> Double = LoginThrottle.now)
        throws(OutboundRefusal)
    {
        client = Mutex(try SMTPClient(relay: relay))
        envelopeSender = relay.envelopeSender
        self.now = now
    }

    /// Takes one message from `sender`'s budget; false when it is spent.
    func take(_ sender: String) -> Bool {
        let moment = now()
        return spent.withLock { spent in
            if spent.count > 10_000 { spent = spent.filter { moment - $0.value.since < 3_600 } }
            var entry = spent[sender] ?? (moment, 0)
            if moment - entry.since >= 3_600 { entry = (moment, 0) }
            guard entry.count < Self.hourlyBudget else { return false }
            entry.count += 1
            spent[sender] = entry
            return true
        }
    }

    public func send(_ message: IMIP.Outgoing) -> String? {
        guard take(message.sender) else {
            return "\(message.sender) sent \(Self.hourlyBudget) messages in the last hour, the most an address may"
        }
        var data = message.data
        if let envelopeSender { data = Array("Sender: <\(envelopeSender)>\r\n".utf8) + data }
        return client.withLock { $0.send(data, from: envelopeSender ?? message.sender, to: message.recipients) }
    }

    public func post(_ message: IMIP.Outgoing, for owner: String) -> Bool {
        queue.submit(for: [owner]) { [self] in
            if let error = send(message) {
                SchedulingLog.write("almanac: mail to \(message.recipients.joined(separator: ", ")) failed: \(error)")
            }
        }
    }

    /// Queues a reminder mail (``AlarmMailer``): sent on the mail threads, fairly between
    /// owners, and `done` told how it went.
    public func post(_ message: IMIP.Outgoing, for owner: String, done: @escaping @Sendable (String?) -> Void) -> Bool {
        queue.submit(for: [owner]) { [self] in done(send(message)) }
    }

    /// Sends what is queued, then stops taking mail.
    public func stop() { queue.stop(finishingWaiting: true) }
}
