import Accounts
import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import Availability
import Bookings
import CalendarStore
import CivilTime
import Foundation
import HTTPTypes
import ICalendar
import Testing

/// The web calendar through the server's routes, on a ``TestServer``: sign-in and
/// sessions, CSRF, the views' structure, escaping, the bridge button, the event form.
/// In process by default; scenarios that take a ``ServerSetup`` run over loopback and
/// on PostgreSQL too.
@Suite struct WebTests {
    let server: TestServer
    var backend: DatabaseBackend { server.backend }
    let calendarID: String

    init() throws { try self.init(.inProcess) }

    init(_ setup: ServerSetup) throws {
        // A fixed clock (2026-12-01T00:00Z): the conflict check looks at the coming year.
        server = try TestServer(setup, users: [], now: { 1_796_083_200 })
        try server.createUser("anna", password: "correct horse")
        let store = try server.eventStore(for: "anna")
        calendarID = try store.createCalendar(
            EventCalendar(title: "Trainings", color: "#FF0000", timeZone: "Europe/Berlin")
        ).id
    }

    struct Page {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func send(
        _ method: String, _ target: String, form: [(String, String)]? = nil, cookie: String? = nil,
        headers: HTTPHeaders = [:], body: String? = nil
    ) throws -> Page {
        var all = headers
        if let cookie { all.set("Cookie", cookie) }
        var bytes: [UInt8] = []
        if let form {
            all.set("Content-Type", "application/x-www-form-urlencoded")
            bytes = Array(
                form.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
                    .utf8)
        } else if let body {
            all.set("Content-Type", "application/json")
            bytes = Array(body.utf8)
        }
        let response = try server.send(method, target, headers: all, body: bytes)
        return Page(status: response.status, headers: response.headers, body: response.body)
    }

    /// Signs in and returns the session cookie and the page's CSRF token.
    func signIn(_ user: String = "anna", password: String = "correct horse") throws -> (cookie: String, csrf: String) {
        let answer = try send("POST", "/login", form: [("user", user), ("password", password)])
        try #require(answer.status == 303)
        let setCookie = try #require(answer.headers["Set-Cookie"])
        let cookie = String(setCookie.split(separator: ";")[0])
        let page = try send("GET", "/calendar", cookie: cookie)
        let csrf = try #require(
            page.text.firstRange(of: "name=\"csrf-token\" content=\"").map {
                page.text[$0.upperBound...].prefix { $0 != "\"" }
            })
        return (cookie, String(csrf))
    }

    /// Stores an event (a series with `rule`) in Berlin time and returns its identifier.
    func add(_ title: String, _ start: String, _ end: String, rule: String? = nil) throws -> String {
        let store = try backend.eventStore(for: "anna")
        var event = Event(
            title: title, start: DateTimeValue(Self.civil(start), form: .zoned(tzid: "Europe/Berlin")),
            end: DateTimeValue(Self.civil(end), form: .zoned(tzid: "Europe/Berlin")), calendarIdentifier: calendarID)
        event.location = "Studio"
        if let rule { event.component.properties.append(Property(name: "RRULE", value: rule)) }
        return try #require(try store.save(event).localIdentifier)
    }

