import AlmanacCLI
import AlmanacTestSupport
import Testing

/// Numbers and dates past their documented bounds are usage errors (exit 2), never traps.
extension StoreCommandTests {
    @Test(arguments: [
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "9223372036854775807m"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "9223372036854775807m1m"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "1m1m"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "999999999w"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "P999999999W"],
        ["add", "--title", "x", "--start", "0000-12-01 09:00", "--duration", "1h"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--alarm", "-9223372036854775807m"],
        ["free", "--from", "2026-12-01", "--to", "2026-12-02", "--duration", "1m", "--buffer", "1281023894007608h"],
        ["free", "--from", "0000-01-01", "--to", "2026-12-02", "--duration", "1h"],
        ["cal", "--month", "9223372036854775807-01"],
        ["cal", "--month", "+999-01"],
        ["cal", "--month", "0000-01"],
        ["cal", "--week", "9223372036854775807-W01"],
        ["cal", "--week", "2025-W53"],
        ["list", "--from", "2026-12-01", "--to", "10000-01-01"],
    ])
    func outOfRangeInputIsAUsageError(_ arguments: [String]) {
        let (status, io) = run(arguments)
        #expect(status == 2, "\(arguments): \(io.errors)")
    }

    @Test(arguments: [["cal", "--month", "0001-01"], ["cal", "--month", "9999-12"], ["cal", "--week", "2026-W53"], ["cal", "--week", "9999-W52"]])
    func theEdgesOfTheSupportedYearsWork(_ arguments: [String]) {
        let (status, io) = run(arguments)
        #expect(status == 0, "\(arguments): \(io.errors)")
    }
}
