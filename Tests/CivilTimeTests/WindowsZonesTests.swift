import CivilTime
import Testing

@Suite struct WindowsZonesTests {
    @Test(arguments: [
        ("W. Europe Standard Time", "Europe/Berlin"),
        ("Eastern Standard Time", "America/New_York"),
        ("Romance Standard Time", "Europe/Paris"),
        ("AUS Eastern Standard Time", "Australia/Sydney"),
        // CLDR writes Asia/Calcutta, a backward link; the table holds the canonical zone.
        ("India Standard Time", "Asia/Kolkata"),
        ("Nepal Standard Time", "Asia/Kathmandu"),
        ("Chatham Islands Standard Time", "Pacific/Chatham"),
        ("Pacific Standard Time", "America/Los_Angeles"),
        ("GMT Standard Time", "Europe/London"),
        ("UTC", "Etc/UTC"),
        ("UTC-11", "Etc/GMT+11"),
        ("Central Standard Time (Mexico)", "America/Mexico_City"),
    ])
    func mapsCLDRNames(windows: String, iana: String) {
        #expect(WindowsZones.ianaIdentifier(forWindowsName: windows) == iana)
        #expect(WindowsZones.all[windows] == iana)
    }

    @Test(arguments: [
        ("w. europe standard time", "Europe/Berlin"),
        ("  W. Europe Standard Time\r\n", "Europe/Berlin"),
        ("\"Romance Standard Time\"", "Europe/Paris"),
        ("W.  Europe\tStandard   Time", "Europe/Berlin"),
        ("Eastern Standard Time 1", "America/New_York"),  // Outlook numbers duplicate definitions
        ("EASTERN STANDARD TIME 2", "America/New_York"),
        ("W. Europe Daylight Time", "Europe/Berlin"),
        ("Pacific Time", "America/Los_Angeles"),
        ("Eastern Time", "America/New_York"),
        ("Central Time (Mexico)", "America/Mexico_City"),
    ])
    func acceptsVariantsRealFilesContain(windows: String, iana: String) {
        #expect(WindowsZones.ianaIdentifier(forWindowsName: windows) == iana)
    }

    @Test(arguments: [
        "", "   ", "Europe/Berlin", "Standard Time", "Atlantis Standard Time", "Eastern Standard", "1",
        "(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna",
    ])
    func rejectsOtherNames(_ name: String) {
        #expect(WindowsZones.ianaIdentifier(forWindowsName: name) == nil)
    }

    @Test func everyTargetIsAnInstalledZone() {
        #expect(WindowsZones.all.count > 130)
        for (windows, iana) in WindowsZones.all {
            #expect(TimeZoneDatabase.zone(named: iana) != nil, "\(windows) → \(iana)")
            #expect(WindowsZones.ianaIdentifier(forWindowsName: windows) == iana)
        }
    }
}
