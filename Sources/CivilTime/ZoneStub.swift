// TEMPORARY: stands in for the zone API until the zones branch merges. Delete on merge.
public struct ZoneTransition: Sendable, Hashable {
    public var instant: Int
    public var offsetBefore: UTCOffset
    public var offsetAfter: UTCOffset
    public var isDaylightSaving: Bool
    public var abbreviation: String
    public init(instant: Int, offsetBefore: UTCOffset, offsetAfter: UTCOffset, isDaylightSaving: Bool, abbreviation: String) {
        self.instant = instant
        self.offsetBefore = offsetBefore
        self.offsetAfter = offsetAfter
        self.isDaylightSaving = isDaylightSaving
        self.abbreviation = abbreviation
    }
}
public struct POSIXTimeZone: Sendable, Hashable {}
public struct ZoneRules: Sendable, Hashable {
    public let identifier: String
    let initialOffset: UTCOffset
    let transitions: [ZoneTransition]
    public init(identifier: String, initialOffset: UTCOffset, initialAbbreviation: String, transitions: [ZoneTransition], footer: POSIXTimeZone?) {
        self.identifier = identifier
        self.initialOffset = initialOffset
        self.transitions = transitions
    }
    public static let utc = ZoneRules(identifier: "UTC", initialOffset: .zero, initialAbbreviation: "UTC", transitions: [], footer: nil)
    public func offset(at instant: Int) -> UTCOffset {
        transitions.last { $0.instant <= instant }?.offsetAfter ?? initialOffset
    }
    public func localTime(at instant: Int) -> CivilDateTime { CivilDateTime(secondsSinceEpoch: instant + offset(at: instant).seconds) }
    public func instant(for local: CivilDateTime) -> Int {
        let wall = local.secondsSinceEpoch
        let first = wall - offset(at: wall - 86_400).seconds
        if localTime(at: first) == local { return first }
        let second = wall - offset(at: wall + 86_400).seconds
        if localTime(at: second) == local { return min(first, second) }
        return wall - offset(at: wall - 86_400).seconds
    }
}
public enum TimeZoneDatabase { public static func zone(named identifier: String) -> ZoneRules? { identifier == "UTC" ? .utc : nil } }
public enum WindowsZones { public static func ianaIdentifier(forWindowsName name: String) -> String? { nil } }
