import Foundation

/// Threads of their own for the server's outbound work (feed fetches, test pings), shared
/// fairly between the owners the work is for: at most ``perOwner`` jobs of one owner run
/// at once and at most ``maxWaitingPerOwner`` wait, so one user's slow or flooded
/// endpoints can take no more than their share while others wait. A job lists every
/// owner it is for (a feed its subscribers) and runs on the turn of whichever of them has
/// room; it counts against that one.
///
/// Request threads never run these jobs: they submit and, at most for a short while, wait.
public final class FairWorkQueue: @unchecked Sendable {
    /// Jobs running at once.
    public let workers: Int
    /// Jobs of one owner running at once.
    public let perOwner: Int
    /// Jobs of one owner waiting; more are refused (``submit(for:_:)`` returns false).
    public let maxWaitingPerOwner: Int

    private struct Job {
        var owners: [String]
        var run: @Sendable () -> Void
    }

    private let name: String
    private let condition = NSCondition()
    private var waiting: [Job] = []
    private var running: [String: Int] = [:]
    private var started = false
    private var stopping = false
    private var draining = false
    private let finished = DispatchGroup()

    /// A queue whose threads start with its first job.
    public init(workers: Int, perOwner: Int = 1, maxWaitingPerOwner: Int = 100, name: String) {
        self.workers = max(1, workers)
        self.perOwner = max(1, perOwner)
        self.maxWaitingPerOwner = max(1, maxWaitingPerOwner)
        self.name = name
    }

    /// Starts the threads (the caller holds the lock).
    private func startThreads() {
        started = true
        for index in 0..<workers {
            finished.enter()
            let thread = Thread { [self] in
                work()
                finished.leave()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Queues `job` for `owners` (at least one); false, and the job dropped, when each of
    /// them already has ``maxWaitingPerOwner`` jobs waiting or the queue is stopping.
    @discardableResult
    public func submit(for owners: [String], _ job: @escaping @Sendable () -> Void) -> Bool {
        let owners = owners.isEmpty ? [""] : owners
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return false }
        let full = owners.allSatisfy { owner in
            waiting.lazy.filter { $0.owners.contains(owner) }.prefix(maxWaitingPerOwner).count >= maxWaitingPerOwner
        }
        guard !full else { return false }
        if !started { startThreads() }
        waiting.append(Job(owners: owners, run: job))
        condition.signal()
        return true
    }

    /// Jobs of `owner` running now.
    public func runningCount(for owner: String) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return running[owner] ?? 0
    }

    /// Stops taking jobs and lets those running finish; those waiting are dropped, or
    /// with `finishingWaiting` run first (mail queued before a shutdown still goes out).
    public func stop(finishingWaiting: Bool = false) {
        condition.lock()
        stopping = true
        draining = finishingWaiting
        if !finishingWaiting { waiting.removeAll() }
        condition.broadcast()
        condition.unlock()
        finished.wait()
    }

    /// The first waiting job one of whose owners has room, and that owner, removed from
    /// the queue (the caller holds the lock).
    private func next() -> (job: Job, owner: String)? {
        for (position, job) in waiting.enumerated() {
            if let owner = job.owners.min(by: { (running[$0] ?? 0) < (running[$1] ?? 0) }),
                running[owner, default: 0] < perOwner
            {
                waiting.remove(at: position)
                return (job, owner)
            }
        }
        return nil
    }

    private func work() {
        condition.lock()
        while true {
            if stopping && (!draining || waiting.isEmpty) {
                condition.unlock()
                return
            }
            guard let (job, owner) = next() else {
                condition.wait()
                continue
            }
            running[owner, default: 0] += 1
            condition.unlock()
            job.run()
            condition.lock()
            running[owner, default: 1] -= 1
            if running[owner] == 0 { running[owner] = nil }
            // A job of this owner may be waiting for the room just made.
            condition.broadcast()
        }
    }
}
