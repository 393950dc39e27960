import CalendarStore
import CalendarViews
import CivilTime
import StoreAdapters

/// `almanac cal`: a `cal`-style month (or week) grid with a marker on days that have
/// events (in the calendar's colour on a terminal, `*` otherwise), then the agenda of
/// the period.
enum CalCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.cal)
        guard options.operands.isEmpty else { throw .usage("'cal' takes no operands") }
        let context = try StoreContext(options, io: io)
        let calendars = try StoreContext.run { () throws(StoreError) in try context.store.calendars() }
        var chosen = calendars
        if let titles = options["--calendar"] {
            chosen = []
            for title in titles.split(separator: ",") { chosen.append(try context.calendar(titled: String(title))) }
        }
        let zone = try context.zone(options)
        let firstWeekday = try weekday(options["--first-weekday"] ?? "monday")
        let today = zone.localTime(at: io.now).date
        var date = today
        if let text = options["--date"] {
            date =
                zone.localTime(
                    at: TimeInput.instant(
                        try TimeInput.parse(text, now: io.now, zone: zone, option: "--date"), zone: zone)
                ).date
        }
        let colors = CalendarPalette.displayColors(of: calendars)
        // A series a bound of expansion cut is shown up to where it stopped, named on standard error (exit 1).
        var found = OccurrenceList(occurrences: [])
        func events(_ range: (start: Int, end: Int)) throws(CommandFailure) -> [EventOccurrence] {
            found = try StoreContext.run { () throws(StoreError) in
                try context.store.occurrences(
                    in: TimeRange(start: range.start, end: range.end), calendars: chosen.map(\.id), matching: .all,
                    timeZone: zone.identifier, limit: .max)
            }
            return found.occurrences
        }
        let color = io.isTerminal && io.environment["NO_COLOR"] == nil
        var output = context.zoneLine(zone)
        let occurrences: [EventOccurrence]
        if let text = options["--week"] {
            guard let (year, week) = CalendarUnitText.week(text), let monday = isoWeekMonday(year: year, week: week)
            else { throw .usage("--week is an ISO week such as 2026-W48 (years 0001 to 9999)") }
            let first = monday.startOfWeek(firstWeekday: firstWeekday)
            let range = WeekGrid.range(from: first, zone: zone)
            occurrences = try events(range)
            let grid = WeekGrid(
                from: first, zone: zone,
                events: occurrences.map { ViewEvent($0, color: colors[$0.calendarIdentifier]) }, today: today)
            output += "Week \(text) (\(first) – \(first.adding(days: 6)))\n"
            output += grid.columns.map { header($0.date.weekday) + " " }.joined() + "\n"
            output +=
                grid.columns.map { cell($0.date.day, marker: $0.marker, isToday: $0.isToday, color: color) }.joined()
                + "\n"
        } else {
            var year = date.year
            var month = date.month
            if let text = options["--month"] {
                guard let parsed = CalendarUnitText.month(text) else {
                    throw .usage("--month is YYYY-MM, such as 2026-11 (years 0001 to 9999)")
                }
                (year, month) = parsed
            }
            guard let range = MonthGrid.range(year: year, month: month, firstWeekday: firstWeekday, zone: zone) else {
                throw .usage("--month is YYYY-MM, such as 2026-11")
            }
            occurrences = try events(range)
            let views = occurrences.map { ViewEvent($0, color: colors[$0.calendarIdentifier]) }
            guard
                let grid = MonthGrid(
                    year: year, month: month, firstWeekday: firstWeekday, zone: zone, events: views, today: today)
            else {
                throw .usage("--month is YYYY-MM, such as 2026-11")
            }
            let title = "\(CivilDate(year: year, month: month, day: 1)!.monthName) \(year)"
            output += String(repeating: " ", count: max(0, (21 - title.count) / 2)) + title + "\n"
            output += grid.weekdays.map { header($0) + " " }.joined() + "\n"
            for week in grid.weeks {
                output +=
                    week.map { day in
                        day.isInMonth
                            ? cell(day.date.day, marker: day.marker, isToday: day.isToday, color: color) : "   "
                    }.joined() + "\n"
            }
            // The agenda covers the month itself, not the neighbouring days of the grid.
            let monthStart = zone.instant(
                for: CivilDateTime(date: CivilDate(year: year, month: month, day: 1)!, time: .midnight))
            let monthEnd = zone.instant(
                for: CivilDateTime(
                    date: CivilDate(year: year, month: month, day: 1)!.adding(
                        days: CivilDate.daysInMonth(year: year, month: month)), time: .midnight))
            output +=
                "\n"
                + agenda(
                    occurrences.filter {
                        $0.startInstant < monthEnd && max($0.endInstant, $0.startInstant + 1) > monthStart
                    }, zone: zone, calendars: calendars)
            io.write(output)
            return EventCommands.reportTruncation(found, io: io)
        }
        output += "\n" + agenda(occurrences, zone: zone, calendars: calendars)
        io.write(output)
        return EventCommands.reportTruncation(found, io: io)
    }

    static func weekday(_ text: String) throws(CommandFailure) -> Weekday {
        guard let day = Weekday(englishName: text) else {
            throw .usage("--first-weekday is a day name such as monday or sunday")
        }
        return day
    }

    static func header(_ weekday: Weekday) -> String { String(weekday.englishName.prefix(2)) }

    /// A day number, 2 wide, then its marker: `*` without colour; on a terminal the
    /// number in the first event colour (reverse video for today), bold when marked.
    static func cell(_ day: Int, marker: DayMarker, isToday: Bool, color: Bool) -> String {
        let number = (day < 10 ? " " : "") + String(day)
        guard color else { return number + (marker.count > 0 ? (marker.hasConflict ? "!" : "*") : " ") }
        var codes: [String] = []
        if isToday { codes.append("7") }
        if marker.count > 0 {
            codes.append("1")
            if let hex = marker.colors.first, let rgb = rgb(hex) { codes.append("38;2;\(rgb.0);\(rgb.1);\(rgb.2)") }
        }
        let styled = codes.isEmpty ? number : "\u{1B}[" + codes.joined(separator: ";") + "m" + number + "\u{1B}[0m"
        return styled + (marker.hasConflict ? "!" : " ")
    }

    static func rgb(_ hex: String) -> (Int, Int, Int)? {
        let digits = hex.dropFirst()
        guard hex.first == "#", digits.count >= 6, let value = Int(digits.prefix(6), radix: 16) else { return nil }
        return (value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)
    }

    /// The period's events by day, as `almanac agenda` prints them.
    static func agenda(_ occurrences: [EventOccurrence], zone: ZoneRules, calendars: [EventCalendar]) -> String {
        guard !occurrences.isEmpty else { return "No events.\n" }
        let titles = Dictionary(calendars.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
        var output = ""
        var day: CivilDate?
        for occurrence in occurrences {
            let date = zone.localTime(at: occurrence.startInstant).date
            if date != day {
                output += (day == nil ? "" : "\n") + "\(date.weekday.englishName) \(date)\n"
                day = date
            }
            output +=
                "  " + EventCommands.when(occurrence, zone: zone, clockOnly: true)
                + "  \(occurrence.title ?? "(untitled)")  [\(titles[occurrence.calendarIdentifier] ?? "")]"
                + EventCommands.statusMark(occurrence) + "\n"
        }
        return output
    }
}
