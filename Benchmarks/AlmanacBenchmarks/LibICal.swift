import Foundation

/// The libical peer: a small C harness (Benchmarks/libical/ical_bench.c)
/// compiled against the system's libical in the same run.
enum LibICal {
    /// Compiles the harness once; nil (with a note) when libical-dev or a C compiler is missing.
    static let harness: String? = {
        let source = Corpus.packageRoot.appendingPathComponent("Benchmarks/libical/ical_bench.c").path
        let binary = Corpus.workDirectory.appendingPathComponent("ical_bench").path
        let command = "cc -O2 -o '\(binary)' '\(source)' $(pkg-config --cflags --libs libical)"
        guard runProgram("/bin/sh", ["-c", command]) != nil else {
            Report.note("libical harness not built (is libical-dev installed? scripts/install-deps installs it)")
            return nil
        }
        return binary
    }()

    /// Runs the harness and returns its JSON object.
    static func run(_ arguments: [String]) -> [String: Any]? {
        guard let harness, let output = runProgram(harness, arguments),
            let object = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        else { return nil }
        return object
    }
}
