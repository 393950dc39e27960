import CivilTime
import Foundation
import ICalendar
import Recurrence

/// "Add to Calendar" links of the web calendars, which open a filled-in new-event form.
enum WebLinks {
    /// Google Calendar's template URL. Timed entries keep their zone (`ctz`) and wall
    /// times; all-day entries give dates with an exclusive end; `recur` carries the rule.
    static func google(_ entry: CalendarEntry) -> AddToCalendarTargets.Link {
        var query: [(String, String)] = [("action", "TEMPLATE"), ("text", entry.title)]
        if let dates = entry.dates {
            query.append(("dates", compactDate(dates.first) + "/" + compactDate(dates.afterLast)))
        } else if let zone = entry.zoneName, zone != "UTC" {
            query.append(
                (
                    "dates",
                    compactLocal(entry.zone.localTime(at: entry.start)) + "/"
                        + compactLocal(entry.zone.localTime(at: entry.end))
                ))
            query.append(("ctz", zone))
        } else {
            query.append(("dates", compactUTC(entry.start) + "/" + compactUTC(entry.end)))
        }
        if let details = detailsWithURL(entry) { query.append(("details", details)) }
        if let location = entry.location { query.append(("location", location)) }
        if let rule = entry.recurrenceRule { query.append(("recur", "RRULE:" + rule)) }
        return AddToCalendarTargets.Link(
            url: "https://calendar.google.com/calendar/render?" + encodeQuery(query),
            lost: AddToCalendarTargets.losses(
                entry, recurrence: true, alarms: .none, timeZone: true, url: true, availability: false))
    }

    /// Outlook.com (`outlook.live.com`) and Office 365 (`outlook.office.com`) compose
    /// deeplinks: UTC times or dates, no recurrence.
    static func outlook(_ entry: CalendarEntry, host: String) -> AddToCalendarTargets.Link {
        var query: [(String, String)] = [
            ("path", "/calendar/action/compose"), ("rru", "addevent"), ("subject", entry.title),
        ]
        if let dates = entry.dates {
            query += [("startdt", isoDate(dates.first)), ("enddt", isoDate(dates.afterLast)), ("allday", "true")]
        } else {
            query += [("startdt", isoUTC(entry.start)), ("enddt", isoUTC(entry.end)), ("allday", "false")]
        }
        if let body = detailsWithURL(entry) { query.append(("body", body)) }
        if let location = entry.location { query.append(("location", location)) }
        return AddToCalendarTargets.Link(
            url: "https://\(host)/calendar/0/deeplink/compose?" + encodeQuery(query),
            lost: AddToCalendarTargets.losses(
                entry, recurrence: false, alarms: .none, timeZone: false, url: true, availability: false))
    }

    /// Yahoo Calendar (`v=60`): UTC times or an all-day date; a plain daily, weekly,
    /// monthly or yearly rule as `RPAT` (interval and unit) with `REND` (its last date).
    static func yahoo(_ entry: CalendarEntry) -> AddToCalendarTargets.Link {
        var query: [(String, String)] = [("v", "60"), ("title", entry.title)]
        if let dates = entry.dates {
            query.append(("st", compactDate(dates.first)))
            if dates.afterLast == dates.first.adding(days: 1) {
                query.append(("dur", "allday"))
            } else {
                query.append(("et", compactDate(dates.afterLast.adding(days: -1))))
            }
        } else {
            query += [("st", compactUTC(entry.start)), ("et", compactUTC(entry.end))]
        }
        if let details = detailsWithURL(entry) { query.append(("desc", details)) }
        if let location = entry.location { query.append(("in_loc", location)) }
        let pattern = entry.recurrenceRule.flatMap { yahooRecurrence($0, entry: entry) }
        if let pattern {
            query.append(("RPAT", pattern.repeats))
            if let end = pattern.end { query.append(("REND", compactDate(end))) }
        }
        return AddToCalendarTargets.Link(
            url: "https://calendar.yahoo.com/?" + encodeQuery(query),
            lost: AddToCalendarTargets.losses(
                entry, recurrence: pattern != nil, alarms: .none, timeZone: false, url: true, availability: false))
    }

