import Foundation

/// Named threads that each run a loop until told to stop: the background workers of the
/// server (webhook dispatchers, the alarm scheduler). A worker's loop asks
/// ``isRunning`` and returns once it is false; ``stop(waking:)`` waits for every loop to
/// return.
public final class WorkerThreads: @unchecked Sendable {
    private let lock = NSLock()
    private var running = false
    private let finished = DispatchGroup()

    public init() {}

    /// Whether the workers should go on.
    public var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    /// Runs `prepare`, then starts `count` threads named `name-0`, `name-1`, … each running
    /// `body` with its index; does nothing when they are running already.
    public func start(
        count: Int, name: String, prepare: () -> Void = {}, _ body: @escaping @Sendable (Int) -> Void
    ) {
        lock.lock()
        defer { lock.unlock() }
        guard !running else { return }
        running = true
        prepare()
        for index in 0..<max(1, count) {
            finished.enter()
            let thread = Thread { [finished] in
                body(index)
                finished.leave()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Tells the workers to stop, calls `wake` so that sleeping ones look, and waits until
    /// every loop has returned.
    public func stop(waking wake: () -> Void) {
        lock.lock()
        let wasRunning = running
        running = false
        lock.unlock()
        guard wasRunning else { return }
        wake()
        finished.wait()
    }
}
