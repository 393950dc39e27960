/// How a user likes their calendar shown.
public struct ViewSettings: Sendable, Hashable {
    /// 1 (Monday) … 7 (Sunday), as `Weekday`'s raw values.
    public var firstWeekday: Int?
    /// An IANA zone.
    public var timeZone: String?

    /// Creates settings; nil leaves a setting unset.
    public init(firstWeekday: Int? = nil, timeZone: String? = nil) {
        self.firstWeekday = firstWeekday
        self.timeZone = timeZone
    }
}
