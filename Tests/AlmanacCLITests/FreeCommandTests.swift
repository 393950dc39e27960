import AlmanacCLI
import AlmanacTestSupport
import Testing

/// `almanac free` over ranges in the past. The test clock is 2026-11-29T12:00Z, a
/// Sunday: 13:00 in the local zone (TZ=Europe/Berlin).
extension StoreCommandTests {
    static let weekdayMornings = ["--working-hours", "Mon-Fri 09:00-10:00"]
    /// What every listing starts with here (TZ=Europe/Berlin, UTC+1 in November).
    static let berlin = "Times in Europe/Berlin (UTC+01:00 now)\n"

    @Test func freeSaysWhenTheWholeRangeIsPast() throws {
        #expect(run(["calendar", "create", "Work"]).0 == 0)
        let (status, io) = run(
            ["free", "--calendar", "Work", "--from", "2026-11-02", "--to", "2026-11-07"] + Self.weekdayMornings)
        #expect(status == 0, "\(io.errors)")
        #expect(
            io.text
                == Self.berlin
                + "The range ends before now (2026-11-29 13:00 Europe/Berlin): past times are never offered; use --include-past to search them\n"
        )

        // With --include-past, the mornings of Monday 2 to Friday 6 November.
        let (pastStatus, past) = run(
            ["free", "--calendar", "Work", "--from", "2026-11-02", "--to", "2026-11-07", "--include-past"]
                + Self.weekdayMornings)
        #expect(pastStatus == 0, "\(past.errors)")
        #expect(past.text == Self.berlin + (2...6).map { "2026-11-0\($0) 09:00–10:00\n" }.joined())

        // --json prints no lines, so the reason goes to stderr.
        let (jsonStatus, json) = run(
            ["free", "--calendar", "Work", "--from", "2026-11-02", "--to", "2026-11-07", "--json"]
                + Self.weekdayMornings)
        #expect(jsonStatus == 0 && json.text.isEmpty)
        #expect(
            json.errors == [
                "almanac: The range ends before now (2026-11-29 13:00 Europe/Berlin): past times are never offered; use --include-past to search them"
            ])
    }

    @Test func freeSaysWhenTheFreeTimeOfARangeIsPast() throws {
        #expect(run(["calendar", "create", "Work"]).0 == 0)
        // Today's hours end before 13:00.
        let (status, io) = run([
            "free", "--calendar", "Work", "--from", "2026-11-29", "--to", "2026-11-30", "--working-hours",
            "Sun 09:00-12:00",
        ])
        #expect(status == 0, "\(io.errors)")
        #expect(
            io.text
                == Self.berlin
                + "No free slot of 60 minutes in that range after now (2026-11-29 13:00 Europe/Berlin); past times are never offered (--include-past searches them)\n"
        )
        let (_, past) = run([
            "free", "--calendar", "Work", "--from", "2026-11-29", "--to", "2026-11-30", "--working-hours",
            "Sun 09:00-12:00", "--include-past",
        ])
        #expect(past.text == Self.berlin + "2026-11-29 09:00–10:00\n2026-11-29 10:00–11:00\n2026-11-29 11:00–12:00\n")
        // Later hours today are offered from now on.
        let (_, later) = run([
            "free", "--calendar", "Work", "--from", "2026-11-29", "--to", "2026-11-30", "--working-hours",
            "Sun 09:00-15:00",
        ])
        #expect(later.text == Self.berlin + "2026-11-29 13:00–14:00\n2026-11-29 14:00–15:00\n")
        // A future range without working hours says only that.
        let (_, none) = run(
            ["free", "--calendar", "Work", "--from", "2026-12-05", "--to", "2026-12-06"] + Self.weekdayMornings)
        #expect(none.text == Self.berlin + "No free slot of 60 minutes in that range\n")
    }
}
