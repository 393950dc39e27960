import Accounts
import Foundation
import Synchronization
import Testing

@Suite struct AccountsTests {
    /// RFC 7914 §11's PBKDF2-HMAC-SHA256 vectors (the ones with c=1 and c=80000).
    @Test func pbkdf2MatchesTheRFCVectors() {
        let first = Crypto.pbkdf2SHA256(
            password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1, length: 64)
        #expect(
            hex(first)
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783"
        )
        let second = Crypto.pbkdf2SHA256(
            password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80_000, length: 64)
        #expect(
            hex(second)
                == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d"
        )
    }

    @Test func hashesVerifyAndRoundTrip() throws {
        let hash = PasswordHash(password: "correct horse", iterations: 1_000)
        #expect(hash.verify("correct horse"))
        #expect(!hash.verify("correct horsE"))
        let stored = hash.description
        #expect(stored.hasPrefix("$pbkdf2-sha256$i=1000$"))
        let read = try #require(PasswordHash(stored))
        #expect(read == hash)
        #expect(read.verify("correct horse"))
        // Two hashes of one password differ (fresh salt).
        #expect(PasswordHash(password: "correct horse", iterations: 1_000).description != stored)
        for bad in [
            "", "$pbkdf2-sha256$i=0$00$00", "$md5$x$y$z", "$pbkdf2-sha256$i=10$zz$" + String(repeating: "0", count: 64),
        ] {
            #expect(PasswordHash(bad) == nil, "\(bad)")
        }
    }

    @Test func generatedPasswordsAreLongAndDistinct() {
        let passwords = (0..<50).map { _ in PasswordGenerator.generate() }
        #expect(Set(passwords).count == 50)
        #expect(passwords.allSatisfy { $0.count == 20 && !$0.contains("0") && !$0.contains("l") && !$0.contains("O") })
    }

    @Test func basicCredentialsParse() {
        let credentials = BasicCredentials(user: "anna", password: "pa:ss wörd")
        #expect(BasicCredentials(authorization: credentials.authorization) == credentials)
        // RFC 7617 §2's example.
        #expect(
            BasicCredentials(authorization: "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
                == BasicCredentials(user: "Aladdin", password: "open sesame"))
        for bad in ["Bearer abc", "Basic", "Basic !!!", "Basic " + Data("nocolon".utf8).base64EncodedString()] {
            #expect(BasicCredentials(authorization: bad) == nil, "\(bad)")
        }
    }

    @Test func throttleDelaysRepeatedFailuresPerUserAndAddress() {
        let throttle = LoginThrottle(freeFailures: 3, maximumDelay: 60)
        for _ in 0..<2 { throttle.recordFailure(user: "anna", address: "10.0.0.1", now: 100) }
        #expect(throttle.delay(user: "anna", address: "10.0.0.1", now: 100) == 0)
        throttle.recordFailure(user: "anna", address: "10.0.0.1", now: 100)
        #expect(throttle.delay(user: "anna", address: "10.0.0.1", now: 100) == 1)
        #expect(throttle.delay(user: "anna", address: "10.0.0.1", now: 101) == 0)
        throttle.recordFailure(user: "anna", address: "10.0.0.1", now: 100)
        #expect(throttle.delay(user: "anna", address: "10.0.0.1", now: 100) == 2)
        for _ in 0..<20 { throttle.recordFailure(user: "anna", address: "10.0.0.1", now: 100) }
        #expect(throttle.delay(user: "anna", address: "10.0.0.1", now: 100) == 60)
        // Other addresses and users are not affected; success clears the record.
        #expect(throttle.delay(user: "anna", address: "10.0.0.2", now: 100) == 0)
        #expect(throttle.delay(user: "bob", address: "10.0.0.1", now: 100) == 0)
        throttle.recordSuccess(user: "Anna", address: "10.0.0.1")
        #expect(throttle.delay(user: "anna", address: "10.0.0.1", now: 100) == 0)
    }

    @Test func verifiedPasswordsExpireAndNeverMatchAnotherPassword() {
        let cache = VerifiedPasswords(lifetime: 10)
        let anna = BasicCredentials(user: "anna", password: "secret")
        cache.insert(anna, hash: "$h1", now: 0)
        #expect(cache.contains(anna, hash: "$h1", now: 5))
        #expect(!cache.contains(BasicCredentials(user: "anna", password: "other"), hash: "$h1", now: 5))
        // A changed stored hash (a new password) invalidates the entry.
        #expect(!cache.contains(anna, hash: "$h2", now: 5))
        #expect(!cache.contains(anna, hash: "$h1", now: 11))
    }

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// The throttle protects users, not attackers (DESIGN.md, "Bad input").
@Suite struct ThrottleTests {
    @Test func anAttemptCountsBeforeItIsCheckedSoParallelGuessesGetNoExtraTries() {
        // Ten attempts begin before any finishes: only the free ones are let through.
        let throttle = LoginThrottle(freeFailures: 3, maximumDelay: 60)
        let admitted = (0..<10).filter { _ in throttle.beginAttempt(user: "anna", address: "10.0.0.9", now: 100) == nil
        }
        #expect(admitted.count == 3)
        // A success takes its attempt back and clears the record; a cancelled attempt does not count.
        throttle.recordSuccess(user: "anna", address: "10.0.0.9")
        #expect(throttle.beginAttempt(user: "anna", address: "10.0.0.9", now: 100) == nil)
        throttle.cancelAttempt(user: "anna", address: "10.0.0.9")
        #expect(throttle.count == 0)
    }

