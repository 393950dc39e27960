import CivilTime
import Foundation
import ICalendar
import Recurrence

/// Expansion speed against libical's icalrecur_iterator and Foundation's
/// Calendar.RecurrenceRule (issue 3).
enum RecurrenceBenchmarks {
    /// 2024-01-01T00:00:00Z and 2029-01-01T00:00:00Z, the window libical is asked for too.
    static let windowStart = CivilDateTime(year: 2024, month: 1, day: 1)!.secondsSinceEpoch
    static let windowEnd = CivilDateTime(year: 2029, month: 1, day: 1)!.secondsSinceEpoch

    struct Series {
        var set: RecurrenceSet
        var rule: RecurrenceRule
        var start: DateTimeValue
        var zone: ZoneRules
    }

    static func run(events: Int, iterations: Int, withPeers: Bool = true) {
        let url = Corpus.file(events: events)
        let document = try! ICalendarParser.parse([UInt8](try! Data(contentsOf: url)))
        let calendar = document.components[0]
        let resolver = ZoneResolver(calendar: calendar, mode: .lenient)
        var series: [Series] = []
        for component in calendar.components
        where component.name == "VEVENT" && component.property("RECURRENCE-ID") == nil {
            guard let property = component.property("RRULE"), let rule = try? property.recurrenceRule(),
                let start = try? component.property("DTSTART")!.dateTimeValue()
            else { continue }
            // The same work as the libical harness: the first RRULE from DTSTART, no EXDATE, RDATE or overrides.
            let time: SeriesTime
            let zone: ZoneRules
            if start.isDate {
                (time, zone) = (.allDay, .utc)
            } else if let tzid = start.tzid {
                zone = (try? resolver.zone(for: tzid)) ?? .utc
                time = .zoned(zone)
            } else {
                zone = .utc
                time = start.form == .utc ? .zoned(.utc) : .floating
            }
            series.append(
                Series(
                    set: RecurrenceSet(time: time, start: start.civil, rules: [rule]), rule: rule, start: start,
                    zone: zone))
        }
        let context: [String: Any] = ["events": events, "rules": series.count, "window": "2024-01-01/2029-01-01"]

        var instances = 0
        var ours: [Double] = []
        var peers: [Double] = []
        var peerInstances = 0
        for _ in 0..<iterations {
            ours.append(
                medianSeconds(iterations: 1) {
                    var total = 0
                    for item in series { total += item.set.instances(from: windowStart, to: windowEnd).instances.count }
                    instances = total
                    return total
                })
            if withPeers, let peer = LibICal.run(["recur", url.path, "1", String(windowStart), String(windowEnd)]),
                let seconds = peer["seconds"] as? Double
            {
                peers.append(seconds)
                peerInstances = peer["instances"] as? Int ?? 0
            }
        }
        Report.figure(
            "recurrence.expand", Double(instances) / median(ours), unit: "instances/s",
            context.merging(["instances": instances]) { a, _ in a })
        if peers.count == iterations {
            let peerContext = context.merging(["peer": "libical icalrecur_iterator", "instances": peerInstances]) {
                a, _ in a
            }
            Report.figure("libical.expand", Double(peerInstances) / median(peers), unit: "instances/s", peerContext)
            let ratios = zip(peers, ours).map { $0 / $1 }
            Report.figure(
                "ratio.expand.vs-libical", median(ratios), unit: "x",
                peerContext.merging([
                    "goal": 10, "min": ratios.min()!, "max": ratios.max()!, "almanacInstances": instances,
                ]) { a, _ in a })
            if peerInstances != instances {
                Report.note(
                    "instance counts differ: almanac \(instances), libical \(peerInstances) (libical drops a DTSTART that is not on its rule, among others)"
                )
            }
        }
        guard withPeers else { return }
        foundationComparison(series, iterations: iterations)
        oldDailyRule()
    }

