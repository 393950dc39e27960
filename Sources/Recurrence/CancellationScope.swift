#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The question "is this work still wanted?" for the work the current thread does
/// (the server answers each request synchronously on one worker thread). It is a
/// thread-local value, not a task-local one: the HTTP transport's worker threads are
/// not Swift tasks, and binding a task-local value on them crashed optimized builds.
enum CancellationScope {
    final class Question {
        let isCancelled: @Sendable () -> Bool
        init(_ isCancelled: @escaping @Sendable () -> Bool) { self.isCancelled = isCancelled }
    }

    /// The thread-specific slot; each thread's value is released when the thread ends.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { value in
            guard let value else { return }
            Unmanaged<Question>.fromOpaque(value).release()
        }
        precondition(created == 0, "no thread-specific key for cancellation")
        return key
    }()

    /// The current thread's question, if one is bound.
    static var current: (@Sendable () -> Bool)? {
        guard let value = pthread_getspecific(key) else { return nil }
        return Unmanaged<Question>.fromOpaque(value).takeUnretainedValue().isCancelled
    }

    /// Runs `body` with `isCancelled` bound on this thread, then restores what was bound.
    static func withValue<Result, Failure: Error>(
        _ isCancelled: (@Sendable () -> Bool)?, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let previous = pthread_getspecific(key)
        let bound = isCancelled.map { Unmanaged.passRetained(Question($0)).toOpaque() }
        pthread_setspecific(key, bound)
        defer {
            pthread_setspecific(key, previous)
            if let bound { Unmanaged<Question>.fromOpaque(bound).release() }
        }
        return try body()
    }
}
