/// Bounds on an expansion, so that no rule can make a caller spin or run out of memory.
public struct ExpansionLimits: Sendable, Hashable {
    /// Instances produced by one expansion before it stops.
    public var maxInstances: Int
    /// Years of calendar walked without producing an instance before a rule is
    /// declared dead. The Gregorian calendar repeats every 400 years, so a
    /// rule that produced nothing in 400 years never will.
    public var maxIdleYears: Int

    public init(maxInstances: Int = 100_000, maxIdleYears: Int = 400) {
        self.maxInstances = maxInstances
        self.maxIdleYears = maxIdleYears
    }

    public static let `default` = ExpansionLimits()
}
