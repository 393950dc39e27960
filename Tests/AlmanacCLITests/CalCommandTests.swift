import AlmanacCLI
import Testing

extension StoreCommandTests {
    /// `almanac cal`: the grid with markers (plain: `*` for events, `!` for a conflict),
    /// each week start, and the agenda of the period.
    @Test func calPrintsMonthAndWeekGridsWithMarkers() throws {
        let base = ["--tz", "Europe/Berlin"]
        #expect(
            run(
                [
                    "add", "--calendar", "Trainings", "--title", "Leg day", "--start", "2026-11-03 18:00", "--duration",
                    "90m", "--rrule", "FREQ=WEEKLY;COUNT=2",
                ] + base
            ).0 == 0)
        #expect(
            run(
                [
                    "add", "--calendar", "Meetings", "--create", "--title", "Board", "--start", "2026-11-10 18:30",
                    "--duration", "60m",
                ] + base
            ).0 == 0)
        let (status, month) = run(["cal", "--month", "2026-11"] + base)
        #expect(status == 0, "\(month.errors)")
        #expect(month.text.hasPrefix(Self.berlin))
        let lines = month.text.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().map(String.init)
        #expect(lines[0].trimmingCharacters(in: .whitespaces) == "November 2026")
        #expect(lines[1] == "Mo Tu We Th Fr Sa Su ")
        // 1 November 2026 is a Sunday: alone in the first row, in the last column.
        #expect(lines[2] == String(repeating: " ", count: 18) + " 1 ")
        #expect(lines[3] == " 2  3* 4  5  6  7  8 ")
        #expect(lines[4] == " 9 10!11 12 13 14 15 ")
        #expect(
            month.text.contains(
                "Tuesday 2026-11-10\n  18:00–19:30  Leg day  [Trainings]\n  18:30–19:30  Board  [Meetings]\n"))
        let (_, sunday) = run(["cal", "--month", "2026-11", "--first-weekday", "sunday"] + base)
        #expect(sunday.text.split(separator: "\n")[2] == "Su Mo Tu We Th Fr Sa ")
        #expect(sunday.text.split(separator: "\n")[3] == " 1  2  3* 4  5  6  7 ")
        let (_, week) = run(["cal", "--week", "2026-W46", "--calendar", "Trainings"] + base)
        #expect(
            week.text.hasPrefix(
                Self.berlin + "Week 2026-W46 (2026-11-09 – 2026-11-15)\nMo Tu We Th Fr Sa Su \n 9 10*11 12 13 14 15 \n")
        )
        #expect(!week.text.contains("Board"))
        #expect(run(["cal", "--month", "2026-13"]).0 == 2)
        #expect(run(["cal", "--week", "2026-W60"]).0 == 2)
    }
}
