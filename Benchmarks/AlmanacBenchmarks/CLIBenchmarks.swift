import Foundation

/// Whole commands, timed as the processes a user runs (start-up, reading the file and
/// writing every line included), against libical's harness doing the same in the same
/// run: `almanac ics format` against parse + serialize, and `almanac ics expand
/// --format jsonl` over four years against `icalcomponent_foreach_recurrence` printing
/// each instance. Rounds alternate (ours, then the peer); the ratio is the median of the
/// per-round ratios (above 1: Almanac faster), with their min and max.
enum CLIBenchmarks {
    static func run(events: Int, iterations: Int) {
        let corpus = Corpus.file(events: events).path
        let almanac = Corpus.packageRoot.appendingPathComponent(".build/release/almanac").path
        guard FileManager.default.isExecutableFile(atPath: almanac) else {
            Report.note("cli: build the release almanac first (swift build -c release --product almanac)")
            return
        }
        guard let harness = LibICal.harness else { return }
        // 2024-01-01 to 2028-01-01, UTC.
        compare(
            "format", events: events, iterations: iterations, ours: [almanac, "ics", "format", corpus],
            peer: [harness, "format", corpus])
        compare(
            "expand-jsonl", events: events, iterations: iterations,
            ours: [
                almanac, "ics", "expand", corpus, "--from", "2024-01-01", "--to", "2028-01-01", "--format", "jsonl",
            ],
            peer: [harness, "expand", corpus, "1704067200", "1830297600"])
    }

    static func compare(_ name: String, events: Int, iterations: Int, ours: [String], peer: [String]) {
        // Lines written by each, once, to say what was compared.
        let context: [String: Any] = [
            "events": events, "almanac_lines": lines(ours), "libical_lines": lines(peer),
            "cores": ProcessInfo.processInfo.activeProcessorCount,
        ]
        var oursSeconds: [Double] = []
        var peerSeconds: [Double] = []
        var ratios: [Double] = []
        var peaks = (ours: 0, peer: 0)
        _ = run(ours)
        _ = run(peer)
        for _ in 0..<max(3, iterations) {
            let a = run(ours)
            let b = run(peer)
            oursSeconds.append(a.seconds)
            peerSeconds.append(b.seconds)
            peaks = (max(peaks.ours, a.peakKiB), max(peaks.peer, b.peakKiB))
            ratios.append(b.seconds / a.seconds)
        }
        Report.figure(
            "cli.\(name).almanac", median(oursSeconds), unit: "s",
            context.merging(["peak_mib": peaks.ours / 1024]) { $1 })
        Report.figure(
            "cli.\(name).libical", median(peerSeconds), unit: "s",
            context.merging(["peak_mib": peaks.peer / 1024]) { $1 })
        Report.figure(
            "ratio.cli.\(name).vs-libical", median(ratios), unit: "x",
            ["min": ratios.min() ?? 0, "max": ratios.max() ?? 0, "rounds": ratios.count])
    }

    /// The wall time of one run of the whole process, its output thrown away, from
    /// `posix_spawn` to its end, as a shell would run it (Foundation's `Process` adds
    /// milliseconds of its own to each run), and its peak resident memory.
    static func run(_ command: [String]) -> (seconds: Double, peakKiB: Int) {
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var arguments = command.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        guard posix_spawn(&pid, command[0], &actions, nil, &arguments, environ) == 0 else {
            Report.note("could not run \(command[0])")
            return (.nan, 0)
        }
        var status: Int32 = 0
        var usage = rusage()
        wait4(pid, &status, 0, &usage)
        let elapsed = clock.now - start
        return (
            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, usage.ru_maxrss
        )
    }

    /// How many lines a command writes.
    static func lines(_ command: [String]) -> Int {
        runProgram(command[0], Array(command.dropFirst()))?.utf8.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } ?? -1
    }
}
