import Synchronization

/// A clock a test sets (Unix seconds): handed to a server, a scheduler or a store as
/// their `now`, so a scenario runs on the times it names.
public final class TestClock: Sendable {
    private let seconds: Mutex<Int>

    public init(_ start: Int) { seconds = Mutex(start) }

    /// The time; setting it moves every reader at once.
    public var now: Int {
        get { seconds.withLock { $0 } }
        set { seconds.withLock { $0 = newValue } }
    }

    /// The clock as the `now` closures of the server's parts take it.
    public var reading: @Sendable () -> Int { { [self] in now } }
}
