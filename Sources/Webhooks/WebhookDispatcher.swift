import CalendarStore
import CivilTime
import Foundation
import Outbound

/// When a failed delivery is tried again, and when it is given up: exponential backoff
/// from ``baseMilliseconds`` (doubling, at most ``capMilliseconds``) with jitter (each
/// wait is between half and all of its step, so receivers that failed together are not
/// retried together), for ``maxAgeMilliseconds`` after the change.
public struct RetryPolicy: Sendable {
    public var baseMilliseconds = 1_000
    public var capMilliseconds = 3_600_000
    public var maxAgeMilliseconds = 86_400_000

    public init(baseMilliseconds: Int = 1_000, capMilliseconds: Int = 3_600_000, maxAgeMilliseconds: Int = 86_400_000) {
        self.baseMilliseconds = max(1, baseMilliseconds)
        self.capMilliseconds = max(self.baseMilliseconds, capMilliseconds)
        self.maxAgeMilliseconds = max(0, maxAgeMilliseconds)
    }

    /// The wait before the attempt after `attempts` failed ones (1 or more).
    public func delay(afterAttempts attempts: Int, random: Double = Double.random(in: 0.5...1)) -> Int {
        let exponent = min(max(attempts - 1, 0), 40)
        let step = min(capMilliseconds, baseMilliseconds.multipliedSaturated(by: 1 << exponent))
        return max(1, Int(Double(step) * random))
    }
}

/// Sends one delivery or a test ping: the body, the headers and the signature, over an
/// ``OutboundHTTPClient``. Confined to one thread, as its client is.
public final class WebhookSender {
    let client: OutboundHTTPClient

    public init(options: OutboundHTTPClient.Options) throws(OutboundRefusal) {
        client = try OutboundHTTPClient(options: options)
    }

    /// POSTs `body` to `url`, signed with `secret` at `now` (Unix milliseconds).
    public func send(
        _ body: [UInt8], id: String, type: String, attempt: Int, url: String, secret: String, now: Int
    ) -> OutboundHTTPClient.Response {
        let timestamp = now / 1_000
        let headers = [
            ("Content-Type", "application/json"), ("Almanac-Delivery", id), ("Almanac-Event", type),
            ("Almanac-Attempt", String(attempt)),
            ("Almanac-Signature", WebhookSignature.header(secret: secret, timestamp: timestamp, body: body)),
        ]
        return client.post(url, headers: headers, body: body)
    }

    /// Sends a `ping` to a subscription's URL now, outside its queue; a status other than
    /// 2xx is an error too.
    public func ping(_ webhook: Webhook, secret: String) -> OutboundHTTPClient.Response {
        let now = Int(Date().timeIntervalSince1970 * 1_000)
        let id = "dl_ping_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let response = send(
            WebhookPayload.ping(id: id, webhook: webhook.id, at: now), id: id, type: "ping", attempt: 1,
            url: webhook.url, secret: secret, now: now)
        var answered = response
        if answered.error == nil, let status = response.status, !(200..<300).contains(status) {
            answered.error = "the endpoint answered \(status)"
        }
        return answered
    }
}

