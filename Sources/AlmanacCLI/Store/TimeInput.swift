import CivilTime
import ICalendar

/// How the CLI reads and prints times: wall clocks in a zone, durations like `90m`.
enum TimeInput {
    /// A zone by IANA name.
    static func zone(named name: String, option: String) throws(CommandFailure) -> ZoneRules {
        if name == "UTC" { return .utc }
        guard let zone = TimeZoneDatabase.zone(named: name) else {
            throw .usage("unknown time zone '\(name)' for \(option) (an IANA name such as Europe/Berlin)")
        }
        return zone
    }

    /// The local zone's IANA name: `$TZ`, else the target of /etc/localtime, else UTC.
    static func localZoneName(environment: [String: String]) -> String {
        if let tz = environment["TZ"], !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if TimeZoneDatabase.zone(named: name) != nil { return name }
        }
        if let target = TimeZoneDatabase.localZoneName() { return target }
        return "UTC"
    }

    /// `YYYY-MM-DD`, or a date with a time `HH:MM[:SS]` after a space or `T`, with an
    /// optional trailing `Z` (UTC); with `words`, also `today`, `tomorrow`, `yesterday`
    /// and `now`.
    static func parse(_ text: String, now: Int, zone: ZoneRules, option: String, words: Bool = true)
        throws(CommandFailure) -> DateTimeValue
    {
        let today = zone.localTime(at: now).date
        switch words ? text.lowercased() : "" {
        case "today": return DateTimeValue(date: today)
        case "tomorrow": return DateTimeValue(date: today.adding(days: 1))
        case "yesterday": return DateTimeValue(date: today.adding(days: -1))
        case "now": return DateTimeValue(CivilDateTime(secondsSinceEpoch: now), form: .utc)
        default: break
        }
        let bytes = Array(text.utf8)
        let fail = CommandFailure.usage(
            words
                ? "\(option) '\(text)' is not a date (YYYY-MM-DD, years 0001 to 9999) or a time (YYYY-MM-DD HH:MM)"
                : "\(option) '\(text)' is not YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[Z] (years 0001 to 9999)")
        guard bytes.count >= 10, let date = CivilDate(isoText: text.prefix(10))
        else { throw fail }
        if bytes.count == 10 { return DateTimeValue(date: date) }
        var end = bytes.count
        let isUTC = bytes.last == UInt8(ascii: "Z")
        if isUTC { end -= 1 }
        guard end > 11, bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"),
            let time = TimeOfDay(isoText: String(decoding: bytes[11..<end], as: UTF8.self))
        else { throw fail }
        let local = CivilDateTime(date: date, time: time)
        if isUTC { return DateTimeValue(local, form: .utc) }
        return DateTimeValue(local, form: zone.identifier == "UTC" ? .utc : .zoned(tzid: zone.identifier))
    }

    /// The instant a parsed value means in `zone` (a date: its midnight).
    static func instant(_ value: DateTimeValue, zone: ZoneRules) -> Int {
        switch value.form {
        case .utc: return value.civil.secondsSinceEpoch
        case .zoned(let tzid): return (TimeZoneDatabase.zone(named: tzid) ?? zone).instant(for: value.civil)
        case .floating: return zone.instant(for: value.civil)
        }
    }

    /// `90m`, `1h30m`, `2h`, `1d`, `1w`, or an RFC 5545 duration (`PT90M`), with an
    /// optional leading `-`.
    static func duration(_ text: String, option: String) throws(CommandFailure) -> CalendarDuration {
        let fail = CommandFailure.usage("\(option) '\(text)' is not a duration such as 90m, 1h30m, 2d or PT15M")
        var body = Substring(text)
        let negative = body.hasPrefix("-")
        if negative || body.hasPrefix("+") { body = body.dropFirst() }
        if body.uppercased().hasPrefix("P") {
            guard let parsed = try? Property(name: "DURATION", value: String(body).uppercased()).durationValue() else {
                throw fail
            }
            var result = parsed
            result.isNegative = negative != parsed.isNegative
            return result
        }
        var result = CalendarDuration(isNegative: negative)
        var digits = ""
        var seen = Set<Character>()
        for character in body.lowercased() {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            // Each unit once, each below a billion (as RFC 5545 DURATION fields here).
            guard let value = Int(digits), value < 1_000_000_000, seen.insert(character).inserted else { throw fail }
            switch character {
            case "w": result.weeks = value
            case "d": result.days = value
            case "h": result.hours = value
            case "m": result.minutes = value
            case "s": result.seconds = value
            default: throw fail
            }
            digits = ""
        }
        guard !seen.isEmpty, digits.isEmpty else { throw fail }
        guard abs(result.secondsAssumingUniformDays) <= CalendarDuration.maxSeconds else {
            throw .usage("\(option) '\(text)' is longer than 10,000 years")
        }
        return result
    }

    /// `2026-12-01 18:00` in `zone`.
    static func text(_ instant: Int, zone: ZoneRules) -> String {
        let local = zone.localTime(at: instant)
        return "\(local.date) \(twoDigits(local.time.hour)):\(twoDigits(local.time.minute))"
    }

    static func clock(_ instant: Int, zone: ZoneRules) -> String {
        let local = zone.localTime(at: instant).time
        return "\(twoDigits(local.hour)):\(twoDigits(local.minute))"
    }

    static func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// RFC 3339 with the zone's offset at that instant: `2026-12-01T18:00:00+01:00`.
    static func rfc3339(_ instant: Int, zone: ZoneRules) -> String {
        let offset = zone.offset(at: instant)
        let local = CivilDateTime(secondsSinceEpoch: instant + offset.seconds)
        return local.description + (offset.seconds == 0 ? "Z" : offsetText(offset))
    }

    /// `+01:00`, `-05:00`, `+00:00`.
    static func offsetText(_ offset: UTCOffset) -> String {
        let magnitude = abs(offset.seconds)
        return (offset.seconds < 0 ? "-" : "+") + twoDigits(magnitude / 3600) + ":" + twoDigits(magnitude % 3600 / 60)
    }
}
