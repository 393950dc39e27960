import CalendarStore
import CivilTime
import ICalendar
import Recurrence

// What a user does with an invitation through the API and the web pages: answer it
// (for the series or one occurrence), propose another time (COUNTER), and, as its
// organizer, accept or decline the times proposed to them.
extension SchedulingAgent {
    /// `user`'s copy of `uid`, read, with the user's calendar user address in it.
    struct Copy {
        var store: any EventStore
        var calendar: EventCalendar
        var resource: StoredResource
        var object: Component
        var organizer: String
        /// The user's own address among the object's attendees, or nil.
        var attendee: String?
        /// Whether the user organizes it.
        var organizes: Bool
    }

    func copy(of uid: String, for user: String) throws(StoreError) -> Copy {
        let store = try backend.eventStore(for: user)
        guard let own = try store.ownResource(withUID: uid), let object = Self.parse(own.resource.data),
            let organizer = ITIP.organizer(of: object)
        else {
            throw StoreError(.notFound, "the invitation \(uid) is not in one of your own calendars", resource: uid)
        }
        let mine = addresses(of: user)
        return Copy(
            store: store, calendar: own.calendar, resource: own.resource, object: object, organizer: organizer,
            attendee: ITIP.attendees(of: object).map(\.address).first(where: mine.contains),
            organizes: mine.contains(organizer))
    }

    /// Whether `organizer`'s own object of `uid` (organized by the address `address`)
    /// lists `attendee`.
    func invites(_ attendee: String, to uid: String, organizer address: String, user organizer: String) -> Bool {
        guard let store = try? backend.eventStore(for: organizer), let own = try? store.ownResource(withUID: uid),
            let object = Self.parse(own.resource.data), sameOrganizer(ITIP.organizer(of: object), address)
        else { return false }
        return !ITIP.participation(of: attendee, in: object).isEmpty
    }

    /// Stores `data` as `user`'s new version of `copy` (checked against the version
    /// read) and sends what the change schedules.
    func rewrite(_ copy: Copy, with data: [UInt8], by user: String) throws(StoreError) {
        let plan: Plan
        do {
            plan = try prepare(
                data, previous: copy.resource.data, by: user, in: copy.calendar, name: copy.resource.name)
        } catch {
            throw StoreError(.forbidden, error.message, resource: copy.resource.name)
        }
        _ = try copy.store.writeResource(
            plan.data, name: copy.resource.name, calendar: copy.calendar.id, ifMatch: copy.resource.etag,
            ifNoneMatch: false, scheduleTag: plan.scheduleTag ?? .keep, ifScheduleTagMatch: nil)
        deliver(plan)
    }

    /// `user`'s answer (`ACCEPTED`, `DECLINED`, `TENTATIVE`) to the invitation `uid`, for
    /// the series or, with `instance` (a RECURRENCE-ID value), one occurrence; the
    /// organizer is told.
    public func respond(_ partstat: String, instance: String?, uid: String, by user: String) throws(StoreError) {
        let copy = try copy(of: uid, for: user)
        guard let me = copy.attendee, !copy.organizes else {
            throw StoreError(.invalidArgument, "you are not an attendee of this event")
        }
        let answered = ITIP.applying([instance: partstat], from: me, to: copy.object)
        try rewrite(copy, with: answered.serialized(), by: user)
    }

    /// A time proposed to an organizer (a COUNTER in their inbox).
    public struct ReceivedProposal: Sendable, Hashable {
        /// The inbox message's name: what accepting or declining names.
        public var name: String
        /// Who proposed it (their calendar user address).
        public var from: String
        public var proposal: ITIP.Proposal
        /// Unix seconds.
        public var received: Int
    }

    /// The times proposed to `user` for their event `uid`, oldest first.
    public func proposals(for user: String, uid: String) throws(StoreError) -> [ReceivedProposal] {
        try backend.scheduling.inbox(of: user, uid: uid, method: ITIP.Method.counter.rawValue).compactMap { message in
            guard let from = message.sender,
                let counter = Self.parse(message.data), let proposal = ITIP.proposal(in: counter)
            else { return nil }
            return ReceivedProposal(name: message.name, from: from, proposal: proposal, received: message.created)
        }
    }

    /// `user`, an attendee of `uid`, proposes `start`–`end` for the series or one
    /// occurrence (`instance`): a COUNTER to the organizer's inbox, or by mail to an
    /// organizer outside the server. Their own copy does not change.
    public func propose(
        uid: String, instance: String?, start: Property, end: Property, comment: String?, by user: String
    ) throws(StoreError) {
        let copy = try copy(of: uid, for: user)
        guard let me = copy.attendee, !copy.organizes else {
            throw StoreError(
                .invalidArgument, "only an attendee proposes another time; the organizer changes the event")
        }
        guard
            let counter = ITIP.counter(
                copy.object, instance: instance, start: start, end: end, comment: comment, attendee: me, stamp: now())
        else { throw StoreError(.notFound, "the event has no occurrence \(instance ?? "")") }
        if let organizer = localUser(copy.organizer, except: user) {
            // A proposal counts only from an attendee of the organizer's own version: a
            // "copy" the user wrote themselves proves nothing (RFC 5546 §3.2.7).
            guard invites(me, to: uid, organizer: copy.organizer, user: organizer) else {
                throw StoreError(.forbidden, "\(copy.organizer) has not invited you to this event", resource: uid)
            }
            _ = try backend.scheduling.deliver(
                counter.serialized(), uid: uid, method: ITIP.Method.counter.rawValue, sender: me, to: organizer,
                now: now())
        } else {
            guard mail != nil, IMIP.bare(copy.organizer) != nil else {
                throw StoreError(
                    .invalidArgument, "the organizer \(copy.organizer) cannot be reached: the server has no mail relay")
            }
            guard mailTo([copy.organizer], counter, from: me, name: nil).isEmpty else {
                throw StoreError(.database, "the mail to \(copy.organizer) could not be handed to the relay")
            }
        }
    }

