/// How strictly to read iCalendar data, and the limits that keep hostile input
/// from exhausting memory.
public struct ParseOptions: Sendable, Hashable {
    /// Strict rejects what RFC 5545 forbids; lenient recovers from known producer
    /// mistakes and reports each recovery as a warning.
    public enum Mode: Sendable, Hashable {
        case strict, lenient
    }

    /// Upper bounds enforced in both modes; passing one is a `limitExceeded` error.
    public struct Limits: Sendable, Hashable {
        /// Bytes in one unfolded content line.
        public var maxContentLineLength: Int = 8 << 20
        /// Components open inside each other.
        public var maxNestingDepth: Int = 64
        /// Components in one input, at any depth.
        public var maxComponents: Int = 1_000_000
        /// Properties in one input.
        public var maxProperties: Int = 10_000_000
        /// Parameters on one property.
        public var maxParametersPerProperty: Int = 1_000
        /// Diagnostics collected before the parser gives up.
        public var maxDiagnostics: Int = 1_000

        public init() {}
    }

    public var mode: Mode
    public var limits: Limits

    public init(mode: Mode = .strict, limits: Limits = Limits()) {
        self.mode = mode
        self.limits = limits
    }

    /// Strict parsing with default limits.
    public static let strict = ParseOptions(mode: .strict)
    /// Lenient parsing with default limits.
    public static let lenient = ParseOptions(mode: .lenient)
}