    @Test func aFloodOfMadeUpNamesNeverClearsALockoutStillBeingHit() {
        // The lockout of anna from one address is hit again and again while 30,000 made-up
        // names pass through a table of 1,000: it is the most recently used, so it stays.
        let throttle = LoginThrottle(freeFailures: 1, maximumDelay: 300, capacity: 1_000)
        throttle.recordFailure(user: "anna", address: "10.0.0.1", now: 0)
        for index in 0..<30_000 {
            let now = Double(index) / 1_000
            throttle.recordFailure(user: "made-up-\(index)", address: "10.0.0.1", now: now)
            if index % 100 == 0 { _ = throttle.beginAttempt(user: "anna", address: "10.0.0.1", now: now) }
        }
        #expect(throttle.count <= 1_000)
        #expect(throttle.delay(user: "anna", address: "10.0.0.1", now: 30) > 0)
        // A lockout from one address does not reach another.
        #expect(throttle.delay(user: "anna", address: "10.0.0.2", now: 30) == 0)
    }

    @Test func theHashingGateRefusesWhenNoTurnComes() {
        let gate = HashingGate(concurrent: 1, patience: 0.05)
        let inner = gate.run { gate.run { 1 } }
        #expect(inner == .some(nil))
        #expect(gate.run { 2 } == 2)
    }

    /// Turns go to the address with the fewest hashes running: with the only turn held
    /// by 10.0.0.1 and three more of its attempts waiting, an attempt from 10.0.0.2 that
    /// came last goes next.
    @Test func theHashingGateSharesTurnsBetweenAddresses() {
        let gate = HashingGate(concurrent: 1, patience: 60)
        let order = Mutex<[String]>([])
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        func attempt(_ address: String, _ name: String, hold: Bool = false) {
            done.enter()
            Thread {
                _ = gate.run(for: address) {
                    order.withLock { $0.append(name) }
                    if hold {
                        holding.signal()
                        release.wait()
                    }
                }
                done.leave()
            }.start()
        }
        attempt("10.0.0.1", "first", hold: true)
        holding.wait()
        for index in 1...3 {
            attempt("10.0.0.1", "flood\(index)")
            while gate.waiting < index { usleep(1_000) }
        }
        attempt("10.0.0.2", "other")
        while gate.waiting < 4 { usleep(1_000) }
        release.signal()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(order.withLock { $0 } == ["first", "other", "flood1", "flood2", "flood3"])
    }

