import Accounts
import CalendarStore
import Foundation
import Outbound

/// The keys WebDAV-Push needs, kept in the database (``PushStore/serverKey(_:create:)``)
/// so that every process serving one PostgreSQL database signs with the same VAPID key
/// (a subscription made for one key is refused by its push service for another) and
/// derives the same topics. With SQLite the database is the data directory's file.
public struct PushKeys: Sendable {
    /// The VAPID key pair's name among the server's secrets.
    public static let vapidKeyName = "vapid-p256"

    public let vapid: P256KeyMaterial
    /// The key topics are derived with (``PushTopic``).
    public let topicKey: String

    /// The stored keys, made the first time.
    public static func load(from store: any PushStore) throws -> PushKeys {
        let pem = try store.serverKey(vapidKeyName) { (try? P256KeyMaterial.generate())?.pem ?? "" }
        guard let vapid = P256KeyMaterial(pem: pem) else {
            throw WebPushError("the stored VAPID key (server key \(vapidKeyName)) is not a P-256 private key")
        }
        let topicKey = try store.serverKey(PushTopic.keyName) { PushTopic.newKey() }
        return PushKeys(vapid: vapid, topicKey: topicKey)
    }
}

/// Sends WebDAV-Push messages (draft-bitfire-webdav-push over Web Push, RFC 8030): worker
/// threads lease the messages the store holds for subscriptions, encrypt each for its
/// user agent (RFC 8291, `aes128gcm`), sign a VAPID JWT (RFC 8292) and POST it to the
/// push resource with `TTL`, `Urgency` and a `Topic` (so a push service keeps only the
/// latest message for a collection). A burst of changes is one message (the store
/// coalesces them); a push service answering 404 or 410 ends the subscription; failures
/// are retried with backoff and, after ``Configuration/maxAttempts``, the subscription
/// is dropped. Push resources are outbound URLs like webhooks': checked against the
/// address policy at every connection, one user's messages holding at most
/// ``Configuration/perUser`` workers, so a slow push service delays only its own user.
public final class PushDispatcher: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Worker threads: messages sent at once.
        public var workers = 2
        /// Workers one user's messages hold at once.
        public var perUser = 1
        /// How often a worker looks for due messages without being poked.
        public var pollMilliseconds = 1_000
        /// Longer than an attempt can take.
        public var leaseMilliseconds = 30_000
        /// How long a push service keeps an undelivered message (RFC 8030 §5.2).
        public var timeToLive = 86_400
        /// Failed attempts after which the message and its subscription are dropped.
        public var maxAttempts = 10
        /// The first retry's wait (doubling, at most an hour).
        public var retryMilliseconds = 2_000
        /// The VAPID `sub` claim: how a push service reaches the operator.
        public var subject: String?
        public var http = OutboundHTTPClient.Options(
            policy: OutboundPolicy(allowsPrivateAddresses: false, permission: "--allow-private-push"))

        public init() {
            http.userAgent = "Almanac-Push/1"
        }
    }

    let store: any PushStore
    public let keys: PushKeys
    public let configuration: Configuration
    let vapid: VAPID
    private let threads = WorkerThreads()

    public init(store: any PushStore, keys: PushKeys, configuration: Configuration = Configuration()) {
        self.store = store
        self.keys = keys
        self.configuration = configuration
        vapid = VAPID(key: keys.vapid, subject: configuration.subject)
    }

    /// Starts the workers (again after ``stop()``).
    public func start() {
        threads.start(count: configuration.workers, name: "almanac-push") { [self] index in work(index: index) }
    }

    /// Stops the workers once their current attempt ends.
    public func stop() { threads.stop(waking: store.signal.poke) }

    /// Unix milliseconds.
    public static func now() -> Int { Int(Date().timeIntervalSince1970 * 1_000) }

    private func work(index: Int) {
        let client: OutboundHTTPClient
        do {
            client = try OutboundHTTPClient(options: configuration.http)
        } catch {
            FileHandle.standardError.write(Data("almanac: push: \(error)\n".utf8))
            return
        }
        var seen = store.signal.generation
        var lastSweep = 0
        while threads.isRunning {
            let now = Self.now()
            if index == 0, now - lastSweep > 60_000 {
                lastSweep = now
                _ = try? store.removeExpired(now: now / 1_000)
            }
            guard
                let jobs = try? store.claim(
                    now: now, lease: configuration.leaseMilliseconds, limit: 1,
                    perUser: configuration.perUser), let job = jobs.first
            else {
                seen = store.signal.wait(after: seen, milliseconds: configuration.pollMilliseconds)
                continue
            }
            finish(job, send(job, client: client))
        }
    }

    /// Sends every message due at `now` (Unix milliseconds) on the calling thread, then
    /// returns what each came to (for tests and the benchmark, which drive delivery
    /// themselves; a later `now` takes messages still gathering a burst or waiting for
    /// a retry).
    @discardableResult
    public func deliverDue(now: Int = PushDispatcher.now(), limit: Int = 1_000) throws -> [PushOutcome] {
        let client = try OutboundHTTPClient(options: configuration.http)
        var outcomes: [PushOutcome] = []
        while outcomes.count < limit {
            let jobs = try store.claim(
                now: max(now, Self.now()), lease: configuration.leaseMilliseconds,
                limit: min(64, limit - outcomes.count), perUser: Int.max)
            guard !jobs.isEmpty else { break }
            for job in jobs {
                let outcome = send(job, client: client)
                finish(job, outcome)
                outcomes.append(outcome)
            }
        }
        return outcomes
    }

    private func finish(_ job: PushJob, _ outcome: PushOutcome) {
        // A failure to record leaves the lease to run out: the message is sent again.
        try? store.finish(job, outcome: outcome, now: Self.now())
    }

    /// The headers and encrypted body of a job's message.
    func request(for job: PushJob, now: Int) throws(WebPushError) -> (headers: [(String, String)], body: [UInt8]) {
        let subscription = job.subscription
        guard let publicKey = subscription.publicKey.flatMap({ Base64URL.decode(Substring($0)) }),
            let authSecret = subscription.authSecret.flatMap({ Base64URL.decode(Substring($0)) })
        else { throw WebPushError("the subscription has no encryption keys") }
        let body = try WebPushEncryption.encrypt(
            PushMessage.body(for: job, topicKey: keys.topicKey), userAgentKey: publicKey, authSecret: authSecret)
        let topic = PushTopic.topic(ofCalendar: subscription.calendar, key: keys.topicKey)
        let headers = [
            ("Content-Type", "application/octet-stream"), ("Content-Encoding", "aes128gcm"),
            ("TTL", String(configuration.timeToLive)), ("Urgency", "normal"),
            // One message waits per collection and kind: a newer one replaces it (RFC 8030 §5.4).
            ("Topic", topic + (job.content ? (job.property ? "b" : "c") : "p")),
            ("Authorization", try vapid.authorization(for: subscription.pushResource, now: now / 1_000)),
        ]
        return (headers, body)
    }

    func send(_ job: PushJob, client: OutboundHTTPClient) -> PushOutcome {
        let now = Self.now()
        let made: (headers: [(String, String)], body: [UInt8])
        do {
            made = try request(for: job, now: now)
        } catch {
            return .dropped(error: error.description)
        }
        let response = client.post(job.subscription.pushResource, headers: made.headers, body: made.body)
        if response.error == nil, let status = response.status {
            if (200..<300).contains(status) { return .sent }
            // RFC 8030 §7.3: the subscription expired or was removed.
            if status == 404 || status == 410 { return .gone }
        }
        let error = response.error ?? "the push service answered \(response.status ?? 0)"
        guard job.attempts + 1 < configuration.maxAttempts else { return .dropped(error: error) }
        let step = min(3_600_000, configuration.retryMilliseconds << min(job.attempts, 20))
        return .retry(at: now + Int(Double(step) * Double.random(in: 0.5...1)), error: error)
    }
}
