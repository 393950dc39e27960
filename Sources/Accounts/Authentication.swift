import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The user name and password of an `Authorization: Basic` header (RFC 7617).
public struct BasicCredentials: Sendable, Hashable {
    public var user: String
    public var password: String

    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// Reads `Basic base64(user:password)`; nil for anything else.
    public init?(authorization: String) {
        if let decoded = Self.decodeASCII(authorization) {
            guard let text = String(validating: decoded, as: UTF8.self), let colon = text.firstIndex(of: ":") else {
                return nil
            }
            user = String(text[..<colon])
            password = String(text[text.index(after: colon)...])
            return
        }
        // Anything but plain ASCII (where Unicode spaces may be trimmed) takes Foundation's way.
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
            let text = String(validating: [UInt8](decoded), as: UTF8.self), let colon = text.firstIndex(of: ":")
        else { return nil }
        user = String(text[..<colon])
        password = String(text[text.index(after: colon)...])
    }

    /// The decoded bytes of an ASCII `Basic` value, read as Foundation's strict decoder
    /// reads it (padding required, nothing outside the alphabet); nil when the value is
    /// not ASCII or not that, so the caller decides the rest.
    static func decodeASCII(_ authorization: String) -> [UInt8]? {
        let bytes = authorization.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        let scheme = Array("basic".utf8)
        guard bytes.count > scheme.count + 1,
            zip(bytes.prefix(scheme.count), scheme).allSatisfy({ ($0 | 0x20) == $1 }),
            bytes.dropFirst(scheme.count).first == 0x20
        else { return nil }
        // Spaces and tabs around the value are trimmed; one or more spaces after the scheme.
        var value = bytes.dropFirst(scheme.count)[...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        guard !value.isEmpty, value.count % 4 == 0 else { return nil }
        func sextet(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): 62
            case UInt8(ascii: "/"): 63
            default: nil
            }
        }
        let symbols = Array(value)
        let padding = symbols.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return nil }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(symbols.count / 4 * 3)
        var pending: UInt32 = 0
        var bits = 0
        for byte in symbols.dropLast(padding) {
            // "=" anywhere but at the end is not in the alphabet.
            guard let value = sextet(byte) else { return nil }
            pending = pending << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                decoded.append(UInt8(truncatingIfNeeded: pending >> UInt32(bits)))
                pending &= (1 << UInt32(bits)) - 1
            }
        }
        return decoded
    }

    /// The header value for these credentials.
    public var authorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }
}

/// Slows down guessing: once `freeFailures` sign-ins for one user from one address
/// have failed, further attempts are refused for a delay that starts at a second and
/// doubles with each failure (up to `maximumDelay` seconds). A success clears the record.
///
/// An attempt is counted when it begins, before the password is hashed, so parallel
/// guesses get no extra tries; a success takes it back. The table holds at most
/// `capacity` records and, when full, forgets the least recently used tenth: a flood
/// of made-up names pushes out only records nobody is using, never a lockout that is
/// still being hit.
public final class LoginThrottle: Sendable {
    struct Record {
        var failures: Int
        var blockedUntil: Double
        var lastSeen: Double
    }

    private let records = Mutex<[String: Record]>([:])
    public let freeFailures: Int
    public let maximumDelay: Double
    public let capacity: Int

    public init(freeFailures: Int = 5, maximumDelay: Double = 300, capacity: Int = 100_000) {
        self.freeFailures = max(1, freeFailures)
        self.maximumDelay = maximumDelay
        self.capacity = max(10, capacity)
    }

    static func key(_ user: String, _ address: String) -> String { user.lowercased() + "\u{0}" + address }

    /// Seconds until `user` may try again from `address`; 0 when they may now.
    public func delay(user: String, address: String, now: Double = LoginThrottle.now()) -> Double {
        records.withLock { records in
            guard let record = records[Self.key(user, address)] else { return 0 }
            return max(0, record.blockedUntil - now)
        }
    }

