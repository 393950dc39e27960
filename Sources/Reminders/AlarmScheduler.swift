import CalendarStore
import Foundation
import Outbound

/// Fires every alarm at its time while the server runs: plans the alarm queue ahead,
/// plans again what writes changed, fires what is due (its `alarm.due` webhooks go out
/// through the outbox) and hands each firing to ``AlarmScheduler/onFired`` (e-mail).
///
/// One thread per process. It wakes when a write marks alarms to plan, at the second the
/// next firing is due, and at least every ``Configuration/pollMilliseconds`` (for the
/// firings other processes planned). Several processes on one PostgreSQL database each
/// run one: each firing is taken by one of them (see ``ReminderStore``).
public final class AlarmScheduler: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// A firing found later than this after its time (the server was down) is recorded
        /// as missed and not sent (`serve --alarm-grace`, seconds).
        public var grace = 3_600
        /// How far ahead firings are planned (seconds).
        public var lookahead = 1_800
        /// How much of the future one planning transaction takes on (seconds).
        public var window = 900
        /// The longest the thread sleeps without being woken.
        public var pollMilliseconds = 1_000
        /// Firings taken from the queue in one transaction.
        public var batch = 500
        /// How long fired, missed and acknowledged firings are kept (for `GET /api/v1/alarms`).
        public var retention = 30 * 86_400

        public init() {}
    }

    let store: any ReminderStore
    public let configuration: Configuration
    let now: @Sendable () -> Int
    /// Called with each batch of firings once they are committed, on the scheduler's thread.
    public var onFired: (@Sendable ([AlarmFiringRecord]) -> Void)?
    private let thread = WorkerThreads()
    private var lastPrune: Int?

    /// - Parameter now: the current time in Unix seconds; a test passes its own clock and
    ///   calls ``tick()`` itself.
    public init(
        store: any ReminderStore, configuration: Configuration = Configuration(),
        now: @escaping @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }
    ) {
        self.store = store
        self.configuration = configuration
        self.now = now
    }

    /// One pass at the clock's time: plans ahead (every window due), plans the
    /// changed objects again, fires what is due. Returns the firings it took, in order.
    @discardableResult
    public func tick() throws(StoreError) -> [AlarmFiringRecord] {
        let now = self.now()
        // Catching up after downtime plans from at most a day before the grace: bounded.
        let windows = (configuration.grace + 86_400 + configuration.lookahead) / max(1, configuration.window) + 2
        for _ in 0..<windows {
            guard
                let report = try store.planAhead(
                    now: now, lookahead: configuration.lookahead, window: configuration.window,
                    grace: configuration.grace)
            else { break }
            if report.dropped > 0 || report.cut > 0 {
                Self.log(
                    "alarms from \(report.window): \(report.dropped) firings over the per-user or per-event limit and \(report.cut) series cut by expansion bounds were not planned"
                )
            }
        }
        for _ in 0..<100 where try store.replanChanged(now: now, limit: 100) == 100 {}
        var fired: [AlarmFiringRecord] = []
        for _ in 0..<100 {
            let batch = try store.fireDue(now: now, grace: configuration.grace, limit: configuration.batch)
            fired += batch
            if !batch.isEmpty { onFired?(batch) }
            if batch.count < configuration.batch { break }
        }
        if lastPrune.map({ now - $0 >= 3_600 }) ?? true {
            lastPrune = now
            _ = try store.pruneAlarms(before: now - configuration.retention)
        }
        return fired
    }

    /// Starts the thread (again after ``stop()``).
    public func start() { thread.start(count: 1, name: "almanac-alarms") { [self] _ in run() } }

    /// Stops the thread after its current pass.
    public func stop() { thread.stop(waking: store.signal.poke) }

    private func run() {
        var seen = store.signal.generation
        while thread.isRunning {
            var wait = configuration.pollMilliseconds
            do {
                try tick()
                // Wake at the start of the second the next firing is due (triggers are whole seconds).
                if let due = try store.nextDue() {
                    let milliseconds = due * 1_000 - Int(Date().timeIntervalSince1970 * 1_000)
                    wait = max(0, min(wait, milliseconds))
                }
            } catch {
                // The database is unavailable: look again after the poll; nothing is lost.
                error.logDetails()
            }
            seen = store.signal.wait(after: seen, milliseconds: wait)
        }
    }

    static func log(_ message: String) {
        FileHandle.standardError.write(Data("almanac: \(message)\n".utf8))
    }
}
