import AlmanacTestSupport
import CalendarStore
import CivilTime
import ICalendar
import Recurrence
import Testing

/// A weekly series on Tuesdays at 18:00 in Berlin, six times: 2026-12-01, 12-08,
/// 12-15, 12-22, 12-29 and 2027-01-05 (17:00 UTC each, all in winter time).
struct WeeklySeries {
    let fixture: StoreFixture
    let calendar: EventCalendar
    let seriesID: String
    static let tuesdays = [(2026, 12, 1), (2026, 12, 8), (2026, 12, 15), (2026, 12, 22), (2026, 12, 29), (2027, 1, 5)]
        .map { utc($0.0, $0.1, $0.2, 17) }
    static let window = TimeRange(start: utc(2026, 11, 1), end: utc(2027, 2, 1))

    init(_ kind: Backend, count: String = "COUNT=6") throws {
        fixture = try StoreFixture(kind)
        calendar = try fixture.calendar()
        var event = Event(
            title: "Yoga", start: zoned("Europe/Berlin", 2026, 12, 1, 18), end: zoned("Europe/Berlin", 2026, 12, 1, 19),
            calendarIdentifier: calendar.id)
        event.recurrenceRules = [try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=TU;\(count)")]
        seriesID = try #require(try fixture.store.save(event).localIdentifier)
    }

    var store: any EventStore { fixture.store }

    func occurrences() throws -> [EventOccurrence] { try store.events(in: Self.window, calendars: [calendar.id]) }

    func occurrence(at instant: Int) throws -> EventOccurrence {
        try #require(try occurrences().first { $0.startInstant == instant })
    }

    func storedText(_ identifier: String) throws -> String {
        let event = try store.event(withIdentifier: identifier)
        return String(
            decoding: try store.resource(named: try #require(event.resourceName), calendar: calendar.id).data,
            as: UTF8.self)
    }
}

@Suite("Spans") struct SpanTests {
    @Test(arguments: Backend.allCases) func thisEventWritesAnOverride(_ kind: Backend) throws {
        let series = try WeeklySeries(kind)
        var event = try series.occurrence(at: WeeklySeries.tuesdays[2]).event
        #expect(event.start == zoned("Europe/Berlin", 2026, 12, 15, 18))
        event.title = "Yoga (outdoors)"
        event.start = zoned("Europe/Berlin", 2026, 12, 15, 19)
        event.end = zoned("Europe/Berlin", 2026, 12, 15, 20)
        try series.store.save(event, span: .thisEvent)

        let all = try series.occurrences()
        #expect(all.count == 6)
        #expect(all.map(\.title) == ["Yoga", "Yoga", "Yoga (outdoors)", "Yoga", "Yoga", "Yoga"])
        #expect(all[2].isDetached)
        #expect(all[2].startInstant == utc(2026, 12, 15, 18))
        #expect(all[2].recurrenceID == .instant(WeeklySeries.tuesdays[2]))
        #expect(all.filter(\.isDetached).count == 1)
        let text = try series.storedText(series.seriesID)
        #expect(text.contains("RECURRENCE-ID;TZID=Europe/Berlin:20261215T180000"))

        // Saving the same instance again replaces the override rather than adding one.
        var again = all[2].event
        again.title = "Yoga (park)"
        try series.store.save(again, span: .thisEvent)
        #expect(try series.occurrences().map(\.title)[2] == "Yoga (park)")
        #expect(try series.storedText(series.seriesID).components(separatedBy: "RECURRENCE-ID").count == 2)
    }

    @Test(arguments: Backend.allCases) func futureEventsSplitsTheSeries(_ kind: Backend) throws {
        let series = try WeeklySeries(kind)
        // An override after the split point moves to the new series; one before it stays.
        var early = try series.occurrence(at: WeeklySeries.tuesdays[1]).event
        early.title = "Yoga (early override)"
        try series.store.save(early, span: .thisEvent)
        var late = try series.occurrence(at: WeeklySeries.tuesdays[4]).event
        late.title = "Yoga (late override)"
        try series.store.save(late, span: .thisEvent)

        var event = try series.occurrence(at: WeeklySeries.tuesdays[3]).event
        event.title = "Pilates"
        let newSeries = try series.store.save(event, span: .futureEvents)
        #expect(newSeries.localIdentifier != series.seriesID)
        #expect(
            newSeries.externalIdentifier != (try series.store.event(withIdentifier: series.seriesID).externalIdentifier)
        )

        let all = try series.occurrences()
        #expect(all.map(\.startInstant) == WeeklySeries.tuesdays)
        #expect(
            all.map(\.title) == ["Yoga", "Yoga (early override)", "Yoga", "Pilates", "Yoga (late override)", "Pilates"])
        #expect(
            all.map(\.eventIdentifier) == Array(repeating: series.seriesID, count: 3)
                + Array(repeating: newSeries.localIdentifier!, count: 3))
        // The old series ends one second before 2026-12-22 17:00 UTC; the new one counts the three left.
        let old = try series.storedText(series.seriesID)
        #expect(old.contains("UNTIL=20261222T165959Z"))
        #expect(!old.contains("COUNT="))
        let new = try series.storedText(newSeries.localIdentifier!)
        #expect(new.contains("COUNT=3"))
        #expect(new.contains("DTSTART;TZID=Europe/Berlin:20261222T180000"))
    }

    @Test(arguments: Backend.allCases) func futureEventsFromTheFirstInstanceEditsTheWholeSeries(_ kind: Backend) throws
    {
        let series = try WeeklySeries(kind)
        var event = try series.occurrence(at: WeeklySeries.tuesdays[0]).event
        event.title = "Stretching"
        try series.store.save(event, span: .futureEvents)
        let all = try series.occurrences()
        #expect(all.map(\.title) == Array(repeating: "Stretching", count: 6))
        #expect(Set(all.map(\.eventIdentifier)) == [series.seriesID])
    }

    @Test(arguments: Backend.allCases) func movingTheSplitInstanceShiftsTheNewSeries(_ kind: Backend) throws {
        let series = try WeeklySeries(kind, count: "UNTIL=20270110T000000Z")
        var event = try series.occurrence(at: WeeklySeries.tuesdays[3]).event
        event.start = zoned("Europe/Berlin", 2026, 12, 22, 20)
        event.end = zoned("Europe/Berlin", 2026, 12, 22, 21)
        try series.store.save(event, span: .futureEvents)
        // 20:00 Berlin is 19:00 UTC from 2026-12-22 on.
        #expect(
            try series.occurrences().map(\.startInstant) == Array(WeeklySeries.tuesdays[0..<3])
                + WeeklySeries.tuesdays[3...].map { $0 + 7200 })
    }

    @Test(arguments: Backend.allCases) func removeOneInstanceAddsAnExclusion(_ kind: Backend) throws {
        let series = try WeeklySeries(kind)
        var override = try series.occurrence(at: WeeklySeries.tuesdays[1]).event
        override.title = "Changed"
        try series.store.save(override, span: .thisEvent)
        // Removing an overridden instance removes its override too.
        try series.store.remove(try series.occurrence(at: WeeklySeries.tuesdays[1]).event, span: .thisEvent)
        try series.store.remove(try series.occurrence(at: WeeklySeries.tuesdays[4]).event, span: .thisEvent)
        let remaining = try series.occurrences()
        #expect(remaining.map(\.startInstant) == [0, 2, 3, 5].map { WeeklySeries.tuesdays[$0] })
        #expect(!remaining.contains { $0.isDetached })
        let text = try series.storedText(series.seriesID)
        #expect(text.contains("EXDATE;TZID=Europe/Berlin:20261208T180000"))
        #expect(!text.contains("RECURRENCE-ID"))
    }

    @Test(arguments: Backend.allCases) func removeFutureEventsEndsTheSeries(_ kind: Backend) throws {
        let series = try WeeklySeries(kind, count: "INTERVAL=1")
        try series.store.remove(try series.occurrence(at: WeeklySeries.tuesdays[2]).event, span: .futureEvents)
        #expect(try series.occurrences().map(\.startInstant) == Array(WeeklySeries.tuesdays[0..<2]))
        // From the first instance: the whole series goes.
        try series.store.remove(try series.occurrence(at: WeeklySeries.tuesdays[0]).event, span: .futureEvents)
        #expect(try series.occurrences().isEmpty)
        #expect(try series.store.resources(calendar: series.calendar.id).isEmpty)
    }

    @Test(arguments: Backend.allCases) func removeAWholeEvent(_ kind: Backend) throws {
        let series = try WeeklySeries(kind)
        try series.store.remove(try series.store.event(withIdentifier: series.seriesID))
        #expect(try series.occurrences().isEmpty)
        let gone = try #require(throws: StoreError.self) { try series.store.event(withIdentifier: series.seriesID) }
        #expect(gone.code == .notFound)
    }
}

