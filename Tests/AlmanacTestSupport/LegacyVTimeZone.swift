/// What earlier versions of Almanac stored, for the tests of the repairs that heal it.
public enum LegacyVTimeZone {
    /// Europe/Berlin as the writer before issue 34 gave it for 2026–2027 (each change one
    /// observance, its first onset as DTSTART, the others as RDATEs; ical.js reads it an
    /// hour off until the second onset), worked out by hand from the EU rule (last Sunday
    /// of March 02:00 CET, last Sunday of October 03:00 CEST): 2026-03-29, 2026-10-25,
    /// 2027-03-28, 2027-10-31.
    public static let berlin = [
        "BEGIN:VTIMEZONE", "TZID:Europe/Berlin",
        "BEGIN:DAYLIGHT", "DTSTART:20260329T020000", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0200", "TZNAME:CEST",
        "RDATE:20270328T020000", "END:DAYLIGHT",
        "BEGIN:STANDARD", "DTSTART:20261025T030000", "TZOFFSETFROM:+0200", "TZOFFSETTO:+0100", "TZNAME:CET",
        "RDATE:20271031T030000", "END:STANDARD",
        "END:VTIMEZONE",
    ]
}
