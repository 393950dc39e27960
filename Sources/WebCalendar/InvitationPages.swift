import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import Recurrence
import Scheduling

// The event page's people: who organizes and attends an invitation and what each
// answered, the user's own answer (for the occurrence shown or the whole series), and,
// for its organizer, the times attendees proposed.
extension WebContext {
    var schedulingAgent: SchedulingAgent {
        SchedulingAgent(backend: backend, mail: calendar.mail, now: calendar.now)
    }

    /// A calendar user address as people read it: the e-mail address of a `mailto:`, else as written.
    static func shown(_ address: String) -> String { EmailAddress.normalized(address) ?? address }

    /// What people see of PARTSTAT.
    static func answerText(_ partstat: String?) -> String {
        switch partstat?.uppercased() {
        case "ACCEPTED": "Accepted"
        case "DECLINED": "Declined"
        case "TENTATIVE": "Maybe"
        case "DELEGATED": "Delegated"
        default: "Not answered yet"
        }
    }

    /// The attendees section of `event`'s page (empty for an event nobody is invited to).
    func attendeesSection(_ event: Event, id: String, occurrence: String?, user: String, zone: ZoneRules)
        throws(WebFailure) -> String
    {
        guard !event.attendees.isEmpty else { return "" }
        let mine: Set<String>
        do {
            mine = Set(try backend.addresses(ofUser: user).map { "mailto:" + $0 })
        } catch {
            throw WebFailure(error)
        }
        func who(_ participant: Participant) -> String {
            let address = ITIP.address(participant.address)
            let shown = participant.name.map { "\($0) <\(Self.shown(address))>" } ?? Self.shown(address)
            return mine.contains(address) ? shown + " (you)" : shown
        }
        let organizer = event.organizer.map { ITIP.address($0.address) }
        var html =
            "<section class=\"attendees\" aria-labelledby=\"attendees-title\"><h2 id=\"attendees-title\">People</h2>"
        if let participant = event.organizer {
            html += "<p>Organized by \(HTML.escape(who(participant)))</p>"
        }
        html += "<ul class=\"answers\">"
        for attendee in event.attendees where ITIP.address(attendee.address) != organizer {
            let answer = attendee.participationStatus?.lowercased() ?? "needs-action"
            html +=
                "<li><span class=\"who\">\(HTML.escape(who(attendee)))</span> <span class=\"answer \(HTML.escape(answer))\">\(Self.answerText(attendee.participationStatus))</span></li>"
        }
        html += "</ul>"
        let me = event.attendees.first {
            mine.contains(ITIP.address($0.address)) && ITIP.address($0.address) != organizer
        }
        if let me, organizer.map({ !mine.contains($0) }) ?? false {
            html += rsvpForm(me, event: event, id: id, occurrence: occurrence)
        }
        if let organizer, mine.contains(organizer) {
            html += try proposalsList(event, id: id, occurrence: occurrence, user: user, zone: zone)
        }
        return html + "</section>"
    }

    func rsvpForm(_ me: Participant, event: Event, id: String, occurrence: String?) -> String {
        var html = """
            <form class="rsvp" method="post" action="/calendar/rsvp">
            <input type="hidden" name="csrf" value="\(HTML.escape(session?.csrfToken ?? ""))">
            <input type="hidden" name="id" value="\(HTML.escape(id))">
            <input type="hidden" name="occurrence" value="\(HTML.escape(occurrence ?? ""))">
            <p class="your-answer" role="status">Your answer: \(Self.answerText(me.participationStatus))</p>
            """
        if occurrence != nil {
            html += """
                <fieldset class="span"><legend>Answer for</legend>
                <label class="inline"><input type="radio" name="span" value="this" checked> This event</label>
                <label class="inline"><input type="radio" name="span" value="all"> All events</label>
                </fieldset>
                """
        }
        html += """
            <div class="buttons">
            <button type="submit" name="status" value="accepted">Accept</button>
            <button type="submit" name="status" value="tentative">Maybe</button>
            <button type="submit" name="status" value="declined">Decline</button>
            </div></form>
            """
        return html
    }

