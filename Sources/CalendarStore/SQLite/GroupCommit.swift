import Dispatch
import Recurrence
import Synchronization

/// Writes that arrive while another is committing are committed together: one
/// transaction, one `fdatasync`, several acknowledged writes.
///
/// A caller queues its write and, when no group is being written, leads: it takes
/// what is queued (its own write first), runs each write in its own savepoint on
/// the writer connection, commits once, and wakes the callers. Meanwhile the next
/// writes queue up, and the first of them leads the next group. One writer alone
/// leads every time and pays nothing for it.
///
/// Each caller gets what a transaction of its own would have given it:
/// - writes run in arrival order, and each sees the ones before it;
/// - a write that throws is rolled back to its savepoint, alone;
/// - when SQLite drops the whole transaction on an error (a full disk, an I/O error),
///   the writes that had succeeded in it are run again in a fresh one, which
///   ``StoreDatabase/write(_:)`` allows (a write does nothing but database work);
/// - a failed commit fails every write of the group, and none of them is kept;
/// - a write sees the cancellation question (``ExpansionBudget/isCancelled``) of
///   the request that made it, whichever thread runs it.
final class GroupCommit: Sendable {
    /// One caller's write, run by whichever caller leads its group.
    final class Pending: @unchecked Sendable {
        private var body: ((SQLiteConnection) -> Bool)?
        private var failure: ((StoreError) -> Void)?
        let wake = DispatchSemaphore(value: 0)
        /// Set, under the queue's lock, for the waiting caller that leads the next group.
        var leads = false

        init(run: @escaping (SQLiteConnection) -> Bool, fail: @escaping (StoreError) -> Void) {
            body = run
            failure = fail
        }

        /// Runs the write on the writer connection; true when it did not throw.
        func run(_ connection: SQLiteConnection) -> Bool { body?(connection) ?? false }

        /// Replaces the write's outcome with a failure (its group did not commit).
        func fail(_ error: StoreError) { failure?(error) }

        /// Lets go of the caller's closures before the caller is woken: they borrow its
        /// body (`withoutActuallyEscaping`), which must not outlive the call.
        func finish() {
            body = nil
            failure = nil
        }
    }

    private struct Queue {
        var waiting: [Pending] = []
        var leading = false
    }

    /// The most writes one transaction takes; later ones wait for the next group.
    static let largestGroup = 64
    private let queue = Mutex(Queue())
    private let committed = Atomic<Int>(0)

    /// Transactions committed so far (each one group); with ``waiting``, for tests and benchmarks.
    var groupsCommitted: Int { committed.load(ordering: .relaxed) }

    /// Writes queued for the next group.
    var waiting: Int { queue.withLock { $0.waiting.count } }

    /// Runs `body` in a write transaction on the writer connection (which `onWriter`
    /// lends), possibly grouped with others, and returns or throws what it returned or
    /// threw, or its group's commit error.
    func write<T>(
        _ body: (SQLiteConnection) throws(StoreError) -> T,
        onWriter: ((SQLiteConnection) -> Void) -> Void
    ) throws(StoreError) -> T {
        var outcome: Result<T, StoreError> = .failure(StoreError(.database, "the write was not run"))
        let cancellation = ExpansionBudget.isCancelled
        withoutActuallyEscaping(body) { body in
            let pending = Pending(
                run: { connection in
                    outcome = ExpansionBudget.withCancellation(cancellation) {
                        Result { () throws(StoreError) -> T in try body(connection) }
                    }
                    if case .failure = outcome { return false }
                    return true
                },
                fail: { outcome = .failure($0) })
            submit(pending, onWriter: onWriter)
        }
        return try outcome.get()
    }

    private func submit(_ pending: Pending, onWriter: ((SQLiteConnection) -> Void) -> Void) {
        let leads = queue.withLock { queue -> Bool in
            queue.waiting.append(pending)
            if queue.leading { return false }
            queue.leading = true
            return true
        }
        if !leads {
            pending.wake.wait()
            guard pending.leads else { return }
        }
        let group = queue.withLock { queue -> [Pending] in
            let group = Array(queue.waiting.prefix(Self.largestGroup))
            queue.waiting.removeFirst(group.count)
            return group
        }
        onWriter { commit(group, on: $0) }
        let next = queue.withLock { queue -> Pending? in
            guard let first = queue.waiting.first else {
                queue.leading = false
                return nil
            }
            first.leads = true
            return first
        }
        for member in group { member.finish() }
        for other in group where other !== pending { other.wake.signal() }
        next?.wake.signal()
    }

    /// Runs `group` in one transaction, each write in a savepoint when there are
    /// several, and commits it.
    private func commit(_ group: [Pending], on connection: SQLiteConnection) {
        let savepoints = group.count > 1
        var remaining = group[...]
        while !remaining.isEmpty {
            do {
                try connection.run("BEGIN IMMEDIATE")
            } catch {
                for pending in remaining { pending.fail(error) }
                return
            }
            var succeeded: [Pending] = []
            var lost = false
            while let pending = remaining.popFirst() {
                if savepoints {
                    do {
                        try connection.run("SAVEPOINT group_write")
                    } catch {
                        pending.fail(error)
                        continue
                    }
                }
                if pending.run(connection) {
                    do {
                        if savepoints { try connection.run("RELEASE group_write") }
                        succeeded.append(pending)
                    } catch {
                        _ = try? connection.run("ROLLBACK TO group_write")
                        pending.fail(error)
                    }
                } else if !connection.inTransaction {
                    // SQLite rolled back the whole transaction: run what it held again.
                    remaining = succeeded[...] + remaining
                    lost = true
                    break
                } else if savepoints {
                    _ = try? connection.run("ROLLBACK TO group_write")
                    _ = try? connection.run("RELEASE group_write")
                } else {
                    _ = try? connection.run("ROLLBACK")
                    return
                }
            }
            if lost { continue }
            do {
                try connection.run("COMMIT")
                committed.add(1, ordering: .relaxed)
            } catch {
                if connection.inTransaction { _ = try? connection.run("ROLLBACK") }
                for pending in succeeded { pending.fail(error) }
            }
            return
        }
    }
}
