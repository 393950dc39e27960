import AlmanacTestSupport
import CalendarStore
import ICalendar
import Testing

@Suite("Calendar object resources") struct ResourceTests {
    @Test(arguments: Backend.allCases) func putKeepsBytesAndPreconditionsHold(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        // Unknown properties, parameters and components survive byte for byte.
        let original = resource(
            vevent(
                uid: "lunch@x",
                [
                    "DTSTART;TZID=Europe/Berlin:20261201T120000", "DURATION:PT1H", "SUMMARY:Lunch",
                    "X-FOO;X-P=\"a:b\":bar",
                ])
                + ["BEGIN:X-THING", "X-A:1", "END:X-THING"])
        let etag = try store.putResource(
            original, name: "lunch.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let stored = try store.resource(named: "lunch.ics", calendar: work.id)
        #expect(stored.data == original)
        #expect(stored.etag == etag)
        #expect(stored.uid == "lunch@x")

        // If-None-Match: * on an existing resource, and a stale If-Match, fail and change nothing.
        let changed = resource(vevent(uid: "lunch@x", ["DTSTART:20261202T120000Z", "SUMMARY:Changed"]))
        let exists = try #require(throws: StoreError.self) {
            try store.putResource(changed, name: "lunch.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: true)
        }
        #expect(exists.code == .preconditionFailed)
        let stale = try #require(throws: StoreError.self) {
            try store.putResource(
                changed, name: "lunch.ics", calendar: work.id, ifMatch: "\"0-stale\"", ifNoneMatch: false)
        }
        #expect(stale.code == .preconditionFailed)
        let missing = try #require(throws: StoreError.self) {
            try store.putResource(changed, name: "other.ics", calendar: work.id, ifMatch: etag, ifNoneMatch: false)
        }
        #expect(missing.code == .preconditionFailed)
        #expect(try store.resource(named: "lunch.ics", calendar: work.id).data == original)

