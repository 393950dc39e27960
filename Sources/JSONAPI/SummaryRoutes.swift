import CalendarStore
import CalendarViews
import CivilTime
import HTTPTypes
import ICalendar
import JSON
import Recurrence
import StoreAdapters

extension APIContext {
    /// GET /summary?calendars=&month=2026-11|week=2026-W48&tz=&firstWeekday=: per day of
    /// the month grid (whole weeks from `firstWeekday`) or of the week, the number of
    /// occurrences, the colours of their calendars, the first titles, and whether two
    /// busy timed occurrences overlap. Days begin at midnight in `tz`.
    func summary() throws(APIProblem) -> HTTPResponse {
        let parameters = try query(allowing: ["calendars", "month", "week", "tz", "firstWeekday", "titles"])
        let (zone, zoneName) = try zone(parameters)
        let firstWeekday = try Self.weekday(parameters["firstWeekday"] ?? "monday")
        let titlesPerDay =
            try parameters["titles"].map { (text) throws(APIProblem) -> Int in
                guard let count = Int(text), (0...20).contains(count) else {
                    throw APIProblem(.invalidQuery, "titles is 0 to 20", fields: ["titles"])
                }
                return count
            } ?? 3
        var days: [CivilDate] = []
        var month: (year: Int, month: Int)?
        switch (parameters["month"], parameters["week"]) {
        case (let text?, nil):
            guard let (year, number) = CalendarUnitText.month(text),
                let grid = MonthGrid.days(year: year, month: number, firstWeekday: firstWeekday)
            else {
                throw APIProblem(
                    .invalidQuery, "month is YYYY-MM, such as 2026-11 (years 0001 to 9999)", fields: ["month"])
            }
            month = (year, number)
            days = grid
        case (nil, let text?):
            guard let (year, week) = CalendarUnitText.week(text), let monday = isoWeekMonday(year: year, week: week)
            else {
                throw APIProblem(
                    .invalidQuery, "week is an ISO week, YYYY-Www, such as 2026-W48 (years 0001 to 9999)",
                    fields: ["week"])
            }
            let start = monday.startOfWeek(firstWeekday: firstWeekday)
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
        let colors = CalendarPalette.displayColors(of: calendars)
        let range = instantRange(of: days, zone: zone)!
        let found =
            chosen.isEmpty
            ? OccurrenceList(occurrences: [])
            : try attempt { () throws(StoreError) in
                try store.occurrences(
                    in: TimeRange(start: range.start, end: range.end), calendars: chosen.map(\.id), matching: .all,
                    timeZone: zoneName ?? "UTC", limit: .max)
            }
        let summaries = daySummaries(
            for: days, zone: zone, events: found.occurrences.map { ViewEvent($0, color: colors[$0.calendarIdentifier]) }
        )
        let result: [JSONValue] = summaries.map { day in
            var members: [(key: String, value: JSONValue)] = [
                ("date", .string(day.date.description)), ("count", .integer(day.marker.count)),
                ("colors", .array(day.marker.colors.map(JSONValue.string))),
                ("titles", .array(day.events.prefix(titlesPerDay).map { .string($0.title) })),
                ("conflict", .bool(day.marker.hasConflict)),
            ]
            if let month {
                members.append(("inMonth", .bool(day.date.year == month.year && day.date.month == month.month)))
            }
            return .object(members)
        }
        // A series a bound of expansion cut counts only up to where it stopped: the answer says so.
        var members: [(key: String, value: JSONValue)] = [
            ("timeZone", .string(zoneName ?? "UTC")), ("firstWeekday", .string(firstWeekday.englishName.lowercased())),
            ("days", .array(result)),
            ("truncated", .bool(!found.isComplete)),
        ]
        if !found.isComplete {
            members.append(("truncatedSeries", .array(found.truncatedSeries.map(Self.json))))
        }
        return json(.object(members))
    }

    static func weekday(_ text: String) throws(APIProblem) -> Weekday {
        guard let day = Weekday(englishName: text) else {
            throw APIProblem(
                .invalidQuery, "firstWeekday is a day name, such as monday or sunday", fields: ["firstWeekday"])
        }
        return day
    }
}
