import AlmanacTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import CalendarStore

/// Writes that arrive while another commits are committed together, and each caller
/// still gets what a transaction of its own would have given it. Each test holds
/// the writer in a first write until the others are queued, so the groups are the
/// same on every run.
@Suite("Group commit") struct GroupCommitTests {
    /// A database with a table `t (k TEXT PRIMARY KEY, seen INTEGER)`.
    static func database(_ directory: TemporaryDirectory) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: directory.path + "/group.sqlite")
        try database.write { (connection) throws(StoreError) in
            _ = try connection.run("CREATE TABLE t (k TEXT PRIMARY KEY, seen INTEGER NOT NULL)")
        }
        return database
    }

    /// Inserts `key` with the number of rows it saw before it; returns that number.
    static func insert(_ key: String, _ connection: Connection) throws(StoreError) -> Int {
        let seen = try connection.firstRow("SELECT count(*) FROM t", []) { $0.int(0) } ?? -1
        _ = try connection.run("INSERT INTO t (k, seen) VALUES (?, ?)", [.text(key), .integer(Int64(seen))])
        return seen
    }

    static func rows(_ database: SQLiteDatabase) throws -> [String: Int] {
        let rows = try database.read { (connection) throws(StoreError) -> [(String, Int)] in
            try connection.rows("SELECT k, seen FROM t", []) { ($0.string(0), $0.int(1)) }
        }
        return Dictionary(uniqueKeysWithValues: rows)
    }

    /// What a queued write does.
    enum Write: Sendable {
        /// Inserts the key.
        case insert(String)
        /// Inserts the key, then throws.
        case refuse(String)
        /// Inserts the key, then ends the transaction and throws, as SQLite does on SQLITE_FULL.
        case dropTransaction(String)

        func perform(_ connection: Connection) throws(StoreError) -> Int {
            switch self {
            case .insert(let key):
                return try GroupCommitTests.insert(key, connection)
            case .refuse(let key):
                _ = try GroupCommitTests.insert(key, connection)
                throw StoreError(.uidConflict, "refused after writing")
            case .dropTransaction(let key):
                _ = try GroupCommitTests.insert(key, connection)
                _ = try connection.run("ROLLBACK")
                throw StoreError(.insufficientStorage, "the disk is full")
            }
        }
    }

    /// Runs `writes` on their own threads, queued one after another in this order while
    /// a first write holds the writer; returns each one's outcome, in the same order.
    static func queued(
        on database: SQLiteDatabase,
        _ writes: [Write]
    ) throws -> [Result<Int, StoreError>] {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? database.write { (connection) throws(StoreError) -> Int in
                entered.signal()
                release.wait()
                return try insert("first", connection)
            }
        }
        holder.start()
        entered.wait()
        let outcomes = Mutex<[Int: Result<Int, StoreError>]>([:])
        let done = DispatchGroup()
        for (index, write) in writes.enumerated() {
            done.enter()
            Thread {
                let outcome = Result { () throws(StoreError) -> Int in
                    try database.write { (connection) throws(StoreError) -> Int in try write.perform(connection) }
                }
                outcomes.withLock { $0[index] = outcome }
                done.leave()
            }.start()
            // The next write queues only after this one is waiting, so the order is fixed.
            var polls = 0
            while database.commits.waiting < index + 1 {
                polls += 1
                try #require(polls < 1_000_000, "write \(index) never queued")
                usleep(100)
            }
        }
        release.signal()
        done.wait()
        return try (0..<writes.count).map { index in try #require(outcomes.withLock { $0[index] }) }
    }

    @Test func writesQueuedDuringACommitShareOneTransactionAndEachSeesTheOnesBefore() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.database(directory)
        let before = database.commits.groupsCommitted
        let keys = ["a", "b", "c", "d", "e"]
        let outcomes = try Self.queued(on: database, keys.map { .insert($0) })
        // The first write alone, then the five together.
        #expect(database.commits.groupsCommitted == before + 2)
        #expect(outcomes.map { try? $0.get() } == [1, 2, 3, 4, 5])
        #expect(try Self.rows(database) == ["first": 0, "a": 1, "b": 2, "c": 3, "d": 4, "e": 5])
    }

    @Test func aWriteThatThrowsIsRolledBackAloneAndGetsItsOwnError() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.database(directory)
        let outcomes = try Self.queued(
            on: database,
            [.insert("a"), .refuse("refused"), .insert("b")])
        #expect(try outcomes[0].get() == 1)
        #expect(throws: StoreError.self) { try outcomes[1].get() }
        if case .failure(let error) = outcomes[1] { #expect(error.code == .uidConflict) }
        // b saw first and a, not the refused row.
        #expect(try outcomes[2].get() == 2)
        #expect(try Self.rows(database) == ["first": 0, "a": 1, "b": 2])
    }

    /// When SQLite ends the whole transaction on an error (a full disk does), the
    /// writes that had succeeded in it are run again, so none is lost or half kept.
    @Test func writesInATransactionSQLiteDroppedAreRunAgain() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.database(directory)
        let outcomes = try Self.queued(
            on: database,
            [.insert("a"), .dropTransaction("dropped"), .insert("b")])
        #expect(try outcomes[0].get() == 1)
        if case .failure(let error) = outcomes[1] {
            #expect(error.code == .insufficientStorage)
        } else {
            Issue.record("the write whose transaction was dropped succeeded")
        }
        #expect(try outcomes[2].get() == 2)
        #expect(try Self.rows(database) == ["first": 0, "a": 1, "b": 2])
    }

    @Test func oneWriterAloneCommitsEachWriteByItself() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.database(directory)
        let before = database.commits.groupsCommitted
        for key in ["a", "b", "c"] {
            _ = try database.write { (connection) throws(StoreError) -> Int in try Self.insert(key, connection) }
        }
        #expect(database.commits.groupsCommitted == before + 3)
        #expect(try Self.rows(database) == ["a": 0, "b": 1, "c": 2])
    }
}
