import CivilTime
import Foundation
import Testing

@Suite struct DurationTests {
    @Test func nominalDaysKeepTheWallClockExactSecondsDoNot() {
        // RFC 5545 §3.3.6: P1D is "the same time tomorrow"; PT24H is 86,400 seconds.
        // On the civil timeline (floating or UTC) both land on the same wall clock;
        // the split matters once a zone is applied, which is why both parts are kept.
        let start = CivilDateTime(year: 2026, month: 3, day: 28, hour: 2, minute: 30)!
        let oneDay = CalendarDuration(days: 1)
        let twentyFourHours = CalendarDuration(hours: 24)
        #expect(oneDay.nominalDays == 1 && oneDay.exactSeconds == 0)
        #expect(twentyFourHours.nominalDays == 0 && twentyFourHours.exactSeconds == 86_400)
        #expect(oneDay.added(to: start) == CivilDateTime(year: 2026, month: 3, day: 29, hour: 2, minute: 30))
        #expect(
            CalendarDuration(isNegative: true, days: 1, hours: 1).added(to: start)
                == CivilDateTime(year: 2026, month: 3, day: 27, hour: 1, minute: 30))
        #expect(CalendarDuration(weeks: 2).nominalDays == 14)
        #expect(
            CalendarDuration(minutes: 45).added(
                to: CivilDateTime(year: 2026, month: 12, day: 31, hour: 23, minute: 30)!)
                == CivilDateTime(year: 2027, month: 1, day: 1, hour: 0, minute: 15))
    }

    @Test(arguments: [
        (CalendarDuration(weeks: 7), "P7W"),
        (CalendarDuration(days: 15, hours: 5, seconds: 20), "P15DT5H20S"),
        (CalendarDuration(isNegative: true, minutes: 15), "-PT15M"),
        (CalendarDuration.zero, "PT0S"),
        (CalendarDuration(days: 1), "P1D"),
    ])
    func descriptions(duration: CalendarDuration, text: String) {
        #expect(duration.description == text)
    }

    @Test func dateOnlyArithmetic() {
        let date = CivilDate(year: 2024, month: 2, day: 28)!
        #expect(CalendarDuration(days: 2).added(to: date) == CivilDate(year: 2024, month: 3, day: 1))
    }

    @Test func utcOffsets() {
        #expect(UTCOffset(seconds: 3600).description == "+0100")
        #expect(UTCOffset(seconds: -(5 * 3600 + 30 * 60)).description == "-0530")
        #expect(UTCOffset(seconds: 12 * 3600 + 45 * 60).description == "+1245")
        #expect(UTCOffset(seconds: -(3 * 3600 + 30 * 60 + 15)).description == "-033015")
    }

    @Test func civilDateTimeSeconds() {
        let value = CivilDateTime(year: 1969, month: 12, day: 31, hour: 23, minute: 59, second: 59)!
        #expect(value.secondsSinceEpoch == -1)
        #expect(CivilDateTime(secondsSinceEpoch: -1) == value)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withTime, .withColonSeparatorInTime, .withDashSeparatorInDate]
        formatter.timeZone = TimeZone(identifier: "UTC")
        for seconds in stride(from: -2_000_000_000, through: 4_000_000_000, by: 123_456_789) {
            let expected = formatter.string(from: Date(timeIntervalSince1970: Double(seconds)))
            #expect(CivilDateTime(secondsSinceEpoch: seconds).description == expected)
            #expect(CivilDateTime(secondsSinceEpoch: seconds).secondsSinceEpoch == seconds)
        }
        #expect(TimeOfDay(hour: 24, minute: 0) == nil)
        #expect(TimeOfDay(hour: 23, minute: 59, second: 60) != nil)
    }
}
