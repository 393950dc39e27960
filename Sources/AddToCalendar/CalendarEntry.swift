import CalendarStore
import CivilTime
import ICalendar
import Recurrence

/// What every "Add to Calendar" target is made from: one event (a series from its
/// first instance) or one occurrence, with its times resolved.
public struct CalendarEntry: Sendable, Hashable {
    public var uid: String
    public var title: String
    /// Unix seconds. For an all-day entry, midnight at the start of its first date in `zone`.
    public var start: Int
    /// Unix seconds, exclusive.
    public var end: Int
    /// For an all-day entry: its first date, and the day after its last date.
    public var dates: (first: CivilDate, afterLast: CivilDate)?
    /// The IANA zone the times belong to (a floating or all-day entry takes the viewer's).
    public var zone: ZoneRules
    /// Whether `zone` is a real IANA name clients know (not UTC for lack of one).
    public var zoneName: String?
    public var location: String?
    public var notes: String?
    public var url: String?
    /// The RRULE value (`FREQ=WEEKLY;BYDAY=MO`), when the entry is a series.
    public var recurrenceRule: String?
    /// Whether the series has what a bare RRULE cannot say: more rules, RDATEs, EXDATEs or overrides.
    public var hasRecurrenceExceptions: Bool
    /// Minutes before the start of the first alarm that fires before the start.
    public var alarmMinutesBefore: Int?
    /// Whether some alarm could not be carried by `alarmMinutesBefore`.
    public var hasOtherAlarms: Bool
    public var isTransparent: Bool
    public var isTentative: Bool
    /// The components the single-event .ics publishes (the series, or one instance).
    public var components: [Component]

    public var isAllDay: Bool { dates != nil }

    /// The start as an occurrence time: the first date of an all-day entry, else the instant.
    public var startTime: OccurrenceTime { dates.map { .date($0.first) } ?? .instant(start) }
    /// The end likewise (the day after the last date of an all-day entry).
    public var endTime: OccurrenceTime { dates.map { .date($0.afterLast) } ?? .instant(end) }

    public static func == (lhs: CalendarEntry, rhs: CalendarEntry) -> Bool {
        lhs.uid == rhs.uid && lhs.start == rhs.start && lhs.end == rhs.end && lhs.components == rhs.components
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(uid)
        hasher.combine(start)
    }
}

extension CalendarEntry {
    /// The entry for a whole stored event (`occurrence` nil: the series from its first
    /// instance) or for one of its occurrences. Floating and all-day times are read in
    /// `viewerZone` (the calendar's zone, or the one a caller asks for).
    public init(
        event: Event, members: [Component], occurrence: EventOccurrence?, viewerZone: ZoneRules, viewerZoneName: String?
    ) {
        let component = occurrence?.component ?? event.component
        let view = Event(component: component)
        uid = event.externalIdentifier
        title = view.title ?? ""
        location = view.location
        notes = view.notes
        url = view.url
        isTransparent = view.availability == .free
        isTentative = view.status == .tentative

        // Times: the occurrence's, else the series' first instance.
        var startTime: OccurrenceTime
        var endTime: OccurrenceTime
        if let occurrence {
            startTime = occurrence.start
            endTime = occurrence.end
        } else {
            let first =
                (try? CalendarObjectExpansion(
                    resolver: ZoneResolver(calendar: Component(name: "VCALENDAR", components: members)),
                    viewerZone: viewerZone
                )
                .prepare(members, uid: uid).occurrences(from: nil, to: nil, viewerZone: viewerZone, limit: 1))?.first
            startTime = first?.start ?? .instant(0)
            endTime = first?.end ?? startTime
        }
        // The zone: the TZID's IANA zone (Windows names mapped), else the viewer's.
        let tzid = view.timeZone
        let ianaName = tzid.flatMap { name in TimeZoneDatabase.zone(named: name) != nil ? name : WindowsZones.all[name]
        }
        if case .instant = startTime, let ianaName, let rules = TimeZoneDatabase.zone(named: ianaName) {
            zone = rules
            zoneName = ianaName
        } else if case .instant = startTime, tzid == nil {
            // A UTC time: UTC is its zone.
            zone = .utc
            zoneName = "UTC"
        } else {
            zone = viewerZone
            zoneName = viewerZoneName
        }
        start = startTime.instant(in: zone)
        end = max(start, endTime.instant(in: zone))
        if case .date(let first) = startTime {
            var afterLast = first.adding(days: 1)
            if case .date(let endDate) = endTime, endDate > first { afterLast = endDate }
            dates = (first, afterLast)
        } else {
            dates = nil
        }

        // One occurrence of a series is one instance; the event itself is the series.
        let isSeries = occurrence?.recurrenceID == nil && event.isRecurring
        let rules = component.properties(named: "RRULE")
        recurrenceRule = isSeries ? rules.first?.value : nil
        hasRecurrenceExceptions =
            isSeries
            && (rules.count > 1 || component.property("RDATE") != nil || component.property("EXDATE") != nil
                || members.contains { $0.property("RECURRENCE-ID") != nil })

        var minutes: Int?
        var others = false
        for alarm in view.alarms {
            if minutes == nil, case .relative(let offset, relatedToEnd: false) = alarm.trigger, offset.nominalDays == 0,
                offset.exactSeconds <= 0,
                offset.exactSeconds % 60 == 0
            {
                minutes = -offset.exactSeconds / 60
            } else {
                others = true
            }
        }
        alarmMinutesBefore = minutes
        hasOtherAlarms = others

        if let occurrence, occurrence.recurrenceID != nil || occurrence.isDetached {
            // One instance stands alone: its own times, its RECURRENCE-ID, no rule.
            var instance = component
            instance.properties.removeAll {
                ["RRULE", "RDATE", "EXDATE", "EXRULE", "RECURRENCE-ID", "DTSTART", "DTEND", "DURATION"].contains(
                    $0.name)
            }
            instance.properties.append(Property(name: "DTSTART", dateTime: Self.value(occurrence.start)))
            instance.properties.append(Property(name: "DTEND", dateTime: Self.value(occurrence.end)))
            if let id = occurrence.recurrenceID {
                instance.properties.append(Property(name: "RECURRENCE-ID", dateTime: Self.value(id)))
            }
            components = [instance]
        } else {
            components = members
        }
    }

    static func value(_ time: OccurrenceTime) -> DateTimeValue {
        switch time {
        case .date(let date): DateTimeValue(date: date)
        case .floating(let local): DateTimeValue(local, form: .floating)
        case .instant(let seconds): DateTimeValue(CivilDateTime(secondsSinceEpoch: seconds), form: .utc)
        }
    }
}
