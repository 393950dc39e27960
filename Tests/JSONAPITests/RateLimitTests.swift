import AlmanacServer
import AlmanacTesting
import CalendarStore
import HTTPTypes
import JSONAPI
import Synchronization
import Testing

/// The JSON API's per-token rate limits: a bucket of a minute's requests that refills
/// evenly. The expected numbers follow from the limit alone: 60 a minute is one a second.
@Suite struct RateLimitTests {
    /// A clock the test moves.
    final class Clock: Sendable {
        let seconds = Mutex(1_000)
        func advance(_ by: Int) { seconds.withLock { $0 += by } }
        var now: @Sendable () -> Int { { self.seconds.withLock { $0 } } }
    }

    @Test func aBucketHoldsAMinuteAndRefillsEvenly() {
        let clock = Clock()
        let limiter = RateLimiter(now: clock.now)
        for taken in 1...60 {
            let decision = limiter.take("a", perMinute: 60)
            #expect(decision.allowed && decision.remaining == 60 - taken && decision.limit == 60)
        }
        let refused = limiter.take("a", perMinute: 60)
        #expect(!refused.allowed && refused.retryAfter == 1 && refused.remaining == 0 && refused.reset == 60)
        // Another key has its own bucket.
        #expect(limiter.take("b", perMinute: 60).allowed)
        clock.advance(1)
        #expect(limiter.take("a", perMinute: 60).allowed)
        #expect(!limiter.take("a", perMinute: 60).allowed)
        // Ten seconds give ten requests, not more.
        clock.advance(10)
        #expect((0..<10).allSatisfy { _ in limiter.take("a", perMinute: 60).allowed })
        #expect(!limiter.take("a", perMinute: 60).allowed)
        // An idle hour refills to the limit, never past it.
        clock.advance(3_600)
        #expect(limiter.take("a", perMinute: 60).remaining == 59)
        // A slow limit waits longer: 6 a minute is one every 10 s.
        for _ in 0..<6 { #expect(limiter.take("slow", perMinute: 6).allowed) }
        #expect(limiter.take("slow", perMinute: 6).retryAfter == 10)
        // A clock that goes back takes nothing away and gives nothing.
        clock.advance(-500)
        #expect(!limiter.take("slow", perMinute: 6).allowed)
    }

    @Test func idleBucketsAreForgottenPastTheBound() {
        let clock = Clock()
        let limiter = RateLimiter(now: clock.now)
        for index in 0..<10_000 { _ = limiter.take("k\(index)", perMinute: 60) }
        #expect(limiter.take("k0", perMinute: 60).allowed)
        clock.advance(60)
        // Every bucket has refilled: a new key forgets them rather than grow without bound.
        #expect(limiter.take("new", perMinute: 60).allowed)
        #expect(limiter.take("new", perMinute: 60).remaining == 58)
        #expect(limiter.take("k1", perMinute: 60).remaining == 59)
    }

    /// Over the API: a token's own limit, 429 with Retry-After and the RateLimit
    /// headers, other tokens untouched. The server's clock is fixed, so nothing refills.
    @Test(arguments: [ServerSetup.inProcess, ServerSetup.loopback])
    func aTokenPastItsLimitGets429(_ setup: ServerSetup) throws {
        let server = try TestServer(setup, users: ["anna"], now: { 1_796_083_200 })
        let limited = try server.createAPIToken(for: "anna", scope: .readWrite, rateLimit: 3)
        let other = try server.createAPIToken(for: "anna", scope: .read)
        for remaining in [2, 1, 0] {
            let answer = try server.api(bearer: limited).get("/api/v1/calendars")
            #expect(answer.status == 200)
            #expect(answer.headers["RateLimit-Limit"] == "3" && answer.headers["RateLimit-Remaining"] == "\(remaining)")
            #expect(answer.headers["RateLimit-Policy"] == "3;w=60")
        }
        let refused = try server.api(bearer: limited).get("/api/v1/calendars")
        #expect(refused.status == 429)
        #expect(refused["type"]?.stringValue == "urn:almanac:problem:too-many-requests")
        #expect(refused.headers["Retry-After"] == "20" && refused.headers["RateLimit-Remaining"] == "0")
        #expect(refused.headers["RateLimit-Reset"] == "60")
        // A refused write changes nothing.
        let write = try server.api(bearer: limited).call("POST", "/api/v1/calendars", #"{"title": "X"}"#)
        #expect(write.status == 429)
        #expect(try server.backend.eventStore(for: "anna").calendars().isEmpty)
        let free = try server.api(bearer: other).get("/api/v1/calendars")
        #expect(free.status == 200 && free.headers["RateLimit-Limit"] == String(AlmanacServer.defaultAPIRateLimit))
        #expect(free.headers["RateLimit-Remaining"] == String(AlmanacServer.defaultAPIRateLimit - 1))
    }
}
