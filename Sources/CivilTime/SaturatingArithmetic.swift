extension Int {
    /// `self + other`, or the nearest bound of `Int` when the sum would overflow:
    /// for widening ranges and reaches that came from outside, where a bound is
    /// the right answer and a trap is not.
    @inlinable
    public func addingSaturated(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, or the nearest bound of `Int` when the difference would overflow.
    @inlinable
    public func subtractingSaturated(_ other: Int) -> Int {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }

    /// `self * other`, or the nearest bound of `Int` when the product would overflow.
    @inlinable
    public func multipliedSaturated(by other: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : product
    }
}
