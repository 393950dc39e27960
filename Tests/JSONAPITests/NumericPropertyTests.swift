import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import HTTPTypes
import ICalendar
import Testing

/// Property tests: every numeric input of the API and of stored iCalendar that reaches
/// arithmetic, given extremes and seeded random integers, gets a 2xx or 4xx answer and
/// never a trap (a trap would end this test process) or a 5xx.
extension APITests {
    /// Extremes, then random values of every magnitude.
    static func numbers(seed: UInt64, count: Int = 24) -> [String] {
        var generator = SplitMix64(seed: seed)
        var values = [
            "0", "-1", "1", "59", "60", "61", "1440", "2147483647", "2147483648", "-2147483648", "-2147483649",
            "4294967296", "9007199254740993",
            "9223372036854775807", "-9223372036854775808", "9223372036854775808", "99999999999999999999", "-0", "+5",
            "1e3", "0x10", "",
        ]
        for _ in 0..<count {
            let magnitude = Int64.random(in: 0...62, using: &generator)
            let value = Int64.random(in: -(1 << magnitude)...(1 << magnitude), using: &generator)
            values.append(String(value))
        }
        return values
    }

    func expectNo5xx(
        _ method: String, _ target: String, _ body: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let answer = try call(method, target, body)
        #expect(
            answer.status < 500, "\(method) \(target) \(body ?? ""): \(answer.status) \(answer.text)",
            sourceLocation: sourceLocation)
    }

    @Test func queryNumbersNeverTrapOrFail() throws {
        let id = try makeCalendar()
        _ = try call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(id)", "title": "x", "start": "2026-12-01T09:00:00Z", "duration": "PT1H", "rrule": "FREQ=DAILY", "alarms": [{"minutesBefore": 15}]}"#
        )
        for value in Self.numbers(seed: 15) {
            let number = PercentEncoding.encode(value)
            for parameter in [
                "duration", "step", "bufferBefore", "bufferAfter", "notice", "bookingWindowDays", "dailyLimit",
                "weeklyLimit",
            ] {
                try expectNo5xx(
                    "GET", "/api/v1/availability?from=2026-12-01&to=2026-12-03&duration=60&\(parameter)=\(number)")
            }
            try expectNo5xx("GET", "/api/v1/summary?month=2026-12&titles=\(number)")
            try expectNo5xx("GET", "/api/v1/summary?month=\(number)-12")
            try expectNo5xx("GET", "/api/v1/summary?week=\(number)-W10")
            try expectNo5xx("GET", "/api/v1/calendars/\(id)/occurrences?from=\(number)-01-01&to=2026-12-31")
            try expectNo5xx("GET", "/api/v1/alarms?from=2026-12-01T00:00:00%2B\(number):00&to=2026-12-02")
            try expectNo5xx("GET", "/api/v1/occurrences/x/\(number)")
        }
    }

    @Test func bodyNumbersNeverTrapOrFail() throws {
        let id = try makeCalendar()
        for value in Self.numbers(seed: 16) where !value.isEmpty {
            let json = Int64(value).map(String.init) ?? "\"\(value)\""
            try expectNo5xx(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(id)", "title": "x", "start": "2026-12-01T09:00:00Z", "alarms": [{"minutesBefore": \#(json)}]}"#
            )
            try expectNo5xx(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(id)", "title": "x", "start": "2026-12-01T09:00:00Z", "duration": "PT\#(value)M"}"#)
            try expectNo5xx(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(id)", "title": "x", "start": "\#(value)-01-01T09:00:00Z"}"#)
            for part in ["INTERVAL", "COUNT", "BYSETPOS", "BYMONTHDAY", "BYYEARDAY", "BYWEEKNO", "BYHOUR"] {
                try expectNo5xx(
                    "POST", "/api/v1/events",
                    #"{"calendarId": "\#(id)", "title": "x", "start": "2026-12-01T09:00:00Z", "rrule": "FREQ=DAILY;\#(part)=\#(value)"}"#
                )
            }
            try expectNo5xx(
                "POST", "/api/v1/conflicts",
                #"{"start": "2026-12-01T09:00:00Z", "duration": "PT1H", "bufferBefore": \#(json), "bufferAfter": \#(json)}"#
            )
            try expectNo5xx("PATCH", "/api/v1/calendars/\(id)", #"{"order": \#(json)}"#)
        }
    }

    @Test func storedICalendarNumbersNeverTrapOrFail() throws {
        let id = try makeCalendar()
        let store = try backend.eventStore(for: "anna")
        for (index, value) in Self.numbers(seed: 17).enumerated() where !value.isEmpty {
            for (field, line) in [
                ("repeat", "REPEAT:\(value)"), ("duration", "DURATION:PT\(value)S"), ("weeks", "DURATION:P\(value)W"),
                ("days", "DURATION:P\(value)D"),
                ("trigger", "TRIGGER:-PT\(value)M"),
            ] {
                let alarm =
                    ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", field == "trigger" ? line : "TRIGGER:-PT15M"]
                    + (field == "trigger"
                        ? ["DURATION:PT1M", "REPEAT:3"]
                        : field == "repeat" ? ["DURATION:PT1M", line] : [line, "REPEAT:2147483647"]) + ["END:VALARM"]
                let lines =
                    [
                        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//T//EN", "BEGIN:VEVENT", "UID:n\(index)-\(field)",
                        "DTSTAMP:20261101T000000Z",
                        "DTSTART:20261201T090000Z", "DURATION:PT1H",
                        "RRULE:FREQ=WEEKLY;INTERVAL=\(value.hasPrefix("-") ? "1" : value);COUNT=3",
                    ] + alarm + ["END:VEVENT", "END:VCALENDAR"]
                // Stored or refused as invalid data, never a trap; then every read stays whole.
                _ = try? store.putResource(
                    Array((lines.joined(separator: "\r\n") + "\r\n").utf8), name: "n\(index)-\(field).ics",
                    calendar: id, ifMatch: nil, ifNoneMatch: false)
            }
        }
        try expectNo5xx("GET", "/api/v1/alarms?from=2026-11-01&to=2027-11-01")
        try expectNo5xx("GET", "/api/v1/calendars/\(id)/occurrences?from=2026-11-01&to=2027-11-01")
        try expectNo5xx("GET", "/api/v1/availability?from=2026-12-01&to=2026-12-08&duration=30")
    }
}
