import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import Scheduling

// The scheduling inbox and outbox of RFC 6638 §2: the inbox lists the iTIP messages
// delivered to the user (invitations, cancellations, answers), each readable and
// deletable; the outbox answers free-busy requests (§5) for the users the requester may
// see busy time of.
extension DAVContext {
    func inboxProperties() throws(StoreError) -> [PropertyName: String] {
        let token = try handler.backend.scheduling.inboxSyncToken(of: user)
        let calendar = try store.defaultSchedulingCalendar()
        return [
            .resourceType: "<D:collection/><C:schedule-inbox/>",
            .displayName: "Inbox",
            .getCTag: XMLText.escape("\"\(token)\""),
            .syncToken: XMLText.escape(token.description),
            .owner: "<D:href>\(XMLText.escape(principalHref))</D:href>",
            .scheduleDefaultCalendarURL:
                "<D:href>\(XMLText.escape(DAVPath.calendar(user: user, name: calendar.name).href))</D:href>",
            .supportedReportSet: Self.reports(["calendar-query", "calendar-multiget"], namespace: "C")
                + Self.reports(["sync-collection"], namespace: "D") + Self.anywhereReports,
        ]
    }

    static func outboxProperties(_ principal: String) -> [PropertyName: String] {
        [
            .resourceType: "<D:collection/><C:schedule-outbox/>",
            .displayName: "Outbox",
            .owner: "<D:href>\(XMLText.escape(principal))</D:href>",
            .supportedReportSet: anywhereReports,
        ]
    }

    func inboxMessage(named name: String) throws(StoreError) -> InboxMessage {
        guard let message = try handler.backend.scheduling.inboxMessage(named: name, of: user) else {
            throw StoreError(.notFound, "no message \(name) in the inbox", resource: name)
        }
        return message
    }

    static func inboxMessageProperties(_ message: InboxMessage) -> [PropertyName: String] {
        [
            .resourceType: "",
            .getETag: XMLText.escape(message.etag),
            .getContentType: "text/calendar; charset=utf-8; component=VEVENT; method=\(message.method)",
            .getContentLength: String(message.data.count),
            .getLastModified: CivilDateTime(secondsSinceEpoch: message.created).httpDate,
        ]
    }

    /// The most days one free-busy request covers.
    static let maxFreeBusyDays = 366
    /// The most recipients one free-busy request names (more is refused whole, never cut).
    static let maxFreeBusyRecipients = 100

