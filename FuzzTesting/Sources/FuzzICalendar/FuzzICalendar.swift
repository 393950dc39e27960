import CivilTime
import ICalendar

/// One fuzz input, given to every byte parser the project has:
/// - iCalendar, in both modes: whatever parses must serialize, parse again to
///   the same tree, and survive a trip through jCal;
/// - JSON and jCal, read straight from the input;
/// - TZif (RFC 8536) and POSIX TZ strings: a zone that parses must answer
///   conversions without trapping.
/// Any disagreement traps, so the fuzzer reports it like a crash.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    fuzzICalendar(bytes)
    let array = Array(bytes)
    _ = try? JCal.document(fromJSON: array)
    if let zone = try? TZif.parse(array, identifier: "fuzz") {
        for instant in stride(from: -4_000_000_000, through: 8_000_000_000, by: 999_999_937) {
            let local = zone.localTime(at: instant)
            _ = zone.instant(for: local)
        }
        _ = zone.transitions(from: 0, to: 4_000_000_000)
    }
    if array.count < 256, let text = String(validating: array, as: UTF8.self), let rule = POSIXTimeZone(text) {
        _ = rule.offset(at: 1_800_000_000)
        _ = rule.transitions(inYear: 2026)
    }
}

func fuzzICalendar(_ bytes: UnsafeBufferPointer<UInt8>) {
    for options in [ParseOptions.strict, .lenient] {
        let result = ICalendarParser.check(bytes, options: options)
        guard let document = result.document else {
            precondition(result.errors.allSatisfy { $0.line != nil }, "an error without a location")
            continue
        }
        let serialized = document.serialized()
        guard let again = try? ICalendarParser.parse(serialized, options: .lenient) else {
            preconditionFailure("serialized output does not parse")
        }
        precondition(again.components == document.components, "parse → serialize → parse changed the tree")
        precondition(again.serialized() == serialized, "serialization is not stable")
        if let json = try? JCal.json(for: document) {
            _ = try? JCal.document(fromJSON: Array(json.jsonText.utf8))
        }
    }
}

#if FUZZING
    /// libFuzzer's entry point (built by FuzzTesting/run-fuzzer with -sanitize=fuzzer).
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        fuzzOne(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// SwiftPM links an executable target's entry point under this name and
    /// points `main` at it; here it hands control to libFuzzer's driver.
    @_cdecl("FuzzICalendar_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { data, size in fuzzerTestOneInput(data, size) }
    }
#else
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// Without the fuzzer: replays the files named on the command line through the same
    /// checks (for reproducing a crash in a debugger, or re-running a corpus).
    @main
    struct Replay {
        static func main() {
            for path in CommandLine.arguments.dropFirst() {
                guard let file = fopen(path, "rb") else {
                    print("cannot open \(path)")
                    exit(1)
                }
                var bytes: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = fread(&buffer, 1, buffer.count, file)
                    if count == 0 { break }
                    bytes += buffer[0..<count]
                }
                fclose(file)
                bytes.withUnsafeBufferPointer(fuzzOne)
                print("\(path): ok")
            }
        }
    }
#endif
