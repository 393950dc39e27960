import CalendarStore
import Dispatch
import Outbound
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps subscribed calendars current while the server runs: every `interval` seconds
/// it claims the feeds that are due (for all processes on the database, each feed by
/// one) and hands each to a ``FairWorkQueue``, which fetches it once and records the
/// outcome, refilling every calendar subscribed to it. Fetches run side by side, at most
/// one per subscriber at a time (a feed runs on the turn of whichever of its subscribers
/// is free), each within the fetcher's deadlines: one user's feed that never answers
/// holds one fetcher for seconds and delays nobody else's.
public final class SubscriptionRefresher: Sendable {
    public struct Configuration: Sendable {
        /// Seconds between looks for due feeds.
        public var interval: Double = 30
        /// The most feeds claimed in one look: more than one user may have
        /// (``CalendarStore/FeedRules/maxPerUser``), so one user's feeds never take a whole look.
        public var batch = 100
        /// Feeds fetched at once.
        public var fetchers = 4
        /// How long a claimed feed stays this process's before another may take it
        /// (longer than a fetch may take).
        public var leaseSeconds = 300
        public var policy = OutboundPolicy(permission: "--allow-private-feeds")

        public init(policy: OutboundPolicy = OutboundPolicy(permission: "--allow-private-feeds")) {
            self.policy = policy
        }
    }

    let store: any SubscriptionStore
    let configuration: Configuration
    let now: @Sendable () -> Int
    /// Names this process in its claims.
    let owner: String
    let queue: FairWorkQueue
    private let timer = Mutex<(any DispatchSourceTimer)?>(nil)

    public init(store: any SubscriptionStore, configuration: Configuration, now: @escaping @Sendable () -> Int) {
        self.store = store
        self.configuration = configuration
        self.now = now
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let name = host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        owner = String(decoding: name, as: UTF8.self) + "-\(getpid())"
        queue = FairWorkQueue(
            workers: configuration.fetchers, perOwner: 1, maxWaitingPerOwner: configuration.batch,
            name: "almanac-feeds")
    }

    deinit { queue.stop() }

    /// Fetches what is due now and records it; returns the feeds fetched, once each
    /// fetch is done (tests and the command line wait; the timer does not).
    @discardableResult
    public func refreshDue() -> [FeedSource] {
        let done = Mutex<[FeedSource]>([])
        let group = DispatchGroup()
        startDue(group: group) { source in done.withLock { $0.append(source) } }
        group.wait()
        return done.withLock { $0 }
    }

    /// Claims the due feeds and queues their fetches without waiting for them (what the
    /// timer does); `finished` hears each recorded one, and `group` is left once each is.
    public func startDue(group: DispatchGroup? = nil, finished: @escaping @Sendable (FeedSource) -> Void = { _ in }) {
        let due: [FeedSource]
        do throws(StoreError) {
            due = try store.claimDueFeeds(
                now: now(), owner: owner, leaseSeconds: configuration.leaseSeconds, limit: configuration.batch)
        } catch {
            error.logDetails()
            return
        }
        for source in due {
            group?.enter()
            let queued = queue.submit(for: source.subscribers) { [self] in
                defer { group?.leave() }
                if let recorded = fetch(source) { finished(recorded) }
            }
            // Its subscribers have enough waiting; the lease runs out and it comes again.
            if !queued { group?.leave() }
        }
    }

    /// One fetch, recorded (nil when the store could not take it).
    func fetch(_ source: FeedSource) -> FeedSource? {
        let outcome: FeedFetch
        do throws(OutboundRefusal) {
            outcome = try FeedFetcher(policy: configuration.policy).fetch(source)
        } catch {
            outcome = .failed(error.description, status: nil)
        }
        do throws(StoreError) {
            return try store.record(outcome, url: source.url, now: now())
        } catch {
            error.logDetails()
            return nil
        }
    }

    public func start() {
        timer.withLock { timer in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            source.schedule(deadline: .now() + configuration.interval, repeating: configuration.interval)
            source.setEventHandler { [self] in startDue() }
            source.resume()
            timer = source
        }
    }

    public func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }
}
