import AddToCalendar
import CalendarStore
import CalendarViews
import CivilTime
import HTTPTypes
import ICalendar
import Recurrence
import StoreAdapters

extension WebContext {
    /// `/calendar?view=month|week|day&date=YYYY-MM-DD[&firstWeekday=][&tz=][&cal=ID…]`.
    func calendarPage() throws(WebFailure) -> HTTPResponse {
        let session = try requireSession()
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        let now = calendar.now()
        let today = view.zone.localTime(at: now).date
        let colors = CalendarPalette.displayColors(of: view.calendars)
        // A series a bound of expansion cut is drawn up to where it stopped, and the page says so.
        var notice: String?
        func events(_ range: (start: Int, end: Int)) throws(WebFailure) -> [ViewEvent] {
            let ids = view.calendars.map(\.id).filter { view.visible.contains($0) }
            guard !ids.isEmpty else { return [] }
            do {
                let found = try store.occurrences(
                    in: TimeRange(start: range.start, end: range.end), calendars: ids, matching: .all,
                    timeZone: view.zoneName, limit: .max)
                notice = found.truncationNotice
                return found.occurrences.map { ViewEvent($0, color: colors[$0.calendarIdentifier]) }
                    .filter { view.showsCancelled || $0.status != .cancelled }
            } catch {
                throw WebFailure(error)
            }
        }
        var title: String
        var grid: String
        // Nil at the edges of the supported years (0001–9999): no link leads past them.
        var previous: CivilDate?
        var next: CivilDate?
        switch view.view {
        case "week":
            let first = view.date.startOfWeek(firstWeekday: view.firstWeekday)
            let week = WeekGrid(
                from: first, zone: view.zone, events: try events(WeekGrid.range(from: first, zone: view.zone)),
                today: today, now: now)
            title = Self.weekText(first)
            grid = weekStrip(week, view: view) + timeGrid(week, view: view, label: "Week of " + Self.longDate(first))
            previous = Self.supported(view.date.adding(days: -7))
            next = Self.supported(view.date.adding(days: 7))
        case "day":
            let day = WeekGrid(
                from: view.date, days: 1, zone: view.zone,
                events: try events(WeekGrid.range(from: view.date, days: 1, zone: view.zone)), today: today, now: now)
            title = Self.longDate(view.date)
            grid = timeGrid(day, view: view, label: title)
            previous = Self.supported(view.date.adding(days: -1))
            next = Self.supported(view.date.adding(days: 1))
        default:
            guard
                let range = MonthGrid.range(
                    year: view.date.year, month: view.date.month, firstWeekday: view.firstWeekday, zone: view.zone),
                let month = MonthGrid(
                    year: view.date.year, month: view.date.month, firstWeekday: view.firstWeekday, zone: view.zone,
                    events: try events(range),
                    today: today)
            else { throw WebFailure(400, "No such month.") }
            title = "\(view.date.monthName) \(view.date.year)"
            grid = monthGrid(month, view: view) + dayDetails(month, view: view)
            previous = view.date.addingMonths(-1)
            next = view.date.addingMonths(1)
        }
        let body = """
            <header class="bar">
            <nav class="navigation" aria-label="Dates">
            \(navigationLink(view, to: previous, rel: "prev", label: "Previous", symbol: "‹"))
            <a class="button" href="\(link(view, date: today))">Today</a>
            \(navigationLink(view, to: next, rel: "next", label: "Next", symbol: "›"))
            <h1>\(HTML.escape(title))</h1>
            </nav>
            <nav class="scope" aria-label="View">
            \(["month", "week", "day"].map { name in
                "<a class=\"button\(name == view.view ? " selected" : "")\" href=\"\(link(view, view: name))\"\(name == view.view ? " aria-current=\"page\"" : "")>\(name.capitalized)</a>"
            }.joined())
            </nav>
            <a class="button new" href="/calendar/new?\(HTML.query([("date", view.date.description)]))">New event</a>
            <a class="button" href="/calendar/bookings">Bookings</a>
            </header>
            <main>
            \(notice.map { "<p class=\"error truncated\" role=\"alert\">Not every event is shown: \(HTML.escape($0)).</p>" } ?? "")
            \(grid)
            </main>
            <aside class="side">
            \(calendarList(view, colors: colors))
            \(settingsForm(view))
            <p class="account-links"><a href="/calendar/app-passwords">App passwords</a> for calendar apps</p>
            <form method="post" action="/logout"><input type="hidden" name="csrf" value="\(HTML.escape(session.csrfToken))"><button type="submit">Sign out</button></form>
            </aside>
            """
        return html(title, body)
    }

