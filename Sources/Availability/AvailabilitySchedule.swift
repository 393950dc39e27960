import CivilTime
import ICalendar
import Recurrence

/// Someone's bookable hours: spans of each weekday in a zone, and dates that differ
/// (other hours, or none). Written as `Mon-Fri 09:00-17:00, Sat 10:00-14:00` by people
/// and stored as an RFC 7953 VAVAILABILITY, whose AVAILABLE blocks other CalDAV clients
/// read as well: one weekly block per distinct span (`RRULE:FREQ=WEEKLY;BYDAY=…`), the
/// differing dates taken out of them with EXDATE and given their own one-off blocks.
public struct AvailabilitySchedule: Sendable, Hashable {
    /// The IANA zone the hours are wall-clock times in.
    public var timeZone: String
    /// Each weekday's spans, sorted and joined; a weekday without hours has no entry.
    public private(set) var weekly: [Weekday: [ClockRange]]
    /// Dates with other hours than their weekday's; an empty list is a day off.
    public private(set) var exceptions: [CivilDate: [ClockRange]]

    public init(timeZone: String, weekly: [Weekday: [ClockRange]], exceptions: [CivilDate: [ClockRange]] = [:]) {
        self.timeZone = timeZone
        self.weekly = weekly.compactMapValues { spans in spans.isEmpty ? nil : ClockRange.joined(spans) }
        self.exceptions = exceptions.mapValues(ClockRange.joined)
    }

    /// Reads `Mon-Fri 09:00-17:00, Sat 10:00-14:00` (as ``AvailabilityRules/workingHours(_:)``).
    public init?(hours text: String, timeZone: String) {
        guard text.contains(where: { !$0.isWhitespace }), let weekly = AvailabilityRules.workingHours(text) else {
            return nil
        }
        self.init(timeZone: timeZone, weekly: weekly)
    }

    /// The weekly hours as people write them: weekdays with the same spans together,
    /// consecutive ones as a range (`Mon-Fri 09:00-17:00, Sat 10:00-14:00`); `none` when
    /// no weekday has hours.
    public var hoursText: String {
        var groups: [(days: [Weekday], spans: [ClockRange])] = []
        for day in Weekday.allCases {
            guard let spans = weekly[day] else { continue }
            if let index = groups.firstIndex(where: { $0.spans == spans }) {
                groups[index].days.append(day)
            } else {
                groups.append(([day], spans))
            }
        }
        guard !groups.isEmpty else { return "none" }
        return groups.map { group in
            Self.dayList(group.days) + " " + group.spans.map(\.text).joined(separator: " ")
        }.joined(separator: ", ")
    }

    /// `Mon-Fri`, `Mon+Wed+Fri`, `Mon-Wed+Sat`.
    static func dayList(_ days: [Weekday]) -> String {
        var runs: [[Weekday]] = []
        for day in days {
            if let last = runs.last?.last, last.rawValue + 1 == day.rawValue {
                runs[runs.count - 1].append(day)
            } else {
                runs.append([day])
            }
        }
        return runs.map { run in
            let first = String(run[0].englishName.prefix(3))
            return run.count == 1 ? first : first + "-" + String(run[run.count - 1].englishName.prefix(3))
        }.joined(separator: "+")
    }

    /// Gives `date` these hours instead of its weekday's (none: a day off).
    public mutating func setException(_ date: CivilDate, hours: [ClockRange]) {
        exceptions[date] = ClockRange.joined(hours)
    }

    /// Makes `date` follow its weekday again.
    public mutating func removeException(_ date: CivilDate) { exceptions[date] = nil }

    /// The spans of `date`: its exception's, else its weekday's.
    public func hours(on date: CivilDate) -> [ClockRange] { exceptions[date] ?? weekly[date.weekday] ?? [] }

    /// Puts these hours into `rules`: its working hours and date overrides (the zone
    /// stays the rules' own; give them this schedule's).
    public func apply(to rules: inout AvailabilityRules) {
        rules.workingHours = weekly
        rules.dateOverrides = exceptions
    }

    // MARK: VAVAILABILITY (RFC 7953)

    /// A Monday long past, where the weekly blocks start.
    static let referenceMonday = CivilDate(year: 2000, month: 1, day: 3)!

    /// Lists the days off in full, so they survive a round trip even on a weekday that
    /// has no hours (where no EXDATE records them).
    static let daysOffProperty = "X-ALMANAC-DAYS-OFF"

