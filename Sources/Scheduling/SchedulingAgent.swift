import CalendarStore
import CivilTime
import Foundation
import ICalendar

/// Implicit scheduling between the users of one server (RFC 6638 §3.2): what a user's
/// write of a scheduling object sends, delivered into the other users' calendars and
/// inboxes. An organizer's write updates every local attendee's copy (in their default
/// calendar the first time) and their inbox gets the REQUEST; attendees dropped from
/// it, or all of them when the organizer deletes it, get a CANCEL and a cancelled
/// copy. An attendee's changed answer (PARTSTAT, for the series or one instance), or
/// their deletion of the copy (declined), is applied to the organizer's copy and the
/// organizer's inbox gets the REPLY. Attendees the server has no user for are sent iMIP
/// mail (RFC 6047) when the server has a relay (``IMIPSender``), and an organizer outside
/// the server gets a local attendee's answer the same way; without a relay they cannot
/// be reached, and their SCHEDULE-STATUS says so (5.1). Answers that come back by mail
/// are applied by ``receive(_:for:)``.
///
/// An interface calls ``prepare(_:by:in:)`` before it stores what a user wrote (it
/// returns the bytes to store: the organizer's copy with SCHEDULE-STATUS set), then
/// ``deliver(_:)`` once the write committed; ``deleted(_:by:in:)`` after a deletion.
public struct SchedulingAgent: Sendable {
    let backend: any StoreBackend
    let now: @Sendable () -> Int
    /// Sends iMIP mail to those outside the server; nil: nobody outside is reached.
    let mail: (any IMIPSender)?

    public init(backend: any StoreBackend, mail: (any IMIPSender)? = nil, now: @escaping @Sendable () -> Int) {
        self.backend = backend
        self.mail = mail
        self.now = now
    }

    /// SCHEDULE-STATUS values (RFC 6638 §3.2.9).
    public static let delivered = "1.2"
    public static let sent = "1.1"
    public static let notDelivered = "5.1"
    /// The organizer may not update the attendee's object of that UID: it is another
    /// organizer's, or the attendee's own (3.8, "no authority").
    public static let noAuthority = "3.8"

    /// The most attendees one object schedules: every write of it delivers to each, and
    /// mails those outside the server.
    public static let maxAttendees = 200

    /// Why a write to a scheduling object is refused (RFC 6638 §3.2.4.4 and §3.2.4.5): an
    /// attendee changing what is the organizer's, or an organizer giving the object to
    /// someone else. Nothing is stored.
    public struct WriteRefusal: Error, Sendable, Hashable {
        /// The CalDAV precondition (in the CalDAV namespace) the write broke.
        public enum Precondition: String, Sendable {
            case attendeeChange = "allowed-attendee-scheduling-object-change"
            case organizerChange = "allowed-organizer-scheduling-object-change"
            /// More attendees than the server schedules (RFC 4791 §5.3.2.1).
            case maxAttendees = "max-attendees-per-instance"
            /// Components naming different organizers (RFC 6638 §3.2.4.2).
            case sameOrganizer = "same-organizer-in-all-components"
        }

        public var precondition: Precondition
        public var message: String
    }

    /// What a write will send, found before it is stored.
    public struct Plan: Sendable {
        /// The bytes to store (the sent ones unless the server set SCHEDULE-STATUS).
        public var data: [UInt8]
        var work: Work

        enum Work: Sendable {
            case none
            /// The organizer wrote: the object, the local attendees to update (address and
            /// user name) and those dropped (user names), the addresses outside the server to
            /// mail and those dropped.
            case organize(
                Component, previous: Component?, uid: String, attendees: [(address: String, user: String)],
                dropped: [String], remote: [String], droppedRemote: [String], from: String, name: String?)
            /// An attendee changed their answers (the organizer local, or outside and mailed).
            case answer(uid: String, answers: [String?: String], attendee: String, organizer: String, object: Component)
        }

        /// Whether the write schedules anything.
        public var schedules: Bool {
            if case .none = work { false } else { true }
        }

        /// What the write does to the object's Schedule-Tag: the organizer's write
        /// changes it, an attendee's answer keeps it; nil for a write that schedules nothing.
        public var scheduleTag: ScheduleTagChange? {
            switch work {
            case .none: nil
            case .organize: .new
            case .answer: .keep
            }
        }
    }

    /// The user's calendar user addresses: `mailto:` of each e-mail address, and their principal URL.
    func addresses(of user: String) -> Set<String> {
        Set(((try? backend.addresses(ofUser: user)) ?? []).map { "mailto:" + $0 } + ["/dav/principals/\(user)/"])
    }

