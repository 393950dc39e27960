import CivilTime
import ICalendar
import Recurrence
import Synchronization

/// A half-open span of time, `start..<end`, in Unix seconds (UTC).
public struct TimeRange: Sendable, Hashable, CustomStringConvertible {
    /// The first second in the range, Unix seconds.
    public var start: Int
    /// The first second after the range, Unix seconds; never before ``start``.
    public var end: Int

    /// A range; `end` must not come before `start`.
    public init(start: Int, end: Int) {
        self.start = start
        self.end = max(start, end)
    }

    /// The length in seconds.
    public var duration: Int { end - start }

    /// Whether the two ranges share any second (touching ranges do not overlap).
    public func overlaps(_ other: TimeRange) -> Bool {
        start < other.end && other.start < end
    }

    /// The range as two UTC date-times, each ending in `Z`, joined by `..<`.
    public var description: String {
        "\(CivilDateTime(secondsSinceEpoch: start))Z..<\(CivilDateTime(secondsSinceEpoch: end))Z"
    }
}

/// One instance of an event: EventKit's occurrence of a possibly recurring event,
/// Android's `Instances` row.
public struct EventOccurrence: Sendable {
    /// Where the component comes from: already parsed (a series expanded from its
    /// cached form), or the stored bytes of a one-off event, parsed when first asked for.
    enum Source: Sendable {
        case parsed(Component)
        /// A one-off event, with the listing columns of its row, so title and status need no parse.
        case stored(StoredObject, title: String?, status: EventStatus?, transparent: Bool)
        /// An instance of a series expanded from its timing skeleton: title and status come
        /// from the skeleton's component, the whole component from the stored bytes.
        case member(StoredObject, skeleton: Component)
    }

    let source: Source
    /// The start as the event states it: an instant, a floating wall clock, or a date.
    public var start: OccurrenceTime
    /// The end, in the same form as ``start``.
    public var end: OccurrenceTime
    /// The instance's original start (RECURRENCE-ID); nil for a one-off event.
    public var recurrenceID: OccurrenceTime?
    /// Whether an override describes this instance ("detached" in EventKit).
    public var isDetached: Bool
    /// The TZID of the start, if zoned.
    public var timeZone: String?
    /// The store's identifier of the event (the whole series).
    public var eventIdentifier: String
    /// The identifier of the calendar the event is in.
    public var calendarIdentifier: String
    /// The stored resource's ETag.
    public var etag: String
    /// The zone in which floating and all-day times were read for this answer.
    public var viewerZone: ZoneRules
    /// The zone of a zoned start (resolved from its TZID or the object's VTIMEZONE).
    var seriesZone: ZoneRules?

    /// SUMMARY of this instance.
    public var title: String? {
        switch source {
        case .parsed(let component), .member(_, let component): component.property("SUMMARY")?.textValue()
        case .stored(_, let title, _, _): title
        }
    }

    /// STATUS of this instance (nil when the component has none).
    public var status: EventStatus? {
        switch source {
        case .parsed(let component), .member(_, let component): EventStatus(component)
        case .stored(_, _, let status, _): status
        }
    }

    /// Whether this instance leaves time free (TRANSP:TRANSPARENT), read without parsing
    /// the stored bytes.
    public var isTransparent: Bool {
        switch source {
        case .parsed(let component), .member(_, let component):
            component.property("TRANSP")?.value.uppercased() == "TRANSPARENT"
        case .stored(_, _, _, let transparent): transparent
        }
    }

    /// The component that describes this instance: the series' master, or the override
    /// (RECURRENCE-ID) that replaces this instance.
    public var component: Component {
        switch source {
        case .parsed(let component): component
        case .stored(let stored, _, _, _): stored.member(0)
        case .member(let stored, let skeleton): stored.member(CalendarObject.memberIndex(of: skeleton))
        }
    }

    /// What filters read: the skeleton's component when there is one (it keeps SUMMARY,
    /// STATUS and CATEGORIES), so filtering parses nothing.
    var filterComponent: Component {
        if case .member(_, let skeleton) = source { return skeleton }
        return component
    }

    /// The start instant (floating and all-day times read in the asked zone).
    public var startInstant: Int { start.instant(in: viewerZone) }
    /// The end instant.
    public var endInstant: Int { end.instant(in: viewerZone) }

