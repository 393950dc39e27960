import AlmanacTestSupport
import Foundation

/// Generated benchmark inputs, cached under `.build/benchmarks/`.
enum Corpus {
    static var packageRoot: URL {
        // Benchmarks/AlmanacBenchmarks/Corpus.swift → the package root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    static var workDirectory: URL {
        let directory = packageRoot.appendingPathComponent(".build/benchmarks")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// One `.ics` file with `events` events from the project's generator (seed 7), made once.
    static func file(events: Int, seed: Int = 7) -> URL {
        let url = workDirectory.appendingPathComponent("corpus-\(events)-\(seed).ics")
        if !FileManager.default.fileExists(atPath: url.path) {
            Report.note("generating the \(events)-event corpus (seed \(seed))")
            write(events: events, seed: seed, to: url)
        }
        return url
    }

    /// Generates a corpus file (in a partial file first, so a cut run leaves none half-made).
    static func write(events: Int, seed: Int, to url: URL) {
        let partial = url.appendingPathExtension("partial")
        do {
            try Data(try AlmanacTestSupport.Corpus.generate(events: events, seed: seed)).write(to: partial)
            try? FileManager.default.removeItem(at: url)
            try FileManager.default.moveItem(at: partial, to: url)
        } catch {
            fatalError("could not write the corpus \(url.path): \(error)")
        }
    }
}
