import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import JSON
import Recurrence
import Scheduling

// Scheduling through the API: an event with `attendees` is an invitation (the user is
// its organizer), delivered as CalDAV writes are (``SchedulingAgent``); RSVP answers one.
extension APIContext {
    var schedulingAgent: SchedulingAgent {
        SchedulingAgent(backend: backend, mail: configuration.mail, now: configuration.now)
    }

    /// An event with attendees and no organizer gets the user as organizer (their first
    /// e-mail address); without an address the server could not tell replies apart.
    func organize(_ event: inout Event) throws(APIProblem) {
        // The same bound whichever way they came (`attendees`, or `jcal`).
        guard event.attendees.count <= SchedulingAgent.maxAttendees else {
            throw APIProblem(
                .invalidField, "an event schedules at most \(SchedulingAgent.maxAttendees) attendees",
                fields: ["attendees"])
        }
        guard !event.attendees.isEmpty, event.organizer == nil else { return }
        let addresses = try attempt { () throws(StoreError) in try backend.addresses(ofUser: store.user) }
        guard let first = addresses.first else {
            throw APIProblem(
                .invalidField, "inviting needs your e-mail address first (almanac user email \(store.user) ADDRESS)",
                fields: ["attendees"])
        }
        event.organizer = Participant(address: "mailto:" + first)
        if !event.attendees.contains(where: { ITIP.address($0.address) == "mailto:" + first }) {
            event.attendees.insert(Participant(address: "mailto:" + first, participationStatus: "ACCEPTED"), at: 0)
        }
    }

    /// Refuses a write of `edited` over `stored` (an event, or one occurrence of it; nil
    /// for a new event) that scheduling would refuse, before anything is written: an
    /// attendee changes only their alarms and TRANSP here, and answers with /rsvp (RFC
    /// 6638 §3.2.2.1); nobody organizes for more than ``SchedulingAgent/maxAttendees``
    /// attendees over all occurrences. A new event whose UID the user keeps in their own
    /// calendars is judged against that copy, as ``SchedulingAgent/prepare`` judges it.
    func requireOwnPart(of stored: Event?, becoming edited: Event, span: Span) throws(APIProblem) {
        let object: SchedulingAgent.OwnObject?
        if let stored {
            object = SchedulingAgent.ownObject(keeping: stored, in: store)
        } else if !edited.externalIdentifier.isEmpty {
            object = (try? store.ownResource(withUID: edited.externalIdentifier)).map {
                SchedulingAgent.OwnObject(calendar: $0.calendar, resource: $0.resource)
            }
        } else {
            object = nil
        }
        guard let object, let parsed = SchedulingAgent.parse(object.resource.data) else { return }
        let agent = schedulingAgent
        // The component the write replaces: an occurrence's override (none yet: nothing is
        // replaced, one is added), or the series' master.
        let ofOccurrence = span == .thisEvent && stored?.occurrenceID != nil
        let override = ofOccurrence ? stored?.component.property("RECURRENCE-ID")?.value : nil
        func replaced(_ component: Component) -> Bool {
            guard ITIP.scheduled.contains(component.name), !ofOccurrence || override != nil else { return false }
            return component.property("RECURRENCE-ID")?.value == override
        }
        let old = stored?.component ?? parsed.components.first(where: replaced)
        do throws(SchedulingAgent.WriteRefusal) {
            if let old {
                try agent.checkEdit(of: old, to: edited.component, splitting: span == .futureEvents, by: store.user)
            }
            var after = parsed
            after.components.removeAll(where: replaced)
            after.components.append(edited.component)
            try agent.checkSize(of: after, by: store.user)
        } catch {
            if error.precondition == .maxAttendees {
                throw APIProblem(.invalidField, error.message, fields: ["attendees"])
            }
            throw APIProblem(
                .forbidden, error.message + " (answer with POST /events/{id}/rsvp, propose a time with /proposals)")
        }
    }

    /// Runs an event write and then schedules what it changed (``SchedulingAgent/scheduling(in:of:_:)``).
    func scheduling(of stored: Event?, _ write: () throws(APIProblem) -> Event) throws(APIProblem) -> Event {
        try schedulingAgent.scheduling(in: store, of: stored, write)
    }

