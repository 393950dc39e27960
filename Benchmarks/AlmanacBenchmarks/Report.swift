import Foundation

/// Prints one JSON object per line: the benchmark's figures.
enum Report {
    /// One figure: `{"benchmark": name, "value": …, "unit": …, extra…}`.
    static func figure(_ name: String, _ value: Double, unit: String, _ extra: [String: Any] = [:]) {
        var object: [String: Any] = ["benchmark": name, "value": (value * 1000).rounded() / 1000, "unit": unit]
        for (key, value) in extra { object[key] = value }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// A note for people, on stderr so stdout stays JSON lines.
    static func note(_ text: String) {
        FileHandle.standardError.write(Data(("# " + text + "\n").utf8))
    }
}

/// Runs `body` once to warm up and then `iterations` times; returns the median
/// seconds. What `body` returns is released after the clock stops, so freeing
/// a parsed tree is not counted (the libical harness does the same).
func medianSeconds<T>(iterations: Int, _ body: () throws -> T) rethrows -> Double {
    var samples: [Double] = []
    let clock = ContinuousClock()
    for round in 0...iterations {
        let start = clock.now
        let result = try body()
        let elapsed = clock.now - start
        withExtendedLifetime(result) {}
        if round > 0 {
            samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// Runs a program and returns its standard output; nil (with a note) when it fails.
func runProgram(_ path: String, _ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    do {
        try process.run()
    } catch {
        Report.note("could not run \(path): \(error)")
        return nil
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        Report.note("\(path) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        return nil
    }
    return String(decoding: data, as: UTF8.self)
}

/// The median of a non-empty list.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}