    /// The local user an address names (not `except`), or nil.
    func localUser(_ address: String, except: String) -> String? {
        guard address.hasPrefix("mailto:"), let user = try? backend.user(withAddress: address), user.name != except
        else { return nil }
        return user.name
    }

    /// Whether two ORGANIZER addresses name one organizer: the same address, or two
    /// addresses of one user of this server.
    func sameOrganizer(_ first: String?, _ second: String?) -> Bool {
        guard let first, let second else { return false }
        if first == second { return true }
        guard let one = localUser(first, except: ""), let other = localUser(second, except: "") else { return false }
        return one == other
    }

    /// The RECURRENCE-ID values of an object's scheduled components (nil: the master).
    static func keys(of object: Component) -> Set<String?> {
        Set(object.components.filter { ITIP.scheduled.contains($0.name) }.map { $0.property("RECURRENCE-ID")?.value })
    }

    /// The attendees the server schedules for an object's organizer (one of `mine`).
    static func scheduled(in object: Component, mine: Set<String>) -> [ITIP.Attendee] {
        ITIP.attendees(of: object).filter { $0.scheduleAgent == "SERVER" && !mine.contains($0.address) }
    }

    /// Refuses an object (a VCALENDAR) that `user` would organize for more than
    /// ``maxAttendees`` attendees, counted over all its occurrences.
    public func checkSize(of object: Component, by user: String) throws(WriteRefusal) {
        let count = Self.scheduled(in: object, mine: addresses(of: user)).count
        guard count <= Self.maxAttendees else {
            throw WriteRefusal(
                precondition: .maxAttendees,
                message: "an event schedules at most \(Self.maxAttendees) attendees (this one names \(count))")
        }
    }

    /// The bytes of `user`'s copy of `uid` in their own calendars, except the one at `location`.
    func otherCopy(of uid: String, by user: String, except location: ResourceLocation?) -> [UInt8]? {
        guard let store = try? backend.eventStore(for: user) else { return nil }
        return (try? store.ownResource(withUID: uid, except: location))?.resource.data
    }

    /// Whether `user` keeps an object of `uid` in their own calendars that `organizer` does
    /// not organize: another organizer's invitation, or an event of their own.
    func holdsOther(_ uid: String, of user: String, organizer: String) -> Bool {
        guard let store = try? backend.eventStore(for: user), let existing = try? store.ownResource(withUID: uid) else {
            return false
        }
        return !sameOrganizer(Self.parse(existing.resource.data).flatMap(ITIP.organizer(of:)), organizer)
    }

    /// Refuses a write that changes who organizes the stored version `old` (organized by
    /// `organizer`), or, from an attendee, anything but their own part of it.
    func checkRole(_ old: Component, organizer: String, becoming new: Component, mine: Set<String>)
        throws(WriteRefusal)
    {
        let next = ITIP.organizer(of: new)
        if mine.contains(organizer) {
            guard next == nil || sameOrganizer(next, organizer) else {
                throw WriteRefusal(
                    precondition: .organizerChange,
                    message: "the organizer stays \(organizer): to hand the event over, cancel it and invite again")
            }
            return
        }
        guard sameOrganizer(next, organizer) else {
            throw WriteRefusal(
                precondition: .attendeeChange,
                message: "\(organizer) organizes this event; an attendee's copy keeps its ORGANIZER")
        }
        // With SCHEDULE-AGENT=CLIENT or NONE the attendee's client schedules (§3.2.2.3):
        // nothing of the copy reaches anyone, and the server does not judge it.
        let agent =
            old.components.first { ITIP.scheduled.contains($0.name) }?.property("ORGANIZER")?[
                parameter: "SCHEDULE-AGENT"]?.uppercased() ?? "SERVER"
        guard agent == "SERVER" else { return }
        let me = ITIP.attendees(of: old).map(\.address).first(where: mine.contains) ?? ""
        if let reason = ITIP.forbiddenAttendeeChange(from: old, to: new, attendee: me) {
            throw WriteRefusal(precondition: .attendeeChange, message: reason)
        }
    }

    /// Refuses what `user` may not do to one version of an event or an occurrence of it
    /// (`old`, a VEVENT or VTODO) by writing `new` in its place, as ``prepare(_:previous:by:in:name:)``
    /// refuses it for whole objects; `splitting` (a change to this and the following
    /// occurrences, which makes a new series) is the organizer's alone.
    public func checkEdit(of old: Component, to new: Component, splitting: Bool, by user: String)
        throws(WriteRefusal)
    {
        let before = Component(name: "VCALENDAR", components: [old])
        guard let organizer = ITIP.organizer(of: before) else { return }
        let mine = addresses(of: user)
        if splitting, !mine.contains(organizer) {
            throw WriteRefusal(
                precondition: .attendeeChange,
                message: "\(organizer) organizes this event; an attendee answers it, and may not split the series")
        }
        try checkRole(
            before, organizer: organizer, becoming: Component(name: "VCALENDAR", components: [new]), mine: mine)
    }

