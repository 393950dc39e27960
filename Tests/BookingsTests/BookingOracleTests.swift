import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import Testing

/// A booking type's slots against a minute-by-minute oracle, over randomized calendars
/// in three zones across their spring DST change: recurring busy series (some instances
/// removed by EXDATE, one moved by an override), one-off events that are busy,
/// tentative, transparent or cancelled, an all-day and a two-day event, weekly hours
/// with dates off and dates with other hours, buffers, a step and the minimum notice.
///
/// The oracle shares nothing with the server's code: it lists each series' instances
/// by stepping local dates, turns wall-clock times into instants with Foundation's
/// `TimeZone`, marks every busy minute, and offers a start when every minute from the
/// stacked buffers before it to the stacked buffers after it is free.
@Suite struct BookingOracleTests {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Sydney"]

    struct Oracle {
        var calendar: Calendar
        init(zone: String) {
            calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: zone)!
        }

        /// The instant of a wall-clock time (the generator never makes one in a DST gap).
        func instant(_ year: Int, _ month: Int, _ day: Int, _ minutes: Int) -> Int {
            let components = DateComponents(
                year: year, month: month, day: day, hour: minutes / 60, minute: minutes % 60)
            return Int(calendar.date(from: components)!.timeIntervalSince1970)
        }

        func date(_ base: (Int, Int, Int), plus days: Int) -> (year: Int, month: Int, day: Int) {
            let start = calendar.date(from: DateComponents(year: base.0, month: base.1, day: base.2, hour: 12))!
            let moved = calendar.date(byAdding: .day, value: days, to: start)!
            let parts = calendar.dateComponents([.year, .month, .day], from: moved)
            return (parts.year!, parts.month!, parts.day!)
        }

