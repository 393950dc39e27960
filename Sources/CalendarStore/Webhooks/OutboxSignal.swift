#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Wakes webhook dispatchers when a write that put deliveries in the outbox has
/// committed, so a delivery leaves within a moment of its change rather than at the
/// next poll. A counter that only grows: a dispatcher remembers the value it last saw
/// and waits for a larger one, so a poke between two waits is never lost. It reaches
/// only the dispatchers of this process; others (several servers on PostgreSQL) find
/// the work when they next poll.
public final class OutboxSignal: @unchecked Sendable {
    // Allocated once and never moved: pthread objects must keep their address.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var count = 0

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// The pokes so far.
    public var generation: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return count
    }

    /// Wakes every waiter.
    public func poke() {
        pthread_mutex_lock(mutex)
        count += 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Waits until the generation passes `seen` or `milliseconds` pass; returns the
    /// generation then.
    @discardableResult
    public func wait(after seen: Int, milliseconds: Int) -> Int {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let nanoseconds = Int(deadline.tv_nsec) + (milliseconds % 1_000) * 1_000_000
        deadline.tv_sec += milliseconds / 1_000 + nanoseconds / 1_000_000_000
        deadline.tv_nsec = nanoseconds % 1_000_000_000
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count <= seen {
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { break }
        }
        return count
    }
}
