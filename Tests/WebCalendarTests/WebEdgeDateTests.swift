import AlmanacTesting
import CalendarStore
import CivilTime
import Testing

/// Dates at the edges of the supported years (0001–9999), in every view and through the
/// API: a clear 400 outside them, pages without links past them, and no trap anywhere.
extension WebTests {
    @Test(arguments: ["0000-01-15", "-001-01-15", "10000-01-01", "+999-01-01", "2026-02-30", "2026-13-01", "99999-1-1"])
    func datesOutsideTheSupportedYearsAre400(_ date: String) throws {
        let (cookie, _) = try signIn()
        for view in ["month", "week", "day"] {
            let page = try send("GET", "/calendar?view=\(view)&date=\(date)", cookie: cookie)
            #expect(page.status == 400 && page.text.contains("0001 to 9999"), "\(view) \(date): \(page.status)")
        }
    }

    @Test(arguments: [
        ("0001-01-01", false, true), ("0001-01-31", false, true), ("9999-12-31", true, false),
        ("9999-12-01", true, false), ("2024-02-29", true, true),
        ("2026-12-31", true, true), ("2027-01-01", true, true),
    ])
    func viewsAtTheEdgesRenderWithoutLinksPastThem(_ date: String, _ hasPrevious: Bool, _ hasNext: Bool) throws {
        let (cookie, _) = try signIn()
        for view in ["month", "week", "day"] {
            let page = try send("GET", "/calendar?view=\(view)&date=\(date)", cookie: cookie)
            #expect(page.status == 200, "\(view) \(date): \(page.status)")
            // A month view's neighbours exist unless the month is the first or last; a week's
            // or day's unless seven or one days on leave the years.
            let first = CivilDate(isoText: date)!
            let previousExists: Bool
            let nextExists: Bool
            switch view {
            case "week":
                (previousExists, nextExists) = (first.adding(days: -7).isSupported, first.adding(days: 7).isSupported)
            case "day":
                (previousExists, nextExists) = (first.adding(days: -1).isSupported, first.adding(days: 1).isSupported)
            default: (previousExists, nextExists) = (hasPrevious, hasNext)
            }
            #expect(page.text.contains("rel=\"prev\"") == previousExists, "\(view) \(date)")
            #expect(page.text.contains("rel=\"next\"") == nextExists, "\(view) \(date)")
        }
    }
}
