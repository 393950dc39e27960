import CivilTime
import ICalendar

/// Turns TZIDs into zone rules, in the order RFC 5545 readers need in practice:
///
/// 1. the IANA zone of that name (from the system's TZif files);
/// 2. a Windows zone name ("W. Europe Standard Time") through CLDR's windowsZones table;
/// 3. the VTIMEZONE with that TZID carried in the same calendar, interpreted
///    from its own STANDARD/DAYLIGHT rules — the path for custom zones and for
///    prefixed TZIDs such as `/mozilla.org/20050126_1/Europe/Berlin`;
/// 4. in lenient mode only, the IANA zone named by the end of a prefixed TZID.
///
/// An unknown TZID with no VTIMEZONE is an error in strict mode; in lenient
/// mode it is read as UTC and a warning is recorded.
public final class ZoneResolver {
    private let timeZones: [String: Component]
    private let mode: ParseOptions.Mode
    private var cache: [String: ZoneRules] = [:]
    /// The zone floating times are read in, from the calendar's `X-WR-TIMEZONE`, when asked for.
    private let calendarZone: (name: String, rules: ZoneRules)?
    private var warnedCalendarZone = false
    /// What lenient resolution had to guess.
    public private(set) var warnings: [ICalendarError] = []

    /// - Parameters:
    ///   - calendar: the VCALENDAR whose VTIMEZONEs may define TZIDs (nil for none).
    ///   - readsFloatingInCalendarZone: read floating DATE-TIMEs in the zone the calendar's
    ///     `X-WR-TIMEZONE` names (an IANA or Windows name), as Google's exports mean them and
    ///     the common libraries read them; RFC 5545 itself has floating times float. The
    ///     store never sets it: an import writes the zone into each object instead.
    public convenience init(calendar: Component?, mode: ParseOptions.Mode = .lenient) {
        self.init(calendar: calendar, mode: mode, readsFloatingInCalendarZone: false)
    }

    /// A resolver that may read floating times in the calendar's `X-WR-TIMEZONE` (see above).
    public init(calendar: Component?, mode: ParseOptions.Mode, readsFloatingInCalendarZone: Bool) {
        var timeZones: [String: Component] = [:]
        for component in calendar?.components ?? [] where component.name == "VTIMEZONE" {
            if let tzid = component.property("TZID")?.textValue() { timeZones[tzid] = component }
        }
        self.timeZones = timeZones
        self.mode = mode
        if readsFloatingInCalendarZone, let calendar, let name = Self.calendarTimeZoneName(of: calendar),
            let rules = Self.namedZone(name)
        {
            calendarZone = (name, rules)
        } else {
            calendarZone = nil
        }
    }

    /// The zone name a VCALENDAR's `X-WR-TIMEZONE` gives, trimmed, if it names an IANA or Windows zone.
    public static func calendarTimeZoneName(of calendar: Component) -> String? {
        guard let value = calendar.property("X-WR-TIMEZONE")?.textValue().trimmingSpaces, !value.isEmpty,
            let zone = namedZone(value)
        else { return nil }
        return zone.identifier
    }

    static func namedZone(_ name: String) -> ZoneRules? {
        if let zone = TimeZoneDatabase.zone(named: name) { return zone }
        return WindowsZones.ianaIdentifier(forWindowsName: name).flatMap { TimeZoneDatabase.zone(named: $0) }
    }

    /// The zone a floating DATE-TIME is read in: the calendar's `X-WR-TIMEZONE` when this
    /// resolver was asked to honour it (noted once as a `calendarTimeZone` warning), else nil.
    public func floatingTimeZone() -> ZoneRules? {
        guard let calendarZone else { return nil }
        if !warnedCalendarZone {
            warnedCalendarZone = true
            warnings.append(
                ICalendarError(
                    .calendarTimeZone, "floating times read in \(calendarZone.name), the calendar's X-WR-TIMEZONE",
                    severity: .warning, component: "VCALENDAR", property: "X-WR-TIMEZONE"))
        }
        return calendarZone.rules
    }

    /// The rules for `tzid`.
    ///
    /// - Throws: `ICalendarError` (`invalidValue`, property TZID) for an unknown TZID in strict mode.
    public func zone(for tzid: String) throws(ICalendarError) -> ZoneRules {
        if let cached = cache[tzid] { return cached }
        let resolved = try resolve(tzid)
        cache[tzid] = resolved
        return resolved
    }

    private func resolve(_ tzid: String) throws(ICalendarError) -> ZoneRules {
        let trimmed = tzid.trimmingSpaces
        if let zone = TimeZoneDatabase.zone(named: trimmed) { return zone }
        if let iana = WindowsZones.ianaIdentifier(forWindowsName: trimmed),
            let zone = TimeZoneDatabase.zone(named: iana)
        {
            return zone
        }
        if let component = timeZones[tzid] {
            do {
                return try VTimeZone.rules(from: component)
            } catch {
                if mode == .strict { throw error }
                warnings.append(error)
            }
        }
        if mode == .lenient, let zone = Self.suffixZone(trimmed) {
            warnings.append(
                ICalendarError(
                    .invalidValue, "TZID \(tzid) has no VTIMEZONE; read as IANA zone \(zone.identifier)",
                    severity: .warning, property: "TZID"))
            return zone
        }
        let message = "unknown TZID \(tzid): not an IANA or Windows zone name, and no VTIMEZONE defines it"
        guard mode == .lenient else { throw ICalendarError(.invalidValue, message, property: "TZID") }
        warnings.append(ICalendarError(.invalidValue, message + "; read as UTC", severity: .warning, property: "TZID"))
        return .utc
    }

    /// The IANA zone named by the last one or two path segments of a prefixed TZID.
    static func suffixZone(_ tzid: String) -> ZoneRules? {
        let parts = tzid.split(separator: "/").map(String.init)
        for length in [3, 2, 1] where parts.count >= length {
            if let zone = TimeZoneDatabase.zone(named: parts.suffix(length).joined(separator: "/")) { return zone }
        }
        return nil
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