    /// Every free turn is taken while attempts wait: when both of two running hashes end
    /// at once, two waiting attempts run side by side (each waits for a partner inside,
    /// so one left waiting alone for a turn that was free would be seen).
    @Test func theHashingGateFillsEveryFreeTurn() {
        let gate = HashingGate(concurrent: 2, patience: 120)
        let inside = Mutex((now: 0, peak: 0, arrived: 0, alone: 0))
        let partner = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        func attempt(_ address: String, hold: Bool) {
            done.enter()
            Thread {
                _ = gate.run(for: address) {
                    if hold {
                        holding.signal()
                        release.wait()
                        return
                    }
                    let first = inside.withLock { state -> Bool in
                        state.now += 1
                        state.peak = max(state.peak, state.now)
                        state.arrived += 1
                        return state.arrived % 2 == 1
                    }
                    if first, partner.wait(timeout: .now() + 60) == .timedOut { inside.withLock { $0.alone += 1 } }
                    if !first { partner.signal() }
                    inside.withLock { $0.now -= 1 }
                }
                done.leave()
            }.start()
        }
        attempt("10.0.0.1", hold: true)
        attempt("10.0.0.2", hold: true)
        holding.wait()
        holding.wait()
        for index in 0..<6 {
            attempt(index % 2 == 0 ? "10.0.0.3" : "10.0.0.4", hold: false)
            while gate.waiting < index + 1 { usleep(1_000) }
        }
        release.signal()
        release.signal()
        #expect(done.wait(timeout: .now() + 300) == .success)
        #expect(inside.withLock { $0.peak } == 2)
        #expect(inside.withLock { $0.alone } == 0, "an attempt waited alone while a turn was free")
    }
}

/// The header reader's own base64 decoder against Foundation's: for every value, the
/// credentials read are the ones Foundation's `Data(base64Encoded:)` gives.
@Suite struct BasicCredentialsDecodingTests {
    /// What the reader did before it decoded ASCII itself (Foundation all the way).
    static func foundation(_ authorization: String) -> BasicCredentials? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
            let decoded = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
            let text = String(validating: [UInt8](decoded), as: UTF8.self), let colon = text.firstIndex(of: ":")
        else { return nil }
        return BasicCredentials(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }

    @Test func headersReadAsFoundationReadsThem() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCXYZabcxyz0189+/=  \t:é".unicodeScalars)
        var cases = [
            "Basic YW5uYTpzZWNyZXQ=", "basic YW5uYTpzZWNyZXQ=", "BASIC   YW5uYTpzZWNyZXQ=  ", "Basic\tYW5uYTpzZWNyZXQ=",
            "Basic\u{0}YW5uYTpzZWNyZXQ=", "Basic YW5uYTpzZWNyZXQ", "Basic YW5u=YTpzZWNyZXQ=", "Basic ====",
            "Basic YQ==", "Basic YTo=", "Basic Ojo=", "Basic \u{00A0}YW5uYTpzZWNyZXQ=", "Basic ", "Basic",
            "Bearer YTpi",
            "Basic YW5uYTpzZWNyZXQ===", "Basic 8J+YgDrDqQ==",
        ]
        for _ in 0..<3_000 {
            // Valid encodings of random user:password bytes (some not UTF-8), with noise around them.
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let text = Data(bytes + [0x3A] + bytes.reversed()).base64EncodedString()
            let scheme = ["Basic ", "basic ", "BASIC  ", "Basic\t", "Basi "].randomElement(using: &generator) ?? ""
            cases.append(scheme + text + ["", " ", "\t", "=", "A"].randomElement(using: &generator)!)
            // Random strings from the alphabet.
            let noise = String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...16, using: &generator)).map { _ in
                        alphabet.randomElement(using: &generator)!
                    }
                ))
            cases.append("Basic " + noise)
        }
        for value in cases {
            #expect(BasicCredentials(authorization: value) == Self.foundation(value), "\(value.debugDescription)")
        }
    }
}