    public static func parse(_ data: [UInt8]) -> Component? {
        (try? ICalendarParser.parse(data, options: .lenient))?.components.first { $0.name == "VCALENDAR" }
    }

    static func uid(of calendar: Component) -> String? {
        calendar.components.first { ITIP.scheduled.contains($0.name) }?.property("UID")?.value
    }

    /// Reads what `user` is about to store at `name` in `calendar` (replacing `previous`,
    /// if any): who is to be told. Writes into calendars not the user's own (shared,
    /// subscribed) schedule nothing.
    ///
    /// The stored version decides who the user is to the object (RFC 6638 §3.2.2): when
    /// it names another organizer, the user is an attendee and may change only their own
    /// participation, alarms and TRANSP (§3.2.2.1); an organizer may not hand the object
    /// to another organizer. Either is refused before anything is stored. A new resource
    /// whose UID the user keeps elsewhere in their own calendars is a copy of that object
    /// (clients move an event by writing the new copy, then deleting the old): the copy
    /// there is the stored version, and only what differs from it is scheduled.
    public func prepare(
        _ data: [UInt8], previous: [UInt8]?, by user: String, in calendar: EventCalendar, name: String
    ) throws(WriteRefusal) -> Plan {
        let untouched = Plan(data: data, work: .none)
        guard calendar.access == nil, calendar.subscriptionURL == nil, let object = Self.parse(data),
            let uid = Self.uid(of: object)
        else { return untouched }
        let organizers = Set(
            object.components.filter { ITIP.scheduled.contains($0.name) }.compactMap {
                $0.property("ORGANIZER").map { ITIP.address($0.value) }
            })
        guard organizers.count <= 1 else {
            throw WriteRefusal(
                precondition: .sameOrganizer,
                message: "every component of a scheduling object names the same ORGANIZER (RFC 6638 §3.2.4.2)")
        }
        let old =
            (previous ?? otherCopy(of: uid, by: user, except: ResourceLocation(calendar: calendar.id, name: name)))
            .flatMap(Self.parse)
        let mine = addresses(of: user)
        if let old, let before = ITIP.organizer(of: old) {
            try checkRole(old, organizer: before, becoming: object, mine: mine)
        }
        // An object whose organizer removed every attendee (and so the ORGANIZER) still
        // cancels for them: the organizer is the old one's.
        guard let organizer = ITIP.organizer(of: object) ?? old.flatMap(ITIP.organizer(of:)) else { return untouched }
        if mine.contains(organizer) {
            // A copy of the object in another calendar that changes nothing anyone was
            // told (a client moving it) tells nobody anything.
            if previous == nil, let old,
                ITIP.forbiddenAttendeeChange(from: old, to: object, attendee: organizer) == nil,
                Self.keys(of: old).isSubset(of: Self.keys(of: object))
            {
                return untouched
            }
            // A moved, rescheduled or cancelled meeting gets a higher SEQUENCE, and its
            // attendees are asked again (RFC 6638 §3.2.5, §3.2.8).
            let revised = old.map { ITIP.revising(object, from: $0, organizer: organizer) } ?? object
            // A save that changes nothing the attendees are told (the organizer's alarm
            // dismissed, snoozed or moved, their TRANSP) is stored and sent to no one: a
            // fresh REQUEST would re-mail every attendee outside and ask for answers again.
            if let old, ITIP.toldAttendees(revised) == ITIP.toldAttendees(old), !ITIP.forcesRequest(object) {
                return Plan(
                    data: revised == object ? data : revised.serialized(),
                    work: .organize(
                        revised, previous: old, uid: uid, attendees: [], dropped: [], remote: [], droppedRemote: [],
                        from: organizer, name: nil))
            }
            let wanted = Self.scheduled(in: revised, mine: mine)
            guard !wanted.isEmpty || old != nil else { return untouched }
            try checkSize(of: revised, by: user)
            var statuses: [String: String] = [:]
            var local: [(address: String, user: String)] = []
            var remote: [String] = []
            for attendee in wanted {
                if let name = localUser(attendee.address, except: user) {
                    // A UID the attendee already uses for another organizer's object (or
                    // their own) is not this organizer's to update (§3.2.2, §11.2).
                    if holdsOther(uid, of: name, organizer: organizer) {
                        statuses[attendee.address] = Self.noAuthority
                    } else {
                        statuses[attendee.address] = Self.delivered
                        local.append((attendee.address, name))
                    }
                } else if mail != nil, IMIP.bare(attendee.address) != nil {
                    statuses[attendee.address] = Self.sent
                    remote.append(attendee.address)
                } else {
                    statuses[attendee.address] = Self.notDelivered
                }
            }
            let now = Set(wanted.map(\.address))
            let gone = (old.map(ITIP.attendees(of:)) ?? []).filter { $0.scheduleAgent == "SERVER" }.map(\.address)
                .filter { !now.contains($0) && !mine.contains($0) }
            let dropped = gone.compactMap { localUser($0, except: user) }
            let droppedRemote =
                mail == nil ? [] : gone.filter { localUser($0, except: user) == nil && IMIP.bare($0) != nil }
            let stored = ITIP.settingScheduleStatus(statuses, in: revised)
            let bytes = stored == object ? data : stored.serialized()
            let name = revised.components.first { ITIP.scheduled.contains($0.name) }?.property("ORGANIZER")?[
                parameter: "CN"]
            return Plan(
                data: bytes,
                work: .organize(
                    stored, previous: old, uid: uid, attendees: local, dropped: dropped, remote: remote,
                    droppedRemote: droppedRemote, from: organizer, name: name))
        }
        // An attendee's copy: their answers, if they changed, unless their client answers
        // itself (SCHEDULE-AGENT on the ORGANIZER, RFC 6638 §7.1).
        guard let me = ITIP.attendees(of: object).map(\.address).first(where: mine.contains),
            Self.serverReplies(for: object),
            localUser(organizer, except: user) != nil || (mail != nil && IMIP.bare(organizer) != nil)
        else { return untouched }
        var answers = ITIP.participation(of: me, in: object)
        let before = old.map { ITIP.participation(of: me, in: $0) } ?? [:]
        // An instance the attendee took out of the series (an EXDATE added, Apple's and
        // Thunderbird's "delete this occurrence") is one they decline (§3.2.2.1, §3.2.6).
        if let old {
            for key in ITIP.instancesExcluded(from: old, to: object) where answers[key] == nil {
                answers[key] = "DECLINED"
            }
        }
        // SCHEDULE-FORCE-SEND=REPLY on the ORGANIZER (RFC 6638 §7.3) sends every answer
        // again; the parameter itself is not stored.
        let (stored, forced) = ITIP.takingForcedReply(object)
        let answered =
            forced
            ? answers
            : answers.filter {
                before[$0.key] != $0.value && !(before[$0.key] == nil && $0.value == "NEEDS-ACTION")
            }
        // Answers only for the series and its instances (not for times it does not have).
        let occurring = Self.occurring(Set(answered.keys), in: old ?? object)
        let changed = answered.filter { occurring.contains($0.key) }
        guard !changed.isEmpty else { return forced ? Plan(data: stored.serialized(), work: .none) : untouched }
        // The copy says how the REPLY went (§7.3): delivered to a local organizer, handed
        // to the relay for one outside (5.1 once the relay refuses it).
        let status = localUser(organizer, except: user) != nil ? Self.delivered : Self.sent
        // The mailed REPLY carries the declined instances the copy no longer has.
        let replied = ITIP.applying(
            changed.filter { ITIP.position(of: $0.key, in: stored) == nil }, from: me, to: stored)
        return Plan(
            data: ITIP.settingOrganizerStatus(status, in: stored).serialized(),
            work: .answer(uid: uid, answers: changed, attendee: me, organizer: organizer, object: replied))
    }