        let newTag = try store.putResource(
            changed, name: "lunch.ics", calendar: work.id, ifMatch: etag, ifNoneMatch: false)
        #expect(newTag != etag)
        let staleDelete = try #require(throws: StoreError.self) {
            try store.deleteResource(named: "lunch.ics", calendar: work.id, ifMatch: etag)
        }
        #expect(staleDelete.code == .preconditionFailed)
        try store.deleteResource(named: "lunch.ics", calendar: work.id, ifMatch: newTag)
        #expect(try store.resources(calendar: work.id).isEmpty)
        let gone = try #require(throws: StoreError.self) { try store.resource(named: "lunch.ics", calendar: work.id) }
        #expect(gone.code == .notFound)
    }

    @Test(arguments: Backend.allCases) func oneUIDPerCalendar(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        let home = try fixture.calendar("Home")
        let data = resource(vevent(uid: "same@x", ["DTSTART:20261201T090000Z"]))
        _ = try store.putResource(data, name: "a.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        let conflict = try #require(throws: StoreError.self) {
            try store.putResource(data, name: "b.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        }
        #expect(conflict.code == .uidConflict)
        #expect(conflict.conflictingResource == "a.ics")
        // Another calendar may hold the same UID.
        _ = try store.putResource(data, name: "b.ics", calendar: home.id, ifMatch: nil, ifNoneMatch: false)
        #expect(try store.resources(calendar: work.id).map(\.name) == ["a.ics"])
    }

    /// A batch read (CalDAV multiget) returns the named resources in the order asked,
    /// whatever characters their names hold, and leaves out names with nothing stored.
    @Test(arguments: Backend.allCases) func batchReadsKeepOrderAndOddNames(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        let names = [
            "q\"uote.ics", "back\\slash.ics", "a,b.ics", "{brace}.ics", "NULL.ics", "caf\u{e9} \u{1F4C5}.ics",
            "plain.ics",
        ]
        var etags: [String: String] = [:]
        for (index, name) in names.enumerated() {
            etags[name] = try store.putResource(
                // The title is the name as TEXT (RFC 5545 §3.3.11): its backslash and comma escaped.
                resource(
                    vevent(
                        uid: "odd-\(index)", ["DTSTART:20261201T090000Z", "SUMMARY:\(TextEscaping.escape(name))"])),
                name: name,
                calendar: work.id, ifMatch: nil,
                ifNoneMatch: false)
        }
        let asked = names.reversed() + ["missing.ics"] + [names[0]]
        let found = try store.resources(named: asked, calendar: work.id)
        #expect(found.map(\.name) == names.reversed() + [names[0]])
        for resource in found {
            #expect(resource.etag == etags[resource.name])
            #expect(
                String(decoding: resource.data, as: UTF8.self).contains(
                    "SUMMARY:\(TextEscaping.escape(resource.name))"))
        }
    }

    /// Each malformed or ambiguous object is refused with a clear code, and the store is unchanged.
    @Test(arguments: Backend.allCases) func invalidObjectsAreRefused(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar("Events only", types: [.event])
        let good = resource(vevent(uid: "keep@x", ["DTSTART:20261201T090000Z", "SUMMARY:Keep"]))
        let etag = try store.putResource(good, name: "keep.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        let token = try store.calendar(withIdentifier: work.id).syncToken

        let cases: [(String, [UInt8], StoreError.Code)] = [
            ("not iCalendar", Array("hello".utf8), .invalidCalendarData),
            ("unterminated", Array("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\n".utf8), .invalidCalendarData),
            (
                "two UIDs",
                resource(
                    vevent(uid: "a", ["DTSTART:20261201T090000Z"]) + vevent(uid: "b", ["DTSTART:20261201T090000Z"])),
                .invalidCalendarObject
            ),
            (
                "two types",
                resource(
                    vevent(uid: "a", ["DTSTART:20261201T090000Z"]) + [
                        "BEGIN:VTODO", "UID:a", "DTSTAMP:20261101T000000Z", "END:VTODO",
                    ]), .invalidCalendarObject
            ),
            (
                "two masters",
                resource(
                    vevent(uid: "a", ["DTSTART:20261201T090000Z"]) + vevent(uid: "a", ["DTSTART:20261202T090000Z"])),
                .invalidCalendarObject
            ),
            (
                "METHOD",
                Array(
                    ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:x\r\nMETHOD:REQUEST\r\n"
                        + vevent(uid: "a", ["DTSTART:20261201T090000Z"]).joined(separator: "\r\n")
                        + "\r\nEND:VCALENDAR\r\n").utf8), .invalidCalendarObject
            ),
            ("no DTSTART", resource(vevent(uid: "a", ["SUMMARY:x"])), .invalidCalendarData),
            (
                "override type mismatch",
                resource(
                    vevent(uid: "a", ["DTSTART:20261201T090000Z", "RRULE:FREQ=DAILY"])
                        + vevent(uid: "a", ["RECURRENCE-ID;VALUE=DATE:20261202", "DTSTART:20261202T100000Z"])),
                .invalidCalendarData
            ),
            (
                "task in an events calendar",
                resource(["BEGIN:VTODO", "UID:t", "DTSTAMP:20261101T000000Z", "SUMMARY:Task", "END:VTODO"]),
                .unsupportedComponent
            ),
            ("unreadable DTSTART", resource(vevent(uid: "a", ["DTSTART:2026"])), .invalidCalendarData),
            (
                "bad RRULE", resource(vevent(uid: "a", ["DTSTART:20261201T090000Z", "RRULE:FREQ=SOMETIMES"])),
                .invalidCalendarData
            ),
        ]
        for (label, data, code) in cases {
            let error = try #require(throws: StoreError.self, "\(label)") {
                try store.putResource(data, name: "bad.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
            }
            #expect(error.code == code, "\(label): \(error)")
        }
        // The parser's diagnostic carries the line.
        let located = try #require(throws: StoreError.self) {
            try store.putResource(
                Array("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nEND:VTODO\r\nEND:VCALENDAR\r\n".utf8),
                name: "bad.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        }
        #expect(located.diagnostic?.line == 4)
        #expect(try store.resources(calendar: work.id).map(\.name) == ["keep.ics"])
        #expect(try store.resource(named: "keep.ics", calendar: work.id).etag == etag)
        #expect(try store.changes(since: token, calendar: work.id).changed.isEmpty)
    }

    @Test(arguments: Backend.allCases) func tasksAndJournalsAreStoredAndQueried(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        _ = try store.putResource(
            resource([
                "BEGIN:VTODO", "UID:t", "DTSTAMP:20261101T000000Z", "DUE:20261202T170000Z", "SUMMARY:File report",
                "END:VTODO",
            ]),
            name: "t.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        _ = try store.putResource(
            resource([
                "BEGIN:VJOURNAL", "UID:j", "DTSTAMP:20261101T000000Z", "DTSTART;VALUE=DATE:20261203", "SUMMARY:Notes",
                "END:VJOURNAL",
            ]),
            name: "j.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        #expect(try store.resources(calendar: work.id).map(\.componentType) == [.journal, .todo])
        #expect(try store.events(in: firstDecemberWeek).isEmpty)
        let all = try store.events(
            in: firstDecemberWeek, calendars: nil, matching: EventFilter(componentTypes: [.todo, .journal]),
            timeZone: nil)
        #expect(all.map(\.title) == ["File report", "Notes"])
    }
}

@Suite("Change tracking") struct SyncTests {
    @Test(arguments: Backend.allCases) func changesSinceATokenListWritesAndTombstones(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        for name in ["a", "b", "c"] {
            _ = try store.putResource(
                resource(vevent(uid: name, ["DTSTART:20261201T090000Z"])), name: "\(name).ics", calendar: work.id,
                ifMatch: nil, ifNoneMatch: false)
        }
        let initial = try store.changes(since: nil, calendar: work.id)
        #expect(Set(initial.changed.map(\.name)) == ["a.ics", "b.ics", "c.ics"])
        #expect(initial.deleted.isEmpty)
        let ctag = try store.calendar(withIdentifier: work.id).ctag

        _ = try store.putResource(
            resource(vevent(uid: "b", ["DTSTART:20261202T090000Z"])), name: "b.ics", calendar: work.id, ifMatch: nil,
            ifNoneMatch: false)
        try store.deleteResource(named: "c.ics", calendar: work.id, ifMatch: nil)
        _ = try store.putResource(
            resource(vevent(uid: "d", ["DTSTART:20261201T090000Z"])), name: "d.ics", calendar: work.id, ifMatch: nil,
            ifNoneMatch: false)
        let delta = try store.changes(since: initial.token, calendar: work.id)
        #expect(delta.changed.map(\.name) == ["b.ics", "d.ics"])
        #expect(delta.deleted == ["c.ics"])
        #expect(
            delta.changed.map(\.etag) == [
                try store.resource(named: "b.ics", calendar: work.id).etag,
                try store.resource(named: "d.ics", calendar: work.id).etag,
            ])
        #expect(try store.calendar(withIdentifier: work.id).ctag != ctag)

        // Nothing new since the latest token; the token round-trips through its text.
        let text = delta.token.description
        let parsed: SyncToken? = SyncToken(text)
        #expect(parsed == delta.token)
        let again = try store.changes(since: parsed, calendar: work.id)
        #expect(again.changed.isEmpty && again.deleted.isEmpty && again.token == delta.token)

        // A resource re-created after deletion is a change, not a tombstone.
        _ = try store.putResource(
            resource(vevent(uid: "c", ["DTSTART:20261201T090000Z"])), name: "c.ics", calendar: work.id, ifMatch: nil,
            ifNoneMatch: false)
        let recreated = try store.changes(since: initial.token, calendar: work.id)
        #expect(recreated.deleted.isEmpty)
        #expect(Set(recreated.changed.map(\.name)) == ["b.ics", "c.ics", "d.ics"])
    }

    @Test(arguments: Backend.allCases) func unknownAndExpiredTokensAreRefused(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        let home = try fixture.calendar("Home")
        _ = try store.putResource(
            resource(vevent(uid: "a", ["DTSTART:20261201T090000Z"])), name: "a.ics", calendar: work.id, ifMatch: nil,
            ifNoneMatch: false)
        let token = try store.changes(since: nil, calendar: work.id).token
        for bad in [
            SyncToken(calendar: work.id, sequence: token.sequence + 5), SyncToken(calendar: home.id, sequence: 0),
            token.with(calendar: "nope"),
        ] {
            let error = try #require(throws: StoreError.self) { try store.changes(since: bad, calendar: work.id) }
            #expect(error.code == .invalidSyncToken)
        }
        #expect(SyncToken("garbage") == nil)
        try store.deleteResource(named: "a.ics", calendar: work.id, ifMatch: nil)
        let later = try store.changes(since: token, calendar: work.id)
        #expect(later.deleted == ["a.ics"])
        try store.pruneTombstones(through: later.token, calendar: work.id)
        let expired = try #require(throws: StoreError.self) { try store.changes(since: token, calendar: work.id) }
        #expect(expired.code == .invalidSyncToken)
        #expect(try store.changes(since: later.token, calendar: work.id).deleted.isEmpty)
    }
}

extension SyncToken {
    func with(calendar: String) -> SyncToken { SyncToken(calendar: calendar, sequence: sequence) }
}
