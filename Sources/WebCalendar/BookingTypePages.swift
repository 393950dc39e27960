import Bookings
import CalendarStore
import CivilTime
import Foundation
import HTTPTypes

/// The trainer's side of bookings in the web calendar: `/calendar/bookings` lists the
/// booking types (with their public pages) and the coming bookings, makes a simple
/// type (title, page slug, length, calendar; everything else through the API) and
/// removes one. Bookings themselves are events in the calendars, shown with the others.
extension WebContext {
    func bookingTypesPage(message: String? = nil, status: Int = 200) throws(WebFailure) -> HTTPResponse {
        let session = try requireSession()
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        let types = try attemptWeb { () throws(StoreError) in try backend.bookings.bookingTypes(owner: session.user) }
        let now = calendar.now()
        let coming = try attemptWeb { () throws(StoreError) in
            try backend.bookings.bookings(
                owner: session.user, type: nil, in: TimeRange(start: now, end: now.addingSaturated(366 * 86_400)),
                after: nil, limit: 200)
        }
        let titles = Dictionary(types.map { ($0.id, $0.title) }, uniquingKeysWith: { first, _ in first })
        let csrf = HTML.escape(session.csrfToken)
        let rows = types.map { type in
            let page = type.slug.map { "<a href=\"/book/\(HTML.escape($0))\">/book/\(HTML.escape($0))</a>" } ?? "—"
            return """
                <tr><td>\(HTML.escape(type.title))</td><td>\(type.durations.map { "\($0 / 60)" }.joined(separator: ", ")) min</td><td>\(page)</td>
                <td><form method="post" action="/calendar/bookings/delete"><input type="hidden" name="csrf" value="\(csrf)"><input type="hidden" name="id" value="\(HTML.escape(type.id))"><button type="submit" aria-label="Remove \(HTML.escape(type.title))">Remove</button></form></td></tr>
                """
        }.joined()
        let bookings = coming.map { booking in
            let when = Self.when(booking.start, booking.end, zone: view.zone, zoneName: view.zoneName)
            let date = view.zone.localTime(at: booking.start).date.description
            return """
                <tr><td><a href="/calendar?\(HTML.escape(HTML.query([("view", "day"), ("date", date)])))">\(HTML.escape(when))</a></td><td>\(HTML.escape(titles[booking.type] ?? ""))</td><td>\(HTML.escape(booking.name)) &lt;\(HTML.escape(booking.email))&gt;</td><td class="status-\(booking.status.rawValue)">\(booking.status.rawValue)</td></tr>
                """
        }.joined()
        let options = view.calendars.map {
            "<option value=\"\(HTML.escape($0.id))\">\(HTML.escape($0.title))</option>"
        }.joined()
        let body = """
            <header class="bar"><a class="button" href="/calendar">‹ Calendar</a><h1>Bookings</h1></header>
            <main class="page booking-admin">
            \(message.map { "<p class=\"error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? "")
            <h2>Booking types</h2>
            \(types.isEmpty ? "<p>None yet.</p>" : "<table><thead><tr><th scope=\"col\">Title</th><th scope=\"col\">Length</th><th scope=\"col\">Public page</th><th scope=\"col\"><span class=\"visually-hidden\">Actions</span></th></tr></thead><tbody>\(rows)</tbody></table>")
            <h2>New booking type</h2>
            <form method="post" action="/calendar/bookings/new" class="booking-form">
            <input type="hidden" name="csrf" value="\(csrf)">
            <label>Title <input name="title" required maxlength="500"></label>
            <label>Page address (/book/…) <input name="slug" pattern="[a-z0-9](?:[a-z0-9-]*[a-z0-9])?" maxlength="64" required></label>
            <label>Length in minutes <input name="minutes" type="number" min="5" max="1440" value="60" required></label>
            <label>Calendar bookings go to <select name="calendar">\(options)</select></label>
            <button type="submit">Create</button>
            </form>
            <p>Hours come from your default schedule (<code>almanac hours</code>); buffers, notice, seats and groups are set through the API.</p>
            <h2>Coming bookings</h2>
            \(coming.isEmpty ? "<p>None yet.</p>" : "<table><thead><tr><th scope=\"col\">When</th><th scope=\"col\">Type</th><th scope=\"col\">Who</th><th scope=\"col\">Status</th></tr></thead><tbody>\(bookings)</tbody></table>")
            </main>
            """
        return html("Bookings", body, status: status)
    }

    func createBookingTypeFromPage() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        guard let minutes = fields["minutes"].flatMap({ Int($0) }), (5...1_440).contains(minutes) else {
            return try bookingTypesPage(message: "The length is 5 to 1,440 minutes.", status: 400)
        }
        let type = BookingType(
            owner: session.user, slug: fields["slug"],
            title: (fields["title"] ?? "").trimmingCharacters(in: .whitespaces),
            durations: [minutes * 60], calendar: fields["calendar"] ?? "")
        do {
            _ = try BookingEngine(store: backend.bookings).create(type)
        } catch  where [.invalidArgument, .alreadyExists, .notFound, .forbidden].contains(error.code) {
            return try bookingTypesPage(message: error.message, status: 400)
        } catch {
            throw WebFailure(error)
        }
        return Self.redirect("/calendar/bookings")
    }

    func deleteBookingTypeFromPage() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        _ = try attemptWeb { () throws(StoreError) in
            try backend.bookings.deleteBookingType(id: fields["id"] ?? "", owner: session.user, ifMatch: nil)
        }
        return Self.redirect("/calendar/bookings")
    }
}
