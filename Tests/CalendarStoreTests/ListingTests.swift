import AlmanacTestSupport
import ICalendar
import Testing

@testable import CalendarStore

@Suite("Listings for CalDAV") struct ListingTests {
    /// The objects with an instance in a range, asked directly (which stops at the first
    /// instance and answers one-off objects from their row), agree with the objects of
    /// the full occurrence query, over a generated calendar and many random windows.
    @Test(arguments: Backend.allCases) func overlappingResourcesAgreeWithOccurrences(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let calendar = try store.createCalendar(EventCalendar(title: "Generated", timeZone: "America/New_York"))
        let (objects, _) = try CalendarFileSplitter.split(try Corpus.generate(events: 600, seed: 11))
        let imported = try store.importObjects(objects, calendar: calendar.id)
        #expect(imported.allSatisfy { if case .success = $0 { true } else { false } })
        let names = Dictionary(
            uniqueKeysWithValues: try store.resources(calendar: calendar.id).map { ($0.localIdentifier, $0.name) })

        var random = SplitMix64(seed: 3)
        for _ in 0..<60 {
            // Windows from an hour to two months, over the generator's years.
            let start = utc(2024, 1, 1) + Int.random(in: 0..<(4 * 365 * 86_400), using: &random)
            let range = TimeRange(start: start, end: start + Int.random(in: 3_600...(60 * 86_400), using: &random))
            let listed = try store.resources(overlapping: range, componentType: .event, calendar: calendar.id)
            let expected = Set(
                try store.events(in: range, calendars: [calendar.id], matching: EventFilter(componentTypes: [.event]))
                    .compactMap {
                        names[$0.eventIdentifier]
                    })
            #expect(Set(listed.map(\.name)) == expected)
            #expect(listed.map(\.name) == listed.map(\.name).sorted())

            // Busy time, read without building occurrences, is the busy occurrences' time.
            struct Key: Hashable {
                var start, end: Int
                var event: String
                var tentative, allDay: Bool
            }
            let busy = try store.busyTime(in: range, calendars: [calendar.id], timeZone: nil).map {
                Key(
                    start: $0.start, end: $0.end, event: $0.eventIdentifier + ($0.recurrenceID?.text ?? ""),
                    tentative: $0.isTentative, allDay: $0.isAllDay)
            }
            let occurrences = try store.events(in: range, calendars: [calendar.id]).filter {
                !$0.isCancelled && !$0.isTransparent
            }.map {
                Key(
                    start: $0.startInstant, end: $0.endInstant,
                    event: $0.eventIdentifier + ($0.recurrenceID?.text ?? ""), tentative: $0.status == .tentative,
                    allDay: $0.isAllDay)
            }
            #expect(busy.count == occurrences.count && Set(busy) == Set(occurrences))
        }
    }

    /// Listing changes a few at a time, each page continuing from the checkpoint of
    /// the one before, while other writes and deletions happen in between, ends with
    /// exactly the state a full listing gives: nothing skipped, nothing lost.
    @Test(arguments: Backend.allCases) func limitedChangeListingsLoseNothing(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        func put(_ number: Int, _ summary: String = "First") throws {
            _ = try store.putResource(
                resource(vevent(uid: "e\(number)", ["DTSTART:20261201T090000Z", "SUMMARY:\(summary)"])),
                name: "e\(number).ics", calendar: work.id,
                ifMatch: nil, ifNoneMatch: false)
        }
        for number in 0..<7 { try put(number) }
        let start = try store.changes(since: nil, calendar: work.id)

        // The client's view: name → ETag, built page by page.
        var view: [String: String] = [:]
        var token: SyncToken?
        var pages = 0
        while true {
            let page = try store.changes(since: token, calendar: work.id, limit: 3)
            #expect(page.changed.count + page.deleted.count <= 3)
            for info in page.changed { view[info.name] = info.etag }
            for name in page.deleted { view[name] = nil }
            token = page.token
            pages += 1
            switch pages {
            case 1:
                // Changes land while the client is between pages.
                try store.deleteResource(named: "e0.ics", calendar: work.id, ifMatch: nil)
                try put(5, "Changed")
                try put(7)
            case 2:
                try store.deleteResource(named: "e6.ics", calendar: work.id, ifMatch: nil)
            default: break
            }
            if !page.isTruncated { break }
            #expect(pages < 20)
        }
        #expect(pages >= 3)
        let truth = Dictionary(uniqueKeysWithValues: try store.resources(calendar: work.id).map { ($0.name, $0.etag) })
        #expect(view == truth)
        // The last page's token is the calendar's current one.
        #expect(token == (try store.changes(since: nil, calendar: work.id)).token)
        #expect(start.token != token)
        // The largest limit a client can write lists everything, uncut.
        let all = try store.changes(since: nil, calendar: work.id, limit: Int.max)
        #expect(!all.isTruncated)
        #expect(Set(all.changed.map(\.name)) == Set(truth.keys))
    }
}

