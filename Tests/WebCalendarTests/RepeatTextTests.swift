import Testing

@testable import WebCalendar

/// The event page says a rule in words for the rules calendar apps make, and shows any
/// other rule as written.
@Suite struct RepeatTextTests {
    @Test(arguments: [
        ("FREQ=DAILY", "Every day"),
        ("FREQ=DAILY;INTERVAL=2;COUNT=5", "Every 2 days, 5 times"),
        ("FREQ=WEEKLY", "Every week"),
        ("FREQ=WEEKLY;BYDAY=TU,TH", "Every Tuesday and Thursday"),
        ("FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=1", "Every Monday, Wednesday and Friday, once"),
        ("FREQ=WEEKLY;INTERVAL=2;BYDAY=SA", "Every 2 weeks on Saturday"),
        ("FREQ=MONTHLY", "Every month"),
        ("FREQ=MONTHLY;BYMONTHDAY=1,15", "Every month on the 1st and 15th"),
        ("FREQ=MONTHLY;BYMONTHDAY=-1", "Every month on the last day"),
        ("FREQ=MONTHLY;BYDAY=2TU", "Every month on the second Tuesday"),
        ("FREQ=MONTHLY;BYDAY=-1FR;UNTIL=20271231", "Every month on the last Friday, until 2027-12-31"),
        ("FREQ=YEARLY;INTERVAL=4", "Every 4 years"),
    ])
    func commonRulesAreSaidInWords(_ rule: String, _ words: String) {
        #expect(RepeatText.describe(rule) == words, "\(rule)")
    }

    @Test(arguments: [
        "FREQ=DAILY;BYDAY=MO,TU", "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU", "FREQ=HOURLY",
        "FREQ=MONTHLY;BYSETPOS=-1;BYDAY=MO",
        "FREQ=WEEKLY;BYDAY=1MO", "FREQ=MONTHLY;BYMONTHDAY=-2", "not a rule",
    ])
    func otherRulesAreLeftAsWritten(_ rule: String) {
        #expect(RepeatText.describe(rule) == nil, "\(rule)")
    }
}