        /// 1 = Monday … 7 = Sunday.
        func weekday(_ date: (year: Int, month: Int, day: Int)) -> Int {
            let noon = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12))!
            return (calendar.component(.weekday, from: noon) + 5) % 7 + 1
        }
    }

    static func text(_ date: (year: Int, month: Int, day: Int)) -> String {
        String(format: "%04d%02d%02d", date.year, date.month, date.day)
    }

    static func clock(_ minutes: Int) -> String { String(format: "%02d:%02d", minutes / 60, minutes % 60) }

    static func utcText(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    @Test(arguments: 0..<12) func slotsMatchTheMinuteOracle(_ seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &* 7919 &+ 17)
        let zone = Self.zones[seed % Self.zones.count]
        let oracle = Oracle(zone: zone)
        let now = 1_803_859_200  // 2027-03-01T00:00:00Z
        let server = try TestServer(users: ["anna"], now: { now })
        let api = server.api("anna")
        let windowStart = (2027, 3, 5)
        let windowDays = 36  // to 2027-04-10, across every zone's change of clocks

        // Weekly hours: some days off, others one or two spans with an hour or more between.
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        var weekly: [Int: [(Int, Int)]] = [:]
        var groups: [String] = []
        for day in 1...7 where Int.random(in: 0..<4, using: &random) > 0 {
            let first = Int.random(in: 12...20, using: &random) * 30
            let firstEnd = first + Int.random(in: 4...10, using: &random) * 30
            var spans = [(first, firstEnd)]
            if Bool.random(using: &random) {
                let second = firstEnd + Int.random(in: 2...4, using: &random) * 30
                spans.append((second, min(second + Int.random(in: 2...6, using: &random) * 30, 21 * 60)))
            }
            weekly[day] = spans
            groups.append(
                names[day - 1] + " " + spans.map { Self.clock($0.0) + "-" + Self.clock($0.1) }.joined(separator: " "))
        }
        var exceptions: [String: [(Int, Int)]] = [:]
        var exceptionJSON: [String] = []
        for index in 0..<3 {
            let date = oracle.date(windowStart, plus: Int.random(in: 0..<windowDays, using: &random))
            let key = String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
            let spans = index == 0 ? [(13 * 60, 16 * 60)] : []
            exceptions[key] = spans
            exceptionJSON.append("\"\(key)\": \"\(spans.isEmpty ? "off" : "13:00-16:00")\"")
        }
        let scheduleBody =
            #"{"title": "Hours", "timeZone": "\#(zone)", "hours": "\#(groups.isEmpty ? "none" : groups.joined(separator: ", "))", "exceptions": {\#(exceptionJSON.joined(separator: ", "))}}"#
        let schedule = try api.call("POST", "/api/v1/availability-schedules", scheduleBody)
        try #require(schedule.status == 201, "\(scheduleBody): \(schedule.text)")
        let sessions = try #require(
            try api.call("POST", "/api/v1/calendars", #"{"title": "Sessions", "timeZone": "\#(zone)"}"#)["id"]?
                .stringValue)
        let work = try #require(
            try api.call("POST", "/api/v1/calendars", #"{"title": "Work", "timeZone": "\#(zone)"}"#)["id"]?
                .stringValue)

        // Busy time, written as a client would and listed by the oracle.
        let store = try server.eventStore(for: "anna")
        var busy: [(start: Int, end: Int)] = []
        var objects = 0
        func put(_ lines: [String], in calendar: String) throws {
            objects += 1
            let text =
                (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//oracle//EN"] + lines + ["END:VCALENDAR"])
                .joined(separator: "\r\n") + "\r\n"
            _ = try store.putResource(
                Array(text.utf8), name: "e\(objects).ics", calendar: calendar, ifMatch: nil, ifNoneMatch: false)
        }
        for series in 0..<3 {
            let daily = Bool.random(using: &random)
            let interval = Int.random(in: 1...2, using: &random)
            let count = Int.random(in: 8...30, using: &random)
            let first = oracle.date((2027, 3, 1), plus: Int.random(in: 0...6, using: &random))
            let minute = Int.random(in: (7 * 4)...(19 * 4), using: &random) * 15
            let length = Int.random(in: 2...8, using: &random) * 15
            let excluded = Int.random(in: 1..<count, using: &random)
            var moved = Int.random(in: 1..<count, using: &random)
            if moved == excluded { moved = (moved % (count - 1)) + 1 }
            if moved == excluded { moved = excluded == 1 ? 2 : 1 }
            let uid = "series-\(series)"
            func local(_ date: (year: Int, month: Int, day: Int), _ minutes: Int) -> String {
                Self.text(date) + "T" + String(format: "%02d%02d00", minutes / 60, minutes % 60)
            }
            var instances: [(year: Int, month: Int, day: Int)] = []
            for index in 0..<count { instances.append(oracle.date(first, plus: index * interval * (daily ? 1 : 7))) }
            let shift = 120
            try put(
                [
                    "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20270101T000000Z", "SUMMARY:Series \(series)",
                    "DTSTART;TZID=\(zone):\(local(first, minute))",
                    "DTEND;TZID=\(zone):\(local(first, minute + length))",
                    "RRULE:FREQ=\(daily ? "DAILY" : "WEEKLY");INTERVAL=\(interval);COUNT=\(count)",
                    "EXDATE;TZID=\(zone):\(local(instances[excluded], minute))", "END:VEVENT",
                    "BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20270101T000000Z", "SUMMARY:Moved",
                    "RECURRENCE-ID;TZID=\(zone):\(local(instances[moved], minute))",
                    "DTSTART;TZID=\(zone):\(local(instances[moved], minute + shift))",
                    "DTEND;TZID=\(zone):\(local(instances[moved], minute + shift + length))", "END:VEVENT",
                ], in: series == 0 ? sessions : work)
            for (index, date) in instances.enumerated() where index != excluded {
                let start = oracle.instant(date.year, date.month, date.day, minute + (index == moved ? shift : 0))
                busy.append((start, start + length * 60))
            }
        }
        // One-off events in UTC: busy, tentative (busy), transparent and cancelled (free).
        let windowFirst = oracle.instant(2027, 3, 5, 0)
        for (index, extra) in ["", "STATUS:TENTATIVE", "TRANSP:TRANSPARENT", "STATUS:CANCELLED", ""].enumerated() {
            let start = windowFirst + Int.random(in: 0..<(windowDays * 288), using: &random) * 300
            let end = start + Int.random(in: 3...36, using: &random) * 300
            func utc(_ seconds: Int) -> String {
                Self.utcText(seconds).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
            }
            try put(
                [
                    "BEGIN:VEVENT", "UID:single-\(index)", "DTSTAMP:20270101T000000Z", "DTSTART:\(utc(start))",
                    "DTEND:\(utc(end))",
                ] + (extra.isEmpty ? [] : [extra]) + ["END:VEVENT"],
                in: index % 2 == 0 ? work : sessions)
            if !extra.hasPrefix("TRANSP"), extra != "STATUS:CANCELLED" { busy.append((start, end)) }
        }
        // An all-day event (the whole local day of the calendar's zone) and one of two days in UTC.
        let day = oracle.date(windowStart, plus: Int.random(in: 0..<windowDays, using: &random))
        let next = oracle.date(day, plus: 1)
        try put(
            [
                "BEGIN:VEVENT", "UID:all-day", "DTSTAMP:20270101T000000Z", "DTSTART;VALUE=DATE:\(Self.text(day))",
                "DTEND;VALUE=DATE:\(Self.text(next))", "END:VEVENT",
            ], in: work)
        busy.append(
            (oracle.instant(day.year, day.month, day.day, 0), oracle.instant(next.year, next.month, next.day, 0)))
        let long = windowFirst + Int.random(in: 0..<(windowDays - 3), using: &random) * 86_400 + 36_000
        try put(
            [
                "BEGIN:VEVENT", "UID:two-days", "DTSTAMP:20270101T000000Z",
                "DTSTART:\(Self.utcText(long).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: ""))",
                "DURATION:P2D", "END:VEVENT",
            ], in: sessions)
        busy.append((long, long + 2 * 86_400))

        // The type: a length, a step, buffers and a notice.
        let duration = [30, 45, 60][Int.random(in: 0..<3, using: &random)]
        let step = [15, 30, duration][Int.random(in: 0..<3, using: &random)]
        let before = [0, 10, 15][Int.random(in: 0..<3, using: &random)]
        let after = [0, 5, 30][Int.random(in: 0..<3, using: &random)]
        let notice = [0, 6 * 24 * 60][Int.random(in: 0..<2, using: &random)]
        let made = try api.call(
            "POST", "/api/v1/booking-types",
            #"{"title": "Session", "durations": [\#(duration)], "calendar": "\#(sessions)", "step": \#(step), "bufferBefore": \#(before), "bufferAfter": \#(after), "notice": \#(notice)}"#
        )
        let type = try #require(made["id"]?.stringValue, "\(made.text)")

        // The oracle's slots.
        var busyMinutes = Set<Int>()
        for block in busy {
            for minute in stride(from: block.start, to: block.end, by: 60) { busyMinutes.insert(minute) }
        }
        let from = windowFirst
        let lastDay = oracle.date(windowStart, plus: windowDays)
        let to = oracle.instant(lastDay.year, lastDay.month, lastDay.day, 0)
        let pad = (before + after) * 60
        var expected: [Int] = []
        for offset in -1...windowDays {
            let date = oracle.date(windowStart, plus: offset)
            let key = String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
            for span in exceptions[key] ?? weekly[oracle.weekday(date)] ?? [] {
                let spanEnd = oracle.instant(date.year, date.month, date.day, span.1)
                var start = oracle.instant(date.year, date.month, date.day, span.0)
                while start + duration * 60 <= spanEnd {
                    defer { start += step * 60 }
                    guard start >= from, start < to, start >= now + notice * 60 else { continue }
                    let clear = stride(from: start - pad, to: start + duration * 60 + pad, by: 60).allSatisfy {
                        !busyMinutes.contains($0)
                    }
                    if clear { expected.append(start) }
                }
            }
        }
        expected.sort()

        let answer = try api.get(
            "/api/v1/booking-types/\(type)/slots?from=2027-03-05&to=\(String(format: "%04d-%02d-%02d", lastDay.year, lastDay.month, lastDay.day))&tz=\(zone)"
        )
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer["truncated"]?.boolValue == false)
        let offered = answer["slots"]?.arrayValue?.compactMap { $0["start"]?.stringValue } ?? []
        let wanted = expected.map(Self.utcText)
        #expect(
            offered == wanted,
            "seed \(seed) \(zone) \(groups) step \(step) buffers \(before)/\(after): missing \(Set(wanted).subtracting(offered).sorted().prefix(5)), extra \(Set(offered).subtracting(wanted).sorted().prefix(5))"
        )
        #expect(!wanted.isEmpty || groups.isEmpty, "a case that tests nothing")
    }
}
