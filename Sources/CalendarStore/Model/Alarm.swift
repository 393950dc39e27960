import CivilTime
import ICalendar

/// A VALARM: when it fires and what it does (RFC 5545 §3.6.6).
///
/// A typed view over the component; properties the view does not model are
/// kept as they were.
public struct Alarm: Sendable, Hashable {
    /// When an alarm fires.
    public enum Trigger: Sendable, Hashable {
        /// An offset from the start (or, with `relatedToEnd`, the end) of each
        /// occurrence; negative offsets fire before.
        case relative(CalendarDuration, relatedToEnd: Bool)
        /// A fixed instant (Unix seconds), once, whatever the occurrence.
        case absolute(Int)
    }

    /// ACTION.
    public enum Action: String, Sendable, Hashable {
        /// Shows the DESCRIPTION.
        case display = "DISPLAY"
        /// Plays a sound.
        case audio = "AUDIO"
        /// Sends an e-mail to its ATTENDEEs (SUMMARY the subject, DESCRIPTION the body).
        case email = "EMAIL"
    }

    /// The VALARM component itself, with every property the view does not model.
    public var component: Component

    /// An alarm firing `trigger` with `action` (and a DESCRIPTION, which DISPLAY and EMAIL need).
    public init(trigger: Trigger, action: Action = .display, description: String = "Reminder") {
        component = Component(name: "VALARM")
        component.properties.append(Property(name: "ACTION", value: action.rawValue))
        self.trigger = trigger
        if action != .audio { component.properties.append(Property(name: "DESCRIPTION", text: description)) }
    }

    /// A display alarm `minutes` before the start (the "alert N minutes before" of story 2).
    public static func minutesBefore(_ minutes: Int) -> Alarm {
        Alarm(trigger: .relative(CalendarDuration(isNegative: minutes > 0, minutes: abs(minutes)), relatedToEnd: false))
    }

    init(component: Component) {
        self.component = component
    }

    /// TRIGGER; nil when it is missing or unreadable.
    public var trigger: Trigger? {
        get {
            guard let property = component.property("TRIGGER") else { return nil }
            if property.valueType == .dateTime || property[parameter: "VALUE"]?.uppercased() == "DATE-TIME" {
                guard let value = try? property.dateTimeValue() else { return nil }
                return .absolute(value.civil.secondsSinceEpoch)
            }
            guard let duration = try? property.durationValue() else { return nil }
            return .relative(duration, relatedToEnd: property[parameter: "RELATED"]?.uppercased() == "END")
        }
        set {
            component.removeProperties(named: "TRIGGER")
            switch newValue {
            case .relative(let duration, let relatedToEnd)?:
                component.properties.append(
                    Property(
                        name: "TRIGGER", duration: duration,
                        parameters: relatedToEnd ? [Parameter(name: "RELATED", value: "END")] : []))
            case .absolute(let instant)?:
                component.properties.append(
                    Property(
                        name: "TRIGGER", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: instant), form: .utc),
                        parameters: [Parameter(name: "VALUE", value: "DATE-TIME")]))
            case nil: break
            }
        }
    }

    /// ACTION; nil for an action other than the three RFC 5545 names.
    public var action: Action? {
        get { component.property("ACTION").flatMap { Action(rawValue: $0.value.uppercased()) } }
        set { if let newValue { component.setProperty(Property(name: "ACTION", value: newValue.rawValue)) } }
    }

    /// DESCRIPTION.
    public var alarmDescription: String? { component.property("DESCRIPTION")?.textValue() }

    /// REPEAT: how many more times the alarm fires after the first (0 when absent).
    public var repeatCount: Int {
        get { (try? component.property("REPEAT")?.integerValue()) ?? 0 }
        set { component.setProperty(Property(name: "REPEAT", value: String(newValue))) }
    }

    /// DURATION: the time between repeats.
    public var repeatInterval: CalendarDuration? {
        get { try? component.property("DURATION")?.durationValue() }
        set {
            component.removeProperties(named: "DURATION")
            if let newValue { component.properties.append(Property(name: "DURATION", duration: newValue)) }
        }
    }
}
