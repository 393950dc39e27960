import Synchronization

/// An `Idempotency-Key` of the JSON API as the store keeps it: per user and key, the
/// hash of the request that first used it, and that request's answer once it is known.
/// Kept for ``lifetime`` seconds.
public struct IdempotencyRecord: Sendable, Hashable {
    /// The caller's hash of the request that first used the key, to tell a reuse with another request.
    public var requestHash: String
    /// The first request's answer; nil while it runs, or when the server stopped after
    /// its write committed and before its answer was kept.
    public var answer: Answer?

    /// The HTTP answer a retry gets again.
    public struct Answer: Sendable, Hashable {
        /// The HTTP status code.
        public var status: Int
        /// The `Content-Type` header; nil without one.
        public var contentType: String?
        /// The `Location` header; nil without one.
        public var location: String?
        /// The `ETag` header; nil without one.
        public var etag: String?
        /// The response body's bytes.
        public var body: [UInt8]

        /// Creates an answer from a response's status, headers and body.
        public init(status: Int, contentType: String?, location: String?, etag: String?, body: [UInt8]) {
            self.status = status
            self.contentType = contentType
            self.location = location
            self.etag = etag
            self.body = body
        }
    }

    /// How long a key is kept: a day.
    public static let lifetime = 86_400
}

/// The claim of an `Idempotency-Key` that a request makes while it runs: the first store
/// write the request makes records the key in its own transaction, so the write and
/// the key commit together or not at all. Of two requests racing with one key, the
/// second's write finds the key taken and fails (``StoreError/Code/alreadyExists``)
/// with nothing written, and ``wasTaken`` says why.
///
/// Set it around the request with `IdempotencyClaim.$current.withValue(claim) { … }`:
/// every write of ``DatabaseBackend`` reads it on the calling thread.
public final class IdempotencyClaim: Sendable {
    /// The claim of the request running on this task; nil outside a request with a key.
    @TaskLocal public static var current: IdempotencyClaim?

    let user: String
    let key: String
    let requestHash: String
    /// Unix seconds; keys older than ``IdempotencyRecord/lifetime`` are forgotten.
    let now: Int

    private struct State {
        var recorded = false
        var taken = false
    }

    private let state = Mutex(State())

    /// A claim of `key` for `user`'s request with this hash, made at `now` (Unix seconds).
    public init(user: String, key: String, requestHash: String, now: Int) {
        self.user = user
        self.key = key
        self.requestHash = requestHash
        self.now = now
    }

    /// Whether a write of this request committed the key.
    public var wasRecorded: Bool { state.withLock { $0.recorded } }
    /// Whether a write of this request found the key taken by another request.
    public var wasTaken: Bool { state.withLock { $0.taken } }

    /// Records the key in the transaction of `connection`, unless an earlier write of
    /// this request did; throws `alreadyExists` when another request holds it.
    func record(_ connection: Connection) throws(StoreError) {
        guard !wasRecorded else { return }
        let expired = now - IdempotencyRecord.lifetime
        try connection.run("DELETE FROM idempotency_keys WHERE created < ?", [.int(expired)])
        let inserted = try connection.run(
            """
            INSERT INTO idempotency_keys (user_id, key, request_hash, created)
            SELECT id, ?, ?, ? FROM users WHERE name = ? ON CONFLICT (user_id, key) DO NOTHING
            """, [.text(key), .text(requestHash), .int(now), .text(user)])
        guard inserted == 1 else {
            state.withLock { $0.taken = true }
            throw StoreError(.alreadyExists, "another request with Idempotency-Key \(key) was carried out first")
        }
    }

    /// Called once the transaction that recorded the key committed.
    func committed() { state.withLock { $0.recorded = true } }

    /// The calling request's claim when no write of it has recorded the key yet: a
    /// database write records it in its transaction (``record(_:)``) and, once that
    /// commits, says so (``committed()``).
    static var pending: IdempotencyClaim? {
        guard let claim = current, !claim.wasRecorded else { return nil }
        return claim
    }
}
