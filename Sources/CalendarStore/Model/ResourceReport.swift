import CivilTime
import ICalendar

/// Which resources of one calendar a read answers (a CalDAV REPORT): every condition
/// given must hold.
public struct ResourceQuery: Sendable {
    /// Only these names (calendar-multiget); nil for any.
    public var names: [String]?
    /// Only objects made of one of these components; nil for any.
    public var componentTypes: Set<ComponentType>?
    /// Only objects with an instance that overlaps this range (the interval index,
    /// recurrence-aware, floating times in ``timeZone``). A series a bound of
    /// expansion stopped before its first instance here counts as overlapping.
    public var overlapping: TimeRange?
    /// Only objects with an alarm that fires in this range.
    public var alarmsFiring: TimeRange?
    /// Only objects whose VCALENDAR passes this test (property filters, RFC 4791 §9.9's
    /// to-do table), judged on every core. `steps` is the share of the request's
    /// expansion budget one object may spend.
    public var predicate: (@Sendable (_ calendar: Component, _ steps: Int) -> Bool)?
    /// The zone floating and all-day times are read in, for the range, the alarms and
    /// the instances (CalDAV's `CALDAV:timezone` of the request); the calendar's when nil.
    public var timeZone: ZoneRules?

    /// A query; every condition left nil holds for every resource.
    public init(
        names: [String]? = nil, componentTypes: Set<ComponentType>? = nil, overlapping: TimeRange? = nil,
        alarmsFiring: TimeRange? = nil, predicate: (@Sendable (Component, Int) -> Bool)? = nil,
        timeZone: ZoneRules? = nil
    ) {
        self.timeZone = timeZone
        self.names = names
        self.componentTypes = componentTypes
        self.overlapping = overlapping
        self.alarmsFiring = alarmsFiring
        self.predicate = predicate
    }
}

/// What a read returns of each resource it selects.
public enum ResourceContent: Sendable {
    /// Its listing (name, ETag, type, size, modified).
    case listing
    /// Its listing and stored bytes.
    case data
    /// Its listing and its instances in a range (CalDAV `expand`), at most `limit`
    /// instances in all: the earliest.
    case instances(TimeRange, limit: Int)
}

/// The resources a ``ResourceQuery`` selected, read in one transaction, in name order
/// (or in the order of ``ResourceQuery/names``).
public struct ResourceReport: Sendable {
    /// One selected resource with what was asked of it.
    public struct Item: Sendable {
        /// Its listing (name, ETag, type, size, modified), as the reading user sees it.
        public var info: ResourceInfo
        /// The stored bytes, for ``ResourceContent/data``.
        public var data: [UInt8]?
        /// The instances in the range, in start order, for ``ResourceContent/instances(_:limit:)``.
        public var instances: [EventOccurrence]

        /// An item with its listing and whatever content was asked for.
        public init(info: ResourceInfo, data: [UInt8]?, instances: [EventOccurrence]) {
            self.info = info
            self.data = data
            self.instances = instances
        }
    }

    /// The selected resources.
    public var items: [Item]
    /// Names asked for that hold nothing.
    public var missing: [String]
    /// Whether instances were left out: past the limit, or after the point where a bound
    /// of expansion stopped a series. Those written are the earliest.
    public var isTruncated: Bool

    /// A report of these items.
    public init(items: [Item], missing: [String], isTruncated: Bool) {
        self.items = items
        self.missing = missing
        self.isTruncated = isTruncated
    }
}
