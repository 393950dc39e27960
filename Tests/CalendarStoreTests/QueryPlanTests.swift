import AlmanacTestSupport
import Testing

@testable import CalendarStore

/// Statements that run once per write go by the written object's rows. SQLite, which
/// keeps no statistics, would otherwise pick an index that matches every pending alarm
/// firing, and each write would read the whole queue (an import of 20,000 events then
/// took minutes to plan, and alarms fired a minute late).
@Suite("Query plans") struct QueryPlanTests {
    /// What SQLite's `EXPLAIN QUERY PLAN` says of `sql` on a fresh store's schema.
    static func plan(_ sql: String) throws -> [String] {
        let directory = try TemporaryDirectory()
        let backend = try DatabaseBackend(directory: directory.path)
        return try backend.database.read { (connection) throws(StoreError) -> [String] in
            try connection.rows("EXPLAIN QUERY PLAN " + sql, []) { $0.string(3) }
        }
    }

    @Test(arguments: [
        ("whether an object has firings to come", AlarmQueue.hasPending(.sqlite)),
        ("removing an object's firings to plan them again", AlarmQueue.forgetPlanned(.sqlite)),
    ])
    func alarmQueueByObject(_ what: String, _ sql: String) throws {
        let plan = try Self.plan(sql)
        #expect(plan.count == 1, "\(what): \(plan)")
        #expect(plan.allSatisfy { $0.contains("(object_id=?)") }, "\(what): \(plan)")
    }
}
