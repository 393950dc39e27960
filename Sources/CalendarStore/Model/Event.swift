import CivilTime
import ICalendar
import Recurrence

/// An event: a typed view over one VEVENT (or VTODO/VJOURNAL) component, in the
/// manner of EventKit's `EKEvent`.
///
/// Every typed property reads and writes the component itself, so whatever the
/// view does not model (X- properties, unknown parameters, IANA properties) is
/// kept untouched when an event is read, changed and saved.
///
/// An event has two identifiers, as in EventKit: `localIdentifier`, which this
/// store assigns and keeps stable, and `externalIdentifier` (the UID), which
/// every device that shares the event agrees on.
public struct Event: Sendable, Hashable {
    /// The component this event views and edits.
    public var component: Component
    /// The store's identifier; nil until the event is first saved.
    public internal(set) var localIdentifier: String?
    /// The calendar that holds the event; set it to choose where a new event is saved.
    public var calendarIdentifier: String?
    /// The resource name under which the event is stored (CalDAV), once saved.
    public internal(set) var resourceName: String?
    /// The stored resource's ETag when this event was read.
    public internal(set) var etag: String?
    /// The instance this event was read as (its RECURRENCE-ID), when it came from an
    /// occurrence of a recurring series, like EventKit's `occurrenceDate`. Saving or
    /// removing with a span refers to this instance.
    public internal(set) var occurrenceID: OccurrenceTime?