    /// Begins an attempt: the seconds to wait when `user` is throttled from `address`
    /// (the attempt is not made), else nil, and the attempt already counts as a failure
    /// until ``recordSuccess(user:address:)`` takes it back.
    public func beginAttempt(user: String, address: String, now: Double = LoginThrottle.now()) -> Double? {
        update(user: user, address: address, now: now, countingWhileBlocked: false)
    }

    private func update(user: String, address: String, now: Double, countingWhileBlocked: Bool) -> Double? {
        records.withLock { records in
            let key = Self.key(user, address)
            var record = records[key] ?? Record(failures: 0, blockedUntil: 0, lastSeen: now)
            record.lastSeen = now
            let wait = record.blockedUntil > now ? record.blockedUntil - now : nil
            if wait == nil || countingWhileBlocked {
                record.failures += 1
                if record.failures >= freeFailures {
                    let exponent = min(record.failures - freeFailures, 20)
                    record.blockedUntil = now + min(maximumDelay, Double(1 << exponent))
                }
            }
            records[key] = record
            if records.count > capacity { Self.evict(&records, keeping: capacity - capacity / 10) }
            return wait
        }
    }

    /// Takes back an attempt that was neither a success nor a failure (the store did not
    /// answer, or no hashing turn came): it does not count against the user.
    public func cancelAttempt(user: String, address: String) {
        records.withLock { records in
            let key = Self.key(user, address)
            guard var record = records[key] else { return }
            record.failures -= 1
            if record.failures <= 0 { records.removeValue(forKey: key) } else { records[key] = record }
        }
    }

    /// Counts a failure outside an attempt (``beginAttempt(user:address:now:)`` already counts its own).
    public func recordFailure(user: String, address: String, now: Double = LoginThrottle.now()) {
        _ = update(user: user, address: address, now: now, countingWhileBlocked: true)
    }

    public func recordSuccess(user: String, address: String) {
        _ = records.withLock { $0.removeValue(forKey: Self.key(user, address)) }
    }

    /// The number of records held (for tests and monitoring).
    public var count: Int { records.withLock { $0.count } }

    /// Keeps the `count` most recently used records.
    static func evict(_ records: inout [String: Record], keeping count: Int) {
        let cutoff = records.values.map(\.lastSeen).sorted(by: >)[min(count, records.count) - 1]
        records = records.filter { $0.value.lastSeen >= cutoff }
        // Ties at the cutoff could keep more than asked: drop the surplus (each is as old as the rest).
        while records.count > count, let key = records.first(where: { $0.value.lastSeen == cutoff })?.key {
            records.removeValue(forKey: key)
        }
    }

    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// Bounds how many password hashes run at once, so that sign-in attempts (which need
/// no account) cannot take every core: PBKDF2 at 600,000 iterations costs about a
/// quarter of a second of CPU. Turns are shared between client addresses: when a turn
/// frees, it goes to a waiting attempt from the address with the fewest hashes running
/// (the one waiting longest among equals), so one address's flood of made-up sign-ins
/// takes no more than its share while another address waits. An attempt waits up to
/// `patience` seconds for a turn and is then refused (the caller answers 503 with
/// `Retry-After`).
public final class HashingGate: @unchecked Sendable {
    public let concurrent: Int
    public let patience: Double
    private let condition = NSCondition()
    private var running: [String: Int] = [:]
    private var busy = 0
    /// Waiting attempts in the order they came: (ticket, address).
    private var queue: [(ticket: Int, address: String)] = []
    private var tickets = 0
    /// When each address's last turn began (a count of turns), while it has attempts
    /// running or waiting.
    private var lastTurn: [String: Int] = [:]
    private var turns = 0

    public init(concurrent: Int = max(1, ProcessInfo.processInfo.activeProcessorCount), patience: Double = 5) {
        self.concurrent = max(1, concurrent)
        self.patience = patience
    }

