/// One step of a backend's schema: its number (the order it was first applied in, which
/// databases in use keep) and its SQL. Each feature keeps its own in `Migrations/`
/// (events, app state, sharing, scheduling, webhooks, bookings), one file per backend.
struct Migration: Sendable {
    let version: Int
    let sql: String

    init(_ version: Int, _ sql: String) {
        self.version = version
        self.sql = sql
    }

    /// The SQL of every feature's migrations in version order. The numbers must run 1…n
    /// without a gap or a repeat (checked when the schema is first read).
    static func inOrder(_ features: [Migration]...) -> [String] {
        let all = features.flatMap { $0 }.sorted { $0.version < $1.version }
        precondition(
            all.map(\.version) == Array(1...all.count), "migrations must be numbered 1…\(all.count) without gaps")
        return all.map(\.sql)
    }
}
