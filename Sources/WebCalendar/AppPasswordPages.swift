import Accounts
import CalendarStore
import CivilTime
import HTTPTypes

// App passwords on the web: a signed-in user makes one for each calendar app (CalDAV
// clients cannot sign in through OpenID Connect, and should not hold the account's own
// password), sees when each was last used, and revokes it. The secret is shown once.
extension WebContext {
    /// The lifetimes the form offers, in days (nil: until revoked).
    static let appPasswordLifetimes: [(label: String, days: Int?)] = [
        ("Until I revoke it", nil), ("30 days", 30), ("90 days", 90), ("1 year", 365),
    ]

    /// GET /calendar/app-passwords: the user's app passwords and the form for a new one;
    /// `created` is a new one's name and secret, shown this once.
    func appPasswordsPage(
        message: String? = nil, status: Int = 200, created: (name: String, secret: String)? = nil
    ) throws(WebFailure) -> HTTPResponse {
        let session = try requireSession()
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        let tokens = try attemptWeb { () throws(StoreError) in try backend.appState.accessTokens(user: session.user) }
            .filter { $0.kind == .appPassword }.sorted { ($0.created, $0.id) < ($1.created, $1.id) }
        let titles = Dictionary(view.calendars.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
        let now = calendar.now()
        func time(_ seconds: Int) -> String {
            let local = view.zone.localTime(at: seconds)
            return local.date.description + " " + local.time.clockText
        }
        let cards = tokens.map { token in
            var facts = [token.scope == .read ? "Read only" : "Read and write"]
            facts.append(
                token.calendars.map { ids in
                    "Only " + ids.map { titles[$0] ?? "a calendar no longer there" }.joined(separator: ", ")
                } ?? "All calendars")
            let used = token.lastUsed.map { "Last used " + time($0) } ?? "Never used"
            let expiry = token.expires.map { ($0 <= now ? "Expired " : "Expires ") + time($0) } ?? "Does not expire"
            return """
                <li class="type-card"><h3>\(HTML.escape(token.name))</h3>
                <p class="facts">\(HTML.escape(facts.joined(separator: " · ")))</p>
                <p class="facts">Made \(HTML.escape(time(token.created))) · \(HTML.escape(used)) · \(HTML.escape(expiry))</p>
                <p class="actions"><a class="button danger" href="/calendar/app-passwords/revoke?\(HTML.escape(HTML.query([("id", token.id)])))">Revoke<span class="visually-hidden"> \(HTML.escape(token.name))</span></a></p></li>
                """
        }.joined()
        let server = (request.origin ?? "") + "/dav/"
        let shown = created.map { created in
            """
            <section class="created" aria-labelledby="created-heading">
            <h2 id="created-heading">“\(HTML.escape(created.name))” is ready</h2>
            <p>Enter these in the calendar app. The password is shown only now; if you lose it, revoke it and make another.</p>
            <dl class="hours-list">
            <dt>Server</dt><dd><code>\(HTML.escape(server))</code></dd>
            <dt>User name</dt><dd><code>\(HTML.escape(session.user))</code></dd>
            <dt>Password</dt><dd><code class="secret">\(HTML.escape(created.secret))</code></dd>
            </dl>
            </section>
            """
        }
        let calendarBoxes = view.calendars.map { item in
            "<label class=\"check\"><input type=\"checkbox\" name=\"calendar\" value=\"\(HTML.escape(item.id))\"> \(HTML.escape(item.title))</label>"
        }.joined()
        let lifetimes = Self.appPasswordLifetimes.map { choice in
            "<option value=\"\(choice.days.map(String.init) ?? "")\">\(choice.label)</option>"
        }.joined()
        let body = """
            <header class="bar"><a class="button" href="/calendar">‹ Calendar</a><h1>App passwords</h1></header>
            <main class="page booking-admin">
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            \(shown ?? "")
            <section aria-labelledby="list-heading">
            <h2 id="list-heading">Your app passwords</h2>
            <p>Calendar apps (Apple Calendar, Thunderbird, DAVx⁵) sign in with an app password instead of yours: each app gets its own, limited to what it needs, and revoking one signs out only that app.</p>
            \(tokens.isEmpty ? "<p>None yet.</p>" : "<ul class=\"type-cards\">\(cards)</ul>")
            </section>
            <section aria-labelledby="new-heading">
            <h2 id="new-heading">New app password</h2>
            <form method="post" action="/calendar/app-passwords" class="settings-form">
            <input type="hidden" name="csrf" value="\(HTML.escape(session.csrfToken))">
            <fieldset><legend>App password</legend>
            <label>Name <input name="name" required maxlength="100" placeholder="Lena’s iPhone" autocomplete="off"></label>
            <fieldset class="inner"><legend>Access</legend>
            <label class="check"><input type="radio" name="scope" value="read-write" checked> Read and write</label>
            <label class="check"><input type="radio" name="scope" value="read"> Read only</label>
            </fieldset>
            <fieldset class="inner"><legend>Calendars</legend>
            <p class="hint">None ticked: every calendar, including ones made later.</p>
            \(calendarBoxes)
            </fieldset>
            <label>Valid <select name="days">\(lifetimes)</select></label>
            </fieldset>
            <p class="actions"><button type="submit" class="primary">Make app password</button></p>
            </form>
            </section>
            </main>
            """
        return html("App passwords", body, status: status)
    }

    /// POST /calendar/app-passwords: makes one and shows its secret once.
    func createAppPasswordFromPage() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        let name = (fields["name"] ?? "").trimmingCharacters(in: .whitespaces)
        func refuse(_ message: String) throws(WebFailure) -> HTTPResponse {
            try appPasswordsPage(message: message, status: 400)
        }
        guard !name.isEmpty, name.utf8.count <= 100, !name.contains(where: \.isNewline) else {
            return try refuse("Give the app password a name of up to 100 characters, such as the device it is for.")
        }
        guard let scope = AccessToken.Scope(rawValue: fields["scope"] ?? ""), [.read, .readWrite].contains(scope) else {
            return try refuse("Choose read and write, or read only.")
        }
        let calendars = request.formItems.filter { $0.name == "calendar" }.map(\.value)
        let days = fields["days"].flatMap { $0.isEmpty ? nil : Int($0) }
        guard fields["days"].map({ $0.isEmpty || days.map { (1...366).contains($0) } == true }) ?? true else {
            return try refuse("Choose how long the app password is valid.")
        }
        let (id, secret) = APITokenSecret.generate()
        let token = AccessToken(
            id: id, user: session.user, name: name, scope: scope, created: calendar.now(), rateLimit: nil,
            expires: days.map { calendar.now() + $0 * 86_400 }, kind: .appPassword,
            calendars: calendars.isEmpty ? nil : Array(Set(calendars)).sorted())
        do {
            try backend.appState.createAccessToken(token, secretHash: APITokenSecret.hash(secret))
        } catch  where error.code == .invalidArgument {
            return try refuse(error.message)
        } catch {
            throw WebFailure(error)
        }
        return try appPasswordsPage(status: 201, created: (name, secret))
    }

