import CivilTime
import ICalendar
import Recurrence

/// What dismissing an alarm writes into it (RFC 9074), as a client on a phone would.
public enum AlarmDismissal: Sendable, Hashable {
    /// `ACKNOWLEDGED` set to this instant (Unix seconds): every firing of the alarm due
    /// up to it is done.
    case acknowledge(at: Int)
    /// Acknowledged at `at`, and a snooze alarm added beside it that fires at `until`
    /// (`RELATED-TO;RELTYPE=SNOOZE` naming the alarm, an absolute trigger), replacing an
    /// earlier snooze of it.
    case snooze(until: Int, at: Int)
}

extension DatabaseEventStore {
    /// See ``EventStore/dismissAlarm(_:ofEvent:recurrenceID:_:ifMatch:)``.
    public func dismissAlarm(
        _ alarmUID: String, ofEvent identifier: String, recurrenceID: OccurrenceTime?, _ dismissal: AlarmDismissal,
        ifMatch: String?
    ) throws(StoreError) -> Event {
        try database.write { (connection) throws(StoreError) -> Event in
            let (object, row) = try locate(identifier, write: true, connection)
            try StoreError.checkIfMatch(ifMatch, current: object.etag, resource: identifier)
            var editing = SeriesEditing(try CalendarObject(parsing: object.data, resource: object.name))
            var members = editing.members
            // The component the alarm is in: the instance's override when it has one, else the master.
            let instanceKey = recurrenceID.map { editing.key(of: $0) }
            let index =
                members.firstIndex { member in instanceKey != nil && editing.overrideKey(member) == instanceKey }
                ?? members.firstIndex { $0.property("RECURRENCE-ID") == nil } ?? 0
            guard members.indices.contains(index) else {
                throw StoreError(.notFound, "event \(identifier) has no alarm \(alarmUID)", resource: identifier)
            }
            var member = members[index]
            let memberKey = editing.overrideKey(member).map { editing.occurrenceTime(forKey: $0).text } ?? ""
            var alarms = member.components.enumerated().filter { $0.element.name == "VALARM" }.map { entry in
                (index: entry.offset, alarm: Alarm(component: entry.element))
            }
            for position in alarms.indices {
                let uid = AlarmIdentity.uid(
                    of: alarms[position].alarm, eventUID: editing.uid, recurrenceID: memberKey, position: position)
                // An alarm read by its derived name gets that name written into it.
                if alarms[position].alarm.uid == nil { alarms[position].alarm.uid = uid }
            }
            guard var target = alarms.first(where: { $0.alarm.uid == alarmUID }) else {
                throw StoreError(
                    .notFound, "event \(identifier) has no alarm \(alarmUID) in that occurrence", resource: identifier)
            }
            var removed: Set<Int> = []
            if case .snooze = dismissal, let original = target.alarm.snoozedAlarm,
                let snoozed = alarms.first(where: { $0.alarm.uid == original })
            {
                // Snoozing a snooze: it goes, and the original is snoozed again (RFC 9074 §7).
                removed.insert(target.index)
                target = snoozed
            }
            let (at, until): (Int, Int?) =
                switch dismissal {
                case .acknowledge(let at): (at, nil)
                case .snooze(let until, let at): (at, until)
                }
            target.alarm.acknowledged = max(target.alarm.acknowledged ?? at, at)
            var added: [Component] = []
            if let until, let originalUID = target.alarm.uid {
                for entry in alarms where entry.alarm.snoozedAlarm == originalUID { removed.insert(entry.index) }
                var snooze = target.alarm
                for name in ["UID", "TRIGGER", "REPEAT", "DURATION", "ACKNOWLEDGED", "RELATED-TO"] {
                    snooze.component.removeProperties(named: name)
                }
                snooze.uid = Identifiers.newUUID()
                snooze.trigger = .absolute(until)
                snooze.component.properties.append(
                    Property(
                        name: "RELATED-TO", parameters: [Parameter(name: "RELTYPE", value: "SNOOZE")],
                        value: originalUID))
                added.append(snooze.component)
            }
            // Written back in place: the alarms keep their order, so derived names stay.
            var components: [Component] = []
            for (offset, component) in member.components.enumerated() where !removed.contains(offset) {
                if offset == target.index {
                    components.append(target.alarm.component)
                } else if let entry = alarms.first(where: { $0.index == offset }) {
                    components.append(entry.alarm.component)
                } else {
                    components.append(component)
                }
            }
            member.components = components + added
            member = Self.stamped(member, isNew: false)
            members[index] = member
            editing.replaceMembers(members)
            let written = try write(editing.calendar, name: object.name, into: row, connection)
            return try event(from: written, calendar: row)
        }
    }
}
