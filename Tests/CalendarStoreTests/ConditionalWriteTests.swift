import AlmanacTestSupport
import Foundation
import Recurrence
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
        let saved = try fixture.store.save(
            Event(title: "Start", start: zoned("UTC", 2026, 12, 2, 9), calendarIdentifier: work.id))
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
        #expect(throws: StoreError.self) {
            try fixture.store.deleteCalendar(withIdentifier: work.id, ifMatch: work.etag)
        }
    }
}

/// The cache of prepared objects is bounded in bytes: big objects cannot pin memory.
@Suite struct ObjectCacheTests {
    static func series(bytes: Int) throws -> CachedSeries {
        let text = resource(
            vevent(uid: "big", ["DTSTART:20261201T090000Z", "DESCRIPTION:" + String(repeating: "x", count: bytes)]))
        let object = try CalendarObject(parsing: text)
        let prepared = try CalendarObjectExpansion(resolver: ZoneResolver(calendar: object.calendar)).prepare(
            object.members, uid: object.uid)
        return CachedSeries(prepared: prepared, stored: StoredObject(data: text), fromSkeleton: false)
    }

    @Test func entriesAreCountedInBytesAndEvictedToStayUnderTheBound() throws {
        let cache = ObjectCache(capacityBytes: 1 << 20)
        let entry = try Self.series(bytes: 20_000)  // about 80 KB counted
        for id in 0..<100 { cache.store(entry, id: Int64(id), etag: "e\(id)") }
        #expect(cache.bytes <= 1 << 20 && cache.bytes > 0)
        #expect(cache.object(id: 99, etag: "e99") != nil)  // the latest stays
        #expect(cache.object(id: 99, etag: "other") == nil)
        // One object larger than an eighth of the bound is not kept at all.
        cache.store(try Self.series(bytes: 40_000), id: 1_000, etag: "huge")
        #expect(cache.object(id: 1_000, etag: "huge") == nil)
    }

    /// A short text can list thousands of instances (COUNT=4000): they count, so a
    /// cache of such series stays inside its bound too.
    @Test func instancesListedUpFrontCount() throws {
        let text = resource(vevent(uid: "many", ["DTSTART:20261201T090000Z", "RRULE:FREQ=DAILY;COUNT=4000"]))
        let object = try CalendarObject(parsing: text)
        let prepared = try CalendarObjectExpansion(resolver: ZoneResolver(calendar: object.calendar)).prepare(
            object.members, uid: object.uid)
        #expect(prepared.listedInstanceBytes >= 4_000 * 9)
        let cache = ObjectCache(capacityBytes: 1 << 20)
        let entry = CachedSeries(prepared: prepared, stored: StoredObject(data: text), fromSkeleton: false)
        cache.store(entry, id: 1, etag: "e")
        #expect(cache.bytes >= 4 * text.count + prepared.listedInstanceBytes)
        for id in 2..<200 { cache.store(entry, id: Int64(id), etag: "e") }
        #expect(cache.bytes <= 1 << 20)
    }
}

/// Per-user quotas: a write past them is refused with insufficientStorage (507) and
/// changes nothing; replacing, shrinking and deleting keep working.
@Suite struct QuotaTests {
    @Test(arguments: Backend.allCases) func objectsPastTheQuotaAreRefused(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.calendar()
        let home = try fixture.calendar("Home")
        (fixture.backend as! DatabaseBackend).quota = StoreQuota(maxObjects: 3)
        for (index, calendar) in [work, home, work].enumerated() {
            _ = try fixture.store.putResource(
                resource(vevent(uid: "q\(index)", ["DTSTART:20261201T090000Z"])), name: "q\(index).ics",
                calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
        }
        // Counted over every calendar the user owns.
        let refused = #expect(throws: StoreError.self) {
            try fixture.store.putResource(
                resource(vevent(uid: "q3", ["DTSTART:20261201T090000Z"])), name: "q3.ics", calendar: home.id,
                ifMatch: nil, ifNoneMatch: false)
        }
        #expect(refused?.code == .insufficientStorage)
        #expect(throws: StoreError.self) {
            try fixture.store.save(Event(title: "x", start: zoned("UTC", 2026, 12, 3, 9), calendarIdentifier: work.id))
        }
        #expect(try fixture.store.resources(calendar: home.id).count == 1)
        // Replacing an object adds none; after a deletion there is room again.
        _ = try fixture.store.putResource(
            resource(vevent(uid: "q0", ["DTSTART:20261202T090000Z"])), name: "q0.ics", calendar: work.id, ifMatch: nil,
            ifNoneMatch: false)
        try fixture.store.deleteResource(named: "q1.ics", calendar: home.id, ifMatch: nil)
        _ = try fixture.store.putResource(
            resource(vevent(uid: "q3", ["DTSTART:20261201T090000Z"])), name: "q3.ics", calendar: home.id, ifMatch: nil,
            ifNoneMatch: false)
        // Another user's calendars count apart.
        let bob = try fixture.store(for: "bob")
        let bobs = try bob.createCalendar(EventCalendar(title: "Bob"))
        _ = try bob.save(Event(title: "b", start: zoned("UTC", 2026, 12, 3, 9), calendarIdentifier: bobs.id))
    }

    @Test(arguments: Backend.allCases) func bytesPastTheQuotaAreRefusedButShrinkingWorks(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.calendar()
        (fixture.backend as! DatabaseBackend).quota = StoreQuota(maxBytes: 4_000)
        let small = resource(vevent(uid: "s", ["DTSTART:20261201T090000Z"]))
        let big = resource(
            vevent(uid: "s", ["DTSTART:20261201T090000Z", "DESCRIPTION:" + String(repeating: "x", count: 5_000)]))
        _ = try fixture.store.putResource(small, name: "s.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        let refused = #expect(throws: StoreError.self) {
            try fixture.store.putResource(big, name: "s.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        }
        #expect(refused?.code == .insufficientStorage)
        #expect(try fixture.store.resource(named: "s.ics", calendar: work.id).data == small)
        (fixture.backend as! DatabaseBackend).quota = StoreQuota()
        _ = try fixture.store.putResource(big, name: "s.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        (fixture.backend as! DatabaseBackend).quota = StoreQuota(maxBytes: 4_000)
        // Over the quota now (it was lowered), a write that shrinks still passes.
        _ = try fixture.store.putResource(small, name: "s.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
    }
}
