import AlmanacCLI
import AlmanacTestSupport
import CalendarStore
import Foundation
import Testing

/// The store commands against a real SQLite file in a temporary data directory.
@Suite struct StoreCommandTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func io(files: [String: [UInt8]] = [:]) -> CapturedIO {
        let io = CapturedIO(files: files)
        io.environment["ALMANAC_DATA"] = directory.path
        io.environment["USER"] = "tester"
        return io
    }

    @discardableResult
    func run(_ arguments: [String], _ io: CapturedIO? = nil) -> (Int32, CapturedIO) {
        let io = io ?? self.io()
        return (Almanac.run(arguments, io: io), io)
    }

    @Test func addListAgendaAndAlarms() throws {
        let (status, added) = run([
            "add", "--calendar", "Trainings", "--title", "Leg day", "--start", "2026-12-01 18:00", "--duration", "90m",
            "--alarm", "-15m",
            "--rrule", "FREQ=WEEKLY;BYDAY=TU;COUNT=3", "--location", "Gym", "--notes", "Bring water",
        ])
        #expect(status == 0, "\(added.errors)")
        #expect(added.text.hasPrefix("Added ") && added.text.hasSuffix(" to Trainings\n"))
        run(["add", "--calendar", "Trainings", "--title", "Holiday", "--start", "2026-12-02", "--all-day"])

        // Times are read and shown in TZ=Europe/Berlin (UTC+1 in December).
        let (_, listed) = run(["list", "--from", "2026-11-30", "--to", "2026-12-14"])
        #expect(listed.text.hasPrefix(Self.berlin))
        let lines = listed.text.split(separator: "\n").dropFirst().map {
            $0.split(separator: " ", maxSplits: 4).prefix(4).joined(separator: " ")
        }
        #expect(
            lines == ["2026-12-01 18:00–19:30 Leg day", "2026-12-02 all day Holiday", "2026-12-08 18:00–19:30 Leg day"])

        let (_, json) = run(["list", "--from", "2026-12-01", "--to", "2026-12-02", "--json"])
        let decoded = try JSONSerialization.jsonObject(with: Data(json.output)) as! [[String: Any]]
        #expect(decoded.count == 1)
        #expect(decoded[0]["title"] as? String == "Leg day")
        #expect(decoded[0]["start"] as? String == "2026-12-01T18:00:00+01:00")
        #expect(decoded[0]["end"] as? String == "2026-12-01T19:30:00+01:00")
        #expect(decoded[0]["location"] as? String == "Gym")
        #expect(decoded[0]["timeZone"] as? String == "Europe/Berlin")

        // The agenda covers the 7 days from today (2026-11-29 in the test's clock).
        let (_, agenda) = run(["agenda"])
        #expect(
            agenda.text
                == Self.berlin
                + "Tuesday 2026-12-01\n  18:00–19:30  Leg day  [Trainings]\n\nWednesday 2026-12-02\n  all day      Holiday  [Trainings]\n"
        )

        let (_, alarms) = run(["alarms", "--from", "2026-12-01", "--to", "2026-12-16"])
        #expect(
            alarms.text.split(separator: "\n").map { String($0.prefix(16)) } == [
                "Times in Europe/", "2026-12-01 17:45", "2026-12-08 17:45", "2026-12-15 17:45",
            ])
    }

    /// `agenda`, `list` and `cal` say which events are cancelled or tentative, so a
    /// cancelled booking never reads as an appointment.
    @Test func cancelledAndTentativeEventsAreMarked() throws {
        let file = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN",
            "BEGIN:VEVENT", "UID:c", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T080000Z",
            "DTEND:20261201T090000Z", "SUMMARY:Session: Lena", "STATUS:CANCELLED", "END:VEVENT",
            "BEGIN:VEVENT", "UID:t", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T170000Z",
            "DTEND:20261201T180000Z", "SUMMARY:Spin", "STATUS:TENTATIVE", "END:VEVENT",
            "BEGIN:VEVENT", "UID:y", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T110000Z",
            "DTEND:20261201T120000Z", "SUMMARY:Yoga", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let (status, imported) = run(
            ["import", "day.ics", "--calendar", "Trainings"], io(files: ["day.ics": Array(file.utf8)]))
        #expect(status == 0, "\(imported.errors)")
        // Times in TZ=Europe/Berlin (UTC+1 in December).
        let day =
            "  09:00–10:00  Session: Lena  [Trainings]  (cancelled)\n  12:00–13:00  Yoga  [Trainings]\n"
            + "  18:00–19:00  Spin  [Trainings]  (tentative)\n"
        #expect(run(["agenda"]).1.text == Self.berlin + "Tuesday 2026-12-01\n" + day)
        #expect(run(["cal", "--month", "2026-12"]).1.text.hasSuffix("Tuesday 2026-12-01\n" + day))
        let listed = run(["list", "--from", "2026-12-01", "--to", "2026-12-02"]).1.text.split(separator: "\n")
            .dropFirst()
        #expect(listed.map { $0.contains("(cancelled)") } == [true, false, false])
        #expect(listed.map { $0.contains("(tentative)") } == [false, false, true])
    }

    /// A title that is none of the user's calendars never makes one by accident: the
    /// first calendar is made as asked, later ones need --create, and the refusal names
    /// the closest title. Nothing is written by a refused command.
    @Test func aTypoNeverMakesACalendar() throws {
        let add = ["--title", "Leg day", "--start", "2026-12-01 18:00", "--duration", "1h"]
        #expect(run(["add", "--calendar", "Trainings"] + add).0 == 0)
        let (status, typo) = run(["add", "--calendar", "Trainigs"] + add)
        #expect(status == 1)
        #expect(
            typo.errors == [
                "almanac: no calendar titled 'Trainigs'; did you mean 'Trainings'? (add --create to make a new one, 'almanac calendar list' lists them)"
            ], "\(typo.errors)")
        let file =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20261201T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let (imported, _) = run(
            ["import", "a.ics", "--calendar", "Trainigs"], io(files: ["a.ics": Array(file.utf8)]))
        #expect(imported == 1)
        #expect(!run(["calendar", "list"]).1.text.contains("Trainigs"))
        #expect(
            run(["list", "--from", "2026-12-01", "--to", "2026-12-02"]).1.text.components(separatedBy: "Leg day").count
                == 2)
        // Asked for, it is made.
        #expect(run(["add", "--calendar", "Gym", "--create"] + add).0 == 0)
        #expect(run(["calendar", "list"]).1.text.contains("Gym"))
    }

    /// One rule for the zone of every command's times: --tz, else the user's own zone
    /// (stored by the web calendar), else TZ; and every listing says which it is.
    @Test func everyCommandShowsTimesInOneNamedZone() throws {
        #expect(
            run([
                "add", "--calendar", "Trainings", "--title", "Stand-up", "--start", "2026-12-01 08:00Z", "--duration",
                "15m",
            ]).0 == 0)
        // TZ=Europe/Berlin here: 08:00Z is 09:00 there (UTC+1 in December).
        let agenda = run(["agenda"]).1.text
        #expect(agenda.hasPrefix("Times in Europe/Berlin (UTC+01:00 now)\n"), "\(agenda)")
        #expect(agenda.contains("  09:00–09:15  Stand-up"))
        // The user's stored zone wins over TZ; --tz over both.
        let backend = try DatabaseBackend(directory: directory.path)
        var settings = try backend.appState.viewSettings(user: "tester")
        settings.timeZone = "America/New_York"
        try backend.appState.setViewSettings(settings, user: "tester")
        for command in [
            ["agenda"], ["list", "--from", "2026-11-29", "--to", "2026-12-06"], ["cal", "--month", "2026-12"],
        ] {
            let text = run(command).1.text
            #expect(text.hasPrefix("Times in America/New_York (UTC-05:00 now)\n"), "\(command): \(text)")
            #expect(text.contains("03:00–03:15"), "\(command): \(text)")
            let tokyo = run(command + ["--tz", "Asia/Tokyo"]).1.text
            #expect(
                tokyo.hasPrefix("Times in Asia/Tokyo (UTC+09:00 now)\n") && tokyo.contains("17:00–17:15"), "\(command)")
        }
        let free = run(["free", "--calendar", "Trainings", "--from", "2026-12-01", "--to", "2026-12-02"]).1.text
        #expect(free.hasPrefix("Times in America/New_York (UTC-05:00 now)\n"), "\(free)")
        let alarms = run(["alarms", "--from", "2026-12-01", "--to", "2026-12-02"]).1.text
        #expect(alarms.hasPrefix("Times in America/New_York"), "\(alarms)")
    }

    /// An import takes the file's own calendar name when none is given, and warns of every
    /// guess: an unknown TZID read as UTC.
    @Test func importUsesTheFilesNameAndWarnsOfGuesses() throws {
        let file = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "X-WR-CALNAME:Team",
            "BEGIN:VEVENT", "UID:mars", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Mars/Olympus:20261201T090000",
            "DTEND;TZID=Mars/Olympus:20261201T100000", "SUMMARY:Rover check", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let (status, imported) = run(["import", "team.ics"], io(files: ["team.ics": Array(file.utf8)]))
        #expect(status == 0, "\(imported.errors)")
        #expect(imported.text.hasPrefix("Imported 1 object into Team (1 event)"), "\(imported.text)")
        #expect(imported.errors.contains { $0.contains("Mars/Olympus") }, "\(imported.errors)")
        #expect(imported.text.contains("1 warning"), "\(imported.text)")
        // A file that names no calendar needs --calendar.
        let bare =
            "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20261201T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let (refused, answer) = run(["import", "bare.ics"], io(files: ["bare.ics": Array(bare.utf8)]))
        #expect(refused == 2 && answer.errors.first?.contains("--calendar") == true, "\(answer.errors)")
    }

    @Test func badInputChangesNothing() throws {
        let cases: [[String]] = [
            [
                "add", "--calendar", "New", "--title", "X", "--start", "2026-12-01 18:00", "--duration", "90m", "--tz",
                "Mars/Base",
            ],
            ["add", "--calendar", "New", "--title", "X", "--start", "2026-12-01 18:00", "--duration", "soon"],
            ["add", "--calendar", "New", "--title", "X", "--start", "2026-13-01 18:00", "--duration", "1h"],
            ["add", "--calendar", "New", "--title", "X", "--start", "2026-12-01 18:00", "--end", "2026-12-01 17:00"],
            [
                "add", "--calendar", "New", "--title", "X", "--start", "2026-12-01 18:00", "--duration", "1h",
                "--rrule", "FREQ=NEVER",
            ],
            ["add", "--calendar", "New", "--title", "X", "--start", "2026-12-01 18:00"],
        ]
        for arguments in cases {
            let (status, io) = run(arguments)
            #expect(status == 2, "\(arguments): \(io.errors)")
            #expect(!io.errors.isEmpty)
        }
        let (_, calendars) = run(["calendar", "list"])
        #expect(calendars.text.isEmpty)
    }

    @Test func calendarManagement() throws {
        #expect(run(["calendar", "create", "Work", "--color", "#336699", "--tz", "Europe/Berlin"]).0 == 0)
        let (status, duplicate) = run(["calendar", "create", "work"])
        #expect(status == 1 && duplicate.errors.first?.contains("exists") == true)
        let (_, shown) = run(["calendar", "show", "Work"])
        #expect(shown.text.contains("Colour:      #336699"))
        #expect(shown.text.contains("Time zone:   Europe/Berlin"))
        #expect(run(["calendar", "list"]).1.text == "Work  0 objects  #336699  Europe/Berlin\n")
        #expect(run(["calendar", "delete", "Work"]).0 == 0)
        #expect(run(["calendar", "show", "Work"]).0 == 1)
    }

    @Test func removeByRangeAndByOccurrence() throws {
        run([
            "add", "--calendar", "Gym", "--title", "Spin", "--start", "2026-12-01 07:00", "--duration", "45m",
            "--rrule", "FREQ=DAILY;COUNT=10",
        ])
        run(["add", "--calendar", "Gym", "--title", "Meeting", "--start", "2026-12-02 12:00", "--duration", "1h"])
        let (status, removed) = run([
            "remove", "--calendar", "Gym", "--from", "2026-12-02", "--to", "2026-12-04", "--title", "spin",
        ])
        #expect(status == 0)
        #expect(removed.text.hasPrefix("Removed 2 occurrences from Gym\n"))
        let listed = run(["list", "--from", "2026-12-01", "--to", "2026-12-06"]).1.text
        #expect(
            listed.split(separator: "\n").dropFirst().map { $0.prefix(10) } == [
                "2026-12-01", "2026-12-02", "2026-12-04", "2026-12-05",
            ])

        // An occurrence identifier from 'list' removes that instance; --span future the rest.
        let spin = listed.split(separator: "\n").first { $0.contains("2026-12-04") }!
        let occurrenceID = String(spin.split(separator: " ").last!)
        #expect(run(["remove", "--id", occurrenceID]).0 == 0)
        let eventID = String(occurrenceID.split(separator: "/")[0])
        #expect(run(["remove", "--id", eventID, "--occurrence", "2026-12-07 07:00", "--span", "future"]).0 == 0)
        let after = run(["list", "--from", "2026-12-01", "--to", "2026-12-20", "--title", "Spin"]).1.text
        #expect(
            after.split(separator: "\n").dropFirst().map { $0.prefix(10) } == [
                "2026-12-01", "2026-12-05", "2026-12-06",
            ])
        let (missing, io) = run(["remove", "--id", eventID, "--occurrence", "2026-12-25 07:00"])
        #expect(missing == 1 && io.errors.first?.contains("no occurrence") == true)
    }

    @Test func importReportsRejectionsWithLinesAndExportRoundTrips() throws {
        let file = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "METHOD:PUBLISH",
            "BEGIN:VEVENT", "UID:a", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T090000Z", "SUMMARY:First",
            "END:VEVENT",
            "BEGIN:VEVENT", "UID:b", "DTSTAMP:20261101T000000Z", "DTSTART:2026", "SUMMARY:Broken start", "END:VEVENT",
            "BEGIN:VEVENT", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T090000Z", "SUMMARY:No UID", "END:VEVENT",
            "BEGIN:VEVENT", "UID:c", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Europe/Berlin:20261202T100000",
            "RRULE:FREQ=DAILY;COUNT=2", "SUMMARY:Series", "END:VEVENT",
            "BEGIN:VEVENT", "UID:c", "DTSTAMP:20261101T000000Z", "RECURRENCE-ID;TZID=Europe/Berlin:20261203T100000",
            "DTSTART;TZID=Europe/Berlin:20261203T110000", "SUMMARY:Moved", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        let (status, imported) = run(
            ["import", "team.ics", "--calendar", "Team"], io(files: ["team.ics": Array(file.utf8)]))
        #expect(status == 1)
        // The event without UID is imported under a UID derived from its content (with a warning).
        #expect(imported.text == "Imported 3 objects into Team (3 events); rejected 1; 1 warning.\n")
        #expect(imported.errors.count == 2)
        #expect(imported.errors[0].hasPrefix("team.ics:14: UID b: "))
        #expect(imported.errors[1].hasPrefix("team.ics:17: warning: VEVENT has no UID; imported as UID derived-"))

        let (exported, out) = run(["export", "--calendar", "Team", "team-out.ics"])
        #expect(exported == 0)
        let bytes = try #require(out.written["team-out.ics"])
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("BEGIN:VTIMEZONE\r\nTZID:Europe/Berlin"))
        #expect(
            run(["import", "team-out.ics", "--calendar", "Copy", "--create"], io(files: ["team-out.ics": bytes])).0 == 0
        )
        let original = run(["list", "--from", "2026-12-01", "--to", "2026-12-05", "--calendar", "Team"]).1.text
        let copy = run(["list", "--from", "2026-12-01", "--to", "2026-12-05", "--calendar", "Copy"]).1.text
        let strip = { (text: String) in text.split(separator: "\n").dropFirst().map { $0.split(separator: "[")[0] } }
        // Two events start at the same time; their order in a listing is not the point here.
        #expect(strip(original).sorted() == strip(copy).sorted())
        #expect(strip(original).count == 4)
        // Importing again replaces objects by UID instead of refusing them.
        #expect(
            run(["import", "team-out.ics", "--calendar", "Copy"], io(files: ["team-out.ics": bytes])).1.text.hasPrefix(
                "Imported 3 objects"))
        #expect(run(["calendar", "list"]).1.text.contains("Copy  3 objects"))
    }

    @Test func importShowsProgressOnATerminal() throws {
        let corpus = try Corpus.generate(events: 1500, seed: 5)
        let terminal = io(files: ["corpus.ics": corpus])
        terminal.isTerminal = true
        let (status, done) = run(["import", "corpus.ics", "--calendar", "Corpus"], terminal)
        #expect(status == 0, "\(done.errors.prefix(3))")
        #expect(done.text == "Imported 1500 objects into Corpus (1500 events); rejected 0.\n")
        #expect(done.progress.contains("1000/1500"))
        #expect(done.progress.hasSuffix("[==============================] 100% 1500/1500\n"))
    }

    @Test func feedCommandsCreateRotateAndRevoke() throws {
        #expect(run(["calendar", "create", "Classes"]).0 == 0)
        let created = run(["feed", "create", "Classes", "--base-url", "https://cal.example.com/"]).1.text
        let lines = created.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(
            lines.count == 3 && lines[1].hasPrefix("webcal://cal.example.com/feeds/")
                && lines[2].hasPrefix("https://cal.example.com/feeds/"))
        // create again shows the same URL; rotate makes a new one; revoke removes it.
        #expect(run(["feed", "create", "Classes", "--base-url", "https://cal.example.com"]).1.text == created)
        let rotated = run(["feed", "rotate", "Classes", "--base-url", "https://cal.example.com"]).1.text
        #expect(!rotated.contains(String(lines[2])))
        #expect(run(["feed", "revoke", "Classes"]).0 == 0)
        let backend = try DatabaseBackend(directory: directory.path)
        #expect(try backend.eventStore(for: "tester").calendars().first?.feedToken == nil)
        #expect(run(["feed", "create", "Nope"]).0 == 1)
    }

    /// The free-busy feed has its own token and URL; rotating or revoking one feed leaves the other.
    @Test func theBusyFeedHasItsOwnURL() throws {
        #expect(run(["calendar", "create", "Classes"]).0 == 0)
        let events = run(["feed", "create", "Classes"]).1.text
        let busy = run(["feed", "create", "Classes", "--busy"]).1.text
        #expect(busy.hasPrefix("Free-busy feed of Classes:") && busy.contains("-busy.ics\n"), "\(busy)")
        let calendar = try #require(
            try DatabaseBackend(directory: directory.path).eventStore(for: "tester").calendars().first)
        let token = try #require(calendar.busyFeedToken)
        #expect(busy.contains("/feeds/\(token)-busy.ics") && calendar.feedToken != token)
        #expect(run(["feed", "revoke", "Classes", "--busy"]).1.text.contains("Revoked the free-busy feed"))
        #expect(run(["feed", "create", "Classes"]).1.text == events, "the events feed is untouched")
    }

    /// `calendar share|unshare` and `calendar show`'s shares; users' e-mail addresses.
    @Test func sharingAndAddresses() throws {
        #expect(run(["calendar", "create", "Classes"]).0 == 0)
        let added = run(["user", "add", "ben", "--generate", "--email", "Ben@Example.com"])
        #expect(added.0 == 0, "\(added.1.errors)")
        // A bad address adds no account.
        let refused = run(["user", "add", "eve", "--generate", "--email", "not-an-address"])
        #expect(refused.0 == 1 && refused.1.errors.joined().contains("not an e-mail address"))
        let taken = run(["user", "add", "eva", "--generate", "--email", "ben@example.com"])
        #expect(taken.0 != 0 && taken.1.errors.joined().contains("ben's address"), "\(taken.1.errors)")
        let backend = try DatabaseBackend(directory: directory.path)
        #expect(try backend.users().map(\.name) == ["ben", "tester"])
        #expect(try backend.addresses(ofUser: "ben") == ["ben@example.com"])
        #expect(
            run(["user", "email", "ben", "ben@example.com", "b.k@example.org"]).1.text
                == "ben: ben@example.com, b.k@example.org\n")

        let shared = run([
            "calendar", "share", "Classes", "--with", "ben", "--access", "read-write", "--user", "tester",
        ])
        #expect(shared.0 == 0 && shared.1.text == "Shared Classes with ben (read-write)\n", "\(shared.1.errors)")
        #expect(run(["calendar", "list", "--user", "ben"]).1.text.contains("Classes  0 objects"))
        #expect(run(["calendar", "list", "--user", "ben"]).1.text.contains("(shared by tester)"))
        #expect(
            run(["calendar", "show", "Classes", "--user", "tester"]).1.text.contains(
                "Shared with: ben, read-write (accepted)"))
        #expect(run(["calendar", "share", "Classes", "--with", "ben", "--access", "write", "--user", "tester"]).0 == 2)
        #expect(run(["calendar", "share", "Classes", "--with", "nobody", "--user", "tester"]).0 != 0)
        #expect(
            run(["calendar", "unshare", "Classes", "--with", "ben", "--user", "tester"]).1.text
                == "Stopped sharing Classes with ben\n")
        #expect(try backend.eventStore(for: "ben").calendars().isEmpty)
        let invited = run(["calendar", "share", "Classes", "--with", "ben", "--invite", "--user", "tester"])
        #expect(invited.1.text.contains("Invited ben to Classes (read)"))
        #expect(try backend.eventStore(for: "ben").calendars().isEmpty, "an invitation waits for ben")
        #expect(try backend.eventStore(for: "ben").sharingNotifications().last?.status == .invited)
    }

    @Test func databaseCheckAndBackup() throws {
        run(["add", "--calendar", "A", "--title", "X", "--start", "2026-12-01 18:00", "--duration", "1h"])
        let (status, checked) = run(["db", "check"])
        #expect(status == 0)
        #expect(checked.text.contains("ok — 1 users, 1 calendars, 1 objects, 0 tombstones"))
        let copy = directory.url.appendingPathComponent("copy.sqlite").path
        #expect(run(["db", "backup", copy]).0 == 0)
        let restored = try DatabaseBackend(sqlitePath: copy)
        #expect(try restored.statistics().objects == 1)
        #expect(try restored.users().map(\.name) == ["tester"])
    }

    /// `db copy` moves everything into an empty database and says what it verified;
    /// `--database` then works on the copy. Wrong locations, the same database twice,
    /// a missing source and a target that holds users are refused, writing nothing.
    @Test func databaseCopyAndDatabaseOption() throws {
        run(["add", "--calendar", "A", "--title", "X", "--start", "2026-12-01 18:00", "--duration", "1h"])
        run([
            "add", "--calendar", "A", "--title", "Y", "--start", "2026-12-02 18:00", "--duration", "1h", "--rrule",
            "FREQ=DAILY;COUNT=3",
        ])
        let source = "sqlite:" + directory.path + "/almanac.sqlite"
        var targets = ["sqlite:" + directory.path + "/copy.sqlite"]
        if TestPostgres.url != nil { targets.append(try TestPostgres.freshURL()) }
        for target in targets {
            let (status, copied) = run(["db", "copy", "--from", source, "--to", target])
            #expect(status == 0, "\(copied.errors.joined(separator: "\n"))")
            #expect(copied.text.contains("objects: 2 rows"))
            #expect(copied.text.contains("2 objects verified (name and ETag)"))
            let (listed, list) = run([
                "list", "--from", "2026-12-01", "--to", "2026-12-05", "--database", target, "--tz", "UTC",
            ])
            #expect(listed == 0)
            #expect(list.text.hasPrefix("Times in UTC (UTC+00:00 now)\n"))
            #expect(list.text.split(separator: "\n").count == 5)
            let (checked, check) = run(["db", "check", "--database", target])
            #expect(checked == 0)
            #expect(check.text.contains("ok — 1 users, 1 calendars, 2 objects"))
            // Again into the same target: it holds users now.
            let (again, refused) = run(["db", "copy", "--from", source, "--to", target])
            #expect(again == 1)
            #expect(refused.errors.joined().contains("already holds users"))
        }
        #expect(run(["db", "copy", "--from", source, "--to", "mysql://x/y"]).0 == 2)
        #expect(run(["db", "copy", "--from", source, "--to", source]).0 == 2)
        #expect(run(["db", "copy", "--from", source]).0 == 2)
        let missing = "sqlite:" + directory.path + "/missing.sqlite"
        #expect(run(["db", "copy", "--from", missing, "--to", "sqlite:" + directory.path + "/other.sqlite"]).0 == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/missing.sqlite"))
        #expect(run(["list", "--database", "postgres:/typo"]).0 == 1)
    }

    /// A token's own rate limit is kept and listed; a limit out of range is refused and
    /// creates nothing.
    @Test func hoursAreSetExceptedAndShown() throws {
        run(["user", "add", "tester", "--generate"])
        let (empty, none) = run(["hours", "show"])
        #expect(empty == 0 && none.text.hasPrefix("No hours set"))
        let (status, set) = run(["hours", "set", "Mon-Fri 09:00-17:00, Sat 10:00-14:00", "--tz", "Europe/Berlin"])
        #expect(status == 0, "\(set.errors)")
        #expect(set.text == "Working hours (Europe/Berlin): Mon-Fri 09:00-17:00, Sat 10:00-14:00\n")
        #expect(run(["hours", "except", "2026-12-24", "off"]).0 == 0)
        #expect(run(["hours", "except", "2026-12-31", "09:00-12:00", "13:00-14:00"]).0 == 0)
        let (_, shown) = run(["hours", "show"])
        #expect(
            shown.text == """
                Working hours (Europe/Berlin): Mon-Fri 09:00-17:00, Sat 10:00-14:00
                  2026-12-24 (Thursday): off
                  2026-12-31 (Thursday): 09:00-12:00 13:00-14:00

                """)
        // Setting the weekly hours again keeps the dates; weekly puts a date back.
        #expect(run(["hours", "set", "Mon-Thu 08:00-16:00"]).0 == 0)
        #expect(run(["hours", "except", "2026-12-31", "weekly"]).0 == 0)
        let (_, after) = run(["hours", "show"])
        #expect(
            after.text == "Working hours (Europe/Berlin): Mon-Thu 08:00-16:00\n  2026-12-24 (Thursday): off\n")
        // What is stored is one VAVAILABILITY, the user's default.
        let backend = try DatabaseBackend(directory: directory.path)
        let schedules = try backend.appState.schedules(user: "tester")
        #expect(schedules.count == 1 && schedules[0].isDefault)
        let text = String(decoding: schedules[0].data, as: UTF8.self)
        #expect(text.contains("BEGIN:VAVAILABILITY") && text.contains("RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH"))
        #expect(text.contains("EXDATE;TZID=Europe/Berlin:20261224T080000"))
        for bad in [
            ["set", "Mon 17:00-09:00"], ["set", "Mon 09:00-10:00", "--tz", "Mars/Olympus"],
            ["except", "2026-13-01", "off"],
            ["except", "2026-12-24", "9-5"], ["except", "2026-12-24"],
        ] {
            let (refused, io) = run(["hours"] + bad)
            #expect(refused != 0 && !io.errors.isEmpty, "\(bad)")
        }
        #expect(try backend.appState.schedules(user: "tester")[0].data == schedules[0].data, "refusals change nothing")
        // `free --schedule default` follows the same hours: Monday 08:00-16:00 in Berlin, Christmas Eve off.
        #expect(run(["calendar", "create", "Trainings"]).0 == 0)
        let (freeStatus, free) = run([
            "free", "--calendar", "Trainings", "--schedule", "default", "--from", "2026-12-21", "--to", "2026-12-25",
            "--duration", "4h", "--tz", "Europe/Berlin", "--include-past",
        ])
        #expect(freeStatus == 0, "\(free.errors)")
        #expect(
            free.text == Self.berlin + """
                2026-12-21 08:00–12:00
                2026-12-21 12:00–16:00
                2026-12-22 08:00–12:00
                2026-12-22 12:00–16:00
                2026-12-23 08:00–12:00
                2026-12-23 12:00–16:00

                """)
        let (both, _) = run([
            "free", "--calendar", "Trainings", "--schedule", "default", "--working-hours", "Mon 09:00-10:00",
        ])
        #expect(both == 2)
    }

    @Test func tokensWithARateLimit() throws {
        run(["user", "add", "tester", "--generate"])
        let (status, created) = run(["token", "create", "sync job", "--scope", "read", "--rate-limit", "120"])
        #expect(status == 0, "\(created.errors)")
        for bad in ["0", "-5", "1000001", "lots", "9223372036854775808"] {
            let (refused, io) = run(["token", "create", "bad", "--scope", "read", "--rate-limit", bad])
            #expect(refused == 2 && io.errors.joined().contains("--rate-limit"), "\(bad)")
        }
        run(["token", "create", "plain", "--scope", "read-write"])
        let (_, listed) = run(["token", "list"])
        // Both were created at the same second: listed by id after that, so found by name.
        let lines = listed.text.split(separator: "\n")
        #expect(lines.count == 2)
        let limited = try #require(lines.first { $0.hasSuffix("sync job") })
        #expect(limited.contains("  read  ") && limited.contains("  120/min  "))
        #expect(lines.first { $0.hasSuffix("plain") }?.contains("  default  ") == true)
        let tokens = try DatabaseBackend(directory: directory.path).appState.accessTokens(user: "tester")
        #expect(
            Dictionary(uniqueKeysWithValues: tokens.map { ($0.name, $0.rateLimit) }) == ["sync job": 120, "plain": nil])
        #expect(lines.allSatisfy { $0.contains("  no expiry  ") })
        // A token that expires: 30 days from its making, said when made and listed.
        let (made, expiring) = run(["token", "create", "month", "--scope", "read", "--expires", "30d"])
        #expect(made == 0 && expiring.text.contains(", expires "), "\(expiring.errors)")
        let stored = try #require(
            try DatabaseBackend(directory: directory.path).appState.accessTokens(user: "tester").first {
                $0.name == "month"
            })
        #expect(stored.expires == stored.created + 30 * 86_400)
        #expect(
            run(["token", "list"]).1.text.split(separator: "\n").contains {
                $0.contains("  expires ") && $0.hasSuffix("month")
            })
        for bad in ["0m", "367d", "-1d", "soon"] {
            #expect(run(["token", "create", "bad", "--scope", "read", "--expires", bad]).0 == 2, "\(bad)")
        }
    }
}