    /// POST /events/{id}/rsvp: `{"status": "accepted"|"declined"|"tentative", "recurrenceId"}`
    /// — the user's answer to an invitation, for the series or one instance (its
    /// occurrence id, as `/occurrences/{eventId}/{recurrenceId}` names it); the organizer is told.
    func rsvp(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: ["status", "recurrenceId"])
        guard case .string(let status)? = body["status"], ["accepted", "declined", "tentative"].contains(status) else {
            throw APIProblem(.invalidField, "status is accepted, declined or tentative", fields: ["status"])
        }
        let event = try visibleEvent(identifier)
        let instance = try instance(body["recurrenceId"], of: event)
        try attempt { () throws(StoreError) in
            try schedulingAgent.respond(
                status.uppercased(), instance: instance, uid: event.externalIdentifier, by: store.user)
        }
        let updated = try attempt { () throws(StoreError) in try store.event(withIdentifier: identifier) }
        return json(APIModel.json(updated), etag: updated.etag)
    }

    /// The RECURRENCE-ID value of the occurrence an optional `recurrenceId` names (its
    /// occurrence id, checked to exist); nil for the series.
    func instance(_ value: JSONValue?, of event: Event) throws(APIProblem) -> String? {
        guard let value, value != .null else { return nil }
        guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= 64 else {
            throw APIModel.wrongType("recurrenceId", "an occurrence id such as 2026-12-14T09:00:00Z")
        }
        guard let identifier = event.localIdentifier,
            let occurrence = try? store.occurrence(ofEvent: identifier, recurrenceID: text, timeZone: nil),
            let time = occurrence.recurrenceID, let instance = SchedulingAgent.recurrenceValue(time, of: event)
        else {
            throw APIProblem(.invalidField, "the event has no occurrence \(text)", fields: ["recurrenceId"])
        }
        return instance
    }

    /// GET /events/{id}/proposals: the times attendees proposed for the user's event
    /// (COUNTER), oldest first.
    func proposals(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        let event = try visibleEvent(identifier)
        let found = try attempt { () throws(StoreError) in
            try schedulingAgent.proposals(for: store.user, uid: event.externalIdentifier)
        }
        return json(.object([("proposals", .array(found.map(Self.json)))]))
    }

    static func json(_ received: SchedulingAgent.ReceivedProposal) -> JSONValue {
        let proposal = received.proposal
        func time(_ property: Property?) -> JSONValue {
            guard let property, let value = try? property.dateTimeValue() else { return .null }
            return .string(APIModel.text(value))
        }
        return .object([
            ("id", .string(received.name)), ("from", .string(received.from)),
            ("recurrenceId", proposal.instance.map { .string($0) } ?? .null),
            ("start", time(proposal.start)),
            ("timeZone", proposal.start[parameter: "TZID"].map { .string($0) } ?? .null),
            ("end", proposal.end?.name == "DTEND" ? time(proposal.end) : .null),
            ("duration", proposal.end?.name == "DURATION" ? .string(proposal.end?.value ?? "") : .null),
            ("location", proposal.location.map { .string($0) } ?? .null),
            ("comment", proposal.comment.map { .string($0) } ?? .null),
            ("receivedAt", .string(Self.utc(received.received))),
        ])
    }

    /// POST /events/{id}/proposals: `{"start", "end", "timeZone", "recurrenceId", "comment"}`
    /// — the user, an attendee, proposes another time for the series or one occurrence.
    func propose(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: ["start", "end", "timeZone", "recurrenceId", "comment"])
        let event = try visibleEvent(identifier)
        let instance = try instance(body["recurrenceId"], of: event)
        let zone = try APIModel.optionalString(body["timeZone"] ?? .null, "timeZone")
        guard case .string(let startText)? = body["start"], case .string(let endText)? = body["end"] else {
            throw APIProblem(.invalidField, "start and end are required", fields: ["start", "end"])
        }
        let start = try APIModel.time(startText, timeZone: zone, field: "start")
        let end = try APIModel.time(endText, timeZone: zone, field: "end")
        guard start.civil.date.isSupported, end.civil.date.isSupported else {
            throw APIProblem(
                .invalidField, "the proposed times are outside the years this server keeps", fields: ["start"])
        }
        guard start.isDate == end.isDate,
            SchedulingAgent.occurrenceTime(end).instant(in: .utc)
                >= SchedulingAgent.occurrenceTime(start).instant(in: .utc)
        else {
            throw APIProblem(
                .invalidField, "the proposal ends before it starts, or mixes a date and a date-time", fields: ["end"])
        }
        let comment = try APIModel.optionalString(body["comment"] ?? .null, "comment")
        if let comment { _ = try APIModel.checked(comment, "comment", allowingLineBreaks: true) }
        try attempt { () throws(StoreError) in
            try schedulingAgent.propose(
                uid: event.externalIdentifier, instance: instance, start: Property(name: "DTSTART", dateTime: start),
                end: Property(name: "DTEND", dateTime: end), comment: comment, by: store.user)
        }
        return HTTPResponse(status: 202)
    }

    /// POST /events/{id}/proposals/{proposalId}: `{"answer": "accept"|"decline", "comment"}`.
    func answerProposal(_ identifier: String, _ name: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: ["answer", "comment"])
        guard case .string(let answer)? = body["answer"], ["accept", "decline"].contains(answer) else {
            throw APIProblem(.invalidField, "answer is accept or decline", fields: ["answer"])
        }
        let comment = try APIModel.optionalString(body["comment"] ?? .null, "comment")
        if let comment { _ = try APIModel.checked(comment, "comment", allowingLineBreaks: true) }
        let event = try visibleEvent(identifier)
        try attempt { () throws(StoreError) in
            try schedulingAgent.answerProposal(
                named: name, uid: event.externalIdentifier, accept: answer == "accept", comment: comment,
                by: store.user)
        }
        let updated = try attempt { () throws(StoreError) in try store.event(withIdentifier: identifier) }
        return json(APIModel.json(updated), etag: updated.etag)
    }
}
