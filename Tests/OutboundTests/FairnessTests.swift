import AlmanacTestSupport
import Dispatch
import Foundation
import Outbound
import Synchronization
import Testing

/// The outbound client gives up on a receiver that never answers, and the work queue
/// keeps one owner's slow jobs from holding up another's.
@Suite struct FairnessTests {
    /// A tarpit (accepts, never answers) costs the first-byte deadline, not the whole
    /// timeout, and the failure says why.
    @Test func aReceiverThatNeverAnswersIsGivenUpAtTheFirstByteDeadline() throws {
        let tarpit = try Tarpit()
        var options = OutboundHTTPClient.Options(policy: OutboundPolicy(allowsPrivateAddresses: true))
        options.firstByteTimeoutMilliseconds = 1_000
        options.timeoutMilliseconds = 60_000
        let client = try OutboundHTTPClient(options: options)
        let response = client.post(tarpit.url + "/hook", headers: [], body: Array("{}".utf8))
        #expect(response.status == nil)
        #expect(response.error == "no answer within 1 s", "\(response)")
        #expect(tarpit.connections == 1)
    }

    /// One owner with many jobs that each wait long, another with one short job: the
    /// short one runs while the first owner's are still waiting, and no more of the
    /// first owner's run at once than allowed.
    @Test func oneOwnersSlowJobsDoNotHoldUpAnother() throws {
        let queue = FairWorkQueue(workers: 3, perOwner: 1, maxWaitingPerOwner: 10, name: "test-fair")
        defer { queue.stop() }
        let release = DispatchSemaphore(value: 0)
        let mostAtOnce = Mutex((now: 0, most: 0))
        let started = DispatchGroup()
        for _ in 0..<5 {
            started.enter()
            #expect(
                queue.submit(for: ["slow"]) {
                    mostAtOnce.withLock {
                        $0.now += 1
                        $0.most = max($0.most, $0.now)
                    }
                    started.leave()
                    release.wait()
                    mostAtOnce.withLock { $0.now -= 1 }
                })
        }
        let quick = DispatchSemaphore(value: 0)
        #expect(queue.submit(for: ["quick"]) { quick.signal() })
        // The quick job finishes while every slow one still waits to be released.
        #expect(quick.wait(timeout: .now() + 20) == .success, "the other owner's job ran")
        #expect(queue.runningCount(for: "slow") == 1)
        // A job for two owners runs on the free one's turn.
        let shared = DispatchSemaphore(value: 0)
        #expect(queue.submit(for: ["slow", "quick"]) { shared.signal() })
        #expect(shared.wait(timeout: .now() + 20) == .success)
        for _ in 0..<5 { release.signal() }
        #expect(started.wait(timeout: .now() + 20) == .success)
        #expect(mostAtOnce.withLock { $0.most } == 1, "one slow job at a time")
    }

    /// An owner with as many jobs waiting as allowed gets the next refused; others don't.
    @Test func waitingJobsAreBoundedPerOwner() {
        let queue = FairWorkQueue(workers: 1, perOwner: 1, maxWaitingPerOwner: 2, name: "test-bounded")
        defer { queue.stop() }
        let release = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        #expect(
            queue.submit(for: ["a"]) {
                running.signal()
                release.wait()
            })
        #expect(running.wait(timeout: .now() + 20) == .success)
        #expect(queue.submit(for: ["a"]) {})
        #expect(queue.submit(for: ["a"]) {})
        #expect(!queue.submit(for: ["a"]) {}, "a third waiting job of one owner is refused")
        #expect(queue.submit(for: ["b"]) {})
        release.signal()
    }
}