    /// Sends what a committed write planned. Each delivery is its own write in the
    /// recipient's store; one that fails (their quota) leaves the others done.
    public func deliver(_ plan: Plan) {
        switch plan.work {
        case .none: return
        case .organize(
            let object, let previous, let uid, let attendees, let dropped, let remote, let droppedRemote, let from,
            let name):
            // Each attendee is sent what they are invited to: the series, or only the
            // instances that list them (RFC 6638 §3.2.6), and a CANCEL for each instance
            // they were taken off.
            var refused: [String] = []
            for attendee in attendees {
                let view = ITIP.view(of: object, for: attendee.address)
                let updated = update(attendee.user, uid: uid, organizer: from, tag: .new) { existing in
                    ITIP.attendeeCopy(of: view, keeping: existing)
                }
                guard updated else {
                    refused.append(attendee.address)
                    continue
                }
                deliverMessage(
                    ITIP.message(.request, view, stamp: now()).serialized(), uid: uid, method: "REQUEST", from: from,
                    to: attendee.user)
                if let previous, let gone = ITIP.instancesTakenOff(attendee.address, from: previous, to: object) {
                    deliverMessage(
                        ITIP.message(.cancel, gone, stamp: now()).serialized(), uid: uid, method: "CANCEL", from: from,
                        to: attendee.user)
                }
            }
            cancel(dropped, uid: uid, object: object, from: from)
            var failed: [String] = []
            for address in remote {
                let view = ITIP.view(of: object, for: address)
                failed += mailTo([address], ITIP.message(.request, view, stamp: now()), from: from, name: name)
                if let previous, let gone = ITIP.instancesTakenOff(address, from: previous, to: object) {
                    failed += mailTo([address], ITIP.message(.cancel, gone, stamp: now()), from: from, name: name)
                }
            }
            failed += mailTo(droppedRemote, ITIP.message(.cancel, object, stamp: now()), from: from, name: name)
            mark(failed, Self.notDelivered, uid: uid, organizer: from)
            mark(refused, Self.noAuthority, uid: uid, organizer: from)
        case .answer(let uid, let answers, let attendee, let organizer, let object):
            if localUser(organizer, except: "") != nil {
                reply(uid: uid, answers: answers, attendee: attendee, organizer: organizer)
            } else if !mailTo(
                [organizer], ITIP.message(.reply, object, attendee: attendee, stamp: now()), from: attendee, name: nil
            ).isEmpty, let user = localUser(attendee, except: "") {
                update(user, uid: uid, organizer: organizer, creating: false, tag: .keep) { existing in
                    existing.map { ITIP.settingOrganizerStatus(Self.notDelivered, in: $0) }
                }
            }
        }
    }

