import AlmanacTestSupport
import Testing

@testable import CalendarStore

@Suite("Calendars") struct CalendarTests {
    /// A calendar made without a colour gets the palette colour its owner's calendars use
    /// least, so a trainer's sessions and their other calendars look apart; a chosen
    /// colour is kept, and another user's calendars do not count.
    @Test(arguments: Backend.allCases) func newCalendarsGetDistinctColoursUnlessOneIsGiven(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let chosen = try store.createCalendar(
            EventCalendar(title: "Chosen", color: CalendarPalette.colors[0].lowercased() + "FF"))
        #expect(chosen.color == CalendarPalette.colors[0].lowercased() + "FF")
        var made: [String] = []
        for index in 1..<CalendarPalette.colors.count {
            made.append(try #require(try store.createCalendar(EventCalendar(title: "C\(index)")).color))
        }
        // The chosen colour (the palette's first, in another spelling) counts as taken:
        // the others take the rest of the palette in order, each once.
        #expect(made == Array(CalendarPalette.colors.dropFirst()))
        // Every colour is used once: the next starts over at the first.
        #expect(try store.createCalendar(EventCalendar(title: "Again")).color == CalendarPalette.colors[0])
        #expect(Set(CalendarPalette.colors.map { $0.uppercased() }).count == CalendarPalette.colors.count)
    }

    @Test func existingCalendarsWithoutAColourAreShownApart() {
        func calendar(_ title: String, _ color: String?) -> EventCalendar { EventCalendar(title: title, color: color) }
        var calendars = [
            calendar("Old", nil), calendar("Red", "#E69F00"), calendar("Also old", nil), calendar("Bad", "red"),
        ]
        for index in calendars.indices { calendars[index].id = "c\(index)" }
        let shown = CalendarPalette.displayColors(of: calendars)
        // Old takes the first colour; Red keeps its own (the palette's second); Also old the third; "red" is not a colour.
        #expect(
            shown == [
                "c0": CalendarPalette.colors[0], "c1": "#E69F00", "c2": CalendarPalette.colors[2],
                "c3": CalendarPalette.colors[3],
            ])
    }

    @Test(arguments: Backend.allCases) func createListUpdateDelete(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        var work = try store.createCalendar(
            EventCalendar(
                title: "Work", color: "#FF8800CC", description: "Office", timeZone: "Europe/Berlin", order: 2,
                componentTypes: [.event]))
        let home = try store.createCalendar(EventCalendar(title: "Home", order: 1), name: "home")
        #expect(home.name == "home")
        #expect(work.owner == "alice")
        #expect(try store.calendars().map(\.title) == ["Home", "Work"])
        #expect(try store.calendar(named: "home").id == home.id)

        work.title = "Office"
        work.color = "#112233"
        work.deadProperties["{http://example.com/ns}flavour"] =
            "<x:flavour xmlns:x=\"http://example.com/ns\">lemon</x:flavour>"
        let ctag = work.ctag
        let updated = try store.updateCalendar(work)
        #expect(updated.title == "Office")
        #expect(updated.color == "#112233")
        #expect(updated.timeZone == "Europe/Berlin")
        #expect(updated.componentTypes == [.event])
        #expect(updated.deadProperties == work.deadProperties)
        #expect(updated.ctag != ctag)
        #expect(try store.calendar(withIdentifier: work.id).title == "Office")

        try store.deleteCalendar(withIdentifier: home.id)
        #expect(try store.calendars().map(\.title) == ["Office"])
        #expect(throws: StoreError.self) { try store.calendar(withIdentifier: home.id) }
    }

    @Test(arguments: Backend.allCases) func badSettingsAreRefusedAndChangeNothing(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        for bad in [
            EventCalendar(title: ""), EventCalendar(title: "X", timeZone: "Mars/Olympus"),
            EventCalendar(title: "X", componentTypes: []),
        ] {
            let error = try #require(throws: StoreError.self) { try store.createCalendar(bad) }
            #expect(error.code == .invalidArgument)
        }
        _ = try store.createCalendar(EventCalendar(title: "A"), name: "a")
        let duplicate = try #require(throws: StoreError.self) {
            try store.createCalendar(EventCalendar(title: "B"), name: "a")
        }
        #expect(duplicate.code == .alreadyExists)
        #expect(try store.calendars().map(\.title) == ["A"])
    }

    @Test(arguments: Backend.allCases) func findOrCreateByTitle(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        #expect(try store.calendar(titled: "Trainings", createIfMissing: false) == nil)
        let created = try #require(try store.calendar(titled: "Trainings", createIfMissing: true))
        let found = try #require(try store.calendar(titled: "trainings", createIfMissing: true))
        #expect(found.id == created.id)
        #expect(try store.calendars().count == 1)
        // Bob's calendar of the same title is his own.
        let bobs = try #require(try fixture.store(for: "bob").calendar(titled: "Trainings", createIfMissing: true))
        #expect(bobs.id != created.id)
    }

    @Test(arguments: Backend.allCases) func racingFindOrCreateMakesOneCalendar(_ kind: Backend) async throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let identifiers = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask { try store.calendar(titled: "Race", createIfMissing: true)!.id }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(identifiers.count == 1)
        #expect(try store.calendars().count == 1)
    }

    @Test(arguments: Backend.allCases) func otherUsersCalendarsNeedAGrant(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.calendar()
        let bob = try fixture.store(for: "bob")
        let hidden = try #require(throws: StoreError.self) { try bob.calendar(withIdentifier: work.id) }
        #expect(hidden.code == .notFound)
        #expect(try bob.calendars().isEmpty)
        let put = try #require(throws: StoreError.self) {
            try bob.putResource(
                resource(vevent(uid: "x", ["DTSTART:20261201T090000Z"])), name: "x.ics", calendar: work.id,
                ifMatch: nil, ifNoneMatch: false)
        }
        #expect(put.code == .notFound)

        try fixture.store.share(calendar: work.id, with: "bob", access: .read)
        #expect(try bob.calendars().map(\.id) == [work.id])
        let readOnly = try #require(throws: StoreError.self) {
            try bob.putResource(
                resource(vevent(uid: "x", ["DTSTART:20261201T090000Z"])), name: "x.ics", calendar: work.id,
                ifMatch: nil, ifNoneMatch: false)
        }
        #expect(readOnly.code == .forbidden)
        // Changing it is the owner's.
        var renamed = try bob.calendar(withIdentifier: work.id)
        renamed.title = "Mine now"
        let update = try #require(throws: StoreError.self) { try bob.updateCalendar(renamed, ifMatch: nil) }
        #expect(update.code == .forbidden)

        try fixture.store.share(calendar: work.id, with: "bob", access: .readWrite)
        _ = try bob.putResource(
            resource(vevent(uid: "x", ["DTSTART:20261201T090000Z"])), name: "x.ics", calendar: work.id, ifMatch: nil,
            ifNoneMatch: false)
        #expect(try fixture.store.resources(calendar: work.id).map(\.name) == ["x.ics"])

        try fixture.store.share(calendar: work.id, with: "bob", access: nil)
        #expect(try bob.calendars().isEmpty)
    }
}
