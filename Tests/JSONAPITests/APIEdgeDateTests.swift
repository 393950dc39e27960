import AlmanacTesting
import CalendarStore
import CivilTime
import Testing

extension APITests {
    @Test(arguments: [
        "2026-01-01T00:00:00--9999999999999999:00", "2026-01-01T00:00:00--2562047788015215:00",
        "1970-01-01T00:00:00--2562047788015215:-30",
        "2026-01-01T00:00:00+24:00", "2026-01-01T00:00:00+1:00", "2026-01-01T00:00:00+01:60", "0000-12-31T00:00:00Z",
        "0001-01-01T00:30:00+01:00",
        "9999-12-31T23:30:00-01:00", "2026-01-01T+1:00:00Z", "2026-01-01T00:00:-1Z", "+026-01-01", "2026-1-01",
    ])
    func timesPastTheSupportedYearsOrWithBadOffsetsAre400(_ text: String) throws {
        let id = try makeCalendar()
        let query = text.replacingOccurrences(of: "+", with: "%2B")
        let before = try snapshot()
        #expect(
            try call("GET", "/api/v1/calendars/\(id)/occurrences?from=\(query)&to=2026-01-02").status == 400, "\(text)")
        #expect(try call("GET", "/api/v1/alarms?from=\(query)&to=2026-01-02").status == 400, "\(text)")
        #expect(
            try call(
                "POST", "/api/v1/events", #"{"calendarId": "\#(id)", "title": "x", "start": "\#(text)"}"#,
                scope: .addOnly
            ).status == 400, "\(text)")
        #expect(
            try call(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(id)", "title": "x", "start": "2026-01-01T09:00:00Z", "alarms": [{"trigger": "\#(text)"}]}"#
            ).status
                == 400, "\(text)")
        #expect(try snapshot() == before)
    }

    @Test(arguments: ["DAILY", "WEEKLY", "MONTHLY", "YEARLY", "HOURLY", "SECONDLY"])
    func aHugeIntervalEndsTheSeriesAtYear9999(_ frequency: String) throws {
        // INTERVAL=2^31−1 with a large COUNT once walked past Int's range while indexing.
        let id = try makeCalendar()
        for start in ["2026-01-01T09:00:00", "2026-01-01T09:00:00Z", "2026-01-01"] {
            let created = try call(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(id)", "title": "x", "start": "\#(start)", "rrule": "FREQ=\#(frequency);INTERVAL=2147483647;COUNT=50000"}"#
            )
            #expect(created.status == 201, "\(frequency) \(start): \(created.text)")
        }
        let listed = try call("GET", "/api/v1/calendars/\(id)/occurrences?from=2026-01-01&to=2026-01-02")
        #expect(listed.status == 200 && listed["occurrences"]?.arrayValue?.count == 3)
    }
}
