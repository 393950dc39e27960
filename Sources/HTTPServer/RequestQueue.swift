import Foundation

/// The threads that run responders, shared fairly between client addresses. The
/// transport's own threads only read and write; each request that is ready is queued
/// under its client's address, and a free worker takes the oldest request of the
/// address with the fewest requests running, and among those the one served longest
/// ago (max-min fairness, round robin among equals): however many requests one address
/// sends, and however long each takes (a password to hash, a slow store), another
/// address's request waits for at most one worker to come free.
final class RequestQueue: @unchecked Sendable {
    struct Job {
        var key: String
        var run: () -> Void
        /// Answers the request without running it (the server is stopping).
        var refuse: () -> Void
    }

    let workers: Int
    private let condition = NSCondition()
    /// Waiting jobs by key, oldest first, and the keys in the order their oldest job came.
    private var waiting: [String: [Job]] = [:]
    private var order: [String] = []
    private var running: [String: Int] = [:]
    /// When each key last had a job started (a count of starts), while it has jobs
    /// waiting or running.
    private var lastStarted: [String: Int] = [:]
    private var starts = 0
    private var started = false
    private var stopping = false
    private let finished = DispatchGroup()

    init(workers: Int) {
        self.workers = max(1, workers)
    }

    /// Starts the workers (once).
    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !started else { return }
        started = true
        stopping = false
        for index in 0..<workers {
            finished.enter()
            let thread = Thread { [self] in
                work()
                finished.leave()
            }
            thread.name = "almanac-http-\(index)"
            thread.start()
        }
    }

    /// Queues a job; false when the queue is stopping (the caller answers at once).
    func submit(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return false }
        if waiting[job.key] == nil { order.append(job.key) }
        waiting[job.key, default: []].append(job)
        condition.signal()
        return true
    }

    /// Stops: jobs still waiting are refused (each answers its request), jobs running
    /// finish, then the workers end. Returns true once they have, false when jobs were
    /// still running after `seconds` (they are left to finish on their own).
    @discardableResult
    func stop(within seconds: Double = .infinity) -> Bool {
        condition.lock()
        stopping = true
        let refused = order.flatMap { waiting[$0] ?? [] }
        waiting = [:]
        order = []
        condition.broadcast()
        condition.unlock()
        for job in refused { job.refuse() }
        let deadline: DispatchTime = seconds.isFinite ? .now() + seconds : .distantFuture
        guard finished.wait(timeout: deadline) == .success else { return false }
        condition.lock()
        started = false
        condition.unlock()
        return true
    }

    /// The next job (the caller holds the lock): of the keys waiting, the one with the
    /// fewest running, then the one whose last job started longest ago (never first),
    /// then the one waiting longest.
    private func next() -> Job? {
        var chosen: (position: Int, running: Int, lastStarted: Int)?
        for (position, key) in order.enumerated() {
            let count = running[key] ?? 0
            let last = lastStarted[key] ?? -1
            if let best = chosen, (best.running, best.lastStarted) <= (count, last) { continue }
            chosen = (position, count, last)
        }
        guard let position = chosen?.position else { return nil }
        let key = order[position]
        var jobs = waiting[key] ?? []
        let job = jobs.removeFirst()
        order.remove(at: position)
        if jobs.isEmpty {
            waiting[key] = nil
        } else {
            waiting[key] = jobs
            order.append(key)
        }
        starts += 1
        lastStarted[key] = starts
        return job
    }

    private func work() {
        condition.lock()
        while true {
            if stopping && order.isEmpty {
                condition.unlock()
                return
            }
            guard let job = next() else {
                condition.wait()
                continue
            }
            running[job.key, default: 0] += 1
            condition.unlock()
            job.run()
            condition.lock()
            running[job.key, default: 1] -= 1
            if running[job.key] == 0 {
                running[job.key] = nil
                if waiting[job.key] == nil { lastStarted[job.key] = nil }
            }
        }
    }
}
