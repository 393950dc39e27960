import CalendarStore
import Foundation
import Outbound
import Synchronization

/// Fires every alarm at its time while the server runs: plans the alarm queue ahead,
/// plans again what writes changed, fires what is due (its `alarm.due` webhooks go out
/// through the outbox), and sends the mail of `ACTION:EMAIL` alarms through the
/// ``AlarmScheduler/mailer`` to their owners.
///
/// Two threads per process. One fires: it wakes when a write marks alarms to plan, at
/// the second the next firing is due, and at least every
/// ``Configuration/pollMilliseconds`` (for the firings other processes planned). The
/// other plans the windows ahead, so a long planning never holds a firing back.
/// Several processes on one PostgreSQL database each run both: each firing is taken by
/// one of them (see ``ReminderStore``).
public final class AlarmScheduler: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// A firing found later than this after its time (the server was down) is recorded
        /// as missed and not sent (`serve --alarm-grace`, seconds).
        public var grace = 3_600
        /// How far ahead firings are planned (seconds).
        public var lookahead = 1_800
        /// How much of the future one planning transaction takes on (seconds).
        public var window = 300
        /// The longest the thread sleeps without being woken.
        public var pollMilliseconds = 1_000
        /// Firings taken from the queue in one transaction.
        public var batch = 500
        /// How long fired, missed and acknowledged firings are kept (for `GET /api/v1/alarms`).
        public var retention = 30 * 86_400
        /// The sender of reminder mails (`serve --smtp-from`); nil: each owner's first address.
        public var mailSender: String?
        /// Where people reach the server, for the link in reminder mails (`serve --base-url`);
        /// nil: the address the server listens on, once it does (``listening(at:)``).
        public var baseURL: String?

        public init() {}
    }

    let store: any ReminderStore
    public let configuration: Configuration
    let now: @Sendable () -> Int
    /// The link base when the configuration names none: where the server listens.
    private let listeningURL = Mutex<String?>(nil)

    /// Tells the scheduler where the server listens, for the links of its mails when the
    /// configuration names no ``Configuration/baseURL``.
    public func listening(at url: String) { listeningURL.withLock { $0 = url } }

    /// Sends `ACTION:EMAIL` alarms' mail (`serve --smtp`); nil: none is sent.
    public var mailer: (any AlarmMailer)?
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
        try planAhead(now: now)
        return try fire(now: now)
    }

    /// Plans every window due (catching up after downtime plans from at most a day
    /// before the grace: bounded). A window's planning can take a while (25,000 firings
    /// of an hour's load took seconds on PostgreSQL): the server runs it on a thread of
    /// its own, so firing never waits for it.
    func planAhead(now: Int) throws(StoreError) {
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
    }

    /// Plans the changed objects again, fires what is due, sends the mail, and prunes
    /// what is older than the retention (hourly). Returns the firings it took, in order.
    /// Replanning goes 100 objects at a time with firing between them: after an import
    /// of thousands of events with alarms, firings that are due do not wait for all of it.
    func fire(now: Int) throws(StoreError) -> [AlarmFiringRecord] {
        var fired: [AlarmFiringRecord] = []
        var now = now
        for _ in 0..<100 {
            let replanned = try store.replanChanged(now: now, limit: 100)
            for _ in 0..<100 {
                let batch = try store.fireDue(now: now, grace: configuration.grace, limit: configuration.batch)
                fired += batch
                if batch.count < configuration.batch { break }
            }
            if replanned < 100 { break }
            now = max(now, self.now())
        }
        if let mailer { try sendMail(through: mailer, now: now) }
        if lastPrune.map({ now - $0 >= 3_600 }) ?? true {
            lastPrune = now
            _ = try store.pruneAlarms(before: now - configuration.retention)
        }
        return fired
    }

    /// Hands the waiting reminder mails to `mailer`, each leased while it is on its way;
    /// a failed one is tried again later (1, 2, 4, 8 minutes), one due longer ago than the
    /// grace is given up.
    func sendMail(through mailer: any AlarmMailer, now: Int) throws(StoreError) {
        let store = store
        let clock = self.now
        let baseURL = configuration.baseURL ?? listeningURL.withLock { $0 }
        for _ in 0..<20 {
            let jobs = try store.claimMail(
                now: now, lease: 600, limit: configuration.batch, perOwnerPerHour: AlarmMail.perUserPerHour)
            for job in jobs {
                guard now - job.record.fireAt <= configuration.grace,
                    let message = AlarmMail.message(
                        job, sender: configuration.mailSender, baseURL: baseURL, now: now)
                else {
                    try store.finishMail(job, error: "not sent: too late, or no address to send from", retryAt: nil)
                    continue
                }
                let retry: @Sendable () -> Int? = {
                    job.attempts + 1 < AlarmMail.maxAttempts ? clock() + 60 << min(job.attempts, 4) : nil
                }
                let queued = mailer.post(message, for: job.record.owner) { error in
                    do throws(StoreError) {
                        try store.finishMail(job, error: error, retryAt: error == nil ? nil : retry())
                    } catch {
                        // The lease runs out and the mail is taken up again.
                    }
                }
                if !queued { try store.finishMail(job, error: "the owner's mail queue is full", retryAt: retry()) }
            }
            if jobs.count < configuration.batch { break }
        }
    }

    /// Starts the threads (again after ``stop()``): one fires, one plans ahead.
    public func start() {
        thread.start(count: 2, name: "almanac-alarms") { [self] index in index == 0 ? runFiring() : runPlanning() }
    }

    /// Stops the threads after their current passes.
    public func stop() { thread.stop(waking: store.signal.poke) }

    private func runFiring() {
        var seen = store.signal.generation
        while thread.isRunning {
            var wait = configuration.pollMilliseconds
            do {
                _ = try fire(now: now())
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

    private func runPlanning() {
        var seen = store.signal.generation
        var last = 0
        while thread.isRunning {
            // Writes wake this thread too; it plans at most once a poll.
            let now = now()
            if now != last {
                last = now
                do { try planAhead(now: now) } catch { error.logDetails() }
            }
            seen = store.signal.wait(after: seen, milliseconds: configuration.pollMilliseconds)
        }
    }

    static func log(_ message: String) {
        FileHandle.standardError.write(Data("almanac: \(message)\n".utf8))
    }
}
