import Outbound
import Scheduling
import Synchronization
import Testing

@testable import AlmanacServer

/// The server's mail has a budget per sending address: an account cannot use the
/// relay to mail strangers in bulk.
@Suite struct MailBudgetTests {
    @Test func eachAddressSendsAtMostItsHourlyBudget() throws {
        // A relay on a port nobody listens on: each message fails to go out, but counts.
        let relay = try #require(SMTPClient.Relay("smtp://127.0.0.1:9"))
        let clock = LockedClock()
        let mail = try ServerMail(relay: relay, now: { clock.value })
        let message = IMIP.Outgoing(
            data: Array("Subject: x\r\n\r\nx\r\n".utf8), sender: "eve@example.com", recipients: ["a@elsewhere.example"])
        for _ in 0..<ServerMail.hourlyBudget {
            #expect(mail.send(message)?.contains("the most an address may") != true)
        }
        #expect(mail.send(message)?.contains("the most an address may") == true, "the budget is spent")
        var other = message
        other.sender = "carol@example.com"
        #expect(mail.send(other)?.contains("the most an address may") != true, "another address has its own")
        clock.value = 3_600
        #expect(mail.send(message)?.contains("the most an address may") != true, "an hour later it is whole again")
    }
}

/// A clock a test sets.
final class LockedClock: Sendable {
    private let seconds = Mutex(0.0)
    var value: Double {
        get { seconds.withLock { $0 } }
        set { seconds.withLock { $0 = newValue } }
    }
}