    /// Mails `message` to each of `recipients` (one message each); returns those it
    /// could not be handed to the relay for.
    func mailTo(_ recipients: [String], _ message: Component, from: String, name: String?, title: String? = nil)
        -> [String]
    {
        guard let mail, !recipients.isEmpty else { return [] }
        var failed: [String] = []
        for recipient in recipients {
            guard
                let outgoing = IMIP.compose(message, from: from, name: name, to: [recipient], title: title, now: now())
            else {
                failed.append(recipient)
                continue
            }
            if let error = mail.send(outgoing) {
                SchedulingLog.write("almanac: iMIP mail to \(recipient) failed: \(error)")
                failed.append(recipient)
            }
        }
        return failed
    }

    /// The organizer's copy says which attendees a delivery did not reach, and why
    /// (`status`: 5.1 the mail failed, 3.8 their object of that UID is not the organizer's).
    func mark(_ addresses: [String], _ status: String, uid: String, organizer: String) {
        guard !addresses.isEmpty, let user = localUser(organizer, except: "") else { return }
        let statuses = Dictionary(addresses.map { ($0, status) }, uniquingKeysWith: { first, _ in first })
        update(user, uid: uid, organizer: organizer, creating: false, tag: .keep) { existing in
            existing.map { ITIP.settingScheduleStatus(statuses, in: $0) }
        }
    }

    /// After `user` deleted `data` from `calendar`: an organizer's deletion cancels it
    /// for every local attendee; an attendee's declines it, unless `answering` is false (the
    /// client sent `Schedule-Reply: F`, RFC 6638 §8.1), the organizer's SCHEDULE-AGENT
    /// says the client answers (§7.1), or the organizer had cancelled it already.
    public func deleted(_ data: [UInt8], by user: String, in calendar: EventCalendar, reply answering: Bool = true) {
        guard calendar.access == nil, calendar.subscriptionURL == nil, let object = Self.parse(data),
            let uid = Self.uid(of: object), let organizer = ITIP.organizer(of: object),
            // Another copy in the user's calendars keeps the event (the old copy of a move).
            otherCopy(of: uid, by: user, except: nil) == nil
        else { return }
        withdraw(object, uid: uid, organizer: organizer, by: user, mine: addresses(of: user), answering: answering)
    }

    /// Before `user`'s account is removed: each of their scheduling objects (one per UID)
    /// is withdrawn as a deletion would: cancelled for its attendees where they organize
    /// it, declined to its organizer where they attend. Answers how many it withdrew.
    @discardableResult
    public func withdrawAll(of user: String) -> Int {
        guard let store = try? backend.eventStore(for: user), let calendars = try? store.calendars() else { return 0 }
        let mine = addresses(of: user)
        var seen = Set<String>()
        for calendar in calendars where calendar.access == nil && calendar.subscriptionURL == nil {
            let names = ((try? store.resources(calendar: calendar.id)) ?? []).map(\.name)
            for start in stride(from: 0, to: names.count, by: 200) {
                let batch = Array(names[start..<min(start + 200, names.count)])
                for resource in (try? store.resources(named: batch, calendar: calendar.id)) ?? [] {
                    guard let object = Self.parse(resource.data), let uid = Self.uid(of: object),
                        let organizer = ITIP.organizer(of: object), seen.insert(uid).inserted
                    else { continue }
                    withdraw(object, uid: uid, organizer: organizer, by: user, mine: mine, answering: true)
                }
            }
        }
        return seen.count
    }