    static func supported(_ date: CivilDate) -> CivilDate? { date.isSupported ? date : nil }

    /// A week as people write it: `7 – 13 December 2026`, `30 November – 6 December 2026`,
    /// `28 December 2026 – 3 January 2027`.
    static func weekText(_ first: CivilDate) -> String {
        let last = first.adding(days: 6)
        let end = "\(last.day) \(last.monthName) \(last.year)"
        if first.year != last.year { return "\(first.day) \(first.monthName) \(first.year) – " + end }
        if first.month != last.month { return "\(first.day) \(first.monthName) – " + end }
        return "\(first.day) – " + end
    }

    /// The previous or next button; without a date (past year 9999 or before year 1), a disabled one.
    func navigationLink(_ view: ViewParameters, to date: CivilDate?, rel: String, label: String, symbol: String)
        -> String
    {
        guard let date else {
            return "<span class=\"button\" aria-disabled=\"true\" aria-label=\"\(label)\">\(symbol)</span>"
        }
        return
            "<a class=\"button\" href=\"\(link(view, date: date))\" rel=\"\(rel)\" aria-label=\"\(label)\">\(symbol)</a>"
    }

    /// A bookmarkable link to the calendar with these changes, keeping the page's overrides.
    func link(_ view: ViewParameters, date: CivilDate? = nil, view name: String? = nil) -> String {
        var pairs: [(String, String)] = [("view", name ?? view.view), ("date", (date ?? view.date).description)]
        for (key, value) in request.queryItems where ["firstWeekday", "tz", "cal", "cancelled"].contains(key) {
            pairs.append((key, value))
        }
        return HTML.escape("/calendar?" + HTML.query(pairs))
    }

    func eventLink(_ event: ViewEvent) -> String {
        let parts = event.id.split(separator: "/", maxSplits: 1)
        var pairs = [("id", String(parts[0]))]
        if parts.count == 2 { pairs.append(("occurrence", String(parts[1]))) }
        return HTML.escape("/calendar/event?" + HTML.query(pairs))
    }

    /// The classes that mark an event's status (` cancelled`, ` tentative`), for CSS.
    static func statusClass(_ event: ViewEvent) -> String {
        switch event.status {
        case .confirmed: ""
        case .tentative: " tentative"
        case .cancelled: " cancelled"
        }
    }

    /// An event's title as the views show it, its status said before it for screen
    /// readers (the look says it for the eye).
    static func title(_ event: ViewEvent) -> String {
        let prefix =
            switch event.status {
            case .confirmed: ""
            case .tentative: "<span class=\"visually-hidden\">Tentative: </span>"
            case .cancelled: "<span class=\"visually-hidden\">Cancelled: </span>"
            }
        return prefix + HTML.escape(event.title.isEmpty ? "(untitled)" : event.title)
    }

    func dot(_ color: String?) -> String {
        "<span class=\"dot\" style=\"background:\(HTML.escape(Self.safeColor(color)))\" aria-hidden=\"true\"></span>"
    }

    /// A colour fit for a style attribute (`#RRGGBB[AA]`), else the palette's first.
    static func safeColor(_ color: String?) -> String {
        guard let color, CalendarPalette.isColor(color) else { return CalendarPalette.colors[0] }
        return color
    }

