/// Bounds on an expansion, so that no rule can make a caller spin or run out of memory.
///
/// Every candidate an expansion examines counts against ``maxSteps``: each period
/// of a rule's frequency it visits, each day it tests against the BY* filters, and
/// each candidate time it builds, whether the candidate is then emitted, excluded
/// by EXDATE or EXRULE, rejected by BYSETPOS, or falls before DTSTART. An
/// expansion that reaches a bound stops and says so (``RecurrenceSet/Iterator/isTruncated``);
/// it never returns a shortened answer as if it were whole.
public struct ExpansionLimits: Sendable, Hashable {
    /// Instances produced by one expansion before it stops.
    public var maxInstances: Int
    /// Candidates examined by one expansion before it stops.
    public var maxSteps: Int
    /// Periods of a rule's frequency (years, months, …, seconds) visited in a row
    /// without an instance before the rule is declared dead. The Gregorian calendar
    /// repeats every 400 years, so a rule is also dead after 400 idle years of
    /// periods when that is fewer; the default, 146,097, is 400 years of days.
    public var maxIdlePeriods: Int

    public init(maxInstances: Int = 100_000, maxSteps: Int = 2_000_000, maxIdlePeriods: Int = 146_097) {
        self.maxInstances = max(1, maxInstances)
        self.maxSteps = max(1, maxSteps)
        self.maxIdlePeriods = max(1, maxIdlePeriods)
    }

    public static let `default` = ExpansionLimits()
}

/// The expansion work one request may cause, shared by every series it expands: each
/// expansion's steps (see ``ExpansionLimits``) and each instance it lists come out of
/// it. A calendar of many hostile series then costs one bounded request, not the
/// per-series bound times the number of series.
public struct ExpansionBudget: Sendable {
    /// Steps left; an expansion may use at most these.
    public var steps: Int

    public init(steps: Int) { self.steps = steps }

    /// What one request of the store may spend: 20,000,000 steps, about a second of work.
    public static let perRequest = ExpansionBudget(steps: 20_000_000)
    /// No bound beyond each series' own.
    public static let unbounded = ExpansionBudget(steps: .max)

    /// Whether nothing is left.
    public var isSpent: Bool { steps <= 0 }

    /// Asked when a series' steps are spent (after each series, once ``checkInterval``
    /// steps have gone since the last question): when it says the work is no longer wanted
    /// (the client went away), the budget counts as spent and the series left are not
    /// expanded. A series under way runs to its own bound (at most
    /// ``ExpansionLimits/maxSteps``) first.
    public static var isCancelled: (@Sendable () -> Bool)? { CancellationScope.current }

    /// Runs `body` with `isCancelled` as the question for every budget spent on this
    /// thread (nil: none), then restores the one bound before.
    public static func withCancellation<Result, Failure: Error>(
        _ isCancelled: (@Sendable () -> Bool)?, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try CancellationScope.withValue(isCancelled, body)
    }
    static let checkInterval = 100_000
    private var sinceCheck = 0

    mutating func spend(_ count: Int) {
        guard steps != .max else { return }
        steps -= count
        sinceCheck += count
        if sinceCheck >= Self.checkInterval {
            sinceCheck = 0
            if let isCancelled = Self.isCancelled, isCancelled() { steps = 0 }
        }
    }
}

/// A series whose expansion a bound of ``ExpansionLimits`` stopped before the end of
/// the window it was asked for: its instances are listed up to where it stopped, and
/// whoever shows them says so (nothing is cut silently).
public struct TruncatedSeries: Sendable, Hashable {
    /// The series' UID.
    public var uid: String
    /// The master's SUMMARY, to name the series to people.
    public var summary: String?
    /// How many of its instances were listed.
    public var listed: Int
    /// The start of the last instance listed (in series order); nil when none was.
    public var lastListedStart: OccurrenceTime?

    public init(uid: String, summary: String?, listed: Int, lastListedStart: OccurrenceTime?) {
        self.uid = uid
        self.summary = summary
        self.listed = listed
        self.lastListedStart = lastListedStart
    }
}

/// The occurrences of a whole calendar in a window, and the series a bound stopped early.
public struct CalendarExpansion: Sendable {
    /// Every occurrence found, sorted by start.
    public var occurrences: [Occurrence] = []
    /// The series whose expansion a bound of ``ExpansionLimits`` stopped before the
    /// window's end, in the order the calendar holds them.
    public var truncatedSeries: [TruncatedSeries] = []

    public init() {}

    /// Whether every instance in the window is listed.
    public var isComplete: Bool { truncatedSeries.isEmpty }
}