    func proposalsList(_ event: Event, id: String, occurrence: String?, user: String, zone: ZoneRules)
        throws(WebFailure) -> String
    {
        let proposals: [SchedulingAgent.ReceivedProposal]
        do {
            proposals = try schedulingAgent.proposals(for: user, uid: event.externalIdentifier)
        } catch {
            throw WebFailure(error)
        }
        guard !proposals.isEmpty else { return "" }
        var html = "<h3>Proposed times</h3><ul class=\"proposals\">"
        for received in proposals {
            let proposal = received.proposal
            var when = Self.describe(proposal.start, proposal.end, zone)
            if let instance = proposal.instance { when += " (instead of the occurrence \(instance))" }
            html += "<li><p>\(HTML.escape(Self.shown(received.from))) proposes \(HTML.escape(when))</p>"
            if let comment = proposal.comment { html += "<p class=\"comment\">“\(HTML.escape(comment))”</p>" }
            html += """
                <form method="post" action="/calendar/proposal">
                <input type="hidden" name="csrf" value="\(HTML.escape(session?.csrfToken ?? ""))">
                <input type="hidden" name="id" value="\(HTML.escape(id))">
                <input type="hidden" name="occurrence" value="\(HTML.escape(occurrence ?? ""))">
                <input type="hidden" name="proposal" value="\(HTML.escape(received.name))">
                <button type="submit" name="answer" value="accept">Accept this time</button>
                <button type="submit" name="answer" value="decline">Decline</button>
                </form></li>
                """
        }
        return html + "</ul>"
    }

    /// A proposal's times as the page shows them, in the viewer's zone.
    static func describe(_ start: Property, _ end: Property?, _ zone: ZoneRules) -> String {
        guard let from = try? start.dateTimeValue() else { return start.value }
        var to = from
        if let end, end.name == "DTEND", let value = try? end.dateTimeValue() {
            to = value
        } else if let end, let duration = try? end.durationValue() {
            to = DateTimeValue(
                from.civil.adding(seconds: duration.exactSeconds + duration.nominalDays * 86_400), form: from.form)
        }
        return describe(SchedulingAgent.occurrenceTime(from), SchedulingAgent.occurrenceTime(to), zone)
    }

    /// The event page again, after a form about it.
    func backToEvent(_ fields: [String: String]) -> HTTPResponse {
        var pairs = [("id", fields["id"] ?? "")]
        if let occurrence = fields["occurrence"], !occurrence.isEmpty { pairs.append(("occurrence", occurrence)) }
        return Self.redirect("/calendar/event?" + HTML.query(pairs))
    }

    /// POST /calendar/rsvp: the user's answer, for the occurrence shown or the series.
    func saveAnswer() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        let store = try store(for: session)
        guard let id = fields["id"], !id.isEmpty,
            let status = fields["status"], ["accepted", "tentative", "declined"].contains(status)
        else { throw WebFailure(400, "Choose Accept, Maybe or Decline.") }
        let series: Event
        var instance: String?
        do throws(StoreError) {
            series = try store.event(withIdentifier: id)
            if let occurrence = fields["occurrence"], !occurrence.isEmpty, fields["span"] != "all" {
                let found = try store.occurrence(ofEvent: id, recurrenceID: occurrence, timeZone: nil)
                guard let time = found.recurrenceID, let value = SchedulingAgent.recurrenceValue(time, of: series)
                else { throw StoreError(.notFound, "The event has no occurrence \(occurrence).") }
                instance = value
            }
            try schedulingAgent.respond(
                status.uppercased(), instance: instance, uid: series.externalIdentifier, by: session.user)
        } catch {
            throw WebFailure(error)
        }
        return backToEvent(fields)
    }

    /// POST /calendar/proposal: the organizer accepts or declines a proposed time.
    func answerProposalFromPage() throws(WebFailure) -> HTTPResponse {
        let fields = form()
        let session = try requireCSRF(fields)
        let store = try store(for: session)
        guard let id = fields["id"], !id.isEmpty, let name = fields["proposal"], !name.isEmpty,
            let answer = fields["answer"], ["accept", "decline"].contains(answer)
        else { throw WebFailure(400, "Accept or decline a proposal.") }
        do throws(StoreError) {
            let event = try store.event(withIdentifier: id)
            try schedulingAgent.answerProposal(
                named: name, uid: event.externalIdentifier, accept: answer == "accept", comment: nil, by: session.user)
        } catch {
            throw WebFailure(error)
        }
        return backToEvent(fields)
    }
}