    /// The schedule as a VAVAILABILITY component (RFC 7953 §3.1), to be put in a
    /// VCALENDAR with a VTIMEZONE for ``timeZone``.
    public func component(uid: String, stamp: CivilDateTime) -> Component {
        var availability = Component(name: "VAVAILABILITY")
        availability.setProperty(Property(name: "UID", value: uid))
        availability.setProperty(Property(name: "DTSTAMP", dateTime: DateTimeValue(stamp, form: .utc)))
        availability.setProperty(Property(name: "BUSYTYPE", value: "BUSY-UNAVAILABLE"))
        let daysOff = exceptions.filter(\.value.isEmpty).keys.sorted()
        if !daysOff.isEmpty {
            availability.setProperty(
                Property(name: Self.daysOffProperty, value: daysOff.map(\.description).joined(separator: ",")))
        }
        let zone = DateTimeForm.zoned(tzid: timeZone)
        func value(_ date: CivilDate, _ minutes: Int) -> DateTimeValue {
            let day = date.adding(days: minutes / 1440)
            let time = TimeOfDay(hour: (minutes % 1440) / 60, minute: minutes % 60)!
            return DateTimeValue(CivilDateTime(date: day, time: time), form: zone)
        }
        // One weekly block per distinct span, over the weekdays that have it.
        var spans: [ClockRange] = []
        for day in Weekday.allCases { for span in weekly[day] ?? [] where !spans.contains(span) { spans.append(span) } }
        for (index, span) in spans.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }).enumerated() {
            let days = Weekday.allCases.filter { weekly[$0]?.contains(span) == true }
            let first = Self.referenceMonday.adding(days: days[0].rawValue - 1)
            var block = Component(name: "AVAILABLE")
            block.setProperty(Property(name: "UID", value: "\(uid)-weekly-\(index)"))
            block.setProperty(Property(name: "DTSTAMP", dateTime: DateTimeValue(stamp, form: .utc)))
            block.setProperty(Property(name: "DTSTART", dateTime: value(first, span.start)))
            block.setProperty(Property(name: "DTEND", dateTime: value(first, span.end)))
            block.setProperty(
                Property(name: "RRULE", value: "FREQ=WEEKLY;BYDAY=" + days.map(\.icalendarCode).joined(separator: ",")))
            let excluded = exceptions.keys.filter { days.contains($0.weekday) }.sorted()
            if !excluded.isEmpty {
                block.setProperty(Property(name: "EXDATE", dateTimes: excluded.map { value($0, span.start) }))
            }
            block.setProperty(Property(name: "SUMMARY", value: Self.dayList(days) + " " + span.text))
            availability.components.append(block)
        }
        // Each differing date's own spans.
        for date in exceptions.keys.sorted() {
            for (index, span) in (exceptions[date] ?? []).enumerated() {
                var block = Component(name: "AVAILABLE")
                block.setProperty(Property(name: "UID", value: "\(uid)-\(date)-\(index)"))
                block.setProperty(Property(name: "DTSTAMP", dateTime: DateTimeValue(stamp, form: .utc)))
                block.setProperty(Property(name: "DTSTART", dateTime: value(date, span.start)))
                block.setProperty(Property(name: "DTEND", dateTime: value(date, span.end)))
                block.setProperty(Property(name: "SUMMARY", value: "\(date) " + span.text))
                availability.components.append(block)
            }
        }
        return availability
    }

    /// The schedule as a calendar object to store: a VCALENDAR with the VTIMEZONE of its
    /// zone (from the reference week to 2100) and the VAVAILABILITY.
    public func calendarData(uid: String, stamp: CivilDateTime) -> [UInt8] {
        var calendar = Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"),
                Property(name: "PRODID", value: "-//Almanac//Availability//EN"),
            ])
        if let zone = TimeZoneDatabase.zone(named: timeZone), timeZone != "UTC" {
            let from = zone.instant(
                for: CivilDateTime(date: Self.referenceMonday, time: TimeOfDay(hour: 0, minute: 0)!))
            calendar.components.append(VTimeZone.component(for: zone, from: from, to: 4_102_444_800))
        }
        calendar.components.append(component(uid: uid, stamp: stamp))
        return calendar.serialized()
    }

    /// Reads what ``calendarData(uid:stamp:)`` wrote (or another VCALENDAR with one
    /// VAVAILABILITY of the shapes ``init(availability:)`` reads).
    public init(calendarData: [UInt8]) throws(Unsupported) {
        let document: ICalendarDocument
        do {
            document = try ICalendarParser.parse(calendarData)
        } catch {
            throw Unsupported(description: "not iCalendar: \(error)")
        }
        guard
            let availability = document.components.first?.components.first(where: { $0.name == "VAVAILABILITY" })
        else { throw Unsupported(description: "no VAVAILABILITY in the calendar") }
        try self.init(availability: availability)
    }

    /// Why a VAVAILABILITY cannot be read as a schedule.
    public struct Unsupported: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Reads a VAVAILABILITY of the shape ``component(uid:stamp:)`` writes, which is also
    /// what calendar apps write for working hours: weekly AVAILABLE blocks (`FREQ=WEEKLY`,
    /// optional `BYDAY`, no COUNT or UNTIL) within a day, in one zone, with EXDATEs, and
    /// one-off blocks within a day. Anything else is refused with what is not supported.
    public init(availability: Component) throws(Unsupported) {
        var zone: String?
        var weekly: [Weekday: [ClockRange]] = [:]
        var exceptions: [CivilDate: [ClockRange]] = [:]
        var blocks: [(days: [Weekday], range: ClockRange, excluded: Set<CivilDate>)] = []
        func span(_ block: Component) throws(Unsupported) -> (CivilDate, ClockRange) {
            guard let start = try? block.property("DTSTART")?.dateTimeValue(), let time = start.time,
                let end = try? block.property("DTEND")?.dateTimeValue(), let endTime = end.time
            else { throw Unsupported(description: "an AVAILABLE block needs a DTSTART and DTEND with times") }
            let tzid: String
            switch start.form {
            case .zoned(let name): tzid = name
            case .utc: tzid = "UTC"
            case .floating: throw Unsupported(description: "an AVAILABLE block's times need a TZID")
            }
            if let zone, zone != tzid { throw Unsupported(description: "AVAILABLE blocks in \(zone) and \(tzid)") }
            zone = tzid
            let from = time.hour * 60 + time.minute
            let days = end.date.daysSinceEpoch - start.date.daysSinceEpoch
            let to = days * 1440 + endTime.hour * 60 + endTime.minute
            guard from < to, to <= 1440 else {
                throw Unsupported(description: "an AVAILABLE block ends after the midnight after its start")
            }
            return (start.date, ClockRange(start: from, end: to))
        }
        for block in availability.components where block.name == "AVAILABLE" {
            let (date, range) = try span(block)
            guard let rule = block.property("RRULE") else {
                exceptions[date, default: []].append(range)
                continue
            }
            guard let parsed = try? RecurrenceRule(parsing: rule.value), parsed.frequency == .weekly,
                parsed.interval == 1, parsed.count == nil, parsed.until == nil,
                parsed.byDay.allSatisfy({ $0.ordinal == nil })
            else {
                throw Unsupported(
                    description: "only weekly AVAILABLE blocks without COUNT or UNTIL are read: \(rule.value)")
            }
            let days = parsed.byDay.isEmpty ? [date.weekday] : parsed.byDay.map(\.weekday)
            for day in days { weekly[day, default: []].append(range) }
            var excluded = Set<CivilDate>()
            for property in block.properties(named: "EXDATE") {
                for value in (try? property.dateTimeValues()) ?? [] { excluded.insert(value.date) }
            }
            blocks.append((days, range, excluded))
        }
        // A date some weekly block leaves out differs from its weekday: it keeps the
        // blocks that do not leave it out, besides its own one-off blocks.
        for date in Set(blocks.flatMap(\.excluded)) {
            var spans = exceptions[date] ?? []
            for block in blocks where block.days.contains(date.weekday) && !block.excluded.contains(date) {
                spans.append(block.range)
            }
            exceptions[date] = spans
        }
        for text in availability.property(Self.daysOffProperty)?.value.split(separator: ",") ?? [] {
            guard let date = CivilDate(isoText: text) else {
                throw Unsupported(description: "\(Self.daysOffProperty) holds dates (2026-12-24), not \(text)")
            }
            if exceptions[date] == nil { exceptions[date] = [] }
        }
        self.init(timeZone: zone ?? "UTC", weekly: weekly, exceptions: exceptions)
    }
}