/// Delivers the outbox: worker threads that lease due queues (one subscription and one
/// calendar each), send their deliveries in order, record each attempt, and back off,
/// pause or disable as the answers say. Request threads never wait on it: a write only
/// adds rows and pokes the ``OutboxSignal``.
///
/// Several server processes on one PostgreSQL database each run a dispatcher; a queue is
/// leased by one at a time (claimed with `FOR UPDATE SKIP LOCKED`), so each delivery is
/// made once, and again only after a crash between sending it and recording it (at
/// least once). A lease that its holder stops renewing (killed) expires after
/// ``Configuration/leaseMilliseconds`` and another takes the queue over.
public final class WebhookDispatcher: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Worker threads: calendars delivered at once.
        public var workers = 4
        /// Workers one user's subscriptions hold at once (a quarter of them, at least one):
        /// a user whose receivers hang delays only their own deliveries.
        public var perOwner: Int?
        /// How often a worker looks for due work without being poked (retries that come
        /// due, and changes other processes made).
        public var pollMilliseconds = 1_000
        /// Longer than an attempt can take (the request timeout), so a lease is never
        /// lost while its holder works; a killed holder's runs out after it.
        public var leaseMilliseconds = 30_000
        /// Deliveries of one queue in a row before the worker lets others have a turn.
        public var batch = 100
        public var retry = RetryPolicy()
        /// Failed attempts in a row after which a subscription is paused.
        public var pauseAfterFailures = 20
        /// How long delivered and given-up deliveries are kept (for replay and the owner's view).
        public var retentionMilliseconds = 7 * 86_400_000
        public var http = OutboundHTTPClient.Options()

        public init() {}
    }

    let store: any WebhookStore
    let configuration: Configuration
    private let threads = WorkerThreads()
    /// Who holds this dispatcher's leases: the process id (so a restart can tell a
    /// killed owner's leases on SQLite) and a random part.
    private let identity = "\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)

    /// Whether the process an owner names (`pid-…`) has ended.
    static func isGone(_ owner: String) -> Bool {
        guard let pid = owner.split(separator: "-").first.flatMap({ Int32($0) }), pid > 0 else { return false }
        return kill(pid, 0) == -1 && errno == ESRCH
    }

    public init(store: any WebhookStore, configuration: Configuration = Configuration()) {
        self.store = store
        self.configuration = configuration
    }

    /// Starts the workers (again after ``stop()``).
    public func start() {
        threads.start(
            count: configuration.workers, name: "almanac-webhooks",
            prepare: { _ = try? store.releaseLeases(ofGoneOwners: Self.isGone) },
            { [self] index in work(index: index) })
    }

    /// Stops the workers once their current attempt ends (within the request timeout)
    /// and gives their leases back.
    public func stop() { threads.stop(waking: store.outboxSignal.poke) }

    var isRunning: Bool { threads.isRunning }

    static func now() -> Int { Int(Date().timeIntervalSince1970 * 1_000) }

    private func work(index: Int) {
        let sender: WebhookSender
        do {
            sender = try WebhookSender(options: configuration.http)
        } catch {
            FileHandle.standardError.write(Data("almanac: webhooks: \(error)\n".utf8))
            return
        }
        let owner = identity + "-\(index)"
        var seen = store.outboxSignal.generation
        var lastPrune = 0
        while isRunning {
            let now = Self.now()
            if index == 0, now - lastPrune > 3_600_000 {
                lastPrune = now
                _ = try? store.pruneDeliveries(finishedBefore: now - configuration.retentionMilliseconds)
            }
            let queues: [WebhookQueue]
            do {
                queues = try store.claimQueues(
                    now: now, limit: 1, lease: configuration.leaseMilliseconds, owner: owner,
                    perUser: configuration.perOwner ?? max(1, configuration.workers / 4))
            } catch {
                // The database is unavailable: wait and look again; nothing is lost.
                seen = store.outboxSignal.wait(after: seen, milliseconds: configuration.pollMilliseconds)
                continue
            }
            guard let queue = queues.first else {
                seen = store.outboxSignal.wait(after: seen, milliseconds: configuration.pollMilliseconds)
                continue
            }
            drain(queue, sender: sender)
        }
    }

    /// Sends a leased queue's deliveries in order until it is empty, must wait for a
    /// retry, has had ``Configuration/batch`` in a row, or the dispatcher stops.
    private func drain(_ queue: WebhookQueue, sender: WebhookSender) {
        let lease = configuration.leaseMilliseconds
        var sent = 0
        do {
            while isRunning, sent < configuration.batch {
                guard let delivery = try store.nextDelivery(in: queue, now: Self.now(), lease: lease) else { return }
                let outcome = attempt(delivery, in: queue, sender: sender)
                let holding = try store.finish(
                    delivery, in: queue, outcome: outcome, now: Self.now(), lease: lease,
                    pauseAfter: configuration.pauseAfterFailures)
                guard holding else { return }
                sent += 1
            }
            try store.release(queue)
        } catch {
            // The lease runs out by itself and the queue is taken up again.
        }
    }

    func attempt(_ delivery: WebhookDelivery, in queue: WebhookQueue, sender: WebhookSender) -> WebhookOutcome {
        let now = Self.now()
        let response = sender.send(
            WebhookPayload.body(delivery), id: delivery.id, type: delivery.type.rawValue,
            attempt: delivery.attempts + 1, url: queue.url, secret: queue.secret, now: now)
        var error = response.error
        let disposition: WebhookOutcome.Disposition
        if error == nil, let status = response.status, (200..<300).contains(status) {
            disposition = .delivered
        } else if response.status == 410 {
            disposition = .disable
        } else {
            if error == nil, let status = response.status { error = "the endpoint answered \(status)" }
            if now - delivery.occurred >= configuration.retry.maxAgeMilliseconds {
                disposition = .giveUp
            } else {
                disposition = .retry(at: now + configuration.retry.delay(afterAttempts: delivery.attempts + 1))
            }
        }
        return WebhookOutcome(
            status: response.status, error: error, durationMilliseconds: response.durationMilliseconds,
            disposition: disposition)
    }
}
