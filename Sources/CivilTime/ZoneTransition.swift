/// One change of offset: at `instant` (Unix seconds, UTC) the offset becomes `offsetAfter`.
///
/// A transition may also change only the abbreviation or the daylight-saving
/// flag (Europe/London's "British Standard Time" of 1968–1971 kept the offset
/// and dropped the flag), so `offsetBefore == offsetAfter` is possible.
public struct ZoneTransition: Sendable, Hashable {
    /// The moment of the change, in seconds since 1970-01-01T00:00:00Z.
    public var instant: Int
    /// The offset in force just before `instant`.
    public var offsetBefore: UTCOffset
    /// The offset in force from `instant` on.
    public var offsetAfter: UTCOffset
    /// Whether the time from `instant` on is daylight-saving time, as the data
    /// says: Europe/Dublin's TZif marks winter (GMT) as daylight saving, with a
    /// negative saving, because Irish law calls summer time "standard".
    public var isDaylightSaving: Bool
    /// The abbreviation from `instant` on ("CEST", "+0545").
    public var abbreviation: String

    /// Creates a transition.
    public init(
        instant: Int, offsetBefore: UTCOffset, offsetAfter: UTCOffset, isDaylightSaving: Bool, abbreviation: String
    ) {
        self.instant = instant
        self.offsetBefore = offsetBefore
        self.offsetAfter = offsetAfter
        self.isDaylightSaving = isDaylightSaving
        self.abbreviation = abbreviation
    }

    /// How far wall clocks jump at this change, in seconds: positive for a gap
    /// (spring forward), negative for an overlap (fall back), zero when only
    /// the name or the daylight-saving flag changes.
    @inlinable
    public var wallClockShift: Int { offsetAfter.seconds - offsetBefore.seconds }
}

extension ZoneTransition: CustomStringConvertible {
    /// The instant in UTC and the change, such as `2026-03-29T01:00:00Z +0100 → +0200 CEST (DST)`.
    public var description: String {
        "\(CivilDateTime(secondsSinceEpoch: instant))Z \(offsetBefore) → \(offsetAfter) \(abbreviation)"
            + (isDaylightSaving ? " (DST)" : "")
    }
}

/// Integer helpers shared by the zone code: floor division and sums that
/// saturate instead of trapping, so no instant a caller passes can crash.
enum ZoneMath {
    /// `value / divisor` rounded towards negative infinity (`divisor` > 0).
    @inline(__always)
    static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    /// `a + b`, clamped to `Int.min...Int.max`.
    @inline(__always)
    static func add(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// `a - b`, clamped to `Int.min...Int.max`.
    @inline(__always)
    static func subtract(_ a: Int, _ b: Int) -> Int {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        return overflow ? (b < 0 ? .max : .min) : difference
    }

    /// `local.secondsSinceEpoch`, clamped instead of trapping for the wall
    /// clocks of the most extreme instants (whose day times 86,400 leaves `Int`).
    static func wallSeconds(_ local: CivilDateTime) -> Int {
        let (daySeconds, overflow) = local.date.daysSinceEpoch.multipliedReportingOverflow(by: 86_400)
        if overflow { return local.date.daysSinceEpoch < 0 ? .min : .max }
        return add(daySeconds, local.time.secondsSinceMidnight)
    }

    /// The UTC calendar year of an instant.
    static func year(ofInstant instant: Int) -> Int {
        CivilDate(daysSinceEpoch: floorDivide(instant, 86_400)).year
    }

    /// Days since the epoch of January 1 of `year`.
    static func januaryFirst(_ year: Int) -> Int {
        CivilDate(unchecked: year, 1, 1).daysSinceEpoch
    }
}