    /// The organizer `user` accepts or declines a proposed time for their event `uid`
    /// (``proposals(for:uid:)``'s `name`). Accepting moves the series or occurrence there
    /// and sends the new version to every attendee (who are asked again); declining sends
    /// the proposer a DECLINECOUNTER with `comment`. Either way the proposal leaves the inbox.
    public func answerProposal(named name: String, uid: String, accept: Bool, comment: String?, by user: String)
        throws(StoreError)
    {
        guard let message = try backend.scheduling.inboxMessage(named: name, of: user),
            message.method == ITIP.Method.counter.rawValue, message.uid == uid, let from = message.sender,
            let counter = Self.parse(message.data), let proposal = ITIP.proposal(in: counter), proposal.uid == uid
        else {
            throw StoreError(.notFound, "the event has no proposal \(name) (it may have been answered)", resource: name)
        }
        let copy = try copy(of: proposal.uid, for: user)
        guard copy.organizes else { throw StoreError(.forbidden, "only the organizer answers a proposal") }
        guard Self.occurring([proposal.instance], in: copy.object).contains(proposal.instance) else {
            throw StoreError(.notFound, "the event no longer has the occurrence the proposal is for")
        }
        // The proposer must still be invited (they may have been removed since).
        guard !ITIP.participation(of: from, in: copy.object).isEmpty else {
            throw StoreError(.notFound, "\(from) is no longer invited to this event")
        }
        if accept {
            let offered = ITIP.participation(of: from, in: counter).values.first
            guard
                let moved = ITIP.accepting(
                    proposal, of: counter, from: from,
                    partstat: offered.flatMap { ["ACCEPTED", "TENTATIVE"].contains($0) ? $0 : nil },
                    into: copy.object)
            else { throw StoreError(.notFound, "the event no longer has the occurrence the proposal is for") }
            try rewrite(copy, with: moved.serialized(), by: user)
        } else {
            guard
                let declined = ITIP.declineCounter(proposal, in: copy.object, to: from, comment: comment, stamp: now())
            else { throw StoreError(.notFound, "\(from) is no longer invited to this occurrence") }
            if let attendee = localUser(from, except: user) {
                deliverMessage(
                    declined.serialized(), uid: proposal.uid, method: ITIP.Method.declineCounter.rawValue,
                    from: copy.organizer, to: attendee)
            } else {
                let title = ITIP.component(of: copy.object, at: proposal.instance)?.property("SUMMARY")?.textValue()
                _ = mailTo([from], declined, from: copy.organizer, name: nil, title: title)
            }
        }
        try backend.scheduling.removeInboxMessage(named: name, of: user)
    }

    /// Of `keys` (RECURRENCE-ID values, nil for the series), those that name a component
    /// of `object` or an instance of its series: an answer or proposal for anything else
    /// would add an override for a time the series does not have. One expansion of the
    /// master over the keys' span, within the recurrence engine's bounds.
    static func occurring(_ keys: Set<String?>, in object: Component) -> Set<String?> {
        var valid = keys.filter { $0 == nil || ITIP.position(of: $0, in: object) != nil }
        let rest = keys.subtracting(valid).compactMap { $0 }
        guard !rest.isEmpty,
            let master = ITIP.recurringMaster(of: object), let start = master.property("DTSTART"),
            let uid = master.property("UID")?.value
        else { return valid }
        var wanted: [OccurrenceTime: String] = [:]
        for key in rest {
            guard
                let value = try? Property(name: "RECURRENCE-ID", parameters: start.parameters, value: key)
                    .dateTimeValue()
            else { continue }
            wanted[occurrenceTime(value)] = key
        }
        let instants = wanted.keys.map { $0.instant(in: .utc) }
        guard let first = instants.min(), let last = instants.max() else { return valid }
        let expansion = CalendarObjectExpansion(resolver: ZoneResolver(calendar: object))
        guard
            let found = try? expansion.expand(
                [master], uid: uid, from: first.subtractingSaturated(2 * 86_400), to: last.addingSaturated(2 * 86_400))
        else { return valid }
        for occurrence in found.occurrences {
            if let key = wanted[occurrence.recurrenceID ?? occurrence.start] { valid.insert(key) }
        }
        return valid
    }

    /// A DTSTART or DTEND value as a time: an instant (UTC, or the wall clock in its
    /// zone), a date, or a floating wall clock (also for a zone this server does not know).
    public static func occurrenceTime(_ value: DateTimeValue) -> OccurrenceTime {
        if value.isDate { return .date(value.date) }
        switch value.form {
        case .utc: return .instant(value.civil.secondsSinceEpoch)
        case .zoned(let tzid):
            guard let zone = TimeZoneDatabase.zone(named: tzid) else { return .floating(value.civil) }
            return .instant(zone.instant(for: value.civil))
        case .floating: return .floating(value.civil)
        }
    }

    /// An occurrence's RECURRENCE-ID value in the form of the series' DTSTART (a date,
    /// UTC, or the wall clock in DTSTART's zone, or floating), as answers and proposals
    /// for that occurrence name it; nil when the forms do not match.
    public static func recurrenceValue(_ time: OccurrenceTime, of event: Event) -> String? {
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