    func monthGrid(_ month: MonthGrid, view: ViewParameters) -> String {
        var html =
            "<table class=\"month\" role=\"grid\" aria-label=\"\(CivilDate(year: month.year, month: month.month, day: 1)!.monthName) \(month.year)\">"
        html += "<thead><tr role=\"row\">"
        for weekday in month.weekdays {
            let name = weekday.englishName
            html += "<th role=\"columnheader\" scope=\"col\" abbr=\"\(name)\">\(name.prefix(3))</th>"
        }
        html += "</tr></thead><tbody>"
        for week in month.weeks {
            html += "<tr role=\"row\">"
            for day in week {
                var classes = ["day"]
                if !day.isInMonth { classes.append("outside") }
                if day.isToday { classes.append("today") }
                if day.date == view.date { classes.append("selected") }
                let overlaps = Self.overlapNote(day.events)
                let label =
                    "\(Self.longDate(day.date)), \(day.marker.count) event\(day.marker.count == 1 ? "" : "s")"
                    + (overlaps.map { ". " + $0 } ?? "")
                html +=
                    "<td role=\"gridcell\" class=\"\(classes.joined(separator: " "))\" data-date=\"\(day.date)\" data-count=\"\(day.marker.count)\""
                    + (day.isToday ? " aria-current=\"date\"" : "") + ">"
                html +=
                    "<a class=\"number\" href=\"\(link(view, date: day.date, view: "day"))\" aria-label=\"\(HTML.escape(label))\">\(day.date.day)</a>"
                if day.marker.count > 0 {
                    html +=
                        "<span class=\"markers\">"
                        + (day.marker.colors.isEmpty ? dot(nil) : day.marker.colors.map { dot($0) }.joined())
                        + (overlaps.map { "<span class=\"warning\" title=\"\(HTML.escape($0))\">!</span>" } ?? "")
                        + "</span>"
                    html +=
                        "<ul class=\"events\">"
                        + Self.monthOrder(day.events, zone: view.zone).prefix(3).map { event in
                            monthLine(event, on: day.date, view: view)
                        }.joined()
                        + (day.events.count > 3
                            ? "<li class=\"more\"><a href=\"\(link(view, date: day.date, view: "day"))\">+\(day.events.count - 3) more</a></li>"
                            : "")
                        + (overlaps.map { "<li class=\"overlap\">\(HTML.escape($0))</li>" } ?? "") + "</ul>"
                }
                html += "</td>"
            }
            html += "</tr>"
        }
        return html + "</tbody></table>"
    }

    /// The local dates an event covers in `zone` (an all-day one its dates; a timed one
    /// the days from its start to just before its end).
    static func localDates(_ event: ViewEvent, zone: ZoneRules) -> (first: CivilDate, last: CivilDate) {
        if let dates = event.dates { return (dates.first, dates.afterLast.adding(days: -1)) }
        let first = zone.localTime(at: event.start).date
        return (first, max(first, zone.localTime(at: max(event.start, event.end - 1)).date))
    }

    /// A month cell's events: those over several days first (by start, so a trip keeps
    /// its place across the days it covers), then the rest by start.
    static func monthOrder(_ events: [ViewEvent], zone: ZoneRules) -> [ViewEvent] {
        func spans(_ event: ViewEvent) -> Bool {
            let dates = localDates(event, zone: zone)
            return dates.first != dates.last
        }
        return events.enumerated().sorted { left, right in
            let (a, b) = (spans(left.element), spans(right.element))
            if a != b { return a }
            if left.element.start != right.element.start { return left.element.start < right.element.start }
            return left.offset < right.offset
        }.map(\.element)
    }