    /// What `user` deleting their copy of `object` owes others: its attendees' cancellations
    /// when they organize it, else (when `answering`) a decline to its organizer.
    func withdraw(
        _ object: Component, uid: String, organizer: String, by user: String, mine: Set<String>, answering: Bool
    ) {
        if mine.contains(organizer) {
            let scheduled = ITIP.attendees(of: object).filter {
                $0.scheduleAgent == "SERVER" && !mine.contains($0.address)
            }
            cancel(
                scheduled.compactMap { localUser($0.address, except: user) }, uid: uid, object: object, from: organizer)
            let remote = scheduled.map(\.address).filter { localUser($0, except: user) == nil && IMIP.bare($0) != nil }
            _ = mailTo(remote, ITIP.message(.cancel, object, stamp: now()), from: organizer, name: nil)
        } else if answering, Self.serverReplies(for: object), !Self.isCancelled(object),
            let me = ITIP.attendees(of: object).map(\.address).first(where: mine.contains)
        {
            let answers = ITIP.participation(of: me, in: object).mapValues { _ in "DECLINED" }
            if localUser(organizer, except: user) != nil {
                reply(uid: uid, answers: answers, attendee: me, organizer: organizer)
            } else if mail != nil {
                let declined = ITIP.applying(answers, from: me, to: object)
                _ = mailTo(
                    [organizer], ITIP.message(.reply, declined, attendee: me, stamp: now()), from: me, name: nil)
            }
        }
    }

    // MARK: -

    /// Whether the server sends an attendee's answers for `object`: the SCHEDULE-AGENT of its
    /// ORGANIZER is absent or SERVER (RFC 6638 §7.1).
    static func serverReplies(for object: Component) -> Bool {
        object.components.allSatisfy { component in
            (component.property("ORGANIZER")?[parameter: "SCHEDULE-AGENT"]?.uppercased() ?? "SERVER") == "SERVER"
        }
    }

    /// Whether every component of `object` is cancelled (the organizer cancelled it).
    static func isCancelled(_ object: Component) -> Bool {
        let scheduled = object.components.filter { ITIP.scheduled.contains($0.name) }
        return !scheduled.isEmpty && scheduled.allSatisfy { $0.property("STATUS")?.value.uppercased() == "CANCELLED" }
    }

    /// Cancels the organizer's object in each attendee's copy (one of this organizer's:
    /// another's object of the same UID is left alone) and sends them the CANCEL. A copy
    /// the attendee answered stays, cancelled, so they see what was cancelled; one they
    /// never answered is removed, so invitations made and cancelled again and again fill
    /// nobody's calendar (or quota) but the inbox, which keeps the newest messages.
    func cancel(_ attendees: [String], uid: String, object: Component, from: String) {
        guard !attendees.isEmpty else { return }
        let message = ITIP.message(.cancel, object, stamp: now()).serialized()
        for attendee in attendees {
            let cancelled =
                removeUnanswered(attendee, uid: uid, organizer: from)
                || update(attendee, uid: uid, organizer: from, creating: false, tag: .new) { existing in
                    existing.map(ITIP.cancelled)
                }
            if cancelled { deliverMessage(message, uid: uid, method: "CANCEL", from: from, to: attendee) }
        }
    }

    /// Removes `user`'s copy of `uid` when `organizer` organizes it and the user never
    /// answered it (every PARTSTAT of theirs NEEDS-ACTION); whether it did.
    func removeUnanswered(_ user: String, uid: String, organizer: String) -> Bool {
        guard let store = try? backend.eventStore(for: user), let existing = try? store.ownResource(withUID: uid),
            let copy = Self.parse(existing.resource.data), sameOrganizer(ITIP.organizer(of: copy), organizer)
        else { return false }
        let mine = addresses(of: user)
        let answers = ITIP.attendees(of: copy).map(\.address).filter(mine.contains).flatMap {
            ITIP.participation(of: $0, in: copy).values
        }
        guard answers.allSatisfy({ $0 == "NEEDS-ACTION" }) else { return false }
        do throws(StoreError) {
            try store.deleteResource(
                named: existing.resource.name, calendar: existing.calendar.id, ifMatch: existing.resource.etag)
            return true
        } catch {
            return false
        }
    }

