import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
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

    /// Runs an event write and then schedules what it changed in the object with this
    /// UID (nil: the UID of the event it returns): invitations, answers, cancellations.
    /// Returns the event as it is afterwards (SCHEDULE-STATUS set).
    func scheduling(uid: String?, _ write: () throws(APIProblem) -> Event) throws(APIProblem) -> Event {
        let before = uid.flatMap { try? store.ownResource(withUID: $0) }
        let written = try write()
        let agent = schedulingAgent
        let key = uid ?? written.externalIdentifier
        guard let after = try? store.ownResource(withUID: key) else {
            if let before { agent.deleted(before.resource.data, by: store.user, in: before.calendar) }
            return written
        }
        let plan = agent.prepare(
            after.resource.data, previous: before?.resource.data, by: store.user, in: after.calendar)
        guard plan.schedules else { return written }
        if plan.data != after.resource.data {
            _ = try? store.writeResource(
                plan.data, name: after.resource.name, calendar: after.calendar.id, ifMatch: after.resource.etag,
                ifNoneMatch: false, scheduleTag: plan.scheduleTag, ifScheduleTagMatch: nil)
        }
        agent.deliver(plan)
        guard let identifier = written.localIdentifier else { return written }
        return (try? store.event(withIdentifier: identifier)) ?? written
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
        var instance: String?
        if let value = body["recurrenceId"], value != .null {
            guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= 64 else {
                throw APIModel.wrongType("recurrenceId", "an occurrence id such as 2026-12-14T09:00:00Z")
            }
            guard let occurrence = try? store.occurrence(ofEvent: identifier, recurrenceID: text, timeZone: nil),
                let time = occurrence.recurrenceID, let value = Self.recurrenceValue(time, of: event)
            else {
                throw APIProblem(.invalidField, "the event has no occurrence \(text)", fields: ["recurrenceId"])
            }
            instance = value
        }
        guard
            let copy = try attempt({ () throws(StoreError) in try store.ownResource(withUID: event.externalIdentifier) }
            ),
            let object = (try? ICalendarParser.parse(copy.resource.data, options: .lenient))?.components.first
        else { throw APIProblem(.notFound, "the invitation is not in one of your own calendars") }
        let mine = try attempt { () throws(StoreError) in try backend.addresses(ofUser: store.user) }.map {
            "mailto:" + $0
        }
        guard let me = ITIP.attendees(of: object).map(\.address).first(where: mine.contains) else {
            throw APIProblem(.invalidField, "you are not an attendee of this event", fields: ["status"])
        }
        let answered = ITIP.applying([instance: status.uppercased()], from: me, to: object)
        let data = answered.serialized()
        let agent = schedulingAgent
        let plan = agent.prepare(data, previous: copy.resource.data, by: store.user, in: copy.calendar)
        _ = try attempt { () throws(StoreError) in
            try store.writeResource(
                plan.data, name: copy.resource.name, calendar: copy.calendar.id, ifMatch: copy.resource.etag,
                ifNoneMatch: false, scheduleTag: .keep, ifScheduleTagMatch: nil)
        }
        agent.deliver(plan)
        let updated = try attempt { () throws(StoreError) in try store.event(withIdentifier: identifier) }
        return json(APIModel.json(updated), etag: updated.etag)
    }

    /// An instance's RECURRENCE-ID value in the form of the series' DTSTART: a date, UTC,
    /// or the wall clock in DTSTART's zone (or floating).
    static func recurrenceValue(_ time: OccurrenceTime, of event: Event) -> String? {
        guard let start = event.start else { return nil }
        let civil: CivilDateTime
        switch time {
        case .date(let date):
            return start.isDate ? DateTimeValue(date: date).icalendarText : nil
        case .floating(let local): civil = local
        case .instant(let seconds):
            switch start.form {
            case .utc: return DateTimeValue(CivilDateTime(secondsSinceEpoch: seconds), form: .utc).icalendarText
            case .zoned(let tzid):
                guard let zone = TimeZoneDatabase.zone(named: tzid) else { return nil }
                civil = zone.localTime(at: seconds)
            case .floating: civil = CivilDateTime(secondsSinceEpoch: seconds)
            }
        }
        return DateTimeValue(civil, form: .floating).icalendarText
    }
}
