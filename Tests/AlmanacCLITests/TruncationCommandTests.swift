import AlmanacCLI
import Testing

/// `list`, `cal` and `alarms` show what a bound let through, name what it cut on standard
/// error, and exit 1: a cut answer never looks whole.
extension StoreCommandTests {
    @Test func listNamesASeriesCutByTheBoundAndExitsOne() {
        #expect(
            run([
                "add", "--calendar", "Ticks", "--title", "Ticker", "--start", "2026-12-01 00:00", "--duration", "1m",
                "--rrule", "FREQ=MINUTELY",
            ]).0 == 0)
        // 104 days of minutes (149,760) are more than one series may list (100,000).
        let (status, io) = run(["list", "--from", "2026-12-01", "--to", "2027-03-15"])
        #expect(status == 1)
        #expect(io.text.split(separator: "\n").count == 100_001, "the zone's line and 100,000")
        #expect(io.errors.count == 1)
        #expect(
            io.errors.first?.contains("\"Ticker\"") == true && io.errors.first?.contains("100000 instances") == true)
        // A range the series fits in is whole.
        let (whole, wholeIO) = run(["list", "--from", "2026-12-01", "--to", "2026-12-02"])
        #expect(whole == 0 && wholeIO.errors.isEmpty && wholeIO.text.split(separator: "\n").count == 1_441)
    }

    @Test func calNamesASeriesItCouldNotExpandAndExitsOne() {
        // One instance a night for 40 nights from a secondly rule: one series' steps run out
        // in December, so January's nights are past the bound.
        let (added, addedIO) = run([
            "add", "--calendar", "Nights", "--title", "Midnight", "--start", "2026-12-01 00:00", "--duration", "1m",
            "--rrule",
            "FREQ=SECONDLY;BYHOUR=0;BYMINUTE=0;BYSECOND=0;COUNT=40",
        ])
        #expect(added == 0, "\(addedIO.errors)")
        let (status, io) = run(["cal", "--month", "2027-01"])
        #expect(status == 1)
        #expect(io.errors.count == 1 && io.errors.first?.contains("\"Midnight\"") == true)
    }

    @Test func alarmsPastTheListingBoundExitOne() {
        #expect(
            run([
                "add", "--calendar", "Ticks", "--title", "Ticker", "--start", "2026-12-01 00:00", "--duration", "1m",
                "--rrule", "FREQ=MINUTELY", "--alarm", "-1m",
            ]).0
                == 0)
        // Ten days of minutes: 14,400 firings, more than the 10,000 listed.
        let (status, io) = run(["alarms", "--from", "2026-12-02", "--to", "2026-12-12"])
        #expect(status == 1)
        #expect(io.text.split(separator: "\n").count == 10_001, "the zone's line, then 10,000 firings")
        #expect(io.errors.count == 1 && io.errors.first?.contains("more than 10000 alarms") == true)
    }
}