    /// One event's line in a month cell: its start time when it starts that day; an event
    /// over several days a bar across them, named where it starts and at each week's start.
    func monthLine(_ event: ViewEvent, on date: CivilDate, view: ViewParameters) -> String {
        let dates = Self.localDates(event, zone: view.zone)
        let link = "<a href=\"\(eventLink(event))\">"
        guard dates.first != dates.last else {
            let time =
                event.dates == nil
                ? "<span class=\"time\">\(Self.clock(view.zone.localTime(at: event.start).time))</span> " : ""
            return
                "<li class=\"event\(Self.statusClass(event))\">\(dot(event.color))\(link)\(time)\(Self.title(event))</a></li>"
        }
        var classes = "event bar" + Self.statusClass(event)
        if date == dates.first { classes += " bar-start" }
        if date == dates.last { classes += " bar-end" }
        let named = date == dates.first || date.weekday == view.firstWeekday
        let time =
            date == dates.first && event.dates == nil
            ? "<span class=\"time\">\(Self.clock(view.zone.localTime(at: event.start).time))</span> " : ""
        let text =
            named
            ? time + Self.title(event)
            : "<span class=\"visually-hidden\">\(Self.title(event)), continued</span>"
        return
            "<li class=\"\(classes)\" style=\"border-color:\(HTML.escape(Self.safeColor(event.color)))\">\(link)\(text)</a></li>"
    }