    /// A rule Yahoo can say: one frequency from daily to yearly, an interval under 100,
    /// no BY parts beyond what DTSTART implies; nil otherwise.
    static func yahooRecurrence(_ text: String, entry: CalendarEntry) -> (repeats: String, end: CivilDate?)? {
        guard let rule = try? RecurrenceRule(parsing: text, strict: false), rule.interval >= 1, rule.interval <= 99,
            rule.bySecond.isEmpty, rule.byMinute.isEmpty, rule.byHour.isEmpty, rule.byYearDay.isEmpty,
            rule.byWeekNo.isEmpty,
            rule.bySetPos.isEmpty
        else { return nil }
        let startDate = entry.dates?.first ?? entry.zone.localTime(at: entry.start).date
        let unit: String
        switch rule.frequency {
        case .daily where rule.byDay.isEmpty && rule.byMonthDay.isEmpty && rule.byMonth.isEmpty: unit = "Dy"
        case .weekly
        where rule.byMonthDay.isEmpty && rule.byMonth.isEmpty
            && (rule.byDay.isEmpty || rule.byDay == [RecurrenceRule.WeekdayNumber(startDate.weekday)]):
            unit = "Wk"
        case .monthly
        where rule.byDay.isEmpty && rule.byMonth.isEmpty
            && (rule.byMonthDay.isEmpty || rule.byMonthDay == [startDate.day]):
            unit = "Mh"
        case .yearly
        where rule.byDay.isEmpty && (rule.byMonth.isEmpty || rule.byMonth == [startDate.month])
            && (rule.byMonthDay.isEmpty || rule.byMonthDay == [startDate.day]):
            unit = "Yr"
        default: return nil
        }
        let repeats = (rule.interval < 10 ? "0" : "") + String(rule.interval) + unit
        if let until = rule.until {
            return (
                repeats,
                until.isDate ? until.civil.date : entry.zone.localTime(at: untilInstant(until, zone: entry.zone)).date
            )
        }
        guard let count = rule.count else { return (repeats, nil) }
        // The date of the COUNT-th instance, from the series itself; a series a bound of
        // expansion stopped before it has no end date to give (the link then loses the rule).
        var budget = ExpansionBudget.perRequest
        guard let master = entry.components.first(where: { $0.property("RECURRENCE-ID") == nil }),
            let prepared = try? CalendarObjectExpansion(
                resolver: ZoneResolver(calendar: Component(name: "VCALENDAR", components: entry.components))
            )
            .prepare([master], uid: entry.uid)
        else { return nil }
        let found = prepared.expand(from: nil, to: nil, viewerZone: entry.zone, limit: count, budget: &budget)
        guard found.isComplete, let last = found.occurrences.last else { return nil }
        if case .date(let date) = last.start { return (repeats, date) }
        return (repeats, entry.zone.localTime(at: last.start.instant(in: entry.zone)).date)
    }

    static func untilInstant(_ until: DateTimeValue, zone: ZoneRules) -> Int {
        until.form == .utc ? until.civil.secondsSinceEpoch : zone.instant(for: until.civil)
    }

    /// The notes, with the URL after them (no target has a field of its own for it).
    static func detailsWithURL(_ entry: CalendarEntry) -> String? {
        switch (entry.notes, entry.url) {
        case (nil, nil): nil
        case (let notes?, nil): notes
        case (nil, let url?): url
        case (let notes?, let url?): notes + "\n\n" + url
        }
    }

    static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
    static func four(_ value: Int) -> String {
        String(repeating: "0", count: max(0, 4 - String(value).count)) + String(value)
    }

    /// `20261201`.
    static func compactDate(_ date: CivilDate) -> String { four(date.year) + two(date.month) + two(date.day) }
    /// `20261201T120000`, a wall clock.
    static func compactLocal(_ time: CivilDateTime) -> String {
        compactDate(time.date) + "T" + two(time.time.hour) + two(time.time.minute) + two(time.time.second)
    }
    /// `20261201T110000Z`.
    static func compactUTC(_ seconds: Int) -> String { compactLocal(CivilDateTime(secondsSinceEpoch: seconds)) + "Z" }
    /// `2026-12-01`.
    static func isoDate(_ date: CivilDate) -> String { four(date.year) + "-" + two(date.month) + "-" + two(date.day) }
    /// `2026-12-01T11:00:00Z`.
    static func isoUTC(_ seconds: Int) -> String {
        let time = CivilDateTime(secondsSinceEpoch: seconds)
        return isoDate(time.date) + "T" + two(time.time.hour) + ":" + two(time.time.minute) + ":"
            + two(time.time.second) + "Z"
    }

    /// `application/x-www-form-urlencoded` without `+`: every byte outside RFC 3986's unreserved set is %-escaped.
    static func encodeQuery(_ pairs: [(String, String)]) -> String {
        let unreserved = CharacterSet(
            charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return pairs.map { name, value in
            name + "=" + (value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")
        }.joined(separator: "&")
    }
}
