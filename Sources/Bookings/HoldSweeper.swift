import CalendarStore
import Dispatch
import Synchronization

/// Drops booking holds that ran out, every few seconds while the server runs, so each
/// `hold.expired` webhook goes out soon after its hold ends. (A hold stops counting the
/// moment it expires whether or not it has been swept: every check reads `expires`.)
public final class HoldSweeper: Sendable {
    let store: any BookingStore
    let now: @Sendable () -> Int
    let interval: Double
    private let timer = Mutex<(any DispatchSourceTimer)?>(nil)

    public init(store: any BookingStore, interval: Double = 5, now: @escaping @Sendable () -> Int) {
        self.store = store
        self.interval = interval
        self.now = now
    }

    public func start() {
        timer.withLock { timer in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
            source.schedule(deadline: .now() + interval, repeating: interval)
            source.setEventHandler { [store, now] in
                do throws(StoreError) {
                    try store.expireHolds(now: now())
                } catch {
                    error.logDetails()
                }
            }
            source.resume()
            timer = source
        }
    }

    public func stop() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }
}