    /// Foundation's Calendar.RecurrenceRule on the rules it can express (no BYSETPOS with
    /// other parts it lacks, no WKST): both sides expand the same subset over the same window.
    static func foundationComparison(_ all: [Series], iterations: Int) {
        var subset: [(Series, Foundation.Calendar.RecurrenceRule, Date)] = []
        // Foundation expands about 10,000 instances a second: a few hundred rules are plenty.
        for item in all.prefix(600)
        where !item.start.isDate && item.rule.bySecond.isEmpty && item.rule.byWeekNo.isEmpty
            && item.rule.byYearDay.isEmpty
        {
            var calendar = Foundation.Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: item.zone.identifier) ?? TimeZone(identifier: "UTC")!
            let frequency: Foundation.Calendar.RecurrenceRule.Frequency
            switch item.rule.frequency {
            case .daily: frequency = .daily
            case .weekly: frequency = .weekly
            case .monthly: frequency = .monthly
            case .yearly: frequency = .yearly
            default: continue
            }
            let end: Foundation.Calendar.RecurrenceRule.End
            if let count = item.rule.count {
                end = .afterOccurrences(count)
            } else if let until = item.rule.until {
                end = .afterDate(Date(timeIntervalSince1970: Double(until.civil.secondsSinceEpoch)))
            } else {
                end = .never
            }
            var rule = Foundation.Calendar.RecurrenceRule(
                calendar: calendar, frequency: frequency, interval: item.rule.interval, end: end)
            rule.months = item.rule.byMonth.map { .init($0) }
            rule.daysOfTheMonth = item.rule.byMonthDay
            rule.weekdays = item.rule.byDay.map { day in
                let weekdays: [Locale.Weekday] = [
                    .sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday,
                ]
                let weekday = weekdays[day.weekday.rawValue % 7]
                return day.ordinal.map { .nth($0, weekday) } ?? .every(weekday)
            }
            rule.hours = item.rule.byHour
            rule.minutes = item.rule.byMinute
            rule.setPositions = item.rule.bySetPos
            let startInstant = Date(
                timeIntervalSince1970: Double(
                    item.set.time.isInstant
                        ? item.zone.instant(for: item.start.civil) : item.start.civil.secondsSinceEpoch))
            subset.append((item, rule, startInstant))
        }
        let range = Date(timeIntervalSince1970: Double(windowStart))..<Date(timeIntervalSince1970: Double(windowEnd))
        var foundationCount = 0
        var oursCount = 0
        var pairs: [Double] = []
        var foundationTimes: [Double] = []
        for _ in 0..<max(1, iterations / 2) {
            let foundation = medianSeconds(iterations: 1) {
                var total = 0
                for (_, rule, start) in subset {
                    total += rule.recurrences(of: start, in: range).reduce(0) { count, _ in count + 1 }
                }
                foundationCount = total
                return total
            }
            let ours = medianSeconds(iterations: 1) {
                var total = 0
                for (item, _, _) in subset {
                    total += item.set.instances(from: windowStart, to: windowEnd).instances.count
                }
                oursCount = total
                return total
            }
            pairs.append(foundation / ours)
            foundationTimes.append(foundation)
        }
        let context: [String: Any] = [
            "rules": subset.count, "peer": "Foundation Calendar.RecurrenceRule", "instances": foundationCount,
            "almanacInstances": oursCount,
        ]
        Report.figure(
            "foundation.expand", Double(foundationCount) / median(foundationTimes), unit: "instances/s", context)
        Report.figure("ratio.expand.vs-foundation", median(pairs), unit: "x", context)
    }

    /// One week of a daily rule that started 30 years ago: the cost of a query far from DTSTART.
    static func oldDailyRule() {
        let set = RecurrenceSet(
            time: .zoned(TimeZoneDatabase.zone(named: "Europe/Berlin") ?? .utc),
            start: CivilDateTime(year: 1996, month: 11, day: 29, hour: 9)!, rules: [RecurrenceRule(frequency: .daily)])
        let from = CivilDateTime(year: 2026, month: 11, day: 30)!.secondsSinceEpoch
        let to = from + 7 * 86_400
        var count = 0
        let repetitions = 10_000
        let seconds = medianSeconds(iterations: 5) {
            for _ in 0..<repetitions { count = set.instances(from: from, to: to).instances.count }
            return count
        }
        Report.figure(
            "recurrence.one-week-of-30-year-old-daily-rule", seconds / Double(repetitions) * 1e6, unit: "µs",
            ["instances": count, "goal": "< 50"])
    }
}
