import CivilTime
import ICalendar

/// A point in time as an occurrence carries it: an instant for UTC and zoned
/// times, or a wall clock for floating and all-day ones.
public enum OccurrenceTime: Sendable, Hashable, Comparable {
    /// Unix seconds.
    case instant(Int)
    /// A floating wall clock.
    case floating(CivilDateTime)
    /// An all-day date.
    case date(CivilDate)

    /// The instant this time means for a viewer in `zone` (floating and all-day times are read in it).
    public func instant(in zone: ZoneRules) -> Int {
        switch self {
        case .instant(let seconds): seconds
        case .floating(let local): zone.instant(for: local)
        case .date(let date): zone.instant(for: CivilDateTime(date: date, time: .midnight))
        }
    }

    /// Whether an instance from `start` to `end` belongs to the window `from..<to` (nil
    /// for unbounded) for a viewer in `zone`: it starts before the window ends and ends
    /// after it starts; a zero-length instance must start within it.
    public static func overlaps(start: OccurrenceTime, end: OccurrenceTime, from: Int?, to: Int?, in zone: ZoneRules)
        -> Bool
    {
        let startInstant = start.instant(in: zone)
        let endInstant = end.instant(in: zone)
        if let to, startInstant >= to { return false }
        if let from {
            if endInstant > startInstant { return endInstant > from }
            return startInstant >= from
        }
        return true
    }

    public static func < (lhs: OccurrenceTime, rhs: OccurrenceTime) -> Bool {
        lhs.instant(in: .utc) < rhs.instant(in: .utc)
    }

    /// RFC 3339 in UTC for instants (`2026-03-29T01:30:00Z`), `YYYY-MM-DD` for
    /// dates, and `YYYY-MM-DDTHH:MM:SS` without offset for floating times.
    public var text: String {
        switch self {
        case .instant(let seconds): CivilDateTime(secondsSinceEpoch: seconds).description + "Z"
        case .floating(let local): local.description
        case .date(let date): date.description
        }
    }

    /// Appends ``text`` as UTF-8, without making a string.
    public func appendText(to output: inout [UInt8]) {
        switch self {
        case .instant(let seconds):
            CivilDateTime(secondsSinceEpoch: seconds).appendDescription(to: &output)
            output.append(UInt8(ascii: "Z"))
        case .floating(let local): local.appendDescription(to: &output)
        case .date(let date): date.appendDescription(to: &output)
        }
    }

    /// Reads what `text` writes; nil for anything else.
    public init?(text: some StringProtocol) {
        func number(_ from: Int, _ count: Int) -> Int? {
            let start = text.index(text.startIndex, offsetBy: from)
            return Int(text[start..<text.index(start, offsetBy: count)])
        }
        let length = text.count
        guard length == 10 || length == 19 || length == 20, let year = number(0, 4), let month = number(5, 2),
            let day = number(8, 2),
            let date = CivilDate(year: year, month: month, day: day), text.dropFirst(4).first == "-",
            text.dropFirst(7).first == "-"
        else { return nil }
        if length == 10 {
            self = .date(date)
            return
        }
        guard text.dropFirst(10).first == "T", let hour = number(11, 2), let minute = number(14, 2),
            let second = number(17, 2),
            let time = TimeOfDay(hour: hour, minute: minute, second: second)
        else { return nil }
        let local = CivilDateTime(date: date, time: time)
        if length == 20 {
            guard text.last == "Z" else { return nil }
            self = .instant(local.secondsSinceEpoch)
        } else {
            self = .floating(local)
        }
    }
}

/// One instance of a calendar object: the component that describes it (the
/// master, or an override), when it starts and ends, and which instance of the
/// series it is.
public struct Occurrence: Sendable {
    /// The UID shared by the master and its overrides.
    public var uid: String
    /// The component this instance takes its properties from.
    public var component: Component
    public var start: OccurrenceTime
    public var end: OccurrenceTime
    /// The instance's original start (its RECURRENCE-ID); nil for a non-recurring component.
    public var recurrenceID: OccurrenceTime?
    /// Whether an overriding component (RECURRENCE-ID) describes this instance ("detached" in EventKit).
    public var isOverride: Bool
    /// The TZID of the start, if it has one.
    public var tzid: String?
    /// The zone that TZID resolved to (from IANA, a Windows name or the object's VTIMEZONE).
    public var zone: ZoneRules?

    public var isAllDay: Bool {
        if case .date = start { return true }
        return false
    }

    /// Whether this instance is cancelled: its component (an override, or the whole
    /// series) has STATUS:CANCELLED. Cancelled instances are kept, as CalDAV's
    /// `expand` keeps them, so a caller can show or skip them; they occupy no time.
    public var isCancelled: Bool {
        component.property("STATUS")?.textValue().uppercased() == "CANCELLED"
    }
}

/// What a component says of its instances' busy time: TRANSP:TRANSPARENT, and
/// STATUS:CANCELLED or TENTATIVE.
public struct OccurrenceTraits: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let transparent = OccurrenceTraits(rawValue: 1)
    public static let cancelled = OccurrenceTraits(rawValue: 2)
    public static let tentative = OccurrenceTraits(rawValue: 4)

    public init(_ component: Component) {
        var traits: OccurrenceTraits = []
        if component.property("TRANSP")?.value.uppercased() == "TRANSPARENT" { traits.insert(.transparent) }
        switch component.property("STATUS")?.value.uppercased() {
        case "CANCELLED": traits.insert(.cancelled)
        case "TENTATIVE": traits.insert(.tentative)
        default: break
        }
        self = traits
    }
}

/// An instance's busy time, without its component.
public struct BusyInterval: Sendable, Hashable {
    /// Unix seconds.
    public var start: Int
    public var end: Int
    public var traits: OccurrenceTraits
    public var isAllDay: Bool
    public var recurrenceID: OccurrenceTime?
}