    /// Attempts waiting for a turn now.
    public var waiting: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count
    }

    /// Runs `work` in a turn of `address`'s; nil when no turn came within the patience.
    public func run<T>(for address: String = "", _ work: () -> T) -> T? {
        condition.lock()
        tickets += 1
        let ticket = tickets
        queue.append((ticket, address))
        let deadline = Date(timeIntervalSinceNow: patience)
        while !(busy < concurrent && next() == ticket) {
            // A turn is free but another's: make sure they hear of it (the release that
            // freed it may have woken only this one).
            if busy < concurrent { condition.broadcast() }
            guard condition.wait(until: deadline) else {
                queue.removeAll { $0.ticket == ticket }
                forgetIfIdle(address)
                // Another waiter may be next now.
                condition.broadcast()
                condition.unlock()
                return nil
            }
        }
        queue.removeAll { $0.ticket == ticket }
        busy += 1
        running[address, default: 0] += 1
        turns += 1
        lastTurn[address] = turns
        // More turns may be free than this one: the next waiter takes the next.
        if busy < concurrent, !queue.isEmpty { condition.broadcast() }
        condition.unlock()
        defer {
            condition.lock()
            busy -= 1
            running[address, default: 1] -= 1
            if running[address] == 0 { running[address] = nil }
            forgetIfIdle(address)
            condition.broadcast()
            condition.unlock()
        }
        return work()
    }

    /// Forgets an address with nothing running or waiting (the caller holds the lock).
    private func forgetIfIdle(_ address: String) {
        if running[address] == nil, !queue.contains(where: { $0.address == address }) { lastTurn[address] = nil }
    }

    /// The ticket whose turn is next (the caller holds the lock): of the waiting, from the
    /// address with the fewest running, then the one whose last turn began longest ago
    /// (never first), then the first to come.
    private func next() -> Int? {
        var chosen: (ticket: Int, running: Int, lastTurn: Int)?
        for waiter in queue {
            let count = running[waiter.address] ?? 0
            let last = lastTurn[waiter.address] ?? -1
            if let best = chosen, (best.running, best.lastTurn) <= (count, last) { continue }
            chosen = (waiter.ticket, count, last)
        }
        return chosen?.ticket
    }
}

/// Remembers passwords that verified recently, as HMACs under a key made at start,
/// so each request of a syncing client does not pay for PBKDF2 again.
public final class VerifiedPasswords: Sendable {
    private let key = Crypto.randomBytes(32)
    private let entries = Mutex<[String: (digest: [UInt8], until: Double)]>([:])
    public let lifetime: Double

    public init(lifetime: Double = 300) { self.lifetime = lifetime }

    func digest(_ credentials: BasicCredentials, hash: String) -> [UInt8] {
        Crypto.hmacSHA256(key: key, Array((credentials.password + "\u{0}" + hash).utf8))
    }

    /// Whether these credentials verified against `hash` within the lifetime.
    public func contains(_ credentials: BasicCredentials, hash: String, now: Double = LoginThrottle.now()) -> Bool {
        let wanted = digest(credentials, hash: hash)
        return entries.withLock { entries in
            guard let entry = entries[credentials.user], entry.until > now else { return false }
            return Crypto.constantTimeEqual(entry.digest, wanted)
        }
    }

    public func insert(_ credentials: BasicCredentials, hash: String, now: Double = LoginThrottle.now()) {
        let value = digest(credentials, hash: hash)
        entries.withLock { entries in
            // Bounded: expired entries go first, and only when that is not enough, everything
            // (a cache: what is dropped is verified again, at the cost of one hash).
            if entries.count >= 10_000 { entries = entries.filter { $0.value.until > now } }
            if entries.count >= 10_000 { entries.removeAll() }
            entries[credentials.user] = (value, now + lifetime)
        }
    }
}
