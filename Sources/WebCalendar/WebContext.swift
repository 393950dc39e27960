import Accounts
import AddToCalendar
import CalendarStore
import CalendarViews
import CivilTime
import Foundation
import HTTPTypes
import ICalendar
import Recurrence

/// One page request being answered.
struct WebContext {
    let calendar: WebCalendar
    let request: HTTPRequest
    let session: SignInSession?
    let nonce: String

    var backend: any StoreBackend { calendar.backend }

    /// What answers a route of the pages' table.
    struct Page: Sendable {
        var answer: @Sendable (WebContext, RouteParameters) throws(WebFailure) -> HTTPResponse
    }

    /// Every page and form of the web calendar and the public booking pages, by method and
    /// path; 404 and 405 (with `Allow`) come from the table.
    static let table = RouteTable<Page>([
        .init("GET", "/") { (context, _) throws(WebFailure) in try context.home() },
        .init("POST", "/login") { (context, _) throws(WebFailure) in try context.signIn() },
        .init("GET", "/login/oidc") { (context, _) throws(WebFailure) in try context.beginIdentitySignIn() },
        .init("GET", "/login/oidc/callback") { (context, _) throws(WebFailure) in try context.finishIdentitySignIn() },
        .init("POST", "/logout") { (context, _) throws(WebFailure) in try context.signOut() },
        .init("POST", "/settings") { (context, _) throws(WebFailure) in try context.saveSettings() },
        .init("GET", "/calendar") { (context, _) throws(WebFailure) in try context.calendarPage() },
        .init("GET", "/calendar/event") { (context, _) throws(WebFailure) in try context.eventPage() },
        .init("GET", "/calendar/new") { (context, _) throws(WebFailure) in try context.formPage() },
        .init("GET", "/calendar/edit") { (context, _) throws(WebFailure) in try context.formPage() },
        .init("POST", "/calendar/save") { (context, _) throws(WebFailure) in try context.saveEvent() },
        .init("GET", "/calendar/delete") { (context, _) throws(WebFailure) in try context.deletePage() },
        .init("POST", "/calendar/delete") { (context, _) throws(WebFailure) in try context.deleteEvent() },
        .init("POST", "/calendar/rsvp") { (context, _) throws(WebFailure) in try context.saveAnswer() },
        .init("POST", "/calendar/proposal") { (context, _) throws(WebFailure) in try context.answerProposalFromPage() },
        .init("GET", "/calendar/bookings") { (context, _) throws(WebFailure) in try context.bookingTypesPage() },
        .init("GET", "/calendar/bookings/type") { (context, _) throws(WebFailure) in try context.bookingTypeForm() },
        .init("POST", "/calendar/bookings/type") { (context, _) throws(WebFailure) in
            try context.saveBookingTypeFromPage()
        },
        .init("GET", "/calendar/bookings/remove") { (context, _) throws(WebFailure) in
            try context.removeBookingTypePage()
        },
        .init("POST", "/calendar/bookings/delete") { (context, _) throws(WebFailure) in
            try context.deleteBookingTypeFromPage()
        },
        .init("GET", "/calendar/bookings/hours") { (context, _) throws(WebFailure) in try context.hoursPage() },
        .init("POST", "/calendar/bookings/hours") { (context, _) throws(WebFailure) in try context.saveHoursFromPage()
        },
        .init("GET", "/calendar/bookings/cancel") { (context, _) throws(WebFailure) in try context.trainerCancelPage()
        },
        .init("POST", "/calendar/bookings/cancel") { (context, _) throws(WebFailure) in
            try context.trainerCancelFromPage()
        },
        .init("GET", "/calendar/bookings/{id}/move") { (context, path) throws(WebFailure) in
            try context.trainerReschedulePage(id: path["id"])
        },
        .init("POST", "/calendar/bookings/{id}/move") { (context, path) throws(WebFailure) in
            try context.trainerRescheduleFromPage(id: path["id"])
        },
        .init("GET", "/calendar/app-passwords") { (context, _) throws(WebFailure) in try context.appPasswordsPage() },
        .init("POST", "/calendar/app-passwords") { (context, _) throws(WebFailure) in
            try context.createAppPasswordFromPage()
        },
        .init("GET", "/calendar/app-passwords/revoke") { (context, _) throws(WebFailure) in
            try context.revokeAppPasswordPage()
        },
        .init("POST", "/calendar/app-passwords/revoke") { (context, _) throws(WebFailure) in
            try context.revokeAppPasswordFromPage()
        },
        // The public booking pages (BookingPages.swift): no sign-in (the server throttles them).
        .init("GET", "/book/manage/{token}.ics") { (context, path) throws(WebFailure) in
            try context.bookingICS(path["token"])
        },
        .init("GET", "/book/manage/{token}") { (context, path) throws(WebFailure) in
            try context.managePage(token: path["token"], message: nil)
        },
        .init("POST", "/book/manage/{token}") { (context, path) throws(WebFailure) in
            try context.cancelFromPage(token: path["token"])
        },
        .init("GET", "/book/manage/{token}/cancel") { (context, path) throws(WebFailure) in
            try context.cancelConfirmation(token: path["token"])
        },
        .init("GET", "/book/manage/{token}/reschedule") { (context, path) throws(WebFailure) in
            try context.reschedulePage(token: path["token"], purpose: .cancel, message: nil)
        },
        .init("POST", "/book/manage/{token}/reschedule") { (context, path) throws(WebFailure) in
            try context.rescheduleFromPage(token: path["token"], purpose: .cancel)
        },
        .init("GET", "/book/reschedule/{token}") { (context, path) throws(WebFailure) in
            try context.reschedulePage(token: path["token"], purpose: .reschedule, message: nil)
        },
        .init("POST", "/book/reschedule/{token}") { (context, path) throws(WebFailure) in
            try context.rescheduleFromPage(token: path["token"], purpose: .reschedule)
        },
        .init("GET", "/book/{slug}") { (context, path) throws(WebFailure) in
            try context.pickerPage(try context.bookingType(path["slug"]), message: nil)
        },
        .init("POST", "/book/{slug}") { (context, path) throws(WebFailure) in
            try context.bookFromPage(try context.bookingType(path["slug"]))
        },
        .init("GET", "/book/{slug}/slot") { (context, path) throws(WebFailure) in
            try context.bookingForm(try context.bookingType(path["slug"]), message: nil)
        },
    ])

