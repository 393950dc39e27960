import Accounts
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

    /// An alarm firing `trigger` with `action` (and a DESCRIPTION, which DISPLAY and EMAIL
    /// need), with a new UID (RFC 9074 §4), so every client can name it.
    public init(trigger: Trigger, action: Action = .display, description: String = "Reminder") {
        component = Component(name: "VALARM")
        component.properties.append(Property(name: "UID", value: Identifiers.newUUID()))
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
                // VALUE=DATE-TIME written by hand: the date-time initializer drops VALUE for a
                // DATE-TIME, which TRIGGER (a DURATION by default) must name.
                let value = DateTimeValue(CivilDateTime(secondsSinceEpoch: instant), form: .utc)
                component.properties.append(
                    Property(
                        name: "TRIGGER", parameters: [Parameter(name: "VALUE", value: "DATE-TIME")],
                        value: value.icalendarText))
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

    // MARK: RFC 9074

    /// UID (RFC 9074 §4); nil when the alarm has none (``AlarmIdentity`` names it then).
    public var uid: String? {
        get { component.property("UID").map(\.value).flatMap { $0.isEmpty ? nil : $0 } }
        set {
            component.removeProperties(named: "UID")
            if let newValue { component.properties.insert(Property(name: "UID", value: newValue), at: 0) }
        }
    }

    /// ACKNOWLEDGED (RFC 9074 §6.1): when the alarm was last dismissed, Unix seconds; nil
    /// when it never was (or the value cannot be read).
    public var acknowledged: Int? {
        get { (try? component.property("ACKNOWLEDGED")?.dateTimeValue()).map(\.civil.secondsSinceEpoch) }
        set {
            component.removeProperties(named: "ACKNOWLEDGED")
            if let newValue {
                component.properties.append(
                    Property(
                        name: "ACKNOWLEDGED",
                        dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: newValue), form: .utc)))
            }
        }
    }

    /// The UID of the alarm this one snoozes: its `RELATED-TO;RELTYPE=SNOOZE` (RFC 9074 §7).
    public var snoozedAlarm: String? {
        component.properties(named: "RELATED-TO").first { $0[parameter: "RELTYPE"]?.uppercased() == "SNOOZE" }?.value
    }
}

/// How the store names an alarm: its own UID, or for one written without a UID (RFC 5545
/// clients), one derived from the event's UID, the component it is in and its place
/// there, the same every time it is read, so webhooks, the API and acknowledgements agree
/// on it. Acknowledging or snoozing such an alarm through the API writes that UID into it.
public enum AlarmIdentity {
    /// A UUID-shaped name made from the SHA-256 of the three parts.
    public static func derivedUID(eventUID: String, recurrenceID: String, position: Int) -> String {
        let digest = Crypto.sha256(Array("almanac-alarm\u{0}\(eventUID)\u{0}\(recurrenceID)\u{0}\(position)".utf8))
        let hex = Array(Crypto.hex(Array(digest.prefix(16))).utf8)
        var text = ""
        for (index, digit) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { text += "-" }
            text.unicodeScalars.append(Unicode.Scalar(digit))
        }
        return text
    }

    /// The name of the alarm at `position` among the VALARMs of `component` (a VEVENT or
    /// VTODO of the object with `eventUID`; its RECURRENCE-ID text or "" for the master).
    public static func uid(of alarm: Alarm, eventUID: String, recurrenceID: String, position: Int) -> String {
        alarm.uid ?? derivedUID(eventUID: eventUID, recurrenceID: recurrenceID, position: position)
    }
}
