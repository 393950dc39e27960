import CalendarStore
import Dispatch
import JSONAPI
import Outbound
import Synchronization
import Webhooks

/// The JSON API's view of webhook delivery: the outbound rules for URL checks, and test
/// pings. A ping runs on threads of its own (``FairWorkQueue``), one per user at a time,
/// with a small budget (2 s to connect, 3 s for the first byte, 4 s in all); the request
/// waits for it at most a second longer. So however many users ping receivers that never
/// answer, no request thread is held longer than that, and a user's second ping while
/// the first is under way is told to wait (429).
final class ServerWebhookEndpoints: WebhookEndpoints {
    let options: OutboundHTTPClient.Options
    let pings: FairWorkQueue

    init(options: OutboundHTTPClient.Options) {
        var budget = options
        budget.connectTimeoutMilliseconds = min(options.connectTimeoutMilliseconds, 2_000)
        budget.firstByteTimeoutMilliseconds = min(options.firstByteTimeoutMilliseconds, 3_000)
        budget.timeoutMilliseconds = min(options.timeoutMilliseconds, 4_000)
        self.options = budget
        pings = FairWorkQueue(workers: 4, perOwner: 1, maxWaitingPerOwner: 1, name: "almanac-pings")
    }

    deinit { pings.stop() }

    func refusal(for url: String) -> String? { options.policy.refusalWithoutResolving(for: url)?.description }

    func ping(_ webhook: Webhook, secret: String) -> PingOutcome {
        guard pings.runningCount(for: webhook.user) == 0 else {
            return .busy("a test ping of yours is still under way; try again in a few seconds", retryAfter: 5)
        }
        // What became of the ping: a request that stopped waiting takes back one not yet
        // begun, so it is never sent after the answer said it was not.
        enum Progress {
            case waiting, begun, withdrawn
            case done(PingOutcome)
        }
        let progress = Mutex<Progress>(.waiting)
        let done = DispatchSemaphore(value: 0)
        let options = self.options
        let queued = pings.submit(for: [webhook.user]) {
            let begins = progress.withLock { progress in
                guard case .waiting = progress else { return false }
                progress = .begun
                return true
            }
            guard begins else { return }
            let outcome: PingOutcome
            do throws(OutboundRefusal) {
                let response = try WebhookSender(options: options).ping(webhook, secret: secret)
                outcome = .sent(
                    status: response.status, error: response.error, durationMilliseconds: response.durationMilliseconds)
            } catch {
                outcome = .sent(status: nil, error: error.description, durationMilliseconds: 0)
            }
            progress.withLock { $0 = .done(outcome) }
            done.signal()
        }
        guard queued else {
            return .busy("a test ping of yours is waiting to be sent; try again in a few seconds", retryAfter: 5)
        }
        let wait = Double(options.timeoutMilliseconds + 1_000) / 1_000
        _ = done.wait(timeout: .now() + wait)
        let outcome = progress.withLock { progress -> PingOutcome in
            switch progress {
            case .done(let outcome): return outcome
            case .begun:
                return .busy("the test ping is still under way (the endpoint is slow to answer)", retryAfter: 5)
            case .waiting, .withdrawn:
                progress = .withdrawn
                return .busy(
                    "the server is sending other test pings; nothing was sent, try again shortly", retryAfter: 5)
            }
        }
        return outcome
    }
}
