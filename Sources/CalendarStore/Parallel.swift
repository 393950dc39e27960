import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Work spread over the processor's cores.
public enum Parallel {
    /// `transform` applied to every element, in order; in parallel when there are
    /// enough elements to be worth it. `transform` must not touch shared mutable state.
    public static func map<T: Sendable, R: Sendable>(_ items: [T], _ transform: @Sendable (T) -> R) -> [R] {
        guard items.count > 16 else { return items.map(transform) }
        let results = UnsafeMutableBufferPointer<R?>.allocate(capacity: items.count)
        results.initialize(repeating: nil)
        defer { results.deallocate() }
        let chunks = min(items.count, max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) * 4)
        nonisolated(unsafe) let output = results
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            // Each chunk writes its own slots only.
            for index in stride(from: chunk, to: items.count, by: chunks) { output[index] = transform(items[index]) }
        }
        return results.map { $0! }
    }
}
