import AlmanacTesting
import CalendarStore
import CivilTime
import Testing

/// Dates at the edges of the supported years (0001–9999), in every view and through the
/// API: a clear 400 outside them, pages without links past them, and no trap anywhere.
extension WebTests {
    @Test(arguments: ["0000-01-15", "-001-01-15", "10000-01-01", "+999-01-01", "2026-02-30", "2026-13-01", "99999-1-1"])
    func datesOutsideTheSupportedYearsAre400(_ date: String) throws {
        let (cookie, _) = try signIn()
        for view in ["month", "week", "day"] {
            let page = try send("GET", "/calendar?view=\(view)&date=\(date)", cookie: cookie)
            #expect(page.status == 400 && page.text.contains("0001 to 9999"), "\(view) \(date): \(page.status)")
        }
    }

    @Test(arguments: [
        ("0001-01-01", false, true), ("0001-01-31", false, true), ("9999-12-31", true, false),
        ("9999-12-01", true, false), ("2024-02-29", true, true),
        ("2026-12-31", true, true), ("2027-01-01", true, true),
    ])
    func viewsAtTheEdgesRenderWithoutLinksPastThem(_ date: String, _ hasPrevious: Bool, _ hasNext: Bool) throws {
        let (cookie, _) = try signIn()
        for view in ["month", "week", "day"] {
            let page = try send("GET", "/calendar?view=\(view)&date=\(date)", cookie: cookie)
            #expect(page.status == 200, "\(view) \(date): \(page.status)")
            // A month view's neighbours exist unless the month is the first or last; a week's
            // or day's unless seven or one days on leave the years.
            let first = CivilDate(isoText: date)!
            let previousExists: Bool
            let nextExists: Bool
            switch view {
            case "week":
                (previousExists, nextExists) = (first.adding(days: -7).isSupported, first.adding(days: 7).isSupported)
            case "day":
                (previousExists, nextExists) = (first.adding(days: -1).isSupported, first.adding(days: 1).isSupported)
            default: (previousExists, nextExists) = (hasPrevious, hasNext)
            }
            #expect(page.text.contains("rel=\"prev\"") == previousExists, "\(view) \(date)")
            #expect(page.text.contains("rel=\"next\"") == nextExists, "\(view) \(date)")
        }
    }
}

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
