import CalendarStore
import CivilTime
import ICalendar
import JSON
import Recurrence

/// Everything a page or app needs to offer "Add to Calendar" for one entry: the
/// bridge payload for a native shell, the Android insert intent, links for Google,
/// Outlook.com, Office 365 and Yahoo, and the single-event .ics. Each target says
/// what of the entry it cannot carry.
public struct AddToCalendarTargets: Sendable, Hashable {
    /// What the targets were made from (times resolved: zones, durations, first instance).
    public var entry: CalendarEntry
    public var bridge: BridgePayload
    public var bridgeLost: [Loss]
    public var android: AndroidInsertIntent
    public var google: Link
    public var outlook: Link
    public var office365: Link
    public var yahoo: Link
    public var ics: ICSFile

    /// What a target drops.
    public enum Loss: String, Sendable, Hashable, CaseIterable {
        /// The recurrence rule (the target adds one instance).
        case recurrence
        /// EXDATEs, RDATEs, further rules and changed instances of a series.
        case recurrenceExceptions = "recurrence-exceptions"
        case alarms
        /// The times arrive in UTC; the event's own zone is not kept.
        case timeZone = "time-zone"
        case url
        /// Free/busy (TRANSP) and tentative status.
        case availability
    }

    /// A link with what it loses.
    public struct Link: Sendable, Hashable {
        public var url: String
        public var lost: [Loss]

        public var json: JSONValue { .object([("url", .string(url)), ("lost", lossesJSON(lost))]) }
    }

    /// The .ics a download serves, with what it loses (nothing).
    public struct ICSFile: Sendable, Hashable {
        public var bytes: [UInt8]
        public var lost: [Loss]
    }

    /// Every target as one JSON object; the .ics is named by `icsURL` (where it is served).
    public func json(icsURL: String) -> JSONValue {
        .object([
            ("bridge", bridge.json), ("bridgeLost", lossesJSON(bridgeLost)), ("android", android.json),
            ("google", google.json),
            ("outlook", outlook.json), ("office365", office365.json), ("yahoo", yahoo.json),
            ("ics", .object([("url", .string(icsURL)), ("lost", lossesJSON(ics.lost))])),
        ])
    }

    public init(_ entry: CalendarEntry, timeZoneComponents: [Component] = []) {
        self.entry = entry
        bridge = BridgePayload(entry)
        bridgeLost = Self.losses(
            entry, recurrence: true, alarms: .first, timeZone: true, url: true, availability: false)
        android = AndroidInsertIntent(entry)
        google = WebLinks.google(entry)
        outlook = WebLinks.outlook(entry, host: "outlook.live.com")
        office365 = WebLinks.outlook(entry, host: "outlook.office.com")
        yahoo = WebLinks.yahoo(entry)
        ics = ICSFile(bytes: SingleEventICS.bytes(entry, timeZoneComponents: timeZoneComponents), lost: [])
    }

    /// The targets of the stored event `identifier`, or of one of its occurrences, read
    /// from `store`: the event's whole object (for its overrides and VTIMEZONEs) and its
    /// calendar. An occurrence brings its own times and overridden fields; the series
    /// itself is always read from the store by its identifier, so an occurrence's event
    /// (which has no stored resource of its own) can never be handed in by mistake.
    /// Floating and all-day times are read in `zoneName`, else the calendar's zone.
    public static func targets(
        ofEvent identifier: String, occurrence: EventOccurrence?, zoneName: String?, in store: any EventStore
    ) throws(StoreError)
        -> AddToCalendarTargets
    {
        let event = try store.event(withIdentifier: identifier)
        guard let calendarID = event.calendarIdentifier, let resourceName = event.resourceName else {
            throw StoreError(.notFound, "no event \(identifier)", resource: identifier)
        }
        if let occurrence, occurrence.eventIdentifier != event.localIdentifier {
            throw StoreError(
                .invalidArgument, "the occurrence \(occurrence.identifier) is not one of event \(identifier)",
                resource: identifier)
        }
        let calendar = try store.calendar(withIdentifier: calendarID)
        let name = zoneName ?? calendar.timeZone
        let zone = name.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
        let stored = try store.resource(named: resourceName, calendar: calendarID)
        let root =
            (try? ICalendarParser.parse(stored.data, options: .lenient).components.first)
            ?? Component(name: "VCALENDAR")
        let members = root.components.filter { ComponentType(rawValue: $0.name) != nil }
        let entry = CalendarEntry(
            event: event, members: members, occurrence: occurrence, viewerZone: zone, viewerZoneName: name)
        return AddToCalendarTargets(entry, timeZoneComponents: root.components(named: "VTIMEZONE"))
    }

    enum AlarmCarriage { case none, first }

    /// What a target with these abilities loses of `entry`.
    static func losses(
        _ entry: CalendarEntry, recurrence: Bool, alarms: AlarmCarriage, timeZone: Bool, url: Bool, availability: Bool
    ) -> [Loss] {
        var lost: [Loss] = []
        if entry.recurrenceRule != nil && !recurrence { lost.append(.recurrence) }
        if entry.hasRecurrenceExceptions { lost.append(.recurrenceExceptions) }
        switch alarms {
        case .none: if entry.alarmMinutesBefore != nil || entry.hasOtherAlarms { lost.append(.alarms) }
        case .first: if entry.hasOtherAlarms { lost.append(.alarms) }
        }
        if !timeZone && !entry.isAllDay && entry.zoneName != nil && entry.zoneName != "UTC" { lost.append(.timeZone) }
        if !url && entry.url != nil { lost.append(.url) }
        if !availability && (entry.isTransparent || entry.isTentative) { lost.append(.availability) }
        return lost
    }
}

func lossesJSON(_ losses: [AddToCalendarTargets.Loss]) -> JSONValue { .array(losses.map { .string($0.rawValue) }) }

/// A string or null.
func nullable(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }

/// Milliseconds since the epoch.
func milliseconds(_ seconds: Int) -> Int64 { Int64(seconds) * 1000 }

/// Midnight UTC at the start of `date`, in seconds.
func utcMidnight(_ date: CivilDate) -> Int { date.daysSinceEpoch * 86_400 }