    /// The week or day view: a time gutter with the hours of the viewer's zone, an
    /// all-day row (multi-day events spanning their columns), then each day's timed
    /// events placed by wall clock, overlapping ones side by side. Every column is the
    /// same 24 hours, so rows line up with the gutter on DST-change days too: the hour
    /// clocks skip is a hatched row saying so, the hour they repeat a row naming both
    /// passes. Today has a now-line.
    func timeGrid(_ grid: WeekGrid, view: ViewParameters, label: String) -> String {
        func top(_ minute: Int) -> String { Self.percent(Double(minute) / 1440 * 100) }
        let height = "height:72rem"  // three rem an hour
        let kind = grid.columns.count == 1 ? "day" : "week"
        // The grid scrolls in its box; the page's script opens it at the working day: an
        // hour before the first event when one starts before 08:00, else at 07:00.
        let earliest = grid.columns.flatMap { $0.timed.map(\.startMinute) }.min() ?? 480
        var html =
            "<div class=\"grid-scroll\" data-scroll-minute=\"\(max(0, min(earliest, 480) - 60))\">"
            + "<table class=\"time-grid \(kind)\" role=\"grid\" aria-label=\"\(HTML.escape(label))\" data-scale-minutes=\"1440\"><thead><tr role=\"row\">"
        html +=
            "<td class=\"gutter-head\" aria-hidden=\"true\">\(HTML.escape(zoneNames(grid, view.zone)))</td>"
        for column in grid.columns {
            let name = column.date.weekday.englishName
            html +=
                "<th role=\"columnheader\" scope=\"col\" abbr=\"\(name) \(column.date)\"\(column.isToday ? " class=\"today\" aria-current=\"date\"" : "")>"
                + "<a href=\"\(link(view, date: column.date, view: "day"))\">\(name.prefix(3)) \(column.date.day)</a>"
                + (Self.overlapNote(column.timed.map(\.event)).map {
                    "<span class=\"warning\" title=\"\(HTML.escape($0))\">!</span>"
                } ?? "")
                + "</th>"
        }
        html += "</tr></thead><tbody>"
        // The all-day row: one table row per lane, events spanning their columns.
        let count = grid.columns.count
        for lane in 0..<grid.allDayLanes {
            html +=
                "<tr role=\"row\" class=\"all-day\">"
                + (lane == 0 ? "<th scope=\"row\" class=\"gutter\" rowspan=\"\(grid.allDayLanes)\">All day</th>" : "")
            var column = 0
            for item in grid.allDay.filter({ $0.lane == lane }).sorted(by: { $0.first < $1.first }) {
                if item.first > column { html += "<td role=\"gridcell\" colspan=\"\(item.first - column)\"></td>" }
                html +=
                    "<td role=\"gridcell\" colspan=\"\(item.span)\" class=\"all-day-event\(Self.statusClass(item.event))\" style=\"border-color:\(HTML.escape(Self.safeColor(item.event.color)))\">"
                    + "<a href=\"\(eventLink(item.event))\">\(Self.title(item.event))</a></td>"
                column = item.first + item.span
            }
            if column < count { html += "<td role=\"gridcell\" colspan=\"\(count - column)\"></td>" }
            html += "</tr>"
        }
        // The gutter, then timed events, placed by minute in each day's column.
        html +=
            "<tr role=\"row\" class=\"timed\"><th scope=\"row\" class=\"gutter\"><div class=\"hours\" style=\"\(height)\">"
        for mark in grid.columns[0].hours {
            html +=
                "<span class=\"hour-label\" style=\"top:\(top(mark.minute))\" data-minute=\"\(mark.minute)\">\(mark.label)</span>"
        }
        html += "</div></th>"
        for column in grid.columns {
            html +=
                "<td role=\"gridcell\" class=\"day-column\(column.isToday ? " today" : "")\" data-date=\"\(column.date)\" data-minutes=\"\(column.minutes)\"><div class=\"hours\" style=\"\(height)\">"
            for mark in column.hours {
                html += "<span class=\"hour-line\" style=\"top:\(top(mark.minute))\" aria-hidden=\"true\"></span>"
                if let note = Self.clockChange(mark) {
                    html +=
                        "<span class=\"clock-change\(mark.isSkipped ? " skipped" : " repeated")\" style=\"top:\(top(mark.minute));height:\(top(60))\" data-minute=\"\(mark.minute)\" title=\"\(HTML.escape(note.long))\">\(HTML.escape(note.short))</span>"
                }
            }
            for placed in column.timed {
                let height = max(1.5, Double(max(placed.endMinute - placed.startMinute, 1)) / 1440 * 100)
                let width = 100.0 / Double(placed.lanes)
                let style =
                    "top:\(top(placed.startMinute));height:\(Self.percent(height));left:\(Self.percent(width * Double(placed.lane)));width:\(Self.percent(width));border-color:\(Self.safeColor(placed.event.color))"
                html +=
                    "<a class=\"timed-event\(Self.statusClass(placed.event))\" href=\"\(eventLink(placed.event))\" style=\"\(HTML.escape(style))\" data-lane=\"\(placed.lane)\" data-lanes=\"\(placed.lanes)\" data-start-minute=\"\(placed.startMinute)\" data-end-minute=\"\(placed.endMinute)\">"
                    + "<span class=\"time\">\(Self.wallClock(placed.event.start, view.zone, on: column))</span> \(Self.title(placed.event))</a>"
            }
            if let minute = column.nowMinute {
                html +=
                    "<div class=\"now-line\" style=\"top:\(top(minute))\" data-now-minute=\"\(minute)\" data-day-minutes=\"1440\" role=\"presentation\" title=\"Now\"></div>"
            }
            html += "</div></td>"
        }
        return html + "</tr></tbody></table></div>"
    }

    /// Which of a day's busy, timed events overlap, in words ("Spin overlaps with Yoga
    /// and Stretch"; several clashes joined by "; "), or nil when none do. Linear in a
    /// day of events that do not overlap (a dense series).
    static func overlapNote(_ events: [ViewEvent]) -> String? {
        let busy = events.filter { $0.isBusy && !$0.isAllDay }.sorted { $0.start < $1.start }
        var told = Set<Int>()
        var clashes: [String] = []
        for (index, event) in busy.enumerated() where !told.contains(index) {
            // Sorted by start: those that start before this one ends follow it directly.
            let end = max(event.end, event.start + 1)
            let others = busy[(index + 1)...].prefix { $0.start < end }.indices.filter { !told.contains($0) }
            guard !others.isEmpty else { continue }
            told.formUnion([index] + others)
            // At most three names a clash, and three clashes: the rest counted.
            var names = others.prefix(3).map { busy[$0].title }
            if others.count > 3 { names.append("\(others.count - 3) more") }
            let list =
                names.dropLast().isEmpty
                ? names.joined()
                : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
            clashes.append("\(event.title) overlaps with \(list)")
        }
        guard !clashes.isEmpty else { return nil }
        return (clashes.prefix(3) + (clashes.count > 3 ? ["\(clashes.count - 3) more clashes"] : [])).joined(
            separator: "; ")
    }

    /// What a row of the time grid says when clocks change in it: a short text in the
    /// row and a sentence for its title.
    static func clockChange(_ mark: WeekGrid.HourMark) -> (short: String, long: String)? {
        let hour = mark.label + "–" + clock((mark.hour + 1) * 60)
        if mark.isSkipped {
            return ("Clocks go forward", "Clocks go forward: \(hour) does not happen on this day")
        }
        if mark.isRepeated {
            let passes = mark.zones.joined(separator: ", then ")
            return ("Twice: \(passes)", "Clocks go back: \(hour) happens twice, in \(passes)")
        }
        return nil
    }

    /// The gutter's zone: its abbreviation over the days shown (both, when clocks
    /// change in them).
    func zoneNames(_ grid: WeekGrid, _ zone: ZoneRules) -> String {
        let range = WeekGrid.range(from: grid.columns[0].date, days: grid.columns.count, zone: zone)
        let names = [zone.abbreviation(at: range.start), zone.abbreviation(at: range.end - 1)]
        return names[0] == names[1] ? names[0] : names.joined(separator: "/")
    }

    /// The week on a phone (the stylesheet shows it under 37.5rem, in place of the seven
    /// squeezed columns): a strip of the seven days with their calendars' dots, each a
    /// link that chooses it, and the chosen day's events below.
    func weekStrip(_ grid: WeekGrid, view: ViewParameters) -> String {
        let chosen = grid.columns.firstIndex { $0.date == view.date } ?? 0
        var html = "<section class=\"week-strip\" aria-label=\"The week, day by day\"><ol class=\"strip-days\">"
        for (index, column) in grid.columns.enumerated() {
            var classes = ["strip-day"]
            if index == chosen { classes.append("selected") }
            if column.isToday { classes.append("today") }
            let label =
                "\(Self.longDate(column.date)), \(column.marker.count) event\(column.marker.count == 1 ? "" : "s")"
            html +=
                "<li><a class=\"\(classes.joined(separator: " "))\" href=\"\(link(view, date: column.date, view: "week"))\" aria-label=\"\(HTML.escape(label))\"\(index == chosen ? " aria-current=\"date\"" : "")>"
                + "<span class=\"weekday\">\(column.date.weekday.englishName.prefix(3))</span><span class=\"number\">\(column.date.day)</span>"
                + "<span class=\"markers\">\(column.marker.colors.prefix(3).map { dot($0) }.joined())</span></a></li>"
        }
        let allDay = grid.allDay.filter { $0.first <= chosen && chosen < $0.first + $0.span }.map(\.event)
        let timed = grid.columns[chosen].timed.map(\.event).sorted { $0.start < $1.start }
        return html + "</ol><div class=\"strip-agenda\"><h2>\(Self.longDate(grid.columns[chosen].date))</h2>"
            + dayList(allDay + timed, view: view) + "</div></section>"
    }

    /// Below the month grid: each day's events as a list, for a phone, where the grid
    /// shows only dots. The selected day's list shows; the script shows another day's
    /// when its cell is tapped, without leaving the month.
    func dayDetails(_ month: MonthGrid, view: ViewParameters) -> String {
        var html = "<section class=\"day-details\" aria-live=\"polite\">"
        for day in month.weeks.joined() {
            let selected = day.date == view.date
            html +=
                "<div class=\"day-detail\" data-date=\"\(day.date)\"\(selected ? "" : " hidden")><h2>\(Self.longDate(day.date))</h2>"
                + dayList(day.events, view: view) + "</div>"
        }
        return html + "</section>"
    }

    static func percent(_ value: Double) -> String { String(Double(Int(value * 100)) / 100) + "%" }

    /// `HH:MM` of minutes after midnight on the wall clock.
    static func clock(_ minutes: Int) -> String {
        let hour = minutes / 60 % 24
        let minute = minutes % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    func dayList(_ events: [ViewEvent], view: ViewParameters) -> String {
        guard !events.isEmpty else { return "<p class=\"empty\">Nothing on this day.</p>" }
        return "<ul class=\"agenda\">"
            + events.map { event in
                let time =
                    event.isAllDay
                    ? "All day" : Self.wallClock(event.start, view.zone) + "–" + Self.wallClock(event.end, view.zone)
                return
                    "<li class=\"event\(Self.statusClass(event))\">\(dot(event.color))<span class=\"time\">\(time)</span> <a href=\"\(eventLink(event))\">\(Self.title(event))</a></li>"
            }.joined() + "</ul>"
    }

    static func wallClock(_ instant: Int, _ zone: ZoneRules) -> String {
        let local = zone.localTime(at: instant)
        return clock(local.time.hour * 60 + local.time.minute)
    }

    /// `HH:MM` in a day column, with the zone's abbreviation when the day has that
    /// hour twice (which of the two passes it is).
    static func wallClock(_ instant: Int, _ zone: ZoneRules, on column: WeekGrid.Column) -> String {
        let local = zone.localTime(at: instant)
        let text = clock(local.time.hour * 60 + local.time.minute)
        guard local.date == column.date, column.hours[local.time.hour].isRepeated else { return text }
        return text + " " + zone.abbreviation(at: instant)
    }

    func calendarList(_ view: ViewParameters, colors: [String: String]) -> String {
        // A GET form: visibility toggles work without JavaScript (Apply), and the
        // script submits on change.
        var html = "<form class=\"calendars\" method=\"get\" action=\"/calendar\" data-autosubmit>"
        html +=
            "<input type=\"hidden\" name=\"view\" value=\"\(view.view)\"><input type=\"hidden\" name=\"date\" value=\"\(view.date)\">"
        for (key, value) in request.queryItems where ["firstWeekday", "tz"].contains(key) {
            html += "<input type=\"hidden\" name=\"\(key)\" value=\"\(HTML.escape(value))\">"
        }
        html += "<fieldset><legend>Calendars</legend>"
        for item in view.calendars {
            html +=
                "<label>\(dot(colors[item.id]))<input type=\"checkbox\" name=\"cal\" value=\"\(HTML.escape(item.id))\"\(view.visible.contains(item.id) ? " checked" : "")> \(HTML.escape(item.title))</label>"
        }
        // Unchecked, the box sends nothing and the hidden field says hide; checked, its
        // later value wins.
        html +=
            "</fieldset><input type=\"hidden\" name=\"cancelled\" value=\"hide\"><label class=\"show-cancelled\"><input type=\"checkbox\" name=\"cancelled\" value=\"show\"\(view.showsCancelled ? " checked" : "")> Show cancelled events</label>"
        return html + "<button type=\"submit\" class=\"apply\">Apply</button></form>"
    }

    func settingsForm(_ view: ViewParameters) -> String {
        let options = Weekday.allCases.map { day in
            "<option value=\"\(day.englishName.lowercased())\"\(day == view.firstWeekday ? " selected" : "")>\(day.englishName)</option>"
        }.joined()
        // A zone that could not be saved comes back as typed, with why.
        let rejected = request.queryValue("tzError")
        return """
            <form class="settings" method="post" action="/settings">
            <input type="hidden" name="csrf" value="\(HTML.escape(session?.csrfToken ?? ""))">
            <fieldset><legend>Settings</legend>
            <label>Weeks start on <select name="firstWeekday">\(options)</select></label>
            \(rejected.map { "<p class=\"error\" role=\"alert\" id=\"tz-error\">There is no time zone “\(HTML.escape($0))”. Type a city or pick one from the list (such as Europe/Berlin).</p>" } ?? "")
            <label>Time zone <input name="tz" value="\(HTML.escape(rejected ?? view.zoneName))"\(rejected == nil ? "" : " aria-invalid=\"true\" aria-describedby=\"tz-error\"") list="zone-names" autocomplete="off" spellcheck="false"></label>
            \(Self.zoneList)
            <button type="submit">Save</button>
            </fieldset>
            </form>
            """
    }
}
