import Foundation

/// Helpers shared by the test targets, so each test reads as a scenario:
/// seeded randomness, generated corpora and temporary directories.

/// A small deterministic generator (SplitMix64) for reproducible samples.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Where things are in the checkout.
public enum Checkout {
    /// The package root (the directory holding Package.swift).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The directory of the running test binary, where `swift build` put every product.
    public static var buildDirectory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }
}

public struct CorpusError: Error, CustomStringConvertible {
    public var description: String
}

/// Calendars from the project's own generator (``CorpusGenerator``).
public enum Corpus {
    /// One VCALENDAR with `events` generated events (one UID each), the same for a seed.
    public static func generate(events: Int, seed: Int) throws -> [UInt8] {
        CorpusGenerator.generate(events: events, seed: seed)
    }
}

/// A directory removed when the last reference goes away.
public final class TemporaryDirectory: @unchecked Sendable {
    public let url: URL
    public var path: String { url.path }

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("almanac-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The PostgreSQL cluster the tests may use: `ALMANAC_TEST_POSTGRES` (a URL), which
/// `make test` sets after starting a throwaway cluster with `scripts/test-postgres`.
public enum TestPostgres {
    public static var url: String? {
        ProcessInfo.processInfo.environment["ALMANAC_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A URL for a new, empty schema of the test database: each store test gets its own.
    public static func freshURL() throws -> String {
        guard let url else {
            throw CorpusError(description: "ALMANAC_TEST_POSTGRES is not set (make test starts a cluster)")
        }
        let schema = "test_" + UUID().uuidString.lowercased().filter { $0 != "-" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", "CREATE SCHEMA \(schema)"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CorpusError(description: "psql could not create schema \(schema) in \(url)")
        }
        return url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema
    }
}
