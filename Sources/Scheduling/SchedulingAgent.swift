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

    /// What a write will send, found before it is stored.
    public struct Plan: Sendable {
        /// The bytes to store (the sent ones unless the server set SCHEDULE-STATUS).
        public var data: [UInt8]
        var work: Work

        enum Work: Sendable {
            case none
            /// The organizer wrote: the object, the local attendees to update and those
            /// dropped (user names), the addresses outside the server to mail and those dropped.
            case organize(
                Component, uid: String, attendees: [String], dropped: [String], remote: [String],
                droppedRemote: [String], from: String, name: String?)
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

    static func parse(_ data: [UInt8]) -> Component? {
        (try? ICalendarParser.parse(data, options: .lenient))?.components.first { $0.name == "VCALENDAR" }
    }

    static func uid(of calendar: Component) -> String? {
        calendar.components.first { ITIP.scheduled.contains($0.name) }?.property("UID")?.value
    }

    /// Reads what `user` is about to store in `calendar` (replacing `previous`, if any):
    /// who is to be told. Writes into calendars not the user's own (shared, subscribed)
    /// schedule nothing.
    public func prepare(_ data: [UInt8], previous: [UInt8]?, by user: String, in calendar: EventCalendar) -> Plan {
        let untouched = Plan(data: data, work: .none)
        let old = previous.flatMap(Self.parse)
        // An object whose organizer removed every attendee (and so the ORGANIZER) still
        // cancels for them: the organizer is the old one's.
        guard calendar.access == nil, calendar.subscriptionURL == nil, let object = Self.parse(data),
            let uid = Self.uid(of: object),
            let organizer = ITIP.organizer(of: object) ?? old.flatMap(ITIP.organizer(of:))
        else { return untouched }
        let mine = addresses(of: user)
        if mine.contains(organizer) {
            let wanted = ITIP.attendees(of: object).filter {
                $0.scheduleAgent == "SERVER" && !mine.contains($0.address)
            }
            guard !wanted.isEmpty || old != nil else { return untouched }
            var statuses: [String: String] = [:]
            var local: [String] = []
            var remote: [String] = []
            for attendee in wanted {
                if let name = localUser(attendee.address, except: user) {
                    statuses[attendee.address] = Self.delivered
                    local.append(name)
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
            let stored = ITIP.settingScheduleStatus(statuses, in: object)
            let bytes = stored == object ? data : stored.serialized()
            let name = object.components.first { ITIP.scheduled.contains($0.name) }?.property("ORGANIZER")?[
                parameter: "CN"]
            return Plan(
                data: bytes,
                work: .organize(
                    stored, uid: uid, attendees: local, dropped: dropped, remote: remote, droppedRemote: droppedRemote,
                    from: organizer, name: name))
        }
        // An attendee's copy: their answers, if they changed.
        guard let me = ITIP.attendees(of: object).map(\.address).first(where: mine.contains),
            localUser(organizer, except: user) != nil || (mail != nil && IMIP.bare(organizer) != nil)
        else { return untouched }
        let answers = ITIP.participation(of: me, in: object)
        let before = old.map { ITIP.participation(of: me, in: $0) } ?? [:]
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
        return Plan(
            data: forced ? stored.serialized() : data,
            work: .answer(uid: uid, answers: changed, attendee: me, organizer: organizer, object: stored))
    }

    /// Sends what a committed write planned. Each delivery is its own write in the
    /// recipient's store; one that fails (their quota) leaves the others done.
    public func deliver(_ plan: Plan) {
        switch plan.work {
        case .none: return
        case .organize(
            let object, let uid, let attendees, let dropped, let remote, let droppedRemote, let from, let name):
            let message = ITIP.message(.request, object, stamp: now())
            let request = message.serialized()
            for attendee in attendees {
                update(attendee, uid: uid, tag: .new) { existing in ITIP.attendeeCopy(of: object, keeping: existing) }
                deliverMessage(request, uid: uid, method: "REQUEST", from: from, to: attendee)
            }
            cancel(dropped, uid: uid, object: object, from: from)
            var failed = mailTo(remote, message, from: from, name: name)
            failed += mailTo(droppedRemote, ITIP.message(.cancel, object, stamp: now()), from: from, name: name)
            markUndelivered(failed, uid: uid, organizer: from)
        case .answer(let uid, let answers, let attendee, let organizer, let object):
            if localUser(organizer, except: "") != nil {
                reply(uid: uid, answers: answers, attendee: attendee, organizer: organizer)
            } else {
                _ = mailTo(
                    [organizer], ITIP.message(.reply, object, attendee: attendee, stamp: now()), from: attendee,
                    name: nil)
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

    /// The organizer's copy says which attendees the mail did not reach (5.1).
    func markUndelivered(_ addresses: [String], uid: String, organizer: String) {
        guard !addresses.isEmpty, let user = localUser(organizer, except: "") else { return }
        let statuses = Dictionary(addresses.map { ($0, Self.notDelivered) }, uniquingKeysWith: { first, _ in first })
        update(user, uid: uid, creating: false, tag: .keep) { existing in
            existing.map { ITIP.settingScheduleStatus(statuses, in: $0) }
        }
    }

    /// After `user` deleted `data` from `calendar`: an organizer's deletion cancels it
    /// for every local attendee; an attendee's declines it.
    public func deleted(_ data: [UInt8], by user: String, in calendar: EventCalendar) {
        guard calendar.access == nil, calendar.subscriptionURL == nil, let object = Self.parse(data),
            let uid = Self.uid(of: object), let organizer = ITIP.organizer(of: object)
        else { return }
        let mine = addresses(of: user)
        if mine.contains(organizer) {
            let scheduled = ITIP.attendees(of: object).filter {
                $0.scheduleAgent == "SERVER" && !mine.contains($0.address)
            }
            cancel(
                scheduled.compactMap { localUser($0.address, except: user) }, uid: uid, object: object, from: organizer)
            let remote = scheduled.map(\.address).filter { localUser($0, except: user) == nil && IMIP.bare($0) != nil }
            _ = mailTo(remote, ITIP.message(.cancel, object, stamp: now()), from: organizer, name: nil)
        } else if let me = ITIP.attendees(of: object).map(\.address).first(where: mine.contains) {
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

    func cancel(_ attendees: [String], uid: String, object: Component, from: String) {
        guard !attendees.isEmpty else { return }
        let message = ITIP.message(.cancel, object, stamp: now()).serialized()
        for attendee in attendees {
            update(attendee, uid: uid, creating: false, tag: .new) { existing in existing.map(ITIP.cancelled) }
            deliverMessage(message, uid: uid, method: "CANCEL", from: from, to: attendee)
        }
    }

    func reply(uid: String, answers: [String?: String], attendee: String, organizer address: String) {
        guard let organizer = localUser(address, except: "") else { return }
        var replied: Component?
        update(organizer, uid: uid, creating: false, tag: .keep) { existing in
            guard let existing else { return nil }
            let updated = ITIP.applying(answers, from: attendee, to: existing)
            replied = updated
            return updated
        }
        guard let replied else { return }
        let message = ITIP.message(.reply, replied, attendee: attendee, stamp: now()).serialized()
        deliverMessage(message, uid: uid, method: "REPLY", from: attendee, to: organizer)
    }

    /// Rewrites `user`'s copy of `uid` with `change` (given their copy, or nil): in place
    /// when they have one, else (when `creating`) in their default calendar.
    func update(
        _ user: String, uid: String, creating: Bool = true, tag: ScheduleTagChange,
        with change: (Component?) -> Component?
    ) {
        do throws(StoreError) {
            let store = try backend.eventStore(for: user)
            let existing = try store.ownResource(withUID: uid)
            guard let updated = change(existing.flatMap { Self.parse($0.resource.data) }) else { return }
            let bytes = updated.serialized()
            if let existing {
                guard bytes != existing.resource.data else { return }
                _ = try store.writeResource(
                    bytes, name: existing.resource.name, calendar: existing.calendar.id, ifMatch: nil,
                    ifNoneMatch: false, scheduleTag: tag, ifScheduleTagMatch: nil)
            } else if creating {
                let calendar = try store.defaultSchedulingCalendar()
                _ = try store.writeResource(
                    bytes, name: ResourceNames.forUID(uid), calendar: calendar.id, ifMatch: nil, ifNoneMatch: false,
                    scheduleTag: tag, ifScheduleTagMatch: nil)
            }
        } catch {
            error.logDetails()
        }
    }

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
            Self.parse(existing.resource.data).flatMap(ITIP.organizer(of:)) == organizer
        else { throw Refusal("\(attendee) has no invitation \(uid) from \(organizer)") }
        deliverMessage(data, uid: uid, method: ITIP.Method.declineCounter.rawValue, from: organizer, to: attendee)
        return "\(sender) declined \(attendee)'s proposal for \(uid)"
    }
}

/// Where scheduling says what went wrong without failing the request (standard error).
enum SchedulingLog {
    static func write(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = Foundation.write(2, bytes.baseAddress, bytes.count) }
    }
}
