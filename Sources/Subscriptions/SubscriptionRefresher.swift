import CalendarStore
import Dispatch
import Synchronization
import Webhooks

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Keeps subscribed calendars current while the server runs: every `interval` seconds
/// it claims the feeds that are due (for all processes on the database, each feed by
/// one), fetches each once, and records the outcome, which refills every calendar
/// subscribed to it.
public final class SubscriptionRefresher: Sendable {
    public struct Configuration: Sendable {
        /// Seconds between looks for due feeds.
        public var interval: Double = 30
        /// The most feeds fetched in one look.
        public var batch = 20
        /// How long a claimed feed stays this process's before another may take it.
        public var leaseSeconds = 300
        public var policy = OutboundPolicy()

        public init(policy: OutboundPolicy = OutboundPolicy()) { self.policy = policy }
    }

    let store: any SubscriptionStore
    let configuration: Configuration
    let now: @Sendable () -> Int
    /// Names this process in its claims.
    let owner: String
    private let timer = Mutex<(any DispatchSourceTimer)?>(nil)
    /// One look at a time: a slow fetch must not let the timer start a second.
    private let busy = Mutex(false)

    public init(store: any SubscriptionStore, configuration: Configuration, now: @escaping @Sendable () -> Int) {
        self.store = store
        self.configuration = configuration
        self.now = now
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let name = host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        owner = String(decoding: name, as: UTF8.self) + "-\(getpid())"
    }

    /// Fetches what is due now and records it; returns the feeds fetched.
    @discardableResult
    public func refreshDue() -> [FeedSource] {
        guard
            busy.withLock({ busy in
                busy
                    ? false
                    : {
                        busy = true
                        return true
                    }()
            })
        else { return [] }
        defer { busy.withLock { $0 = false } }
        do throws(StoreError) {
            let due = try store.claimDueFeeds(
                now: now(), owner: owner, leaseSeconds: configuration.leaseSeconds, limit: configuration.batch)
            guard !due.isEmpty else { return [] }
            let fetcher: FeedFetcher
            do {
                fetcher = try FeedFetcher(policy: configuration.policy)
            } catch {
                return []
            }
            var done: [FeedSource] = []
            for source in due {
                done.append(try store.record(fetcher.fetch(source), url: source.url, now: now()))
            }
            return done
        } catch {
            error.logDetails()
            return []
        }
    }

    public func start() {
        timer.withLock { timer in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            source.schedule(deadline: .now() + configuration.interval, repeating: configuration.interval)
            source.setEventHandler { [self] in refreshDue() }
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