    /// GET /calendar/app-passwords/revoke?id=…: asks before revoking.
    func revokeAppPasswordPage() throws(WebFailure) -> HTTPResponse {
        let session = try requireSession()
        let id = request.queryValue("id") ?? ""
        let tokens = try attemptWeb { () throws(StoreError) in try backend.appState.accessTokens(user: session.user) }
        guard let token = tokens.first(where: { $0.id == id && $0.kind == .appPassword }) else {
            throw WebFailure(404, "There is no such app password of yours.")
        }
        return confirmationPage(
            title: "Revoke " + token.name, heading: "Revoke an app password",
            back: ("/calendar/app-passwords", "App passwords"), question: "Revoke “\(token.name)”?",
            detail:
                "The app using it is signed out at its next sync and cannot sign in with it again. Your calendars are not changed.",
            action: "/calendar/app-passwords/revoke", id: token.id, confirm: "Revoke it", session: session)
    }

    /// POST /calendar/app-passwords/revoke: revokes one of the user's own.
    func revokeAppPasswordFromPage() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        let id = fields["id"] ?? ""
        let tokens = try attemptWeb { () throws(StoreError) in try backend.appState.accessTokens(user: session.user) }
        guard tokens.contains(where: { $0.id == id && $0.kind == .appPassword }) else {
            throw WebFailure(404, "There is no such app password of yours.")
        }
        try attemptWeb { () throws(StoreError) in try backend.appState.revokeAccessToken(id: id, user: session.user) }
        return Self.redirect("/calendar/app-passwords")
    }
}