    /// Whether the start is a date (an all-day instance).
    public var isAllDay: Bool {
        if case .date = start { return true }
        return false
    }

    /// STATUS:CANCELLED on this instance's component.
    public var isCancelled: Bool { status == .cancelled }

    /// A stable identifier for this instance: the event's identifier, then `/` and
    /// the RECURRENCE-ID text for an instance of a series.
    public var identifier: String {
        guard let recurrenceID else { return eventIdentifier }
        return eventIdentifier + "/" + recurrenceID.text
    }

    /// This instance as an event: the component with DTSTART and DTEND set to the
    /// instance's times (RRULE, RDATE and EXDATE stay, describing the series), its
    /// identifiers, and `occurrenceID` set so saving with a span refers to it.
    public var event: Event {
        var event = Event(component: component)
        event.localIdentifier = eventIdentifier
        event.calendarIdentifier = calendarIdentifier
        event.etag = etag
        event.occurrenceID = recurrenceID
        if recurrenceID != nil, !isDetached {
            let start = dateTimeValue(of: self.start)
            if event.start != start {
                event.start = start
                if event.component.property("DTEND") != nil { event.end = dateTimeValue(of: end) }
            }
        }
        return event
    }

    /// How an occurrence time reads as a value of this event's kind.
    func dateTimeValue(of time: OccurrenceTime) -> DateTimeValue {
        switch time {
        case .date(let date): return DateTimeValue(date: date)
        case .floating(let local): return DateTimeValue(local, form: .floating)
        case .instant(let instant):
            if let timeZone, let zone = seriesZone {
                return DateTimeValue(zone.localTime(at: instant), form: .zoned(tzid: timeZone))
            }
            return DateTimeValue(CivilDateTime(secondsSinceEpoch: instant), form: .utc)
        }
    }
}

extension Component {
    /// Every value of every CATEGORIES property.
    var categoryValues: [String] { properties(named: "CATEGORIES").flatMap { $0.textValues() } }
}

extension EventStatus {
    /// The STATUS of a component.
    init?(_ component: Component) {
        guard let value = component.property("STATUS")?.value.uppercased() else { return nil }
        self.init(rawValue: value)
    }
}

/// A stored object's bytes, parsed into its components on first use and kept.
final class StoredObject: Sendable {
    private let data: [UInt8]
    private let parsed = Mutex<[Component]?>(nil)

    init(data: [UInt8]) { self.data = data }

    /// The size of the stored bytes.
    var byteCount: Int { data.count }

    /// The object's `index`th VEVENT/VTODO/VJOURNAL.
    func member(_ index: Int) -> Component {
        let members = parsed.withLock { parsed in
            if let parsed { return parsed }
            // The bytes were checked when stored; should they not parse, an empty VEVENT stands in.
            let members = (try? CalendarObject(parsing: data))?.members ?? []
            parsed = members
            return members
        }
        return index < members.count ? members[index] : Component(name: "VEVENT")
    }
}

/// Which instances a change to a recurring event applies to (EventKit's `EKSpan`).
public enum Span: String, Sendable, Hashable {
    /// Only the instance the event was read as; the whole event when it does not repeat.
    case thisEvent = "this"
    /// That instance and every later one.
    case futureEvents = "future"
}

/// Which occurrences a query returns. Every condition given must hold.
public struct EventFilter: Sendable, Hashable {
    /// How a title must match.
    public enum TitleMatch: Sendable, Hashable {
        /// Equal, ignoring case.
        case equals(String)
        /// Contains, ignoring case.
        case contains(String)
    }

    /// The SUMMARY must match this; nil for any title.
    public var title: TitleMatch?
    /// The instance carries this category (ignoring case).
    public var category: String?
    /// The instance has this STATUS (none counts as confirmed); nil for any.
    public var status: EventStatus?
    /// Which component types to return (events by default).
    public var componentTypes: Set<ComponentType>

    /// A filter; every condition left nil holds for every instance.
    public init(
        title: TitleMatch? = nil, category: String? = nil, status: EventStatus? = nil,
        componentTypes: Set<ComponentType> = [.event]
    ) {
        self.title = title
        self.category = category
        self.status = status
        self.componentTypes = componentTypes
    }

    /// Matches every event (VEVENT) instance.
    public static let all = EventFilter()

