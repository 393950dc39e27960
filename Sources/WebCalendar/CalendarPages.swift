import AddToCalendar
import CalendarStore
import CalendarViews
import CivilTime
import HTTPServer
import ICalendar
import Recurrence

extension WebContext {
    /// `/calendar?view=month|week|day&date=YYYY-MM-DD[&firstWeekday=][&tz=][&cal=ID…]`.
    func calendarPage() throws(WebFailure) -> HTTPResponse {
        let session = try requireSession()
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        let today = view.zone.localTime(at: calendar.now()).date
        let colors = Dictionary(view.calendars.map { ($0.id, $0.color) }, uniquingKeysWith: { first, _ in first })
        func events(_ range: (start: Int, end: Int)) throws(WebFailure) -> [ViewEvent] {
            let ids = view.calendars.map(\.id).filter { view.visible.contains($0) }
            guard !ids.isEmpty else { return [] }
            do {
                return try store.events(in: TimeRange(start: range.start, end: range.end), calendars: ids, matching: .all, timeZone: view.zoneName)
                    .map { ViewEvent($0, color: colors[$0.calendarIdentifier] ?? nil) }
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
            let week = WeekGrid(from: first, zone: view.zone, events: try events(WeekGrid.range(from: first, zone: view.zone)), today: today)
            title = "Week of \(first)"
            grid = weekGrid(week, view: view)
            previous = Self.supported(view.date.adding(days: -7))
            next = Self.supported(view.date.adding(days: 7))
        case "day":
            let start = view.zone.instant(for: CivilDateTime(date: view.date, time: .midnight))
            let end = view.zone.instant(for: CivilDateTime(date: view.date.adding(days: 1), time: .midnight))
            title = "\(view.date.weekday.englishName) \(view.date)"
            grid = dayList(try events((start, end)).sorted { ($0.isAllDay ? 0 : 1, $0.start) < ($1.isAllDay ? 0 : 1, $1.start) }, view: view)
            previous = Self.supported(view.date.adding(days: -1))
            next = Self.supported(view.date.adding(days: 1))
        default:
            guard let range = MonthGrid.range(year: view.date.year, month: view.date.month, firstWeekday: view.firstWeekday, zone: view.zone),
                let month = MonthGrid(
                    year: view.date.year, month: view.date.month, firstWeekday: view.firstWeekday, zone: view.zone, events: try events(range),
                    today: today)
            else { throw WebFailure(400, "No such month.") }
            title = "\(view.date.monthName) \(view.date.year)"
            grid = monthGrid(month, view: view)
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
            </header>
            <main>
            \(grid)
            </main>
            <aside class="side">
            \(calendarList(view))
            \(settingsForm(view))
            <form method="post" action="/logout"><input type="hidden" name="csrf" value="\(HTML.escape(session.csrfToken))"><button type="submit">Sign out</button></form>
            </aside>
            """
        return html(title, body)
    }

    static func supported(_ date: CivilDate) -> CivilDate? { date.isSupported ? date : nil }

    /// The previous or next button; without a date (past year 9999 or before year 1), a disabled one.
    func navigationLink(_ view: ViewParameters, to date: CivilDate?, rel: String, label: String, symbol: String) -> String {
        guard let date else { return "<span class=\"button\" aria-disabled=\"true\" aria-label=\"\(label)\">\(symbol)</span>" }
        return "<a class=\"button\" href=\"\(link(view, date: date))\" rel=\"\(rel)\" aria-label=\"\(label)\">\(symbol)</a>"
    }

    /// A bookmarkable link to the calendar with these changes, keeping the page's overrides.
    func link(_ view: ViewParameters, date: CivilDate? = nil, view name: String? = nil) -> String {
        var pairs: [(String, String)] = [("view", name ?? view.view), ("date", (date ?? view.date).description)]
        for (key, value) in request.queryItems where ["firstWeekday", "tz", "cal"].contains(key) { pairs.append((key, value)) }
        return HTML.escape("/calendar?" + HTML.query(pairs))
    }

    func eventLink(_ event: ViewEvent) -> String {
        let parts = event.id.split(separator: "/", maxSplits: 1)
        var pairs = [("id", String(parts[0]))]
        if parts.count == 2 { pairs.append(("occurrence", String(parts[1]))) }
        return HTML.escape("/calendar/event?" + HTML.query(pairs))
    }

    func dot(_ color: String?) -> String {
        "<span class=\"dot\" style=\"background:\(HTML.escape(Self.safeColor(color)))\" aria-hidden=\"true\"></span>"
    }

    /// A colour fit for a style attribute (`#RRGGBB[AA]`), else the default.
    static func safeColor(_ color: String?) -> String {
        guard let color, color.first == "#", color.count == 7 || color.count == 9, color.dropFirst().allSatisfy(\.isHexDigit) else { return "#4a6fa5" }
        return color
    }

    func monthGrid(_ month: MonthGrid, view: ViewParameters) -> String {
        var html = "<table class=\"month\" role=\"grid\" aria-label=\"\(CivilDate(year: month.year, month: month.month, day: 1)!.monthName) \(month.year)\">"
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
                if day.marker.hasConflict { classes.append("conflict") }
                let label = "\(day.date.weekday.englishName) \(day.date), \(day.marker.count) event\(day.marker.count == 1 ? "" : "s")"
                    + (day.marker.hasConflict ? ", overlapping" : "")
                html += "<td role=\"gridcell\" class=\"\(classes.joined(separator: " "))\" data-date=\"\(day.date)\" data-count=\"\(day.marker.count)\""
                    + (day.isToday ? " aria-current=\"date\"" : "") + ">"
                html += "<a class=\"number\" href=\"\(link(view, date: day.date, view: "day"))\" aria-label=\"\(HTML.escape(label))\">\(day.date.day)</a>"
                if day.marker.count > 0 {
                    html += "<span class=\"markers\">" + (day.marker.colors.isEmpty ? dot(nil) : day.marker.colors.map { dot($0) }.joined())
                        + (day.marker.hasConflict ? "<span class=\"warning\" title=\"Overlapping events\">!</span>" : "") + "</span>"
                    html += "<ul class=\"events\">" + day.events.prefix(3).map { event in
                        "<li>\(dot(event.color))<a href=\"\(eventLink(event))\">\(HTML.escape(event.title.isEmpty ? "(untitled)" : event.title))</a></li>"
                    }.joined() + (day.events.count > 3 ? "<li class=\"more\">+\(day.events.count - 3) more</li>" : "") + "</ul>"
                }
                html += "</td>"
            }
            html += "</tr>"
        }
        return html + "</tbody></table>"
    }

    func weekGrid(_ week: WeekGrid, view: ViewParameters) -> String {
        var html = "<table class=\"week\" role=\"grid\" aria-label=\"Week of \(week.columns[0].date)\"><thead><tr role=\"row\">"
        for column in week.columns {
            let name = column.date.weekday.englishName
            html += "<th role=\"columnheader\" scope=\"col\" abbr=\"\(name) \(column.date)\"\(column.isToday ? " class=\"today\" aria-current=\"date\"" : "")>"
                + "<a href=\"\(link(view, date: column.date, view: "day"))\">\(name.prefix(3)) \(column.date.day)</a>"
                + (column.marker.hasConflict ? "<span class=\"warning\" title=\"Overlapping events\">!</span>" : "") + "</th>"
        }
        html += "</tr></thead><tbody>"
        // The all-day row: one table row per lane, events spanning their columns.
        for lane in 0..<week.allDayLanes {
            html += "<tr role=\"row\" class=\"all-day\">"
            var column = 0
            for item in week.allDay.filter({ $0.lane == lane }).sorted(by: { $0.first < $1.first }) {
                if item.first > column { html += "<td role=\"gridcell\" colspan=\"\(item.first - column)\"></td>" }
                html += "<td role=\"gridcell\" colspan=\"\(item.span)\" class=\"all-day-event\" style=\"border-color:\(HTML.escape(Self.safeColor(item.event.color)))\">"
                    + "<a href=\"\(eventLink(item.event))\">\(HTML.escape(item.event.title))</a></td>"
                column = item.first + item.span
            }
            if column < 7 { html += "<td role=\"gridcell\" colspan=\"\(7 - column)\"></td>" }
            html += "</tr>"
        }
        // Timed events, placed by minute in each day's column; overlapping ones side by side.
        html += "<tr role=\"row\" class=\"timed\">"
        for column in week.columns {
            html += "<td role=\"gridcell\" class=\"day-column\(column.isToday ? " today" : "")\" data-date=\"\(column.date)\" data-minutes=\"\(column.minutes)\"><div class=\"hours\">"
            for placed in column.timed {
                let top = Double(placed.startMinute) / Double(column.minutes) * 100
                let height = max(1.5, Double(max(placed.endMinute - placed.startMinute, 1)) / Double(column.minutes) * 100)
                let width = 100.0 / Double(placed.lanes)
                let style = "top:\(Self.percent(top));height:\(Self.percent(height));left:\(Self.percent(width * Double(placed.lane)));width:\(Self.percent(width));border-color:\(Self.safeColor(placed.event.color))"
                html += "<a class=\"timed-event\" href=\"\(eventLink(placed.event))\" style=\"\(HTML.escape(style))\" data-lane=\"\(placed.lane)\" data-lanes=\"\(placed.lanes)\" data-start-minute=\"\(placed.startMinute)\" data-end-minute=\"\(placed.endMinute)\">"
                    + "<span class=\"time\">\(Self.clock(placed.startMinute))</span> \(HTML.escape(placed.event.title))</a>"
            }
            html += "</div></td>"
        }
        return html + "</tr></tbody></table>"
    }

    static func percent(_ value: Double) -> String { String(Double(Int(value * 100)) / 100) + "%" }

    /// `HH:MM` of minutes after midnight (elapsed, as the grid places them).
    static func clock(_ minutes: Int) -> String {
        let hour = minutes / 60 % 24
        let minute = minutes % 60
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    func dayList(_ events: [ViewEvent], view: ViewParameters) -> String {
        guard !events.isEmpty else { return "<p class=\"empty\">Nothing on this day.</p>" }
        return "<ul class=\"agenda\">" + events.map { event in
            let time = event.isAllDay ? "All day" : Self.wallClock(event.start, view.zone) + "–" + Self.wallClock(event.end, view.zone)
            return "<li>\(dot(event.color))<span class=\"time\">\(time)</span> <a href=\"\(eventLink(event))\">\(HTML.escape(event.title.isEmpty ? "(untitled)" : event.title))</a></li>"
        }.joined() + "</ul>"
    }

    static func wallClock(_ instant: Int, _ zone: ZoneRules) -> String {
        let local = zone.localTime(at: instant)
        return clock(local.time.hour * 60 + local.time.minute)
    }

    func calendarList(_ view: ViewParameters) -> String {
        // A GET form: visibility toggles work without JavaScript (Apply), and the
        // script submits on change.
        var html = "<form class=\"calendars\" method=\"get\" action=\"/calendar\" data-autosubmit>"
        html += "<input type=\"hidden\" name=\"view\" value=\"\(view.view)\"><input type=\"hidden\" name=\"date\" value=\"\(view.date)\">"
        for (key, value) in request.queryItems where ["firstWeekday", "tz"].contains(key) {
            html += "<input type=\"hidden\" name=\"\(key)\" value=\"\(HTML.escape(value))\">"
        }
        html += "<fieldset><legend>Calendars</legend>"
        for item in view.calendars {
            html += "<label>\(dot(item.color))<input type=\"checkbox\" name=\"cal\" value=\"\(HTML.escape(item.id))\"\(view.visible.contains(item.id) ? " checked" : "")> \(HTML.escape(item.title))</label>"
        }
        return html + "</fieldset><button type=\"submit\" class=\"apply\">Apply</button></form>"
    }

    func settingsForm(_ view: ViewParameters) -> String {
        let options = Weekday.allCases.map { day in
            "<option value=\"\(day.englishName.lowercased())\"\(day == view.firstWeekday ? " selected" : "")>\(day.englishName)</option>"
        }.joined()
        return """
            <form class="settings" method="post" action="/settings">
            <input type="hidden" name="csrf" value="\(HTML.escape(session?.csrfToken ?? ""))">
            <fieldset><legend>Settings</legend>
            <label>Weeks start on <select name="firstWeekday">\(options)</select></label>
            <label>Time zone <input name="tz" value="\(HTML.escape(view.zoneName))"></label>
            <button type="submit">Save</button>
            </fieldset>
            </form>
            """
    }
}
