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
        /// How long a claimed feed stays this process's before another may take it. A
        /// fetch starts only while the rest of its lease outlasts the longest fetch
        /// (``SubscriptionRefresher/longestFetch``); one that waited longer is left to the next look.
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
    /// The feeds queued or being fetched here, by URL: a look while one waits does not
    /// queue it again.
    private let inFlight = InFlight()

    final class InFlight: Sendable {
        let urls = Mutex<Set<String>>([])
    }

    /// The longest one fetch may take: every hop of the redirects at the fetcher's deadline.
    static let longestFetch = 6 * 30

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
        let claimed = now()
        // The jobs hold what they need, not the refresher (which may go while they wait).
        let (store, configuration, now, inFlight) = (store, configuration, now, inFlight)
        for source in due where inFlight.urls.withLock({ $0.insert(source.url).inserted }) {
            group?.enter()
            let queued = queue.submit(for: source.subscribers) {
                defer {
                    inFlight.urls.withLock { _ = $0.remove(source.url) }
                    group?.leave()
                }
                // Waited so long that the lease would run out during the fetch: another
                // process may claim it then, so leave it to the next look (each feed by one).
                guard now() + Self.longestFetch < claimed + configuration.leaseSeconds else { return }
                if let recorded = Self.fetch(source, store: store, configuration: configuration, now: now) {
                    finished(recorded)
                }
            }
            // Its subscribers have enough waiting; the lease runs out and it comes again.
            if !queued {
                inFlight.urls.withLock { _ = $0.remove(source.url) }
                group?.leave()
            }
        }
    }

    /// One fetch, recorded (nil when the store could not take it).
    static func fetch(
        _ source: FeedSource, store: any SubscriptionStore, configuration: Configuration, now: () -> Int
    ) -> FeedSource? {
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

    /// Stops looking for due feeds and fetching them: fetches running finish, those
    /// waiting are dropped (their leases run out, and the next server takes them).
    public func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
        queue.stop()
    }
}