    static func civil(_ text: String) -> CivilDateTime {
        let parts = text.split(whereSeparator: { "- :T".contains($0) }).map { Int($0)! }
        return CivilDateTime(year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4])!
    }

    @Test(arguments: ServerSetup.all) func signInSetsASafeCookieAndSignOutEndsIt(_ setup: ServerSetup) throws {
        let web = try WebTests(setup)
        let visitor = try web.send("GET", "/")
        #expect(
            visitor.status == 200
                && visitor.text.contains("<form method=\"post\" action=\"/login\" class=\"settings-form\">"))
        #expect(try web.send("GET", "/calendar").text.contains("action=\"/login\""))
        let wrong = try web.send("POST", "/login", form: [("user", "anna"), ("password", "guess")])
        #expect(wrong.status == 401 && wrong.text.contains("wrong user name or password"))
        let right = try web.send(
            "POST", "/login", form: [("user", "anna"), ("password", "correct horse")],
            headers: ["X-Forwarded-Proto": "https"])
        let cookie = try #require(right.headers["Set-Cookie"])
        #expect(right.status == 303 && right.headers["Location"] == "/calendar")
        #expect(
            cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Secure")
                && cookie.contains("Path=/"))
        #expect(
            !(try web.send("POST", "/login", form: [("user", "anna"), ("password", "correct horse")]).headers[
                "Set-Cookie"]
                ?? "").contains("Secure"))
        let (session, csrf) = try web.signIn()
        #expect(try web.send("GET", "/", cookie: session).status == 303)
        #expect(try web.send("POST", "/logout", form: [("csrf", "nope")], cookie: session).status == 403)
        #expect(try web.send("POST", "/logout", form: [("csrf", csrf)], cookie: session).status == 303)
        #expect(try web.send("GET", "/calendar", cookie: session).text.contains("action=\"/login\""))
    }

    @Test func monthGridsWithEitherWeekStartAndEscapedText() throws {
        _ = try add("<img src=x onerror=alert(1)>", "2026-11-10 18:00", "2026-11-10 19:00")
        let (cookie, _) = try signIn()
        let monday = try send(
            "GET", "/calendar?view=month&date=2026-11-29&firstWeekday=monday&tz=Europe/Berlin", cookie: cookie)
        #expect(monday.status == 200)
        #expect(monday.text.contains("<table class=\"month\" role=\"grid\" aria-label=\"November 2026\">"))
        let headers = monday.text.components(separatedBy: "role=\"columnheader\"").dropFirst().map { $0.prefix(30) }
        #expect(headers.count == 7 && headers[0].contains("Monday"))
        // November 2026 from Monday: 26 October to 6 December, six rows.
        #expect(monday.text.components(separatedBy: "<tr role=\"row\">").count - 2 == 6)
        #expect(monday.text.contains("data-date=\"2026-10-26\"") && monday.text.contains("data-date=\"2026-12-06\""))
        let sunday = try send(
            "GET", "/calendar?view=month&date=2026-11-29&firstWeekday=sunday&tz=Europe/Berlin", cookie: cookie)
        #expect(sunday.text.components(separatedBy: "role=\"columnheader\"")[1].contains("Sunday"))
        #expect(sunday.text.components(separatedBy: "<tr role=\"row\">").count - 2 == 5)
        #expect(!sunday.text.contains("data-date=\"2026-10-31\""))
        // User text is escaped; the page has no inline script, and the script tag carries the CSP nonce.
        #expect(monday.text.contains("&lt;img src=x onerror=alert(1)&gt;") && !monday.text.contains("<img src=x"))
        let policy = try #require(monday.headers["Content-Security-Policy"])
        let nonce = try #require(policy.firstRange(of: "'nonce-").map { policy[$0.upperBound...].prefix { $0 != "'" } })
        #expect(monday.text.contains("<script type=\"module\" src=\"/static/app.js\" nonce=\"\(nonce)\"></script>"))
        #expect(monday.text.components(separatedBy: "<script").count == 2)
        #expect(try send("GET", "/static/app.js").headers["Content-Type"] == "text/javascript; charset=utf-8")
    }

    @Test func weekViewPlacesOverlappingEventsSideBySide() throws {
        for (title, start, end) in [("A", "10:00", "11:00"), ("B", "10:30", "12:00"), ("C", "10:45", "11:15")] {
            _ = try add(title, "2026-12-01 \(start)", "2026-12-01 \(end)")
        }
        let (cookie, _) = try signIn()
        let week = try send("GET", "/calendar?view=week&date=2026-12-02&tz=Europe/Berlin", cookie: cookie)
        #expect(week.status == 200 && week.text.contains("aria-label=\"Week of Monday, 30 November 2026\""))
        #expect(week.text.contains("<h1>30 November – 6 December 2026</h1>"))
        // The phone's strip: seven days, the chosen one current, its events listed below.
        let strip = try #require(week.text.components(separatedBy: "<section class=\"week-strip\"").last)
        #expect(strip.components(separatedBy: "<a class=\"strip-day").count == 8)
        #expect(strip.contains("aria-label=\"Wednesday, 2 December 2026, 0 events\" aria-current=\"date\""))
        let monday = try send("GET", "/calendar?view=week&date=2026-12-01&tz=Europe/Berlin", cookie: cookie).text
        let agenda = try #require(monday.components(separatedBy: "<div class=\"strip-agenda\">").last)
        #expect(
            agenda.hasPrefix("<h2>Tuesday, 1 December 2026</h2>") && agenda.contains(">A</a>")
                && agenda.contains(">C</a>"))
        #expect(week.text.components(separatedBy: "data-lanes=\"3\"").count == 4)
        // A clash is said in words, in the week's day header and in the month's cell.
        #expect(week.text.contains("title=\"A overlaps with B and C\">!</span>"))
        let month = try send("GET", "/calendar?view=month&date=2026-12-01&tz=Europe/Berlin", cookie: cookie).text
        #expect(
            month.contains("<li class=\"overlap\">A overlaps with B and C</li>")
                && month.contains("aria-label=\"Tuesday, 1 December 2026, 3 events. A overlaps with B and C\""))
        #expect(week.text.contains("data-lane=\"2\""))
        // The scope toggle keeps the date.
        #expect(week.text.contains("href=\"/calendar?view=month&amp;date=2026-12-02&amp;tz=Europe%2FBerlin\""))
    }

    @Test(arguments: ServerSetup.all) func settingsNeedTheCSRFTokenAndAreRemembered(_ setup: ServerSetup) throws {
        let web = try WebTests(setup)
        let (cookie, csrf) = try web.signIn()
        #expect(
            try web.send(
                "POST", "/settings", form: [("firstWeekday", "sunday"), ("tz", "America/New_York")], cookie: cookie
            )
            .status == 403)
        #expect(
            try web.send(
                "POST", "/settings", form: [("csrf", csrf), ("firstWeekday", "sunday"), ("tz", "America/New_York")],
                cookie: cookie
            ).status == 303)
        #expect(
            try web.backend.appState.viewSettings(user: "anna")
                == ViewSettings(firstWeekday: 7, timeZone: "America/New_York"))
        let page = try web.send("GET", "/calendar?view=month&date=2026-11-29", cookie: cookie)
        #expect(page.text.components(separatedBy: "role=\"columnheader\"")[1].contains("Sunday"))
        // The query overrides the stored setting for that page only.
        #expect(
            try web.send("GET", "/calendar?view=month&date=2026-11-29&firstWeekday=monday", cookie: cookie).text
                .components(
                    separatedBy: "role=\"columnheader\"")[1].contains("Monday"))
        // A city names its zone; an unknown zone comes back as typed, saying why, and the
        // stored zone is kept (the calendar still opens).
        let city = try web.send("POST", "/settings", form: [("csrf", csrf), ("tz", "berlin")], cookie: cookie)
        #expect(try city.status == 303 && web.backend.appState.viewSettings(user: "anna").timeZone == "Europe/Berlin")
        let wrong = try web.send("POST", "/settings", form: [("csrf", csrf), ("tz", "Mars/Olympus")], cookie: cookie)
        let back = try #require(wrong.headers["Location"])
        #expect(back == "/calendar?tzError=Mars%2FOlympus")
        #expect((try web.backend.appState.viewSettings(user: "anna").timeZone) == "Europe/Berlin")
        let form = try web.send("GET", back, cookie: cookie)
        #expect(form.status == 200 && form.text.contains("There is no time zone “Mars/Olympus”"))
        #expect(form.text.contains("value=\"Mars/Olympus\" aria-invalid=\"true\""))
        #expect(
            form.text.contains("<datalist id=\"zone-names\">") && form.text.contains("<option value=\"Europe/Berlin\">")
        )
    }

    @Test(arguments: ServerSetup.all) func eventPageCarriesTheBridgePayloadAndMarkingNeedsTheToken(_ setup: ServerSetup)
        throws
    {
        let web = try WebTests(setup)
        let id = try web.add("Spin & Stretch", "2026-12-01 18:00", "2026-12-01 19:00")
        let (cookie, csrf) = try web.signIn()
        let page = try web.send(
            "GET", "/calendar/event?id=\(id)", cookie: cookie,
            headers: ["User-Agent": "Mozilla/5.0 Hotwire Native iOS; bridge-components: [add-to-calendar menu]"])
        #expect(page.status == 200)
        #expect(
            page.text.contains(
                "<html lang=\"en\" data-bridge-platform=\"ios\" data-bridge-components=\"add-to-calendar menu\">"))
        #expect(page.text.contains("data-controller=\"bridge--add-to-calendar\""))
        let escaped = try #require(
            page.text.firstRange(of: "data-bridge-payload=\"").map { page.text[$0.upperBound...].prefix { $0 != "\"" } }
        )
        let payload = try JSON(
            parsing: Array(
                String(escaped).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(
                    of: "&amp;", with: "&"
                ).utf8))
        #expect(payload["name"] == .string("Spin & Stretch") && payload["location"] == .string("Studio"))
        #expect(page.text.contains("data-mark-added-url=\"/api/v1/events/\(id)/added\""))
        #expect(
            page.text.contains("https://calendar.google.com/calendar/render?")
                && page.text.contains("/events/\(id).ics"))
        // The page's own API call: the cookie alone is not enough for a change.
        #expect(
            try web.send("PUT", "/api/v1/events/\(id)/added", cookie: cookie, body: #"{"platform": "ios"}"#).status
                == 403)
        #expect(
            try web.send(
                "PUT", "/api/v1/events/\(id)/added", cookie: cookie, headers: ["X-CSRF-Token": csrf],
                body: #"{"platform": "ios"}"#
            ).status == 200)
        #expect(try web.backend.appState.addedMark(event: id, user: "anna")?.platform == "ios")
        #expect(try web.send("GET", "/events/\(id).ics", cookie: cookie).text.contains("METHOD:PUBLISH"))
        // The event is 18:00–19:00 in Berlin (UTC+1 in December); shown in the user's zone
        // (none is stored: the calendar's), or the one the page names.
        #expect(page.text.contains("Tuesday 2026-12-01 18:00–19:00 (Europe/Berlin)"))
        let utc = try web.send("GET", "/calendar/event?id=\(id)&tz=UTC", cookie: cookie)
        #expect(utc.text.contains("Tuesday 2026-12-01 17:00–18:00 (UTC)"))
        let form = try web.send("GET", "/calendar/edit?id=\(id)&tz=UTC", cookie: cookie)
        #expect(
            form.text.contains("name=\"startTime\" value=\"17:00\"")
                && form.text.contains("name=\"endTime\" value=\"18:00\""))
    }

    @Test func theFormWarnsAboutConflictsBeforeSaving() throws {
        _ = try add("Board", "2026-12-01 18:00", "2026-12-01 19:00")
        let (cookie, csrf) = try signIn()
        let fields = [
            ("csrf", csrf), ("title", "Spin"), ("calendar", calendarID), ("startDate", "2026-12-01"),
            ("startTime", "18:30"), ("endDate", "2026-12-01"),
            ("endTime", "19:30"), ("tz", "Europe/Berlin"), ("repeat", ""), ("alarm", "15"),
        ]
        let store = try backend.eventStore(for: "anna")
        let before = try store.resources(calendar: calendarID).count
        let warned = try send("POST", "/calendar/save", form: fields, cookie: cookie)
        #expect(warned.status == 409 && warned.text.contains("This overlaps") && warned.text.contains("Board"))
        #expect(warned.text.contains("name=\"confirm\" value=\"1\""))
        #expect(try store.resources(calendar: calendarID).count == before)
        #expect(
            try send(
                "POST", "/calendar/save", form: fields.filter { $0.0 != "csrf" } + [("confirm", "1")], cookie: cookie
            )
            .status == 403)
        let saved = try send("POST", "/calendar/save", form: fields + [("confirm", "1")], cookie: cookie)
        #expect(saved.status == 303 && saved.headers["Location"]?.hasPrefix("/calendar/event?id=") == true)
        #expect(try store.resources(calendar: calendarID).count == before + 1)
        let bad = try send(
            "POST", "/calendar/save",
            form: fields.map { $0.0 == "endTime" ? ("endTime", "17:00") : $0 } + [("confirm", "1")], cookie: cookie)
        #expect(bad.status == 400 && bad.text.contains("ends before it starts"))
    }

    @Test func aFirstEventMakesTheFirstCalendar() throws {
        try server.createUser("carl", password: "battery staple")
        let login = try send("POST", "/login", form: [("user", "carl"), ("password", "battery staple")])
        let cookie = String(try #require(login.headers["Set-Cookie"]).split(separator: ";")[0])
        let page = try send("GET", "/calendar/new?date=2026-12-01", cookie: cookie)
        let csrf = try #require(
            page.text.firstRange(of: "name=\"csrf\" value=\"").map { page.text[$0.upperBound...].prefix { $0 != "\"" } }
        )
        let saved = try send(
            "POST", "/calendar/save",
            form: [
                ("csrf", String(csrf)), ("title", "First"), ("startDate", "2026-12-01"), ("startTime", "09:00"),
                ("endDate", "2026-12-01"), ("endTime", "10:00"), ("tz", "UTC"),
            ],
            cookie: cookie)
        #expect(saved.status == 303)
        let calendars = try backend.eventStore(for: "carl").calendars()
        #expect(calendars.map(\.title) == ["Calendar"])
        #expect(try backend.eventStore(for: "carl").resources(calendar: calendars[0].id).count == 1)
    }

    /// Every link a view shows for an event, as the browser would follow it.
    static func eventLinks(_ page: String) -> [String] {
        page.components(separatedBy: "href=\"/calendar/event?").dropFirst().map {
            "/calendar/event?" + $0.prefix { $0 != "\"" }.replacingOccurrences(of: "&amp;", with: "&")
        }
    }

    static func payload(_ page: String) throws -> JSON {
        let escaped = try #require(
            page.firstRange(of: "data-bridge-payload=\"").map { page[$0.upperBound...].prefix { $0 != "\"" } })
        return try JSON(
            parsing: Array(
                String(escaped).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(
                    of: "&amp;", with: "&"
                ).utf8))
    }

    /// Milliseconds of a Berlin wall clock, by Foundation.
    static func berlinMilliseconds(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Berlin")!
        return Int(
            calendar.date(from: DateComponents(year: 2026, month: 12, day: day, hour: hour, minute: minute))!
                .timeIntervalSince1970) * 1000
    }

    /// The trainer's path: an instance of a weekly series (and an overridden one) in the
    /// month and week views opens its own page with its own times, and its edit form.
    @Test func everyOccurrenceOfASeriesOpensItsPageFromBothViews() throws {
        let store = try backend.eventStore(for: "anna")
        let id = try add("Weekly training", "2026-12-07 18:00", "2026-12-07 19:00", rule: "FREQ=WEEKLY;COUNT=3")
        // 2026-12-14T17:00Z, the second instance, is 1_797_267_600.
        let second = try #require(
            try store.events(in: TimeRange(start: 1_797_000_000, end: 1_797_500_000)).first { $0.eventIdentifier == id }
        )
        var moved = second.event
        moved.title = "Moved training"
        moved.start = DateTimeValue(Self.civil("2026-12-15 19:30"), form: .zoned(tzid: "Europe/Berlin"))
        moved.end = DateTimeValue(Self.civil("2026-12-15 20:30"), form: .zoned(tzid: "Europe/Berlin"))
        _ = try store.save(moved, span: .thisEvent)
        let expected: [String: (title: String, start: Int, end: Int)] = [
            "2026-12-07T17:00:00Z": ("Weekly training", Self.berlinMilliseconds(7, 18), Self.berlinMilliseconds(7, 19)),
            "2026-12-14T17:00:00Z": (
                "Moved training", Self.berlinMilliseconds(15, 19, 30), Self.berlinMilliseconds(15, 20, 30)
            ),
            "2026-12-21T17:00:00Z": (
                "Weekly training", Self.berlinMilliseconds(21, 18), Self.berlinMilliseconds(21, 19)
            ),
        ]
        let (cookie, _) = try signIn()
        var opened: [String: Set<String>] = [:]
        for view in [
            "view=month&date=2026-12-01", "view=week&date=2026-12-07", "view=week&date=2026-12-14",
            "view=week&date=2026-12-21",
        ] {
            let page = try send("GET", "/calendar?\(view)&tz=Europe/Berlin", cookie: cookie)
            for link in Self.eventLinks(page.text) where link.contains(id) {
                let occurrence = try #require(link.components(separatedBy: "occurrence=").last?.removingPercentEncoding)
                let event = try send("GET", link, cookie: cookie)
                #expect(event.status == 200, "\(view): \(link) answers \(event.status)")
                let want = try #require(expected[occurrence])
                let payload = try Self.payload(event.text)
                #expect(payload["name"] == .string(want.title))
                #expect(
                    payload["startsAtInMillisecondsSinceEpoch"] == .integer(want.start)
                        && payload["endsAtInMillisecondsSinceEpoch"] == .integer(want.end))
                #expect(
                    try send(
                        "GET", link.replacingOccurrences(of: "/calendar/event?", with: "/calendar/edit?"),
                        cookie: cookie
                    ).status == 200)
                // The download is that instance too, without the series' rule.
                let ics = try send(
                    "GET", "/events/\(id).ics?occurrence=" + PercentEncoding.encode(occurrence), cookie: cookie)
                #expect(event.text.contains("/events/\(id).ics?occurrence="))
                #expect(ics.status == 200 && !ics.text.contains("RRULE") && ics.text.contains("SUMMARY:\(want.title)"))
                opened[String(view.prefix(10)), default: []].insert(occurrence)
            }
        }
        #expect(opened["view=month"] == Set(expected.keys) && opened["view=week&"] == Set(expected.keys))
        // Saving the last instance's form changes that instance only.
        let edit = try send(
            "GET", "/calendar/edit?id=\(id)&occurrence=2026-12-21T17%3A00%3A00Z&tz=Europe/Berlin", cookie: cookie)
        let csrf = try #require(
            edit.text.firstRange(of: "name=\"csrf\" value=\"").map { edit.text[$0.upperBound...].prefix { $0 != "\"" } }
        )
        #expect(edit.text.contains("name=\"span\" value=\"this\" checked"))
        let saved = try send(
            "POST", "/calendar/save",
            form: [
                ("csrf", String(csrf)), ("id", id), ("occurrence", "2026-12-21T17:00:00Z"), ("span", "this"),
                ("title", "Last training"), ("calendar", calendarID),
                ("startDate", "2026-12-21"), ("startTime", "18:00"), ("endDate", "2026-12-21"), ("endTime", "19:00"),
                ("tz", "Europe/Berlin"), ("repeat", "FREQ=WEEKLY"),
                ("confirm", "1"),
            ], cookie: cookie)
        #expect(saved.status == 303)
        let titles = try store.events(in: TimeRange(start: 1_796_500_000, end: 1_798_500_000)).filter {
            $0.eventIdentifier == id
        }.map { $0.title ?? "" }
        #expect(titles == ["Weekly training", "Moved training", "Last training"])
    }

    @Test func aFirstSignInRemembersTheBrowsersZoneElseTheCalendarsZoneIsUsed() throws {
        // Without a stored zone or a browser zone, the view uses the calendar's (Berlin), not UTC.
        let (cookie, _) = try signIn()
        #expect(try send("GET", "/calendar", cookie: cookie).text.contains("name=\"tz\" value=\"Europe/Berlin\""))
        // A sign-in reporting the browser's zone stores it once; a later one does not replace it.
        for (zone, stays) in [
            ("not a zone", nil), ("America/Los_Angeles", "America/Los_Angeles"), ("Asia/Tokyo", "America/Los_Angeles"),
        ] {
            #expect(
                try send("POST", "/login", form: [("user", "anna"), ("password", "correct horse"), ("tz", zone)]).status
                    == 303)
            #expect(try backend.appState.viewSettings(user: "anna").timeZone == stays)
        }
        #expect(try send("GET", "/", cookie: nil).text.contains("data-browser-zone"))
    }

    /// A cancelled event (a booker's cancellation, an organizer's) is drawn struck through
    /// and said "Cancelled" in the month, week and day views and on its page, or left out
    /// with the toggle; a tentative one is drawn as tentative. Neither a cancelled one
    /// nor its page says it takes place.
    @Test func cancelledAndTentativeEventsAreMarkedInEveryViewOrHidden() throws {
        let store = try backend.eventStore(for: "anna")
        func mark(_ id: String, _ status: String) throws {
            var event = try store.event(withIdentifier: id)
            event.component.setProperty(Property(name: "STATUS", value: status))
            _ = try store.save(event)
        }
        let session = try add("Session: Lena", "2026-12-03 09:00", "2026-12-03 10:00")
        try mark(session, "CANCELLED")
        try mark(try add("Maybe spin", "2026-12-03 18:00", "2026-12-03 19:00"), "TENTATIVE")
        _ = try add("Yoga", "2026-12-03 12:00", "2026-12-03 13:00")
        let (cookie, _) = try signIn()
        for view in ["month", "week", "day"] {
            let page = try send("GET", "/calendar?view=\(view)&date=2026-12-03&tz=Europe/Berlin", cookie: cookie).text
            let cancelled = view == "month" ? "<li class=\"event cancelled\">" : "class=\"timed-event cancelled\""
            let tentative = view == "month" ? "<li class=\"event tentative\">" : "class=\"timed-event tentative\""
            #expect(page.contains(cancelled), "\(view): \(page)")
            #expect(page.contains("<span class=\"visually-hidden\">Cancelled: </span>Session: Lena"), "\(view)")
            #expect(page.contains(tentative) && page.contains("Tentative: </span>Maybe spin"), "\(view)")
            #expect(page.contains("Yoga</a>"), "\(view)")
            // The toggle leaves cancelled events out, and the view's links keep it.
            let hidden = try send(
                "GET", "/calendar?view=\(view)&date=2026-12-03&tz=Europe/Berlin&cancelled=hide", cookie: cookie
            ).text
            #expect(!hidden.contains("Session: Lena") && hidden.contains("Yoga</a>"), "\(view)")
            #expect(hidden.contains("cancelled=hide"), "\(view)")
            #expect(hidden.contains("name=\"cancelled\" value=\"show\">"), "the box is unchecked")
        }
        let page = try send("GET", "/calendar/event?id=\(session)", cookie: cookie).text
        #expect(page.contains("<main class=\"page event cancelled\">"))
        #expect(page.contains("<p class=\"status-note cancelled\" role=\"status\"><strong>Cancelled.</strong>"))
    }

    /// Deleting from the web: the event page and the edit form lead to a confirmation
    /// that says what goes; a series offers this occurrence, this and the later ones, or
    /// all; the post needs the page's CSRF token, and another user cannot delete it.
    @Test func anEventOrPartsOfASeriesAreDeletedAfterAConfirmation() throws {
        let store = try backend.eventStore(for: "anna")
        let single = try add("Leg day", "2026-12-03 18:00", "2026-12-03 19:00")
        let series = try add("Weekly training", "2026-12-07 18:00", "2026-12-07 19:00", rule: "FREQ=WEEKLY;COUNT=4")
        func instances() throws -> [Int] {
            try store.events(in: TimeRange(start: 1_796_083_200, end: 1_800_000_000)).filter {
                $0.eventIdentifier == series
            }.map(\.startInstant)
        }
        #expect(try instances().count == 4)
        let (cookie, csrf) = try signIn()
        // The event page and the edit form link to the confirmation.
        // "‹ Calendar" goes back to the view the event was opened from; else the month.
        let fromWeek = try send(
            "GET", "/calendar/event?id=\(single)", cookie: cookie,
            headers: ["Host": "cal.example", "Referer": "http://cal.example/calendar?view=week&date=2026-12-03"]
        ).text
        #expect(fromWeek.contains("href=\"/calendar?view=week&amp;date=2026-12-03\">‹ Calendar"), "\(fromWeek)")
        let elsewhere = try send(
            "GET", "/calendar/event?id=\(single)", cookie: cookie,
            headers: ["Host": "cal.example", "Referer": "http://other.example/calendar?view=week"]
        ).text
        #expect(elsewhere.contains("href=\"/calendar?view=month&amp;date="), "another site's page is not followed")
        let link = "/calendar/delete?id=\(single)"
        #expect(try send("GET", "/calendar/event?id=\(single)", cookie: cookie).text.contains("href=\"\(link)\""))
        #expect(try send("GET", "/calendar/edit?id=\(single)", cookie: cookie).text.contains("href=\"\(link)\""))
        let confirm = try send("GET", link, cookie: cookie)
        #expect(confirm.status == 200 && confirm.text.contains("<h1>Delete “Leg day”?</h1>"), "\(confirm.text)")
        #expect(!confirm.text.contains("name=\"span\" value=\"this\""), "a single event has no choice")
        // Without the page's token nothing goes; with it, the event does, and the day is shown.
        #expect(
            try send("POST", "/calendar/delete", form: [("id", single), ("span", "all")], cookie: cookie).status == 403)
        let deleted = try send(
            "POST", "/calendar/delete", form: [("csrf", csrf), ("id", single), ("span", "all")], cookie: cookie)
        #expect(deleted.status == 303 && deleted.headers["Location"] == "/calendar?view=day&date=2026-12-03")
        #expect(throws: StoreError.self) { try store.event(withIdentifier: single) }

        // A series: the second instance (2026-12-14T17:00Z) alone, then the fourth on, then all.
        let page = try send("GET", "/calendar/delete?id=\(series)&occurrence=2026-12-14T17:00:00Z", cookie: cookie).text
        for span in ["this", "future", "all"] { #expect(page.contains("name=\"span\" value=\"\(span)\""), "\(span)") }
        func delete(_ occurrence: String?, _ span: String) throws -> Int {
            var form = [("csrf", csrf), ("id", series), ("span", span)]
            if let occurrence { form.append(("occurrence", occurrence)) }
            return try send("POST", "/calendar/delete", form: form, cookie: cookie).status
        }
        #expect(try delete("2026-12-14T17:00:00Z", "this") == 303)
        #expect(try instances() == [1_796_662_800, 1_797_872_400, 1_798_477_200])
        #expect(try delete("2026-12-28T17:00:00Z", "future") == 303)
        #expect(try instances() == [1_796_662_800, 1_797_872_400])
        #expect(try delete(nil, "this") == 400, "an occurrence span names its occurrence")
        // Bob cannot delete Anna's event, even with his own token.
        try server.createUser("bob", password: "other horse")
        let (bobCookie, bobCSRF) = try signIn("bob", password: "other horse")
        let bobs = try send(
            "POST", "/calendar/delete", form: [("csrf", bobCSRF), ("id", series), ("span", "all")], cookie: bobCookie)
        #expect(bobs.status == 404)
        #expect(try instances().count == 2)
        #expect(try delete(nil, "all") == 303)
        #expect(try instances().isEmpty)
        #expect(throws: StoreError.self) { try store.event(withIdentifier: series) }
    }

    @Test func theMonthListsTheSelectedDaysEventsBelowTheGrid() throws {
        _ = try add("Spin", "2026-12-03 18:00", "2026-12-03 19:00")
        _ = try add("Yoga", "2026-12-04 09:00", "2026-12-04 10:00")
        let (cookie, _) = try signIn()
        let page = try send("GET", "/calendar?view=month&date=2026-12-03&tz=Europe/Berlin", cookie: cookie).text
        let details = try #require(page.components(separatedBy: "<section class=\"day-details\"").last)
        #expect(
            details.contains("<div class=\"day-detail\" data-date=\"2026-12-03\"><h2>Thursday, 3 December 2026</h2>"))
        #expect(details.contains("<div class=\"day-detail\" data-date=\"2026-12-04\" hidden>"))
        let third = try #require(
            details.components(separatedBy: "data-date=\"2026-12-03\"").last?.components(separatedBy: "</div>").first)
        #expect(third.contains("18:00–19:00") && third.contains(">Spin</a>") && !third.contains("Yoga"))
    }

    /// A series too dense to expand whole (every second: 604,800 instances a week) is
    /// drawn up to its bound, the page says so, and the calendar's other events still
    /// show and open.
    @Test func aViewWithASeriesCutByItsBoundSaysSoAndShowsTheRest() throws {
        _ = try add("Ticker", "2026-11-30 00:00", "2026-11-30 00:00", rule: "FREQ=SECONDLY")
        let trainingID = try add("Weekly training", "2026-11-05 18:00", "2026-11-05 19:00", rule: "FREQ=WEEKLY")
        let (cookie, _) = try signIn()
        let week = try send("GET", "/calendar?view=week&date=2026-12-02&tz=Europe/Berlin", cookie: cookie)
        #expect(week.status == 200)
        #expect(
            week.text.contains("Not every event is shown: event &quot;Ticker&quot;")
                && week.text.contains("role=\"alert\""))
        let training = try #require(Self.eventLinks(week.text).first { $0.contains(trainingID) })
        #expect(try send("GET", training, cookie: cookie).status == 200)
        // A week without the dense series is complete and says nothing.
        let before = try send("GET", "/calendar?view=week&date=2026-11-18&tz=Europe/Berlin", cookie: cookie)
        #expect(before.status == 200 && !before.text.contains("Not every event is shown"))
    }

    /// The conflict warning never cuts silently: past ten overlaps it says how many more,
    /// and for an event with more instances in the coming year than it checks, it says so.
    @Test func theConflictWarningSaysHowManyMoreAndWhatItChecked() throws {
        for day in 2...13 {
            _ = try add(
                "Class \(day)", "2026-12-\(day < 10 ? "0" : "")\(day) 18:00",
                "2026-12-\(day < 10 ? "0" : "")\(day) 19:00")
        }
        let (cookie, csrf) = try signIn()
        func propose(_ rule: String) throws -> Page {
            try send(
                "POST", "/calendar/save",
                form: [
                    ("csrf", csrf), ("title", "Drill"), ("calendar", calendarID), ("startDate", "2026-12-02"),
                    ("startTime", "18:30"), ("endDate", "2026-12-02"),
                    ("endTime", "19:30"), ("tz", "Europe/Berlin"), ("repeat", "custom"), ("rrule", rule),
                ], cookie: cookie)
        }
        let daily = try propose("FREQ=DAILY")
        #expect(
            daily.status == 409 && daily.text.contains("Class 2,") && daily.text.contains("Class 11,")
                && !daily.text.contains("Class 12,"))
        #expect(daily.text.contains("<li>and 2 more</li>") && !daily.text.contains("were checked"))
        // Hourly: 8,784 instances in the coming year; the first 1,000 (41 days) are checked.
        let hourly = try propose("FREQ=HOURLY")
        #expect(
            hourly.status == 409
                && hourly.text.contains("only its first 1000 instances in the coming year were checked"))
    }

    /// The stylesheet, the script and the OpenAPI document are files of the repository,
    /// embedded in the binary byte for byte and served with a strong ETag that a client's
    /// If-None-Match turns into 304.
    @Test(arguments: ServerSetup.all) func embeddedDocumentsAreTheRepositorysFilesWithETags(_ setup: ServerSetup) throws
    {
        let web = try WebTests(setup)
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Sources"
        ).standardizedFileURL
        for (path, file, type) in [
            ("/static/app.css", "WebCalendar/Resources/app.css", "text/css; charset=utf-8"),
            ("/static/app.js", "WebCalendar/Resources/app.js", "text/javascript; charset=utf-8"),
            ("/api/v1/openapi.json", "JSONAPI/Resources/openapi.json", "application/json"),
        ] {
            let answer = try web.send("GET", path)
            let onDisk = try Data(contentsOf: sources.appendingPathComponent(file))
            #expect(
                answer.status == 200 && answer.headers["Content-Type"] == type && Data(answer.body) == onDisk,
                "\(path)")
            let etag = try #require(answer.headers["ETag"])
            #expect(etag.hasPrefix("\"") && etag.count == 18)
            let again = try web.send("GET", path, headers: ["If-None-Match": "\"other\", \(etag)"])
            #expect(again.status == 304 && again.body.isEmpty && again.headers["ETag"] == etag)
            #expect(try web.send("GET", path, headers: ["If-None-Match": "\"other\""]).status == 200)
        }
        let stylesheet = try web.send("GET", "/static/app.css")
        let script = try web.send("GET", "/static/app.js")
        #expect(stylesheet.headers["ETag"] != script.headers["ETag"])
    }

    /// Month cells give each event's start time, and an event over several days is one
    /// band across them: named where it starts and where a week starts, "continued" for
    /// screen readers in between.
    @Test func monthLinesHaveTimesAndTripsAreOneBand() throws {
        let web = try WebTests()
        _ = try web.add("Spin", "2026-12-08 18:30", "2026-12-08 19:30")
        _ = try web.add("Trip", "2026-12-11 18:00", "2026-12-14 10:00")
        let (cookie, _) = try web.signIn()
        let month = try web.send(
            "GET", "/calendar?view=month&date=2026-12-01&tz=Europe/Berlin&firstWeekday=monday", cookie: cookie
        ).text
        func cell(_ date: String) -> String {
            guard let start = month.range(of: "data-date=\"\(date)\"") else { return "" }
            let rest = month[start.upperBound...]
            return String(rest[..<(rest.range(of: "</td>")?.lowerBound ?? rest.endIndex)])
        }
        #expect(cell("2026-12-08").contains("<span class=\"time\">18:30</span> Spin"), "\(cell("2026-12-08"))")
        let friday = cell("2026-12-11")
        #expect(friday.contains("event bar bar-start") && friday.contains("<span class=\"time\">18:00</span> Trip"))
        for date in ["2026-12-12", "2026-12-13"] {
            #expect(cell(date).contains("Trip, continued</span>") && !cell(date).contains("bar-start"), "\(date)")
        }
        let monday = cell("2026-12-14")
        #expect(monday.contains("bar-end") && monday.contains(">Trip</a>") && !monday.contains("continued"))
        #expect(!cell("2026-12-15").contains("Trip"))
    }

    /// The trainer's Bookings page: a type made and edited with every setting on its form
    /// (CSRF-checked, a wrong field back with what was typed), removal after asking, the
    /// working hours and dates that differ, and the coming bookings cancelled and moved
    /// from the page. Another user reaches none of it.
    @Test func theTrainerRunsBookingsFromTheWebCalendar() throws {
        let web = try WebTests()
        let (cookie, csrf) = try web.signIn()
        #expect(try web.send("GET", "/calendar", cookie: cookie).text.contains("href=\"/calendar/bookings\""))
        let empty = try web.send("GET", "/calendar/bookings", cookie: cookie)
        #expect(empty.status == 200 && empty.text.contains("None yet"))
        let fields = [
            ("title", "Personal <b>training</b>"), ("slug", "anna"), ("lengths", "45"), ("calendar", web.calendarID),
            ("allDay", "on"), ("hostNotice", "on"),
        ]
        #expect(try web.send("POST", "/calendar/bookings/type", form: fields, cookie: cookie).status == 403)
        let made = try web.send("POST", "/calendar/bookings/type", form: fields + [("csrf", csrf)], cookie: cookie)
        #expect(made.status == 303, "\(made.text)")
        let listed = try web.send("GET", "/calendar/bookings", cookie: cookie)
        #expect(listed.text.contains("<a href=\"/book/anna\">") && listed.text.contains("45 min"))
        #expect(listed.text.contains("Personal &lt;b&gt;training&lt;/b&gt;"))
        var type = try #require(try web.backend.bookings.bookingTypes(owner: "anna").first)
        #expect(type.durations == [2_700] && type.calendar == web.calendarID && type.notifyHost)
        // A taken page address comes back with why and what was typed, and nothing is made.
        let taken = try web.send("POST", "/calendar/bookings/type", form: fields + [("csrf", csrf)], cookie: cookie)
        #expect(taken.status == 400 && taken.text.contains("taken"), "\(taken.text)")
        #expect(taken.text.contains("value=\"Personal &lt;b&gt;training&lt;/b&gt;\""))
        // Every setting from the form: lengths, buffers, notice, window, step, limits, hold, mail.
        let edit = try web.send("GET", "/calendar/bookings/type?id=\(type.id)", cookie: cookie)
        #expect(edit.status == 200 && edit.text.contains("value=\"45\"") && edit.text.contains("name=\"bufferBefore\""))
        let settings = [
            ("id", type.id), ("csrf", csrf), ("title", "Personal training"), ("slug", "anna"), ("lengths", "60, 30"),
            ("calendar", web.calendarID), ("location", "Studio 1"), ("bufferBefore", "5"), ("bufferAfter", "15"),
            ("notice", "1440"), ("windowDays", "28"), ("step", "30"), ("dailyLimit", "5"), ("weeklyLimit", "20"),
            ("holdMinutes", "10"), ("groupMode", "single"), ("busy", web.calendarID),
        ]
        #expect(try web.send("POST", "/calendar/bookings/type", form: settings, cookie: cookie).status == 303)
        type = try web.backend.bookings.bookingType(id: type.id, owner: "anna")
        #expect(type.durations == [3_600, 1_800] && type.bufferBefore == 300 && type.bufferAfter == 900)
        #expect(type.notice == 86_400 && type.windowDays == 28 && type.step == 1_800 && type.holdSeconds == 600)
        #expect(type.dailyLimit == 5 && type.weeklyLimit == 20 && type.location == "Studio 1")
        #expect(type.busyCalendars == [web.calendarID] && !type.allDayIsBusy && !type.notifyHost)
        let wrong = try web.send(
            "POST", "/calendar/bookings/type", form: settings.filter { $0.0 != "notice" } + [("notice", "soon")],
            cookie: cookie)
        #expect(wrong.status == 400 && wrong.text.contains("Notice is a whole number"), "\(wrong.text)")
        #expect(wrong.text.contains("value=\"soon\"") && wrong.text.contains("value=\"Studio 1\""))
        // Working hours and the dates that differ.
        #expect(try web.send("GET", "/calendar/bookings/hours", cookie: cookie).text.contains("name=\"Monday\""))
        var hours = [
            ("csrf", csrf), ("zone", "Europe/Berlin"), ("exceptions", "2026-12-24 off\n2026-12-31 10:00-12:00"),
        ]
        hours += Weekday.allCases.map { ($0.englishName, $0.rawValue <= 5 ? "09:00-12:00 14:00-18:00" : "") }
        let badZone = try web.send(
            "POST", "/calendar/bookings/hours", form: hours.filter { $0.0 != "zone" } + [("zone", "Berlin")],
            cookie: cookie)
        #expect(badZone.status == 400 && badZone.text.contains("value=\"Berlin\""))
        #expect(badZone.text.contains("value=\"09:00-12:00 14:00-18:00\""), "what was typed stays")
        #expect(try web.send("POST", "/calendar/bookings/hours", form: hours, cookie: cookie).status == 303)
        let stored = try #require(try web.backend.appState.defaultSchedule(user: "anna"))
        let schedule = try AvailabilitySchedule(calendarData: stored.data)
        #expect(schedule.timeZone == "Europe/Berlin" && schedule.weekly[.saturday] == nil)
        #expect(schedule.weekly[.monday]?.map(\.text) == ["09:00-12:00", "14:00-18:00"])
        #expect(schedule.hours(on: CivilDate(year: 2026, month: 12, day: 24)!).isEmpty)
        #expect(schedule.hours(on: CivilDate(year: 2026, month: 12, day: 31)!).map(\.text) == ["10:00-12:00"])
        let overview = try web.send("GET", "/calendar/bookings", cookie: cookie).text
        #expect(overview.contains("<dt>Saturday</dt><dd>Closed</dd>") && overview.contains("Dates that differ"))
        // A booking shows among the coming ones; the trainer moves it, then cancels it after asking.
        let tokens = (cancel: String(repeating: "a", count: 64), reschedule: String(repeating: "b", count: 64))
        type.notice = 0
        type.windowDays = nil
        type = try BookingEngine(store: web.backend.bookings).update(type, ifMatch: nil)
        // Monday 7 December 2026 09:00 Berlin (08:00 UTC), 60 minutes.
        let booked = try BookingEngine(store: web.backend.bookings).book(
            BookingRequest(
                type: type.id, start: 1_796_630_400, end: 1_796_634_000, name: "Lena", email: "lena@example.com",
                cancelTokenHash: tokens.cancel, rescheduleTokenHash: tokens.reschedule),
            type: type, now: 1_796_083_200
        ).booking
        let coming = try web.send("GET", "/calendar/bookings", cookie: cookie).text
        #expect(coming.contains("<strong>Lena</strong>") && coming.contains("lena@example.com"))
        #expect(coming.contains("/calendar/bookings/\(booked.id)/move"))
        let move = try web.send("GET", "/calendar/bookings/\(booked.id)/move?day=2026-12-08", cookie: cookie)
        #expect(move.status == 200 && move.text.contains("Now: <strong>Monday, 7 December 2026, 09:00–10:00"))
        let moved = try web.send(
            "POST", "/calendar/bookings/\(booked.id)/move",
            form: [("csrf", csrf), ("start", "2026-12-08T09:00:00Z"), ("duration", "60")], cookie: cookie)
        #expect(moved.status == 303, "\(moved.text)")
        #expect(try web.backend.bookings.booking(id: booked.id, owner: "anna").start == 1_796_720_400)
        let ask = try web.send("GET", "/calendar/bookings/cancel?id=\(booked.id)", cookie: cookie)
        #expect(ask.text.contains("Cancel Lena’s booking?") && ask.text.contains("Keep it"))
        // Another user reaches none of Anna's bookings or types.
        try web.server.createUser("bob", password: "other horse")
        let (bobCookie, bobCSRF) = try web.signIn("bob", password: "other horse")
        #expect(try web.send("GET", "/calendar/bookings/cancel?id=\(booked.id)", cookie: bobCookie).status == 404)
        #expect(try web.send("GET", "/calendar/bookings/type?id=\(type.id)", cookie: bobCookie).status == 404)
        let bobs = try web.send(
            "POST", "/calendar/bookings/cancel", form: [("csrf", bobCSRF), ("id", booked.id)], cookie: bobCookie)
        #expect(bobs.status == 404)
        #expect(
            try web.send(
                "POST", "/calendar/bookings/delete", form: [("csrf", bobCSRF), ("id", type.id)], cookie: bobCookie
            ).status == 404)
        let cancelled = try web.send(
            "POST", "/calendar/bookings/cancel", form: [("csrf", csrf), ("id", booked.id)], cookie: cookie)
        #expect(cancelled.status == 303)
        #expect(try web.backend.bookings.booking(id: booked.id, owner: "anna").status == .cancelled)
        #expect(try web.send("GET", "/calendar/bookings", cookie: cookie).text.contains("badge status-cancelled"))
        // Removing a type asks first.
        let remove = try web.send("GET", "/calendar/bookings/remove?id=\(type.id)", cookie: cookie)
        #expect(remove.text.contains("Remove “Personal training”?") && remove.text.contains("Keep it"))
        let removed = try web.send(
            "POST", "/calendar/bookings/delete", form: [("id", type.id), ("csrf", csrf)], cookie: cookie)
        #expect(removed.status == 303)
        #expect(try web.backend.bookings.bookingTypes(owner: "anna").isEmpty)
        #expect(try web.send("GET", "/calendar/bookings").status != 200, "signed out: no page")
    }

    /// An invitation on its event page: who is asked and what each answered; the invited
    /// user answers for one week or the whole series with a button (CSRF-checked), and the
    /// organizer sees the answers and the times attendees proposed, and declines one.
    @Test func invitationsAreAnsweredAndProposalsDecidedOnTheEventPage() throws {
        let web = try WebTests()
        try web.server.createUser("bob", password: "battery staple")
        try web.backend.setAddresses(["anna@example.com"], forUser: "anna")
        try web.backend.setAddresses(["bob@example.com"], forUser: "bob")
        let created = try web.server.api("anna").call(
            "POST", "/api/v1/events",
            #"""
            {"calendarId": "\#(web.calendarID)", "title": "Team run", "start": "2026-12-07T09:00:00Z",
             "end": "2026-12-07T10:00:00Z", "rrule": "FREQ=WEEKLY;COUNT=3",
             "attendees": [{"email": "bob@example.com", "name": "B<ob>"}, {"email": "guest@elsewhere.example"}]}
            """#)
        #expect(created.status == 201, "\(created.text)")
        let annasEvent = try #require(created["id"]?.stringValue)
        let uid = try #require(created["uid"]?.stringValue)
        func annasCopy() throws -> String {
            let copy = try #require(try web.server.eventStore(for: "anna").ownResource(withUID: uid))
            return String(decoding: copy.resource.data, as: UTF8.self).replacingOccurrences(of: "\r\n ", with: "")
        }
        func bobIn(_ text: String, instance: Bool) throws -> String {
            let events = text.components(separatedBy: "BEGIN:VEVENT").dropFirst()
            let event = try #require(events.first { $0.contains("RECURRENCE-ID") == instance })
            return try #require(
                event.components(separatedBy: "\r\n").first { $0.hasSuffix(":mailto:bob@example.com") })
        }

        // Bob opens the second week from his month view.
        let (bobsCookie, bobsCSRF) = try web.signIn("bob", password: "battery staple")
        let month = try web.send("GET", "/calendar?view=month&date=2026-12-01&tz=UTC", cookie: bobsCookie)
        let link = try #require(Self.eventLinks(month.text).first { $0.contains("2026-12-14") }, "\(month.text)")
        let page = try web.send("GET", link, cookie: bobsCookie)
        #expect(page.status == 200)
        #expect(page.text.contains("Organized by anna@example.com"))
        #expect(page.text.contains("B&lt;ob&gt; &lt;bob@example.com&gt; (you)"), "escaped")
        #expect(
            page.text.contains("guest@elsewhere.example</span> <span class=\"answer needs-action\">Not answered yet"))
        #expect(page.text.contains("Your answer: Not answered yet"))
        #expect(page.text.contains("value=\"declined\">Decline</button>"))
        let query = Dictionary(
            uniqueKeysWithValues: try #require(link.split(separator: "?").last).split(separator: "&").map {
                let pair = $0.split(separator: "=", maxSplits: 1)
                return (String(pair[0]), PercentEncoding.decode(String(pair.count > 1 ? pair[1] : "")) ?? "")
            })
        let (id, occurrence) = (try #require(query["id"]), try #require(query["occurrence"]))

        // No token, no answer; with it, that week only.
        let fields = [("id", id), ("occurrence", occurrence), ("span", "this"), ("status", "declined")]
        #expect(try web.send("POST", "/calendar/rsvp", form: fields, cookie: bobsCookie).status == 403)
        #expect(try annasCopy().contains("RECURRENCE-ID") == false)
        let answered = try web.send("POST", "/calendar/rsvp", form: fields + [("csrf", bobsCSRF)], cookie: bobsCookie)
        #expect(answered.status == 303)
        #expect(answered.headers["Location"]?.contains("occurrence=") == true, "back to the week's page")
        #expect(try bobIn(try annasCopy(), instance: true).contains("PARTSTAT=DECLINED"))
        #expect(try bobIn(try annasCopy(), instance: false).contains("PARTSTAT=DECLINED") == false)
        #expect(try web.send("GET", link, cookie: bobsCookie).text.contains("Your answer: Declined"))
        // The whole series accepted from the same page.
        let all = [("id", id), ("occurrence", occurrence), ("span", "all"), ("status", "accepted"), ("csrf", bobsCSRF)]
        #expect(try web.send("POST", "/calendar/rsvp", form: all, cookie: bobsCookie).status == 303)
        #expect(try bobIn(try annasCopy(), instance: false).contains("PARTSTAT=ACCEPTED"))
        for bad in [[("status", "maybe")], [("status", "accepted"), ("occurrence", "2030-01-01T00:00:00Z")]] {
            let refused = try web.send(
                "POST", "/calendar/rsvp", form: [("id", id), ("csrf", bobsCSRF)] + bad, cookie: bobsCookie)
            #expect(refused.status == 400 || refused.status == 404, "\(bad): \(refused.status)")
        }

        // Bob proposes another hour for the series; Anna sees the answers and the proposal.
        #expect(
            try web.server.api("bob").call(
                "POST", "/api/v1/events/\(id)/proposals",
                #"{"start": "2026-12-07T16:00:00Z", "end": "2026-12-07T17:00:00Z", "comment": "After <work>"}"#
            ).status == 202)
        let (annasCookie, annasCSRF) = try web.signIn()
        let annas = try web.send("GET", "/calendar/event?id=\(annasEvent)&tz=UTC", cookie: annasCookie).text
        #expect(annas.contains("Organized by anna@example.com (you)"))
        #expect(annas.contains("<span class=\"answer accepted\">Accepted</span>"))
        #expect(!annas.contains("Your answer:"), "the organizer does not answer")
        #expect(annas.contains("bob@example.com proposes Monday 2026-12-07 16:00–17:00 (UTC)"), "\(annas)")
        #expect(annas.contains("“After &lt;work&gt;”"))
        let proposal = try #require(
            annas.firstRange(of: "name=\"proposal\" value=\"").map { annas[$0.upperBound...].prefix { $0 != "\"" } })
        let decline = [("id", annasEvent), ("proposal", String(proposal)), ("answer", "decline")]
        #expect(try web.send("POST", "/calendar/proposal", form: decline, cookie: annasCookie).status == 403)
        #expect(
            try web.send("POST", "/calendar/proposal", form: decline + [("csrf", bobsCSRF)], cookie: annasCookie)
                .status == 403, "another session's token")
        let before = try annasCopy()
        #expect(
            try web.send("POST", "/calendar/proposal", form: decline + [("csrf", annasCSRF)], cookie: annasCookie)
                .status == 303)
        #expect(try annasCopy() == before, "declining moves nothing")
        #expect(
            !(try web.send("GET", "/calendar/event?id=\(annasEvent)", cookie: annasCookie).text.contains("proposes")))
        #expect(try web.backend.scheduling.inbox(of: "bob").last?.method == "DECLINECOUNTER")
        #expect(
            try web.send("POST", "/calendar/proposal", form: decline + [("csrf", annasCSRF)], cookie: annasCookie)
                .status == 404, "answered already")
    }
}
