import Synchronization

/// Request limits by key: a token bucket per key (the JSON API's per API token or user,
/// the public booking pages' per address) that holds a minute's allowance and refills
/// evenly, so a client may burst up to its limit and then go on at limit/60 requests a
/// second. Buckets live in the process: several server processes on one PostgreSQL
/// database each allow the limit.
public final class RateLimiter: Sendable {
    /// Requests a minute for a principal without a limit of its own.
    public static let defaultPerMinute = 1_200

    /// What one request was allowed, for the `RateLimit-*` headers.
    public struct Decision: Sendable, Equatable {
        /// The principal's limit per minute.
        public var limit: Int
        /// Requests left right now.
        public var remaining: Int
        /// Seconds until the bucket is full again.
        public var reset: Int
        /// Seconds until one request is allowed again (refused requests only).
        public var retryAfter: Int?

        public var allowed: Bool { retryAfter == nil }
    }

    private struct Bucket {
        var tokens: Double
        var updated: Int
        var limit: Int

        /// Whether it would be full at `time` (a principal that has been idle).
        func isFull(at time: Int) -> Bool {
            tokens + Double(max(0, time - updated)) * Double(limit) / 60 >= Double(limit)
        }
    }

    /// The most buckets kept before full ones (idle principals) are forgotten.
    static let maxBuckets = 10_000

    private let buckets = Mutex<[String: Bucket]>([:])
    private let now: @Sendable () -> Int

    /// - Parameter now: the current time in seconds (the server's clock; a test fixes it).
    public init(now: @escaping @Sendable () -> Int) {
        self.now = now
    }

    /// Takes one request from `key`'s bucket of `perMinute` requests (at least 1).
    public func take(_ key: String, perMinute: Int) -> Decision {
        let limit = max(1, perMinute)
        let rate = Double(limit) / 60
        let time = now()
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Double(limit), updated: time, limit: limit)
            bucket.limit = limit
            // A clock that went back refills nothing; it never takes requests away either.
            let elapsed = max(0, time - bucket.updated)
            bucket.tokens = min(Double(limit), bucket.tokens + Double(elapsed) * rate)
            bucket.updated = max(bucket.updated, time)
            var decision = Decision(limit: limit, remaining: 0, reset: 0, retryAfter: nil)
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
            } else {
                decision.retryAfter = max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            decision.remaining = Int(bucket.tokens)
            decision.reset = Int(((Double(limit) - bucket.tokens) / rate).rounded(.up))
            if buckets.count >= Self.maxBuckets, buckets[key] == nil {
                // Forget principals whose buckets have refilled: they lose nothing by it.
                buckets = buckets.filter { !$0.value.isFull(at: time) }
            }
            buckets[key] = bucket
            return decision
        }
    }
}