    /// `/`: the sign-in form, or the calendar when signed in.
    func home() throws(WebFailure) -> HTTPResponse {
        session != nil ? Self.redirect("/calendar") : signInPage(message: nil)
    }

    func route() throws(WebFailure) -> HTTPResponse {
        let isBooking = request.path.hasPrefix("/book/")
        switch Self.table.match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            return try route.payload.answer(self, parameters)
        case .methodNotAllowed(let allow):
            var response = HTTPResponse.text(405, "405 Method Not Allowed\n")
            response.headers.set("Allow", allow.joined(separator: ", "))
            return response
        case .notFound:
            throw WebFailure(
                404, isBooking ? "There is no booking page at \(request.path)." : "There is no page at \(request.path)."
            )
        }
    }

    // MARK: Sessions

    /// The signed-in session, or a redirect to the sign-in form.
    func requireSession() throws(WebFailure) -> SignInSession {
        guard let session else { throw WebFailure(401, "Sign in to see your calendar.") }
        return session
    }

    /// A state-changing form must carry the session's CSRF token.
    func requireCSRF(_ fields: [String: String]) throws(WebFailure) -> SignInSession {
        let session = try requireSession()
        let token = fields["csrf"] ?? request.headers["X-CSRF-Token"] ?? ""
        guard Crypto.constantTimeEqual(Array(token.utf8), Array(session.csrfToken.utf8)) else {
            throw WebFailure(
                403, "This form has expired or did not come from this site; reload the page and try again.")
        }
        return session
    }

    func form() -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in request.formItems { fields[name] = value }
        return fields
    }

    func signIn() throws(WebFailure) -> HTTPResponse {
        // Login CSRF: a browser names the page a form was sent from; only this server's own
        // sign-in page may sign a visitor in (clients that send no Origin are not browsers).
        if let origin = request.headers["Origin"] {
            let host = request.headers["Host"] ?? ""
            guard !host.isEmpty, origin == "http://" + host || origin == "https://" + host else {
                throw WebFailure(403, "Sign in from this server's own page.")
            }
        }
        let fields = form()
        let user = fields["user"] ?? ""
        switch calendar.verifyPassword(user, fields["password"] ?? "", IPAddress.clientKey(request.remoteAddress)) {
        case .failure(let failure):
            var response = signInPage(message: failure.message, user: user)
            response.status = failure.status
            if let wait = failure.retryAfter { response.headers.set("Retry-After", String(wait)) }
            return response
        case .success(let name): return try beginSession(for: name, zone: fields["tz"])
        }
    }

    /// A new session for `user` (whose sign-in succeeded), its cookie set, on to the calendar.
    func beginSession(for user: String, zone: String?) throws(WebFailure) -> HTTPResponse {
        let secret = PasswordGenerator.generate(length: 40)
        let session = SignInSession(
            user: user, csrfToken: PasswordGenerator.generate(length: 32),
            expires: calendar.now() + calendar.sessionLifetime)
        do {
            try backend.appState.createSession(session, secretHash: APITokenSecret.hash(secret))
        } catch {
            throw WebFailure(error)
        }
        rememberBrowserZone(zone, user: user)
        var response = Self.redirect("/calendar")
        response.headers.add("Set-Cookie", cookie(secret, maxAge: calendar.sessionLifetime))
        return response
    }

    /// On a first sign-in, the zone the browser reported (`Intl`, sent by the sign-in
    /// form's script) becomes the user's view zone. A zone the user already chose stays;
    /// an unknown name is ignored.
    func rememberBrowserZone(_ zone: String?, user: String) {
        guard let zone, TimeZoneDatabase.zone(named: zone) != nil else { return }
        guard var settings = try? backend.appState.viewSettings(user: user), settings.timeZone == nil else { return }
        settings.timeZone = zone
        try? backend.appState.setViewSettings(settings, user: user)
    }

    func signOut() throws(WebFailure) -> HTTPResponse {
        _ = try requireCSRF(form())
        if let secret = WebCalendar.cookie(WebCalendar.cookieName, in: request) {
            try? backend.appState.deleteSession(secretHash: APITokenSecret.hash(secret))
        }
        var response = Self.redirect("/")
        response.headers.add("Set-Cookie", cookie("", maxAge: 0))
        return response
    }

    /// A cookie of the pages (the session's by default): HttpOnly, SameSite=Lax, and
    /// Secure behind TLS.
    func cookie(_ value: String, maxAge: Int, name: String = WebCalendar.cookieName, path: String = "/") -> String {
        let secure = request.headers["X-Forwarded-Proto"]?.lowercased() == "https" ? "; Secure" : ""
        return "\(name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Lax\(secure)"
    }

    /// A page that asks before something is removed: `question` over `detail` (HTML),
    /// a form posting `id` with the session's CSRF token to `action`, its button saying
    /// `confirm` and a link back to `back` saying `keep`.
    func confirmationPage(
        title: String, heading: String, back: (href: String, label: String), question: String, detail: String,
        action: String, id: String, confirm: String, keep: String = "Keep it", session: SignInSession
    ) -> HTTPResponse {
        let body = """
            <header class="bar"><a class="button" href="\(HTML.escape(back.href))">‹ \(HTML.escape(back.label))</a><h1>\(HTML.escape(heading))</h1></header>
            <main class="page booking-admin">
            <h2>\(HTML.escape(question))</h2>
            <p>\(detail)</p>
            <form method="post" action="\(HTML.escape(action))">
            <input type="hidden" name="csrf" value="\(HTML.escape(session.csrfToken))">
            <input type="hidden" name="id" value="\(HTML.escape(id))">
            <p class="actions"><button type="submit" class="danger">\(HTML.escape(confirm))</button> <a class="button" href="\(HTML.escape(back.href))">\(HTML.escape(keep))</a></p>
            </form>
            </main>
            """
        return html(title, body)
    }

    static func redirect(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 303, headers: ["Location": location, "Cache-Control": "no-store"])
    }

    func html(_ title: String, _ body: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store"],
            body: Array(
                HTML.page(title: title, nonce: nonce, csrf: session?.csrfToken, bridge: nativeShell, body: body).utf8))
    }

    /// A native shell's platform and bridge components, from its user agent
    /// (`… Hotwire Native iOS; bridge-components: [add-to-calendar menu]`).
    var nativeShell: (platform: String, components: String)? {
        guard let agent = request.headers["User-Agent"], let open = agent.range(of: "bridge-components: ["),
            let close = agent[open.upperBound...].firstIndex(of: "]")
        else { return nil }
        let components = agent[open.upperBound..<close].split(separator: " ").joined(separator: " ")
        return (agent.lowercased().contains("android") ? "android" : "ios", components)
    }

    func errorPage(_ failure: WebFailure) -> HTTPResponse {
        if failure.status == 401 { return signInPage(message: failure.message) }
        var back = session == nil ? "<a href=\"/\">Sign in</a>" : "<a href=\"/calendar\">Back to the calendar</a>"
        // A booker has no account to sign in to: the way back is the browser's.
        if request.path.hasPrefix("/book/") { back = "Go back and try again." }
        var response = html("Error", failure.page(back: back), status: failure.status)
        if let wait = failure.retryAfter { response.headers.set("Retry-After", String(wait)) }
        return response
    }

    func signInPage(message: String?, user: String = "") -> HTTPResponse {
        html(
            "Sign in",
            """
            <main class="page sign-in">
            <p class="brand"><img src="/static/icon.svg" alt="" width="40" height="40"> Almanac</p>
            <h1>Sign in</h1>
            <p class="lead">Your calendars, bookings and the pages people book you on.</p>
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            <form method="post" action="/login" class="settings-form">
            <label>User name <input name="user" autocomplete="username" autocapitalize="none" spellcheck="false" required value="\(HTML.escape(user))"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
            <input type="hidden" name="tz" value="" data-browser-zone>
            <button type="submit" class="primary">Sign in</button>
            </form>
            \(calendar.identity.map { "<p class=\"sign-in-other\"><a class=\"button\" href=\"/login/oidc\">Sign in with \(HTML.escape($0.name))</a></p>" } ?? "")
            </main>
            """, status: message == nil ? 200 : 401)
    }

    // MARK: Settings

    /// The view's parameters: the page's query, else the user's stored settings, else
    /// Monday and the zone of the user's first calendar that has one (UTC without).
    struct ViewParameters {
        var view: String
        var date: CivilDate
        var firstWeekday: Weekday
        var zone: ZoneRules
        var zoneName: String
        var calendars: [EventCalendar]
        var visible: Set<String>
        /// Whether cancelled events are drawn (struck through), else left out (`cancelled=hide`).
        var showsCancelled = true
    }

    func parameters(store: any EventStore, user: String) throws(WebFailure) -> ViewParameters {
        let query = Dictionary(request.queryItems.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        let settings = (try? backend.appState.viewSettings(user: user)) ?? ViewSettings()
        let calendars: [EventCalendar]
        do {
            calendars = try store.calendars()
        } catch {
            throw WebFailure(error)
        }
        let zoneName = query["tz"] ?? settings.timeZone ?? calendars.lazy.compactMap(\.timeZone).first ?? "UTC"
        guard let zone = TimeZoneDatabase.zone(named: zoneName) else {
            throw WebFailure(400, "Unknown time zone \(zoneName).")
        }
        var firstWeekday = Weekday(rawValue: settings.firstWeekday ?? 1) ?? .monday
        if let text = query["firstWeekday"] {
            guard let day = Weekday(englishName: text) else { throw WebFailure(400, "Unknown first weekday \(text).") }
            firstWeekday = day
        }
        var date = zone.localTime(at: calendar.now()).date
        if let text = query["date"] {
            guard let parsed = Self.date(text) else {
                throw WebFailure(400, "The date is YYYY-MM-DD, in the years 0001 to 9999, not \(text).")
            }
            date = parsed
        }
        let view = query["view"] ?? "month"
        guard ["month", "week", "day"].contains(view) else { throw WebFailure(400, "The view is month, week or day.") }
        let chosen = request.queryItems.filter { $0.name == "cal" }.map(\.value)
        let visible = chosen.isEmpty ? Set(calendars.map(\.id)) : Set(chosen)
        return ViewParameters(
            view: view, date: date, firstWeekday: firstWeekday, zone: zone, zoneName: zoneName, calendars: calendars,
            visible: visible, showsCancelled: query["cancelled"] != "hide")
    }

    /// `YYYY-MM-DD` in the supported years (0001–9999).
    static func date(_ text: String) -> CivilDate? { CivilDate(isoText: text) }

    func saveSettings() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        var settings = ViewSettings()
        if let day = fields["firstWeekday"].flatMap({ Weekday(englishName: $0) }) {
            settings.firstWeekday = day.rawValue
        }
        if let typed = fields["tz"], !typed.isEmpty {
            // A city ("Berlin") is the zone it names; anything else comes back to the form
            // with what was typed and why, the stored setting unchanged.
            guard let zone = TimeZoneDatabase.name(matching: typed) else {
                return Self.redirect("/calendar?" + HTML.query([("tzError", typed)]))
            }
            settings.timeZone = zone
        }
        do {
            try backend.appState.setViewSettings(settings, user: session.user)
        } catch {
            throw WebFailure(error)
        }
        return Self.redirect("/calendar")
    }

    func store(for session: SignInSession) throws(WebFailure) -> any EventStore {
        do {
            return try backend.eventStore(for: session.user)
        } catch {
            throw WebFailure(error)
        }
    }
}

extension RouteTable<WebContext.Page>.Route {
    init(
        _ method: String, _ template: String,
        _ answer: @escaping @Sendable (WebContext, RouteParameters) throws(WebFailure) -> HTTPResponse
    ) {
        self.init(method, template, WebContext.Page(answer: answer))
    }
}