@Suite("Remove in a range") struct RemoveInRangeTests {
    /// Story 2's helper: remove a calendar's events in a time range, optionally by title.
    @Test(arguments: Backend.allCases) func removesMatchingOccurrencesOnly(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let gym = try fixture.calendar("Gym")
        let other = try fixture.calendar("Other")
        func add(_ uid: String, _ calendar: EventCalendar, _ lines: [String]) throws {
            _ = try store.putResource(
                resource(vevent(uid: uid, lines)), name: "\(uid).ics", calendar: calendar.id, ifMatch: nil,
                ifNoneMatch: false)
        }
        try add("single", gym, ["DTSTART:20261202T100000Z", "DURATION:PT1H", "SUMMARY:Training"])
        try add("meeting", gym, ["DTSTART:20261203T100000Z", "DURATION:PT1H", "SUMMARY:Meeting"])
        try add("daily", gym, ["DTSTART:20261125T070000Z", "DURATION:PT30M", "SUMMARY:training", "RRULE:FREQ=DAILY"])
        try add(
            "inside", gym,
            ["DTSTART:20261202T180000Z", "DURATION:PT30M", "SUMMARY:Training", "RRULE:FREQ=DAILY;COUNT=3"])
        try add("elsewhere", other, ["DTSTART:20261202T100000Z", "DURATION:PT1H", "SUMMARY:Training"])

        // The week of 2026-12-01 (Tuesday) to 2026-12-07 (Monday, exclusive).
        let range = TimeRange(start: utc(2026, 12, 1), end: utc(2026, 12, 7))
        let removed = try store.removeEvents(in: range, calendar: gym.id, title: "Training")
        // single (1) + daily 12-01…12-06 (6) + inside 12-02…12-04 (3).
        #expect(removed.count == 10)
        let names = Set(try store.resources(calendar: gym.id).map(\.name))
        #expect(names == ["meeting.ics", "daily.ics"])
        let left = try store.events(in: TimeRange(start: utc(2026, 11, 29), end: utc(2026, 12, 9)), calendars: [gym.id])
        #expect(
            left.map(\.startInstant) == [
                utc(2026, 11, 29, 7), utc(2026, 11, 30, 7), utc(2026, 12, 3, 10), utc(2026, 12, 7, 7),
                utc(2026, 12, 8, 7),
            ])
        #expect(try store.events(in: range, calendars: [other.id]).count == 1)

        // Without a title, everything in the range goes.
        try store.removeEvents(in: range, calendar: gym.id)
        #expect(try store.events(in: range, calendars: [gym.id]).isEmpty)
    }
}