extension ListingTests {
    /// Transparency is answered from the row (one-off events) or the skeleton (series),
    /// and an override can differ from its master.
    @Test(arguments: Backend.allCases) func transparencyOfEveryKindOfOccurrence(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        _ = try store.putResource(
            resource(
                vevent(
                    uid: "free", ["DTSTART:20261201T090000Z", "DURATION:PT1H", "TRANSP:TRANSPARENT", "SUMMARY:Free"])),
            name: "free.ics",
            calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        _ = try store.putResource(
            resource(vevent(uid: "busy", ["DTSTART:20261201T100000Z", "DURATION:PT1H", "SUMMARY:Busy"])),
            name: "busy.ics", calendar: work.id,
            ifMatch: nil, ifNoneMatch: true)
        _ = try store.putResource(
            resource(
                vevent(
                    uid: "series",
                    [
                        "DTSTART:20261201T120000Z", "DURATION:PT1H", "RRULE:FREQ=DAILY;COUNT=3", "TRANSP:TRANSPARENT",
                        "SUMMARY:S",
                    ])
                    + vevent(
                        uid: "series",
                        [
                            "RECURRENCE-ID:20261202T120000Z", "DTSTART:20261202T120000Z", "DURATION:PT1H",
                            "TRANSP:OPAQUE", "SUMMARY:S",
                        ])),
            name: "series.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        let found = try store.events(in: firstDecemberWeek).map { ($0.title ?? "", $0.isTransparent) }
        #expect(found.map(\.0) == ["Free", "Busy", "S", "S", "S"])
        #expect(found.map(\.1) == [true, false, true, false, true])
    }
}

/// What delta sync reads from the change log: whether each write created or updated,
/// what a deletion held, and the bytes in the same transaction.
@Suite("Change kinds") struct ChangeKindTests {
    @Test(arguments: Backend.allCases) func eachChangeSaysWhatHappened(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        func put(_ uid: String, _ summary: String) throws {
            _ = try store.putResource(
                resource(vevent(uid: uid, ["DTSTART:20261201T090000Z", "SUMMARY:\(summary)"])), name: "\(uid).ics",
                calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        }
        for uid in ["kept", "edited", "gone", "again"] { try put(uid, "First") }
        let initial = try store.changes(since: nil, calendar: work.id)
        // An initial sync lists what exists, all of it new to the client.
        #expect(initial.entries.map(\.kind) == Array(repeating: .created, count: 4))
        #expect(initial.entries.map(\.uid) == ["kept", "edited", "gone", "again"])
        let goneID = try #require(initial.entries.first { $0.uid == "gone" }?.eventIdentifier)

        try put("edited", "Second")
        try store.deleteResource(named: "gone.ics", calendar: work.id, ifMatch: nil)
        try store.deleteResource(named: "again.ics", calendar: work.id, ifMatch: nil)
        try put("again", "Back")
        try put("new", "First")
        try put("new", "Edited after it was created")

        let delta = try store.changes(since: initial.token, calendar: work.id, limit: nil, includingData: true)
        let seen = delta.entries.map { "\($0.kind.rawValue) \($0.name)" }
        #expect(seen == ["updated edited.ics", "deleted gone.ics", "created again.ics", "created new.ics"])
        let gone = try #require(delta.entries.first { $0.kind == .deleted })
        #expect(gone.eventIdentifier == goneID && gone.uid == "gone" && gone.resource == nil && gone.data == nil)
        // Sequences rise in change order, and the last is the token's position.
        #expect(delta.entries.map(\.sequence) == delta.entries.map(\.sequence).sorted())
        #expect(delta.entries.last?.sequence == delta.token.sequence)
        for entry in delta.entries where entry.kind != .deleted {
            let stored = try store.resource(named: entry.name, calendar: work.id)
            #expect(entry.data == stored.data)
            #expect(entry.resource?.etag == stored.etag)
            #expect(entry.eventIdentifier == entry.resource?.localIdentifier)
        }
        // Without data, nothing is read but the rows.
        #expect(try store.changes(since: initial.token, calendar: work.id).entries.allSatisfy { $0.data == nil })
    }

    /// With their bytes, a listing holds at most so many of them: it stops at a
    /// checkpoint as at a limit, and the pages together are the whole listing. A resource
    /// larger than the bound alone still comes, one to a page.
    @Test(arguments: Backend.allCases) func dataPagesStayUnderTheirBound(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = try #require(fixture.store as? DatabaseEventStore)
        let work = try fixture.calendar()
        for (number, length) in [100, 900, 900, 5_000, 100, 100].enumerated() {
            _ = try store.putResource(
                resource(
                    vevent(
                        uid: "e\(number)",
                        ["DTSTART:20261201T090000Z", "DESCRIPTION:" + String(repeating: "x", count: length)])),
                name: "e\(number).ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        }
        let whole = try store.changes(since: nil, calendar: work.id)
        let sizes = whole.changed.map(\.size)
        let bound = sizes[0] + sizes[1] + sizes[2]  // the first page holds three, exactly
        // The pages the sizes call for: greedily, each as long as its bytes stay under the bound.
        var expected: [[String]] = []
        var page: [String] = []
        var bytes = 0
        for (info, size) in zip(whole.changed, sizes) {
            if !page.isEmpty && bytes + size > bound {
                expected.append(page)
                page = []
                bytes = 0
            }
            page.append(info.name)
            bytes += size
        }
        expected.append(page)
        #expect(expected.count >= 3)

        var pages: [[String]] = []
        var token: SyncToken?
        while true {
            let listed = try store.changes(
                since: token, calendar: work.id, limit: nil, includingData: true, maxDataBytes: bound)
            pages.append(listed.entries.map(\.name))
            #expect(listed.entries.allSatisfy { $0.data?.count == $0.resource?.size })
            token = listed.token
            if !listed.isTruncated { break }
            #expect(pages.count < 10)
        }
        #expect(pages == expected)
        #expect(token == whole.token)
    }
}
