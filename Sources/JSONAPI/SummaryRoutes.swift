import CalendarStore
import CivilTime
import HTTPServer
import ICalendar
import Recurrence

extension APIContext {
    /// GET /summary?calendars=&month=2026-11|week=2026-W48&tz=&firstWeekday=: per day of
    /// the month grid (whole weeks from `firstWeekday`) or of the week, the number of
    /// occurrences, the colours of their calendars, the first titles, and whether two
    /// busy timed occurrences overlap. Days begin at midnight in `tz`.
    func summary(_ method: String) throws(APIProblem) -> HTTPResponse {
        guard method == "GET" else { throw methodNotAllowed(["GET"]) }
        try requireRead()
        let parameters = try query(allowing: ["calendars", "month", "week", "tz", "firstWeekday", "titles"])
        let (zone, zoneName) = try zone(parameters)
        let firstWeekday = try Self.weekday(parameters["firstWeekday"] ?? "monday")
        let titlesPerDay = try parameters["titles"].map { (text) throws(APIProblem) -> Int in
            guard let count = Int(text), (0...20).contains(count) else { throw APIProblem(.invalidQuery, "titles is 0 to 20", fields: ["titles"]) }
            return count
        } ?? 3
        var days: [CivilDate] = []
        var month: (year: Int, month: Int)?
        switch (parameters["month"], parameters["week"]) {
        case (let text?, nil):
            let parts = text.split(separator: "-")
            guard parts.count == 2, parts[0].count == 4, parts[1].count == 2, let year = Int(parts[0]), let number = Int(parts[1]),
                let first = CivilDate(year: year, month: number, day: 1)
            else { throw APIProblem(.invalidQuery, "month is YYYY-MM, such as 2026-11", fields: ["month"]) }
            month = (year, number)
            let gridStart = first.adding(days: -((first.weekday.rawValue - firstWeekday.rawValue + 7) % 7))
            let last = first.adding(days: CivilDate.daysInMonth(year: year, month: number) - 1)
            var day = gridStart
            while day <= last || (day.days(since: gridStart) % 7 != 0) {
                days.append(day)
                day = day.adding(days: 1)
            }
        case (nil, let text?):
            let parts = text.split(separator: "-")
            guard parts.count == 2, parts[0].count == 4, parts[1].hasPrefix("W"), let year = Int(parts[0]), let week = Int(parts[1].dropFirst()),
                week >= 1, week <= CivilDate.numberOfWeeks(inYear: year, weekStart: .monday)
            else { throw APIProblem(.invalidQuery, "week is an ISO week, YYYY-Www, such as 2026-W48", fields: ["week"]) }
            let monday = CivilDate(daysSinceEpoch: CivilDate.firstDayOfWeekOne(year: year, weekStart: .monday) + (week - 1) * 7)
            let start = monday.adding(days: -((monday.weekday.rawValue - firstWeekday.rawValue + 7) % 7))
            days = (0..<7).map { start.adding(days: $0) }
        default:
            throw APIProblem(.invalidQuery, "give month (2026-11) or week (2026-W48)", fields: ["month", "week"])
        }
        let calendars = try attempt { () throws(StoreError) in try store.calendars() }
        let wanted = parameters["calendars"].map { Set($0.split(separator: ",").map(String.init)) }
        let chosen = calendars.filter { wanted?.contains($0.id) ?? true }
        if let wanted, let unknown = wanted.first(where: { id in !calendars.contains { $0.id == id } }) {
            throw APIProblem(.notFound, "no calendar \(unknown)", fields: ["calendars"])
        }
        let colors = Dictionary(uniqueKeysWithValues: chosen.map { ($0.id, $0.color) })
        let start = zone.instant(for: CivilDateTime(date: days[0], time: .midnight))
        let end = zone.instant(for: CivilDateTime(date: days[days.count - 1].adding(days: 1), time: .midnight))
        let occurrences = chosen.isEmpty ? [] : try attempt { () throws(StoreError) in
            try store.events(in: TimeRange(start: start, end: end), calendars: chosen.map(\.id), matching: .all, timeZone: zoneName ?? "UTC")
        }
        var result: [JSONValue] = []
        for day in days {
            let dayStart = zone.instant(for: CivilDateTime(date: day, time: .midnight))
            let dayEnd = zone.instant(for: CivilDateTime(date: day.adding(days: 1), time: .midnight))
            let touching = occurrences.filter { occurrence in
                OccurrenceTime.overlaps(start: occurrence.start, end: occurrence.end, from: dayStart, to: dayEnd, in: zone)
            }
            var dayColors: [String] = []
            for occurrence in touching {
                if let color = colors[occurrence.calendarIdentifier] ?? nil, !dayColors.contains(color) { dayColors.append(color) }
            }
            var members: [(key: String, value: JSONValue)] = [
                ("date", .string(day.description)), ("count", .integer(touching.count)), ("colors", .array(dayColors.map(JSONValue.string))),
                ("titles", .array(touching.prefix(titlesPerDay).map { .string($0.title ?? "") })), ("conflict", .bool(Self.hasConflict(touching))),
            ]
            if let month { members.append(("inMonth", .bool(day.year == month.year && day.month == month.month))) }
            result.append(.object(members))
        }
        return json(.object([("timeZone", .string(zoneName ?? "UTC")), ("firstWeekday", .string(Self.weekdayNames[firstWeekday.rawValue - 1])), ("days", .array(result))]))
    }

    static let weekdayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    static func weekday(_ text: String) throws(APIProblem) -> Weekday {
        guard let index = weekdayNames.firstIndex(of: text.lowercased()) else {
            throw APIProblem(.invalidQuery, "firstWeekday is a day name, such as monday or sunday", fields: ["firstWeekday"])
        }
        return Weekday(rawValue: index + 1)!
    }

    /// Whether two busy timed occurrences overlap (all-day, free and cancelled ones do not count).
    static func hasConflict(_ occurrences: [EventOccurrence]) -> Bool {
        let busy = occurrences.filter { !$0.isAllDay && !$0.isCancelled && !$0.isTransparent }
            .map { (start: $0.startInstant, end: $0.endInstant) }.sorted { $0.start < $1.start }
        var reach = Int.min
        for interval in busy {
            if interval.start < reach { return true }
            reach = max(reach, interval.end)
        }
        return false
    }
}
