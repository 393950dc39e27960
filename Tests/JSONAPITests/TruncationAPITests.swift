import AlmanacTesting
import CalendarStore
import Foundation
import ICalendar
import Recurrence
import Testing

/// A series that a bound of expansion stops early is named in the API's answers, which
/// say `truncated`, instead of being listed short as if it were whole.
extension APITests {
    /// One instance a day at midnight UTC, 40 days from 2026-12-01, from a secondly rule: every
    /// second is a step, so one series' 2,000,000 steps run out about 23 days in.
    static let midnight = Array(
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VEVENT", "UID:midnight",
            "DTSTAMP:20261101T000000Z",
            "DTSTART:20261201T000000Z", "DURATION:PT1M", "RRULE:FREQ=SECONDLY;BYHOUR=0;BYMINUTE=0;BYSECOND=0;COUNT=40",
            "SUMMARY:Midnight",
            "END:VEVENT", "END:VCALENDAR",
        ].joined(separator: "\r\n") + "\r\n").utf8)

    @Test func occurrencesOfACutSeriesSayTruncatedAndNameIt() throws {
        let id = try makeCalendar(zone: "UTC")
        let store = try backend.eventStore(for: "anna")
        _ = try store.putResource(Self.midnight, name: "midnight.ics", calendar: id, ifMatch: nil, ifNoneMatch: true)
        let answer = try call("GET", "/api/v1/calendars/\(id)/occurrences?from=2026-12-01&to=2027-01-31&tz=UTC")
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer["truncated"] == .bool(true))
        let series = try #require(answer["truncatedSeries"]?.arrayValue)
        #expect(
            series.count == 1 && series.first?["uid"] == .string("midnight")
                && series.first?["title"] == .string("Midnight"))
        let listed = answer["occurrences"]?.arrayValue ?? []
        #expect(!listed.isEmpty && listed.count < 40)
        // Every listed day is a midnight from 2026-12-01 on, and the answer goes on one second after the last.
        let starts = listed.compactMap { $0["start"]?.stringValue }
        #expect(starts.first == "2026-12-01T00:00:00Z")
        let last = try #require(series.first?["lastListedStart"]?.stringValue)
        #expect(starts.last == last)
        let lastInstant = try #require(OccurrenceTimeText.instant(last))
        #expect(answer["continueFrom"]?.stringValue == OccurrenceTimeText.text(lastInstant + 1))
    }

    @Test func theSummaryOfACutSeriesSaysTruncated() throws {
        let id = try makeCalendar(zone: "UTC")
        let store = try backend.eventStore(for: "anna")
        _ = try store.putResource(Self.midnight, name: "midnight.ics", calendar: id, ifMatch: nil, ifNoneMatch: true)
        let january = try call("GET", "/api/v1/summary?month=2027-01&tz=UTC")
        #expect(january.status == 200, "\(january.text)")
        #expect(january["truncated"] == .bool(true))
        #expect(january["truncatedSeries"]?.arrayValue?.first?["uid"] == .string("midnight"))
        // A month with no series to cut says it is whole.
        _ = try store.deleteResource(named: "midnight.ics", calendar: id, ifMatch: nil)
        #expect(try call("GET", "/api/v1/summary?month=2027-01&tz=UTC")["truncated"] == .bool(false))
    }
}

/// Reads and writes the `…Z` UTC times of the API.
enum OccurrenceTimeText {
    static func instant(_ text: String) -> Int? {
        guard let time = Recurrence.OccurrenceTime(text: text), case .instant(let seconds) = time else { return nil }
        return seconds
    }

    static func text(_ instant: Int) -> String { Recurrence.OccurrenceTime.instant(instant).text }
}
