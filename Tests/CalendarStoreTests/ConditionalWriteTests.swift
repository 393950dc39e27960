import AlmanacTestSupport
import Foundation
import Synchronization
import Testing

@testable import CalendarStore

/// If-Match on the event and calendar API is checked inside the write's transaction:
/// of twenty writers racing with one ETag, exactly one wins, on both databases.
extension ConcurrencyTests {
    /// Runs `write` on twenty threads of their own, released together; the outcomes.
    static func race(_ write: @escaping @Sendable (Int) -> Result<String, StoreError>) -> [Result<String, StoreError>] {
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let outcomes = Mutex<[Result<String, StoreError>]>([])
        for writer in 0..<20 {
            done.enter()
            Thread {
                gate.wait()
                let outcome = write(writer)
                outcomes.withLock { $0.append(outcome) }
                done.leave()
            }.start()
        }
        for _ in 0..<20 { gate.signal() }
        done.wait()
        return outcomes.withLock { $0 }
    }

    static func failures(_ outcomes: [Result<String, StoreError>]) -> [StoreError.Code] {
        outcomes.compactMap { if case .failure(let error) = $0 { error.code } else { nil } }
    }

    @Test(arguments: Backend.allCases) func exactlyOneIfMatchEventSaveWins(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.calendar()
        let saved = try fixture.store.save(Event(title: "Start", start: zoned("UTC", 2026, 12, 2, 9), calendarIdentifier: work.id))
        let etag = try #require(saved.etag)
        let stores = try (0..<20).map { _ in try fixture.store(for: "alice") }
        let outcomes = Self.race { writer in
            var event = saved
            event.title = "Writer \(writer)"
            do throws(StoreError) {
                return .success(try stores[writer].save(event, span: .thisEvent, ifMatch: etag).title ?? "")
            } catch {
                return .failure(error)
            }
        }
        let winners = outcomes.compactMap { try? $0.get() }
        #expect(winners.count == 1 && Self.failures(outcomes) == Array(repeating: .preconditionFailed, count: 19))
        #expect(try fixture.store.event(withIdentifier: try #require(saved.localIdentifier)).title == winners.first)
        // Removing with the old ETag fails too; with the current one it works.
        #expect(throws: StoreError.self) { try fixture.store.remove(saved, span: .thisEvent, ifMatch: etag) }
        let current = try fixture.store.event(withIdentifier: try #require(saved.localIdentifier))
        try fixture.store.remove(current, span: .thisEvent, ifMatch: current.etag)
    }

    @Test(arguments: Backend.allCases) func exactlyOneIfMatchCalendarUpdateWins(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.calendar()
        let stores = try (0..<20).map { _ in try fixture.store(for: "alice") }
        let outcomes = Self.race { writer in
            var calendar = work
            calendar.title = "Writer \(writer)"
            do throws(StoreError) {
                return .success(try stores[writer].updateCalendar(calendar, ifMatch: work.etag).title)
            } catch {
                return .failure(error)
            }
        }
        let winners = outcomes.compactMap { try? $0.get() }
        #expect(winners.count == 1 && Self.failures(outcomes) == Array(repeating: .preconditionFailed, count: 19))
        #expect(try fixture.store.calendar(withIdentifier: work.id).title == winners.first)
        #expect(throws: StoreError.self) { try fixture.store.deleteCalendar(withIdentifier: work.id, ifMatch: work.etag) }
    }
}
