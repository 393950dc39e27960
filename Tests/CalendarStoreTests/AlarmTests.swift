import AlmanacTestSupport
import CalendarStore
import CivilTime
import ICalendar
import Testing

@Suite("Alarms") struct AlarmTests {
    @Test(arguments: Backend.allCases) func alarmsFireThroughRecurrence(_ kind: Backend) throws {
        let series = try WeeklySeries(kind)
        var event = try series.store.event(withIdentifier: series.seriesID)
        event.alarms = [.minutesBefore(15)]
        try series.store.save(event)
        // 15 minutes before 17:00 UTC, on the first three Tuesdays.
        let firings = try series.store.alarms(firingIn: TimeRange(start: utc(2026, 12, 1), end: utc(2026, 12, 16)))
        #expect(firings.map(\.fireTime) == WeeklySeries.tuesdays[0..<3].map { $0 - 900 })
        #expect(firings.map(\.occurrence.startInstant) == Array(WeeklySeries.tuesdays[0..<3]))
        // An alarm just before the window whose event is inside it is not due; one inside is.
        #expect(
            try series.store.alarms(firingIn: TimeRange(start: utc(2026, 12, 1, 16, 46), end: utc(2026, 12, 2))).isEmpty
        )
        #expect(
            try series.store.alarms(firingIn: TimeRange(start: utc(2026, 12, 1, 16, 45), end: utc(2026, 12, 1, 16, 46)))
                .count == 1)
    }

    @Test(arguments: Backend.allCases) func triggerKinds(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let store = fixture.store
        let work = try fixture.calendar()
        // DST starts in Berlin on 2026-03-29: a day before 09:00 that day is 09:00 on the
        // 28th (08:00 UTC, winter time), not 24 hours earlier (07:00 UTC).
        _ = try store.putResource(
            resource(
                vevent(
                    uid: "dst",
                    ["DTSTART;TZID=Europe/Berlin:20260329T090000", "DURATION:PT1H", "SUMMARY:Spring"]
                        + ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Tomorrow", "TRIGGER:-P1D", "END:VALARM"]
                        + [
                            "BEGIN:VALARM", "ACTION:AUDIO", "TRIGGER;RELATED=END:PT5M", "REPEAT:2", "DURATION:PT10M",
                            "END:VALARM",
                        ]
                        + [
                            "BEGIN:VALARM", "ACTION:EMAIL", "DESCRIPTION:Fixed", "SUMMARY:Fixed",
                            "ATTENDEE:mailto:a@example.com", "TRIGGER;VALUE=DATE-TIME:20260320T120000Z", "END:VALARM",
                        ])),
            name: "dst.ics", calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        let firings = try store.alarms(firingIn: TimeRange(start: utc(2026, 3, 1), end: utc(2026, 4, 1)))
        // The event runs 07:00–08:00 UTC on the 29th (summer time, UTC+2).
        #expect(
            firings.map(\.fireTime) == [
                utc(2026, 3, 20, 12), utc(2026, 3, 28, 8), utc(2026, 3, 29, 8, 5), utc(2026, 3, 29, 8, 15),
                utc(2026, 3, 29, 8, 25),
            ])
        #expect(firings.map(\.repetition) == [0, 0, 0, 1, 2])
        #expect(firings.map { $0.alarm.action } == [.email, .display, .audio, .audio, .audio])
    }
}