    /// Applies `attendee`'s answers to the organizer's object and puts the REPLY in the
    /// organizer's inbox, when the organizer's object of `uid` is theirs and invites the
    /// attendee (RFC 6638 §4.2: a reply to anything else is ignored).
    func reply(uid: String, answers: [String?: String], attendee: String, organizer address: String) {
        guard let organizer = localUser(address, except: "") else { return }
        var replied: Component?
        update(organizer, uid: uid, organizer: address, creating: false, tag: .keep) { existing in
            guard let existing, !ITIP.participation(of: attendee, in: existing).isEmpty else { return nil }
            let updated = ITIP.applying(answers, from: attendee, to: existing)
            replied = updated
            return updated
        }
        guard let replied else { return }
        let message = ITIP.message(.reply, replied, attendee: attendee, stamp: now()).serialized()
        deliverMessage(message, uid: uid, method: "REPLY", from: attendee, to: organizer)
    }

    /// Rewrites `user`'s copy of `uid` with `change` (given their copy, or nil): in place
    /// when they have one, else (when `creating`) in their default calendar. A copy that
    /// `organizer` does not organize (another's invitation, or the user's own event of
    /// that UID) is never given to `change`, and the write is conditional on the version
    /// read (a concurrent write makes it read again, a few times at most). Returns false
    /// when the copy is someone else's or the write failed, true otherwise.
    @discardableResult
    func update(
        _ user: String, uid: String, organizer: String, creating: Bool = true, tag: ScheduleTagChange,
        with change: (Component?) -> Component?
    ) -> Bool {
        for attempt in 1...Self.updateAttempts {
            do throws(StoreError) {
                let store = try backend.eventStore(for: user)
                let existing = try store.ownResource(withUID: uid)
                let parsed = existing.flatMap { Self.parse($0.resource.data) }
                if existing != nil, !sameOrganizer(parsed.flatMap(ITIP.organizer(of:)), organizer) {
                    SchedulingLog.write(
                        "almanac: \(organizer) may not change \(user)'s object \(uid): another organizer's, or their own (3.8)"
                    )
                    return false
                }
                guard let updated = change(parsed) else { return true }
                let bytes = updated.serialized()
                if let existing {
                    guard bytes != existing.resource.data else { return true }
                    _ = try store.writeResource(
                        bytes, name: existing.resource.name, calendar: existing.calendar.id,
                        ifMatch: existing.resource.etag, ifNoneMatch: false, scheduleTag: tag, ifScheduleTagMatch: nil)
                } else if creating {
                    let calendar = try store.defaultSchedulingCalendar()
                    _ = try store.writeResource(
                        bytes, name: ResourceNames.forUID(uid), calendar: calendar.id, ifMatch: nil, ifNoneMatch: true,
                        scheduleTag: tag, ifScheduleTagMatch: nil)
                }
                return true
            } catch  where error.code == .preconditionFailed && attempt < Self.updateAttempts {
                continue  // written meanwhile: read the new version
            } catch {
                error.logDetails()
                return false
            }
        }
        return false
    }

    /// How often a delivery reads and writes a copy that keeps being written meanwhile.
    static let updateAttempts = 5

    func deliverMessage(_ data: [UInt8], uid: String, method: String, from: String, to user: String) {
        do throws(StoreError) {
            _ = try backend.scheduling.deliver(data, uid: uid, method: method, sender: from, to: user, now: now())
        } catch {
            error.logDetails()
        }
    }

    // MARK: Answers by mail

