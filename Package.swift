// swift-tools-version: 6.0
// Almanac: a calendar engine and server. See README.md and docs/.
import PackageDescription

let package = Package(
    name: "Almanac",
    products: [
        .library(name: "CivilTime", targets: ["CivilTime"]),
        .library(name: "ICalendar", targets: ["ICalendar"]),
        .library(name: "Recurrence", targets: ["Recurrence"]),
        .executable(name: "almanac", targets: ["almanac"]),
    ],
    targets: [
        // Core: integer civil dates and times (no Foundation Calendar).
        .target(name: "CivilTime"),
        // Core: RFC 5545 syntax, values, serialization and jCal.
        .target(name: "ICalendar", dependencies: ["CivilTime"]),
        // Core: recurrence expansion, occurrence sets, TZID resolution, VTIMEZONE.
        .target(name: "Recurrence", dependencies: ["CivilTime", "ICalendar"]),
        // The command-line interface as a library, so tests run it in process.
        .target(name: "AlmanacCLI", dependencies: ["CivilTime", "ICalendar", "Recurrence"]),
        .executableTarget(name: "almanac", dependencies: ["AlmanacCLI"]),

        // Benchmarks (release builds; see Benchmarks/README.md).
        .target(name: "CMallocCounter", path: "Benchmarks/CMallocCounter"),
        .executableTarget(
            name: "AlmanacBenchmarks",
            dependencies: ["ICalendar", "Recurrence", "CMallocCounter"],
            path: "Benchmarks/AlmanacBenchmarks"
        ),

        // libFuzzer entry point for the byte parsers (FuzzTesting/run-fuzzer); a plain
        // build of it replays files through the same checks.
        .executableTarget(
            name: "FuzzICalendar",
            dependencies: ["CivilTime", "ICalendar"],
            path: "FuzzTesting/Sources/FuzzICalendar"
        ),

        .testTarget(name: "CivilTimeTests", dependencies: ["CivilTime"]),
        .testTarget(name: "ICalendarTests", dependencies: ["ICalendar"], exclude: ["Fixtures"]),
        .testTarget(name: "RecurrenceTests", dependencies: ["Recurrence"], exclude: ["Fixtures"]),
        .testTarget(name: "AlmanacCLITests", dependencies: ["AlmanacCLI"]),
    ],
    swiftLanguageModes: [.v6]
)