    /// Whether only the component type is constrained.
    var isEmpty: Bool { title == nil && category == nil && status == nil }

    func matches(_ component: Component) -> Bool {
        matches(
            title: component.property("SUMMARY")?.textValue(), status: EventStatus(component),
            categories: { component.categoryValues })
    }

    /// Whether an instance with these properties matches; categories are read only when asked for.
    func matches(title actual: String?, status actualStatus: EventStatus?, categories: () -> [String]) -> Bool {
        if let title {
            let actual = (actual ?? "").lowercased()
            switch title {
            case .equals(let wanted): if actual != wanted.lowercased() { return false }
            case .contains(let wanted): if !actual.contains(wanted.lowercased()) { return false }
            }
        }
        if let category {
            let wanted = category.lowercased()
            if !categories().contains(where: { $0.lowercased() == wanted }) { return false }
        }
        // An event without STATUS counts as confirmed.
        if let status, (actualStatus ?? .confirmed) != status { return false }
        return true
    }
}

/// An alarm due in a window, with the occurrence it belongs to.
public struct AlarmFiring: Sendable {
    /// When it fires, Unix seconds (repeats of one alarm are separate firings).
    public var fireTime: Int
    /// The VALARM that fires.
    public var alarm: Alarm
    /// The occurrence the alarm belongs to.
    public var occurrence: EventOccurrence
    /// 0 for the first firing, 1… for REPEAT firings.
    public var repetition: Int
    /// The alarm's UID, or the name the store derives for one without (``AlarmIdentity``).
    public var alarmUID: String = ""
    /// What the scheduler did with it: nil while it is not yet planned (more than about
    /// half an hour ahead), or when it fired before the alarm or event last changed.
    public var state: AlarmFiringRecord.State? = nil
    /// When the scheduler fired it or found it missed, Unix seconds.
    public var firedAt: Int? = nil
    /// Its row in the alarm queue: the object's row and the occurrence part of its key.
    var instance: (objectID: Int64, recurrenceID: String) = (0, "")
}

/// Busy time of one instance, as a free-slot search reads it: no component, no title.
public struct BusyTime: Sendable, Hashable {
    /// Unix seconds.
    public var start: Int
    /// The end of the instance, in Unix seconds.
    public var end: Int
    /// The store's identifier of the event (the whole series).
    public var eventIdentifier: String
    /// The identifier of the calendar the event is in.
    public var calendarIdentifier: String
    /// The instance of a series (nil for a one-off event).
    public var recurrenceID: OccurrenceTime?
    /// Whether the instance is STATUS:TENTATIVE.
    public var isTentative: Bool
    /// Whether the instance is all-day (a date start).
    public var isAllDay: Bool
}

extension BusyTime {
    /// Busy periods sorted, with overlapping or touching ones of the same type joined
    /// (RFC 5545 §3.8.2.6 lets FREEBUSY periods be coalesced). Past `limit` periods, gaps
    /// shorter than `span` over `limit` are filled and tentative time counts as busy: the
    /// answer may show more busy time, never less.
    public static func coalesced(_ periods: [(start: Int, end: Int, tentative: Bool)], span: Int, limit: Int) -> [(
        start: Int, end: Int, tentative: Bool
    )] {
        func join(_ periods: [(start: Int, end: Int, tentative: Bool)], gap: Int) -> [(
            start: Int, end: Int, tentative: Bool
        )] {
            // Each kind on its own (a tentative period between two busy ones does not keep
            // them apart), then both in start order.
            var result: [(start: Int, end: Int, tentative: Bool)] = []
            for tentative in [false, true] {
                var joined: [(start: Int, end: Int, tentative: Bool)] = []
                for period in periods.filter({ $0.tentative == tentative }).sorted(by: { $0.start < $1.start }) {
                    if let last = joined.last, period.start <= last.end + gap {
                        joined[joined.count - 1].end = max(last.end, period.end)
                    } else {
                        joined.append(period)
                    }
                }
                result += joined
            }
            return result.sorted { ($0.start, $0.tentative ? 1 : 0) < ($1.start, $1.tentative ? 1 : 0) }
        }
        let joined = join(periods, gap: 0)
        guard joined.count > limit else { return joined }
        return join(joined.map { ($0.start, $0.end, false) }, gap: span / max(limit, 1) + 1)
    }
}
