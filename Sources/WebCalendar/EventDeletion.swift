import CalendarStore
import CivilTime
import HTTPTypes
import Recurrence
import Scheduling

// Deleting an event from the web calendar: a confirmation page that says what goes
// (for a series: this occurrence, this and every later one, or all of it), and the form
// post that deletes it, telling attendees of a meeting the user organizes.
extension WebContext {
    /// The link the event page and the edit form give to delete an event or occurrence.
    static func deleteLink(id: String, occurrence: String?) -> String {
        var pairs = [("id", id)]
        if let occurrence { pairs.append(("occurrence", occurrence)) }
        return "/calendar/delete?" + HTML.query(pairs)
    }

    /// `GET /calendar/delete?id=ID[&occurrence=RECURRENCE-ID]`: what would be deleted, and
    /// the choice for a series.
    func deletePage() throws(WebFailure) -> HTTPResponse {
        let (session, _, view, id, occurrenceID, event, occurrence) = try requestedEvent()
        let when = occurrence.map { Self.describe($0.start, $0.end, view.zone) }
        var hidden = [("csrf", session.csrfToken), ("id", id)]
        if let occurrenceID { hidden.append(("occurrence", occurrenceID)) }
        var choices = ""
        if event.isRecurring || occurrence != nil {
            let options = [
                ("this", "Only this occurrence" + (when.map { " (\($0))" } ?? "")),
                ("future", "This and every later occurrence"),
                ("all", "Every occurrence of the series"),
            ].filter { occurrence != nil || $0.0 == "all" }
            choices =
                "<fieldset><legend>Which occurrences?</legend>"
                + options.enumerated().map { index, option in
                    "<label><input type=\"radio\" name=\"span\" value=\"\(option.0)\"\(index == 0 ? " checked" : "")> \(HTML.escape(option.1))</label>"
                }.joined() + "</fieldset>"
        } else {
            hidden.append(("span", "all"))
        }
        let back = "/calendar/event?" + HTML.query([("id", id)] + (occurrenceID.map { [("occurrence", $0)] } ?? []))
        let invited = event.organizer != nil && !event.attendees.isEmpty
        let body = """
            <main class="page delete">
            <h1>Delete “\(HTML.escape(event.title ?? "(untitled)"))”?</h1>
            \(when.map { "<p>\(HTML.escape($0))</p>" } ?? "")
            \(invited ? "<p>Its attendees are told it is cancelled.</p>" : "")
            <form method="post" action="/calendar/delete" class="delete-form">
            \(hidden.map { "<input type=\"hidden\" name=\"\($0.0)\" value=\"\(HTML.escape($0.1))\">" }.joined())
            \(choices)
            <p class="actions"><button type="submit" class="danger">Delete</button> <a class="button" href="\(HTML.escape(back))">Cancel</a></p>
            </form>
            </main>
            """
        return html("Delete event", body)
    }

    /// `POST /calendar/delete` (with the page's CSRF token): deletes the occurrence
    /// (`span=this`), it and the later ones (`future`) or the whole event (`all`), then
    /// shows the calendar on its day.
    func deleteEvent() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        let store = try store(for: session)
        let view = try parameters(store: store, user: session.user)
        guard let id = fields["id"], !id.isEmpty else { throw WebFailure(400, "Which event?") }
        let occurrenceID = fields["occurrence"].flatMap { $0.isEmpty ? nil : $0 }
        let span = fields["span"] ?? "all"
        guard ["this", "future", "all"].contains(span), span == "all" || occurrenceID != nil else {
            throw WebFailure(400, "Choose which occurrences to delete.")
        }
        let (event, occurrence) = try loadEvent(
            store, id: id, occurrence: span == "all" ? nil : occurrenceID, zoneName: view.zoneName)
        let day = occurrence.map { view.zone.localTime(at: $0.startInstant).date } ?? event.start?.date ?? view.date
        do {
            // The whole event goes as the series' master read from its first instance on.
            _ = try schedulingAgent.scheduling(in: store, of: event) { () throws(StoreError) -> Event in
                try store.remove(event, span: span == "this" ? .thisEvent : .futureEvents)
                return event
            }
        } catch {
            throw WebFailure(error)
        }
        return Self.redirect("/calendar?" + HTML.query([("view", "day"), ("date", day.description)]))
    }
}
