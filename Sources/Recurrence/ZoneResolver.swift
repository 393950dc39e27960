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
    /// What lenient resolution had to guess.
    public private(set) var warnings: [ICalendarError] = []

    /// - Parameter calendar: the VCALENDAR whose VTIMEZONEs may define TZIDs (nil for none).
    public init(calendar: Component?, mode: ParseOptions.Mode = .lenient) {
        var timeZones: [String: Component] = [:]
        for component in calendar?.components ?? [] where component.name == "VTIMEZONE" {
            if let tzid = component.property("TZID")?.textValue() { timeZones[tzid] = component }
        }
        self.timeZones = timeZones
        self.mode = mode
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
        if let iana = WindowsZones.ianaIdentifier(forWindowsName: trimmed), let zone = TimeZoneDatabase.zone(named: iana) {
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
