import CivilTime
import Recurrence
import Testing

/// Occurrence identifiers carry `OccurrenceTime.text`; reading it back gives the same time.
@Test func occurrenceTimeTextRoundTrips() throws {
    let times: [OccurrenceTime] = [
        .instant(1_796_144_400), .instant(0),
        .floating(CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30)!),
        .date(CivilDate(year: 2024, month: 2, day: 29)!),
    ]
    for time in times {
        #expect(OccurrenceTime(text: time.text) == time, "\(time.text)")
    }
    #expect(
        OccurrenceTime(text: "2026-12-01T17:00:00Z")
            == .instant(CivilDateTime(year: 2026, month: 12, day: 1, hour: 17, minute: 0)!.secondsSinceEpoch))
    for bad in [
        "", "2026-02-30", "2026-12-01T25:00:00Z", "2026-12-01T17:00:00+01", "20261201T170000Z", "2026-12-01 17:00:00",
    ] {
        #expect(OccurrenceTime(text: bad) == nil, "\(bad)")
    }
}