    /// POST to the outbox (RFC 6638 §5): a VFREEBUSY REQUEST from the user for its
    /// ATTENDEEs; each recipient answered with their busy time, or why not.
    ///
    /// Its preconditions (§5.2.1): a body of another media type than text/calendar is 403
    /// `supported-calendar-data`; one that is not one VCALENDAR with METHOD:REQUEST and
    /// exactly one VFREEBUSY is 403 `valid-calendar-data`.
    func outboxPost() -> HTTPResponse {
        if let type = request.headers["Content-Type"]?.lowercased(), !type.hasPrefix("text/calendar") {
            return DAVError(
                403, "the outbox takes text/calendar, not \(type)", caldav: "supported-calendar-data"
            ).response
        }
        guard let document = try? ICalendarParser.parse(request.body, options: .lenient),
            document.components.count == 1, let calendar = document.components.first, calendar.name == "VCALENDAR",
            calendar.property("METHOD")?.value.uppercased() == "REQUEST",
            calendar.components(named: "VFREEBUSY").count == 1,
            let query = calendar.components.first(where: { $0.name == "VFREEBUSY" })
        else {
            return DAVError(
                403, "the outbox takes one VCALENDAR with METHOD:REQUEST and one VFREEBUSY",
                caldav: "valid-calendar-data"
            ).response
        }
        guard let start = try? query.property("DTSTART")?.dateTimeValue(),
            let end = try? query.property("DTEND")?.dateTimeValue(), start.form == .utc, end.form == .utc
        else {
            return DAVError(400, "a free-busy request has DTSTART and DTEND in UTC", caldav: "valid-calendar-data")
                .response
        }
        let from = start.civil.secondsSinceEpoch
        let to = end.civil.secondsSinceEpoch
        guard to > from, to - from <= Self.maxFreeBusyDays * 86_400 else {
            return DAVError(400, "a free-busy request covers up to \(Self.maxFreeBusyDays) days, forwards").response
        }
        let mine = Set(((try? handler.backend.addresses(ofUser: user)) ?? []).map { "mailto:" + $0 })
        guard let organizer = query.property("ORGANIZER").map({ ITIP.address($0.value) }), mine.contains(organizer)
        else {
            return DAVError(403, "the request's ORGANIZER is one of your addresses", caldav: "organizer-allowed")
                .response
        }
        let recipients = query.properties(named: "ATTENDEE").map { ITIP.address($0.value) }
        guard recipients.count <= Self.maxFreeBusyRecipients else {
            return DAVError(
                400,
                "a free-busy request asks for at most \(Self.maxFreeBusyRecipients) recipients, not \(recipients.count)"
            )
            .response
        }
        var body = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<C:schedule-response\(DAVNamespace.declarations)>"
        for attendee in recipients {
            body += "<C:response><C:recipient><D:href>\(XMLText.escape(attendee))</D:href></C:recipient>"
            guard let target = try? handler.backend.user(withAddress: attendee), mayReadBusyTime(of: target.name) else {
                body += "<C:request-status>3.7;Invalid calendar user</C:request-status></C:response>"
                continue
            }
            do throws(StoreError) {
                let reply = try freeBusyReply(
                    of: target.name, address: attendee, organizer: organizer, from: from, to: to, uid: query)
                body +=
                    "<C:request-status>2.0;Success</C:request-status><C:calendar-data>"
                    + XMLText.escape(String(decoding: reply.serialized(), as: UTF8.self)) + "</C:calendar-data>"
            } catch {
                body += "<C:request-status>5.1;Could not read the busy time</C:request-status>"
            }
            body += "</C:response>"
        }
        body += "</C:schedule-response>\n"
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/xml; charset=utf-8"], body: Array(body.utf8))
    }

    /// Whose busy time a user may ask for: their own; anyone's on a server where users
    /// see each other (`--visible-principals all`); else of users who share a calendar
    /// with them.
    func mayReadBusyTime(of other: String) -> Bool {
        if other == user || handler.visiblePrincipals == .all { return true }
        return ((try? store.calendars()) ?? []).contains { $0.owner == other }
    }

    /// A VFREEBUSY REPLY of `target`'s busy time (their own calendars and subscriptions but
    /// those whose schedule-calendar-transp is TRANSPARENT;
    /// outside their availability schedule BUSY-UNAVAILABLE, as free-busy-query answers).
    func freeBusyReply(
        of target: String, address: String, organizer: String, from: Int, to: Int, uid query: Component
    ) throws(StoreError) -> Component {
        let theirs = try handler.backend.eventStore(for: target)
        let calendars = try theirs.calendars().filter { $0.access == nil && !$0.isScheduleTransparent }.map(\.id)
        let busy = try theirs.busyTime(in: TimeRange(start: from, end: to), calendars: calendars, timeZone: nil)
        let heading =
            (query.property("UID").map { [$0] } ?? [])
            + [Property(name: "ORGANIZER", value: organizer), Property(name: "ATTENDEE", value: address)]
        let reply = FreeBusyQueryReport.freeBusy(
            busy, from: from, to: to, owner: target, stamp: handler.now(), backend: handler.backend, heading: heading)
        return Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
                Property(name: "METHOD", value: "REPLY"),
            ], components: [reply])
    }
}

extension PropertyName {
    static let scheduleInboxURL = PropertyName(DAVNamespace.caldav, "schedule-inbox-URL")
    static let scheduleOutboxURL = PropertyName(DAVNamespace.caldav, "schedule-outbox-URL")
    static let scheduleDefaultCalendarURL = PropertyName(DAVNamespace.caldav, "schedule-default-calendar-URL")
    static let scheduleCalendarTransp = PropertyName(DAVNamespace.caldav, "schedule-calendar-transp")
    /// RFC 6638 §3.2.10: a scheduling object's Schedule-Tag, asked for by name (not in allprop).
    static let scheduleTag = PropertyName(DAVNamespace.caldav, "schedule-tag")
    static let calendarUserType = PropertyName(DAVNamespace.caldav, "calendar-user-type")
}
