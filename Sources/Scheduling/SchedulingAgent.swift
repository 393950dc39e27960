import CalendarStore
import CivilTime
import ICalendar

/// Implicit scheduling between the users of one server (RFC 6638 §3.2): what a user's
/// write of a scheduling object sends, delivered into the other users' calendars and
/// inboxes. An organizer's write updates every local attendee's copy (in their default
/// calendar the first time) and their inbox gets the REQUEST; attendees dropped from
/// it, or all of them when the organizer deletes it, get a CANCEL and a cancelled
/// copy. An attendee's changed answer (PARTSTAT, for the series or one instance), or
/// their deletion of the copy (declined), is applied to the organizer's copy and the
/// organizer's inbox gets the REPLY. Attendees the server has no user for cannot be
/// reached yet: their SCHEDULE-STATUS says so (5.1).
///
/// An interface calls ``prepare(_:by:in:)`` before it stores what a user wrote (it
/// returns the bytes to store: the organizer's copy with SCHEDULE-STATUS set), then
/// ``deliver(_:)`` once the write committed; ``deleted(_:by:in:)`` after a deletion.
public struct SchedulingAgent: Sendable {
    let backend: any StoreBackend
    let now: @Sendable () -> Int

    public init(backend: any StoreBackend, now: @escaping @Sendable () -> Int) {
        self.backend = backend
        self.now = now
    }

    /// SCHEDULE-STATUS values (RFC 6638 §3.2.9).
    public static let delivered = "1.2"
    public static let notDelivered = "5.1"

    /// What a write will send, found before it is stored.
    public struct Plan: Sendable {
        /// The bytes to store (the sent ones unless the server set SCHEDULE-STATUS).
        public var data: [UInt8]
        var work: Work

        enum Work: Sendable {
            case none
            /// The organizer wrote: the object, the local attendees to update, those dropped.
            case organize(Component, uid: String, attendees: [String], dropped: [String], from: String)
            /// An attendee changed their answers.
            case answer(uid: String, answers: [String?: String], attendee: String, organizer: String)
        }

        /// Whether the write schedules anything.
        public var schedules: Bool {
            if case .none = work { false } else { true }
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
        guard calendar.access == nil, calendar.subscriptionURL == nil, let object = Self.parse(data),
            let uid = Self.uid(of: object), let organizer = ITIP.organizer(of: object)
        else { return untouched }
        let mine = addresses(of: user)
        let old = previous.flatMap(Self.parse)
        if mine.contains(organizer) {
            let wanted = ITIP.attendees(of: object).filter {
                $0.scheduleAgent == "SERVER" && !mine.contains($0.address)
            }
            guard !wanted.isEmpty || old != nil else { return untouched }
            var statuses: [String: String] = [:]
            var local: [String] = []
            for attendee in wanted {
                if let name = localUser(attendee.address, except: user) {
                    statuses[attendee.address] = Self.delivered
                    local.append(name)
                } else {
                    statuses[attendee.address] = Self.notDelivered
                }
            }
            let now = Set(wanted.map(\.address))
            let dropped = (old.map(ITIP.attendees(of:)) ?? []).map(\.address).filter { !now.contains($0) }
                .compactMap { localUser($0, except: user) }
            let stored = ITIP.settingScheduleStatus(statuses, in: object)
            let bytes = stored == object ? data : stored.serialized()
            return Plan(
                data: bytes,
                work: .organize(stored, uid: uid, attendees: local, dropped: dropped, from: organizer))
        }
        // An attendee's copy: their answers, if they changed.
        guard let me = ITIP.attendees(of: object).map(\.address).first(where: mine.contains),
            localUser(organizer, except: user) != nil
        else { return untouched }
        let answers = ITIP.participation(of: me, in: object)
        let before = old.map { ITIP.participation(of: me, in: $0) } ?? [:]
        let changed = answers.filter {
            before[$0.key] != $0.value && !(before[$0.key] == nil && $0.value == "NEEDS-ACTION")
        }
        guard !changed.isEmpty else { return untouched }
        return Plan(data: data, work: .answer(uid: uid, answers: changed, attendee: me, organizer: organizer))
    }

    /// Sends what a committed write planned. Each delivery is its own write in the
    /// recipient's store; one that fails (their quota) leaves the others done.
    public func deliver(_ plan: Plan) {
        switch plan.work {
        case .none: return
        case .organize(let object, let uid, let attendees, let dropped, let from):
            let request = ITIP.message(.request, object, stamp: now()).serialized()
            for attendee in attendees {
                update(attendee, uid: uid, with: { existing in ITIP.attendeeCopy(of: object, keeping: existing) })
                deliverMessage(request, uid: uid, method: "REQUEST", from: from, to: attendee)
            }
            cancel(dropped, uid: uid, object: object, from: from)
        case .answer(let uid, let answers, let attendee, let organizer):
            reply(uid: uid, answers: answers, attendee: attendee, organizer: organizer)
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
            let attendees = ITIP.attendees(of: object).filter { $0.scheduleAgent == "SERVER" }
                .compactMap { localUser($0.address, except: user) }
            cancel(attendees, uid: uid, object: object, from: organizer)
        } else if let me = ITIP.attendees(of: object).map(\.address).first(where: mine.contains),
            localUser(organizer, except: user) != nil
        {
            let answers = ITIP.participation(of: me, in: object).mapValues { _ in "DECLINED" }
            reply(uid: uid, answers: answers, attendee: me, organizer: organizer)
        }
    }

    // MARK: -

    func cancel(_ attendees: [String], uid: String, object: Component, from: String) {
        guard !attendees.isEmpty else { return }
        let message = ITIP.message(.cancel, object, stamp: now()).serialized()
        for attendee in attendees {
            update(attendee, uid: uid, creating: false, with: { existing in existing.map(ITIP.cancelled) })
            deliverMessage(message, uid: uid, method: "CANCEL", from: from, to: attendee)
        }
    }

    func reply(uid: String, answers: [String?: String], attendee: String, organizer address: String) {
        guard let organizer = localUser(address, except: "") else { return }
        var replied: Component?
        update(organizer, uid: uid, creating: false) { existing in
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
    func update(_ user: String, uid: String, creating: Bool = true, with change: (Component?) -> Component?) {
        do throws(StoreError) {
            let store = try backend.eventStore(for: user)
            let existing = try store.ownResource(withUID: uid)
            guard let updated = change(existing.flatMap { Self.parse($0.resource.data) }) else { return }
            let bytes = updated.serialized()
            if let existing {
                guard bytes != existing.resource.data else { return }
                _ = try store.writeResource(
                    bytes, name: existing.resource.name, calendar: existing.calendar.id, ifMatch: nil,
                    ifNoneMatch: false)
            } else if creating {
                let calendar = try store.defaultSchedulingCalendar()
                _ = try store.writeResource(
                    bytes, name: ResourceNames.forUID(uid), calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
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
}