    /// A new VEVENT with a fresh UID, DTSTAMP now, and the given title and times.
    public init(title: String, start: DateTimeValue, end: DateTimeValue? = nil, calendarIdentifier: String? = nil) {
        component = Component(name: ComponentType.event.rawValue)
        component.setProperty(Property(name: "UID", value: Identifiers.newUID()))
        component.setProperty(
            Property(
                name: "DTSTAMP", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: WallClock.now()), form: .utc))
        )
        self.calendarIdentifier = calendarIdentifier
        self.title = title
        self.start = start
        self.end = end
    }

    /// A view over an existing component.
    public init(component: Component) {
        self.component = component
    }

    // MARK: Identity

    /// The UID that other devices share.
    public var externalIdentifier: String {
        get { component.property("UID")?.value ?? "" }
        set { component.setProperty(Property(name: "UID", value: newValue)) }
    }

    // MARK: Text

    /// SUMMARY.
    public var title: String? {
        get { text("SUMMARY") }
        set { setText("SUMMARY", newValue) }
    }

    /// DESCRIPTION.
    public var notes: String? {
        get { text("DESCRIPTION") }
        set { setText("DESCRIPTION", newValue) }
    }

    /// LOCATION.
    public var location: String? {
        get { text("LOCATION") }
        set { setText("LOCATION", newValue) }
    }

    /// URL.
    public var url: String? {
        get { component.property("URL")?.value }
        set { setValue("URL", newValue) }
    }

    /// CATEGORIES, every value of every CATEGORIES property.
    public var categories: [String] {
        get { component.categoryValues }
        set {
            component.removeProperties(named: "CATEGORIES")
            if !newValue.isEmpty { component.properties.append(Property(name: "CATEGORIES", texts: newValue)) }
        }
    }

    // MARK: Time

    /// DTSTART (DUE for a task without one).
    public var start: DateTimeValue? {
        get { try? (component.property("DTSTART") ?? component.property("DUE"))?.dateTimeValue() }
        set { setDateTime("DTSTART", newValue) }
    }

    /// DTEND. Setting it removes DURATION (a component has one or the other).
    public var end: DateTimeValue? {
        get { try? component.property("DTEND")?.dateTimeValue() }
        set {
            setDateTime("DTEND", newValue)
            if newValue != nil { component.removeProperties(named: "DURATION") }
        }
    }

    /// DURATION. Setting it removes DTEND.
    public var duration: CalendarDuration? {
        get { try? component.property("DURATION")?.durationValue() }
        set {
            component.removeProperties(named: "DURATION")
            if let newValue {
                component.removeProperties(named: "DTEND")
                component.properties.append(Property(name: "DURATION", duration: newValue))
            }
        }
    }

    /// Whether the event starts on a date rather than at a time (VALUE=DATE).
    public var isAllDay: Bool { start?.isDate ?? false }

    /// The TZID of the start, if it is zoned.
    public var timeZone: String? { start?.tzid }

    // MARK: Recurrence

    /// Every RRULE.
    public var recurrenceRules: [RecurrenceRule] {
        get { component.properties(named: "RRULE").compactMap { try? $0.recurrenceRule() } }
        set {
            component.removeProperties(named: "RRULE")
            component.properties += newValue.map { Property(recurrenceRule: $0) }
        }
    }

    /// The DATE and DATE-TIME values of every RDATE (PERIOD values are kept in the component).
    public var recurrenceDates: [DateTimeValue] {
        get { component.properties(named: "RDATE").flatMap { (try? $0.dateTimeValues()) ?? [] } }
        set { setDateTimes("RDATE", newValue) }
    }

    /// The values of every EXDATE.
    public var exceptionDates: [DateTimeValue] {
        get { component.properties(named: "EXDATE").flatMap { (try? $0.dateTimeValues()) ?? [] } }
        set { setDateTimes("EXDATE", newValue) }
    }

    /// Whether the event repeats (RRULE or RDATE).
    public var isRecurring: Bool { component.property("RRULE") != nil || component.property("RDATE") != nil }

    /// This event's RECURRENCE-ID when it is an override of one instance.
    public var recurrenceID: DateTimeValue? { try? component.property("RECURRENCE-ID")?.dateTimeValue() }

    // MARK: Alarms, availability, status

    /// The VALARM components, as alarms. Setting replaces every VALARM.
    public var alarms: [Alarm] {
        get { component.components(named: "VALARM").map(Alarm.init(component:)) }
        set {
            component.components.removeAll { $0.name == "VALARM" }
            component.components += newValue.map(\.component)
        }
    }

    /// TRANSP: whether the event blocks time (OPAQUE, the default) or not (TRANSPARENT).
    public var availability: Availability {
        get { component.property("TRANSP")?.value.uppercased() == "TRANSPARENT" ? .free : .busy }
        set { component.setProperty(Property(name: "TRANSP", value: newValue == .free ? "TRANSPARENT" : "OPAQUE")) }
    }

    /// STATUS.
    public var status: EventStatus? {
        get { component.property("STATUS").flatMap { EventStatus(rawValue: $0.value.uppercased()) } }
        set { setValue("STATUS", newValue?.rawValue) }
    }

    // MARK: People

    /// ORGANIZER.
    public var organizer: Participant? {
        get { component.property("ORGANIZER").map(Participant.init(property:)) }
        set {
            component.removeProperties(named: "ORGANIZER")
            if let newValue { component.properties.append(newValue.property(named: "ORGANIZER")) }
        }
    }

    /// Every ATTENDEE.
    public var attendees: [Participant] {
        get { component.properties(named: "ATTENDEE").map(Participant.init(property:)) }
        set {
            component.removeProperties(named: "ATTENDEE")
            component.properties += newValue.map { $0.property(named: "ATTENDEE") }
        }
    }

    // MARK: Bookkeeping

    /// SEQUENCE (0 when absent).
    public var sequence: Int {
        get { (try? component.property("SEQUENCE")?.integerValue()) ?? 0 }
        set { component.setProperty(Property(name: "SEQUENCE", value: String(newValue))) }
    }

    /// CREATED, as Unix seconds.
    public var created: Int? { utcInstant("CREATED") }

    /// LAST-MODIFIED, as Unix seconds.
    public var lastModified: Int? { utcInstant("LAST-MODIFIED") }

    // MARK: Helpers

    private func text(_ name: String) -> String? { component.property(name)?.textValue() }

    private mutating func setText(_ name: String, _ value: String?) {
        if let value {
            component.setProperty(Property(name: name, text: value))
        } else {
            component.removeProperties(named: name)
        }
    }

    private mutating func setValue(_ name: String, _ value: String?) {
        if let value {
            component.setProperty(Property(name: name, value: value))
        } else {
            component.removeProperties(named: name)
        }
    }

    private mutating func setDateTime(_ name: String, _ value: DateTimeValue?) {
        if let value {
            component.setProperty(Property(name: name, dateTime: value))
        } else {
            component.removeProperties(named: name)
        }
    }

    private mutating func setDateTimes(_ name: String, _ values: [DateTimeValue]) {
        component.removeProperties(named: name)
        // One property per distinct form, since a property's values share one TZID / VALUE.
        var groups: [DateTimeValue.FormKey: [DateTimeValue]] = [:]
        var order: [DateTimeValue.FormKey] = []
        for value in values {
            if groups[value.formKey] == nil { order.append(value.formKey) }
            groups[value.formKey, default: []].append(value)
        }
        component.properties += order.map { Property(name: name, dateTimes: groups[$0]!) }
    }

    private func utcInstant(_ name: String) -> Int? {
        guard let value = try? component.property(name)?.dateTimeValue() else { return nil }
        return value.civil.secondsSinceEpoch
    }
}

