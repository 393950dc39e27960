import Foundation

/// Generated benchmark inputs, cached under `.build/benchmarks/`.
enum Corpus {
    static var packageRoot: URL {
        // Benchmarks/AlmanacBenchmarks/Corpus.swift → the package root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var workDirectory: URL {
        let directory = packageRoot.appendingPathComponent(".build/benchmarks")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The generator: `$ALMANAC_CORPUS_GENERATOR`, else `../shared/corpus/gen_ics.py` beside the checkout.
    static var generator: String {
        ProcessInfo.processInfo.environment["ALMANAC_CORPUS_GENERATOR"]
            ?? packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/gen_ics.py").path
    }

    /// One `.ics` file with `events` events from the generator (seed 7), made once.
    static func file(events: Int, seed: Int = 7) -> URL {
        let url = workDirectory.appendingPathComponent("corpus-\(events)-\(seed).ics")
        if !FileManager.default.fileExists(atPath: url.path) {
            Report.note("generating \(events)-event corpus with \(generator)")
            guard runProgram("/usr/bin/env", ["python3", generator, "--events", String(events), "--seed", String(seed), "--out", url.path]) != nil
            else {
                fatalError("could not generate the corpus; set ALMANAC_CORPUS_GENERATOR to gen_ics.py")
            }
        }
        return url
    }
}
