import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// The app passwords page: a signed-in user makes one for a calendar app (shown once),
/// the app signs in with it over CalDAV with only what it was given, the page shows its
/// last use, and revoking it (after a confirmation) signs the app out.
@Suite struct AppPasswordPageTests {
    let server: TestServer
    let trainings: String
    let personal: String

    init() throws {
        server = try TestServer(.inProcess, users: [])
        try server.createUser("anna", password: "correct horse")
        try server.createUser("bob", password: "battery staple")
        let store = try server.eventStore(for: "anna")
        trainings = try store.createCalendar(EventCalendar(title: "Trainings", color: "#FF0000")).id
        personal = try store.createCalendar(EventCalendar(title: "Private", color: "#0000FF")).id
    }

    func send(_ method: String, _ target: String, form: [(String, String)]? = nil, cookie: String? = nil) throws
        -> TestResponse
    {
        var headers: HTTPHeaders = [:]
        if let cookie { headers.set("Cookie", cookie) }
        var body: [UInt8] = []
        if let form {
            headers.set("Content-Type", "application/x-www-form-urlencoded")
            body = Array(
                form.map { "\(PercentEncoding.encode($0.0))=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
                    .utf8)
        }
        return try server.send(method, target, headers: headers, body: body)
    }

    func signIn(_ user: String, _ password: String) throws -> (cookie: String, csrf: String) {
        let answer = try send("POST", "/login", form: [("user", user), ("password", password)])
        try #require(answer.status == 303)
        let cookie = String(try #require(answer.headers["Set-Cookie"]).split(separator: ";")[0])
        let page = try send("GET", "/calendar/app-passwords", cookie: cookie)
        let csrf = try #require(
            page.text.firstRange(of: "name=\"csrf\" value=\"").map { page.text[$0.upperBound...].prefix { $0 != "\"" } }
        )
        return (cookie, String(csrf))
    }

    func dav(_ method: String, _ path: String, _ secret: String, body: String = "") throws -> Int {
        try server.send(
            method, path, headers: ["Depth": "1", "Content-Type": "text/calendar"], body: Array(body.utf8),
            authorization: "Basic " + Data("anna:\(secret)".utf8).base64EncodedString()
        ).status
    }

    @Test func makeUseAndRevokeAnAppPassword() throws {
        let anna = try signIn("anna", "correct horse")
        let empty = try send("GET", "/calendar/app-passwords", cookie: anna.cookie)
        #expect(empty.status == 200 && empty.text.contains("None yet."))
        #expect(try send("GET", "/calendar", cookie: anna.cookie).text.contains("href=\"/calendar/app-passwords\""))

        // Without the form's CSRF token nothing is made.
        let forged = try send(
            "POST", "/calendar/app-passwords", form: [("name", "x"), ("scope", "read")], cookie: anna.cookie)
        #expect(forged.status == 403)

        let made = try send(
            "POST", "/calendar/app-passwords",
            form: [
                ("csrf", anna.csrf), ("name", "Lena's iPhone"), ("scope", "read"), ("calendar", trainings),
                ("days", "30"),
            ], cookie: anna.cookie)
        #expect(made.status == 201)
        let secret = try #require(
            made.text.firstRange(of: "<code class=\"secret\">").map { made.text[$0.upperBound...].prefix { $0 != "<" } }
        )
        #expect(secret.hasPrefix("alm_"))
        #expect(made.text.contains("<code>anna</code>"))

        // The app sees only Trainings, and only to read.
        #expect(try dav("PROPFIND", "/dav/calendars/anna/", String(secret)) == 207)
        let home = try server.send(
            "PROPFIND", "/dav/calendars/anna/", headers: ["Depth": "1"],
            authorization: "Basic " + Data("anna:\(secret)".utf8).base64EncodedString())
        #expect(home.text.contains("Trainings") && !home.text.contains("Private"))
        let event =
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\nUID:a@t\r\nDTSTAMP:20261201T000000Z\r\nDTSTART:20261201T090000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        let calendarPath = try #require(
            home.text.ranges(of: "<D:href>").lazy.map { home.text[$0.upperBound...].prefix { $0 != "<" } }
                .first { $0.hasPrefix("/dav/calendars/anna/") && $0 != "/dav/calendars/anna/" })
        #expect(try dav("PUT", String(calendarPath) + "a.ics", String(secret), body: event) == 403)

        let listed = try send("GET", "/calendar/app-passwords", cookie: anna.cookie).text
        #expect(listed.contains("Lena&#39;s iPhone") || listed.contains("Lena's iPhone"))
        #expect(listed.contains("Read only · Only Trainings"))
        #expect(listed.contains("Last used "))
        #expect(!listed.contains(String(secret)))
        let tokenID = try #require(try server.backend.appState.accessTokens(user: "anna").first?.id)

        // Bob can neither see nor revoke it.
        let bob = try signIn("bob", "battery staple")
        #expect(try send("GET", "/calendar/app-passwords/revoke?id=\(tokenID)", cookie: bob.cookie).status == 404)
        #expect(
            try send(
                "POST", "/calendar/app-passwords/revoke", form: [("csrf", bob.csrf), ("id", tokenID)],
                cookie: bob.cookie
            )
            .status == 404)
        // Nor make one that sees Anna's calendar.
        let stolen = try send(
            "POST", "/calendar/app-passwords",
            form: [("csrf", bob.csrf), ("name", "x"), ("scope", "read"), ("calendar", trainings)], cookie: bob.cookie)
        #expect(stolen.status == 400)
        #expect(try server.backend.appState.accessTokens(user: "bob").isEmpty)
        #expect(try dav("PROPFIND", "/dav/calendars/anna/", String(secret)) == 207)

        let confirm = try send("GET", "/calendar/app-passwords/revoke?id=\(tokenID)", cookie: anna.cookie)
        #expect(confirm.status == 200 && confirm.text.contains("Revoke it"))
        let revoked = try send(
            "POST", "/calendar/app-passwords/revoke", form: [("csrf", anna.csrf), ("id", tokenID)], cookie: anna.cookie)
        #expect(revoked.status == 303)
        #expect(try dav("PROPFIND", "/dav/calendars/anna/", String(secret)) == 401)
        #expect(try send("GET", "/calendar/app-passwords", cookie: anna.cookie).text.contains("None yet."))
    }

    @Test func badFormsAreRefusedWithTheReason() throws {
        let anna = try signIn("anna", "correct horse")
        for (form, reason) in [
            ([("name", ""), ("scope", "read")], "name"),
            ([("name", String(repeating: "n", count: 101)), ("scope", "read")], "name"),
            ([("name", "x"), ("scope", "admin")], "read and write"),
            ([("name", "x"), ("scope", "add-only")], "read and write"),
            ([("name", "x"), ("scope", "read"), ("days", "999")], "how long"),
            ([("name", "x"), ("scope", "read"), ("calendar", "no-such-calendar")], "calendar"),
        ] {
            let answer = try send(
                "POST", "/calendar/app-passwords", form: [("csrf", anna.csrf)] + form, cookie: anna.cookie)
            #expect(answer.status == 400, "\(form)")
            // The reason is in the page's alert (the form around it names every field anyway).
            let alert = answer.text.firstRange(of: "role=\"alert\">").map {
                String(answer.text[$0.upperBound...].prefix { $0 != "<" })
            }
            #expect(alert?.contains(reason) == true, "\(form): \(alert ?? "no alert")")
        }
        #expect(try server.backend.appState.accessTokens(user: "anna").isEmpty)
        #expect(try send("GET", "/calendar/app-passwords").status == 401)
    }
}