    /// Why an iMIP message was not applied.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Takes an iTIP message that came by mail (an RFC 5322 message with a
    /// `text/calendar` part), matched by UID and checked against who sent it; with
    /// `user`, the local party it concerns must be that user. Returns what was done, for the log.
    /// - REPLY (from an attendee the organizer invited): applied to the organizer's copy
    ///   and put in their inbox.
    /// - COUNTER (from such an attendee): put in the organizer's inbox as a proposal
    ///   (``proposals(for:uid:)``); the event does not change until it is accepted.
    /// - REFRESH (from such an attendee): the organizer's current version is mailed back
    ///   as a REQUEST.
    /// - DECLINECOUNTER (from the organizer outside the server, to a local attendee): put
    ///   in the attendee's inbox.
    public func receive(_ message: [UInt8], for user: String?) throws(Refusal) -> String {
        let read = IMIP.read(message)
        guard let sender = read.sender else { throw Refusal("the message has no From address") }
        guard let data = read.calendar, let calendar = Self.parse(data) else {
            throw Refusal("the message has no text/calendar part")
        }
        let method = calendar.property("METHOD")?.value.uppercased() ?? "none"
        guard let uid = Self.uid(of: calendar), let organizer = ITIP.organizer(of: calendar) else {
            throw Refusal("the \(method) names no UID or ORGANIZER")
        }
        let from = "mailto:" + sender
        if method == ITIP.Method.declineCounter.rawValue {
            return try declinedByMail(data, calendar, uid: uid, organizer: organizer, sender: sender, for: user)
        }
        guard [ITIP.Method.reply, .counter, .refresh].map(\.rawValue).contains(method) else {
            throw Refusal("METHOD:\(method) is not taken by mail (REPLY, COUNTER, REFRESH and DECLINECOUNTER are)")
        }
        guard let owner = localUser(organizer, except: "") else {
            throw Refusal("\(organizer) is not a user of this server")
        }
        if let user, user != owner { throw Refusal("the \(method) is to \(organizer), not to you") }
        var answers = ITIP.participation(of: from, in: calendar)
        guard !answers.isEmpty else {
            throw Refusal("the sender \(sender) is not the attendee the \(method) is from")
        }
        guard let store = try? backend.eventStore(for: owner), let existing = try? store.ownResource(withUID: uid),
            let copy = Self.parse(existing.resource.data)
        else { throw Refusal("\(owner) has no event \(uid)") }
        // The owner's object of that UID must be the one they organize, not another
        // organizer's invitation or an event of their own (RFC 6638 §4.2).
        guard sameOrganizer(ITIP.organizer(of: copy), organizer) else {
            throw Refusal("\(owner) does not organize an event \(uid)")
        }
        guard !ITIP.participation(of: from, in: copy).isEmpty else {
            throw Refusal("\(sender) was not invited to \(uid)")
        }
        // Only the series and its instances are answered or moved.
        let occurring = Self.occurring(Set(answers.keys), in: copy)
        answers = answers.filter { occurring.contains($0.key) }
        guard !answers.isEmpty else { throw Refusal("the \(method) is for no occurrence of \(uid)") }
        switch method {
        case ITIP.Method.counter.rawValue:
            guard let proposal = ITIP.proposal(in: calendar),
                ITIP.accepting(proposal, of: calendar, from: from, partstat: nil, into: copy) != nil
            else { throw Refusal("the COUNTER proposes no time for an occurrence of \(uid)") }
            deliverMessage(data, uid: uid, method: method, from: from, to: owner)
            return "\(sender) proposed \(proposal.start.value) for \(uid)"
        case ITIP.Method.refresh.rawValue:
            guard mail != nil else { throw Refusal("the server has no mail relay to send the current version with") }
            let request = ITIP.message(.request, copy, stamp: now())
            let name = copy.components.first { ITIP.scheduled.contains($0.name) }?.property("ORGANIZER")?[
                parameter: "CN"]
            guard mailTo([from], request, from: organizer, name: name).isEmpty else {
                throw Refusal("the current version could not be handed to the relay")
            }
            return "sent \(sender) the current version of \(uid)"
        default:
            let updated = ITIP.applying(answers, from: from, to: copy)
            do throws(StoreError) {
                _ = try store.writeResource(
                    updated.serialized(), name: existing.resource.name, calendar: existing.calendar.id,
                    ifMatch: existing.resource.etag, ifNoneMatch: false, scheduleTag: .keep, ifScheduleTagMatch: nil)
            } catch {
                throw Refusal("the answer could not be stored: \(error.message)")
            }
            deliverMessage(data, uid: uid, method: method, from: from, to: owner)
            let summary = answers.sorted { ($0.key ?? "") < ($1.key ?? "") }.map {
                ($0.key ?? "series") + " " + $0.value
            }
            return "\(sender) answered \(uid): " + summary.joined(separator: ", ")
        }
    }

    /// A DECLINECOUNTER by mail: from the organizer of a local attendee's copy, to their inbox.
    func declinedByMail(
        _ data: [UInt8], _ calendar: Component, uid: String, organizer: String, sender: String, for user: String?
    ) throws(Refusal) -> String {
        guard IMIP.bare(organizer) == sender else {
            throw Refusal("the DECLINECOUNTER is from \(sender), not from the organizer \(organizer)")
        }
        let named = ITIP.attendees(of: calendar).compactMap { localUser($0.address, except: "") }
        guard let attendee = named.first(where: { user == nil || $0 == user }) else {
            throw Refusal("the DECLINECOUNTER names no attendee \(user.map { "\($0) " } ?? "")of this server")
        }
        guard let store = try? backend.eventStore(for: attendee), let existing = try? store.ownResource(withUID: uid),
            let copy = Self.parse(existing.resource.data), sameOrganizer(ITIP.organizer(of: copy), organizer)
        else { throw Refusal("\(attendee) has no invitation \(uid) from \(organizer)") }
        deliverMessage(data, uid: uid, method: ITIP.Method.declineCounter.rawValue, from: organizer, to: attendee)
        return "\(sender) declined \(attendee)'s proposal for \(uid)"
    }
}

/// Where scheduling and mail say what went wrong without failing the request (standard error).
public enum SchedulingLog {
    public static func write(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = Foundation.write(2, bytes.baseAddress, bytes.count) }
    }
}