extension DateTimeValue {
    /// Values that can share one property: the same VALUE type and TZID.
    struct FormKey: Hashable {
        var isDate: Bool
        var form: DateTimeForm
    }

    var formKey: FormKey { FormKey(isDate: isDate, form: form) }
}

/// Whether an event blocks time for free/busy and conflict checks (TRANSP).
public enum Availability: String, Sendable, Hashable {
    /// `busy`: the event blocks its time (TRANSP:OPAQUE, the default); `free`: it does not (TRANSPARENT).
    case busy, free
}

/// An event's STATUS.
public enum EventStatus: String, Sendable, Hashable, CaseIterable {
    /// Not yet certain.
    case tentative = "TENTATIVE"
    /// Taking place.
    case confirmed = "CONFIRMED"
    /// Called off; it no longer takes time.
    case cancelled = "CANCELLED"
}

/// An ORGANIZER or ATTENDEE: a calendar address (usually `mailto:`) and its parameters.
public struct Participant: Sendable, Hashable {
    /// The calendar user address, such as `mailto:anna@example.com`.
    public var address: String
    /// CN.
    public var name: String?
    /// PARTSTAT (`ACCEPTED`, `NEEDS-ACTION`, …), for attendees.
    public var participationStatus: String?
    /// ROLE (`REQ-PARTICIPANT`, `CHAIR`, …).
    public var role: String?
    /// Other parameters, kept as they were.
    public var otherParameters: [Parameter]

    /// A participant with these parameters and no others.
    public init(address: String, name: String? = nil, participationStatus: String? = nil, role: String? = nil) {
        self.address = address
        self.name = name
        self.participationStatus = participationStatus
        self.role = role
        self.otherParameters = []
    }

    init(property: Property) {
        address = property.value
        name = property[parameter: "CN"]
        participationStatus = property[parameter: "PARTSTAT"]
        role = property[parameter: "ROLE"]
        otherParameters = property.parameters.filter { !["CN", "PARTSTAT", "ROLE"].contains($0.name) }
    }

    func property(named propertyName: String) -> Property {
        var parameters: [Parameter] = []
        if let name { parameters.append(Parameter(name: "CN", value: name)) }
        if let role { parameters.append(Parameter(name: "ROLE", value: role)) }
        if let participationStatus { parameters.append(Parameter(name: "PARTSTAT", value: participationStatus)) }
        return Property(name: propertyName, parameters: parameters + otherParameters, value: address)
    }
}
