import CivilTime
import ICalendar

/// iTIP (RFC 5546) on calendar object resources, as RFC 6638's implicit scheduling uses
/// it: who organizes an object and who attends it, the message an organizer's write or
/// an attendee's answer sends (REQUEST, CANCEL, REPLY), an attendee's proposal of
/// another time (COUNTER) and its refusal (DECLINECOUNTER), an attendee's request for
/// the current version (REFRESH), the attendee's copy of an organizer's object, and
/// answers and accepted proposals applied to the organizer's copy — for the whole series
/// or one instance of it. Values in, values out: the server decides who gets what.
public enum ITIP {
    public enum Method: String, Sendable {
        case request = "REQUEST"
        case cancel = "CANCEL"
        case reply = "REPLY"
        case counter = "COUNTER"
        case declineCounter = "DECLINECOUNTER"
        case refresh = "REFRESH"
    }

    /// The components of an object that scheduling concerns (not VTIMEZONE).
    public static let scheduled: Set<String> = ["VEVENT", "VTODO"]

    /// A calendar user address as compared: `mailto:` addresses lowercased whole, with
    /// the scheme in lower case; anything else as written.
    public static func address(_ value: String) -> String {
        let trimmed = value.trimmingSpaces
        return trimmed.lowercased().hasPrefix("mailto:") ? trimmed.lowercased() : trimmed
    }

    /// The organizer's address (of the first component that names one), or nil.
    public static func organizer(of calendar: Component) -> String? {
        for component in calendar.components where scheduled.contains(component.name) {
            if let organizer = component.property("ORGANIZER") { return address(organizer.value) }
        }
        return nil
    }

    /// One attendee of an object, as the organizer's copy names them.
    public struct Attendee: Sendable, Hashable {
        public var address: String
        /// `SERVER` (the default) or `CLIENT`/`NONE`: whether the server schedules them.
        public var scheduleAgent: String
        public var commonName: String?
    }

    /// Every attendee of any component (the master or an instance), each once, in order;
    /// the organizer is left out (clients list them as an attendee too).
    public static func attendees(of calendar: Component) -> [Attendee] {
        let organizer = organizer(of: calendar)
        var seen = Set<String>()
        var found: [Attendee] = []
        for component in calendar.components where scheduled.contains(component.name) {
            for property in component.properties(named: "ATTENDEE") {
                let who = address(property.value)
                guard who != organizer, seen.insert(who).inserted else { continue }
                found.append(
                    Attendee(
                        address: who, scheduleAgent: property[parameter: "SCHEDULE-AGENT"]?.uppercased() ?? "SERVER",
                        commonName: property[parameter: "CN"]))
            }
        }
        return found
    }

    /// What `attendee` answered in each component that lists them: by RECURRENCE-ID
    /// value (nil for the master), their PARTSTAT (NEEDS-ACTION when none is given).
    public static func participation(of attendee: String, in calendar: Component) -> [String?: String] {
        var answers: [String?: String] = [:]
        for component in calendar.components where scheduled.contains(component.name) {
            guard
                let property = component.properties(named: "ATTENDEE").first(where: { address($0.value) == attendee })
            else { continue }
            answers[component.property("RECURRENCE-ID")?.value] =
                property[parameter: "PARTSTAT"]?.uppercased() ?? "NEEDS-ACTION"
        }
        return answers
    }

    /// The iTIP message of `method` for an object: a VCALENDAR with METHOD.
    /// - REQUEST: the organizer's components without the parameters only the server
    ///   and the organizer's client use (SCHEDULE-STATUS, SCHEDULE-FORCE-SEND) and without
    ///   the organizer's alarms, DTSTAMP the time of the message.
    /// - CANCEL: each component marked cancelled, its SEQUENCE one higher.
    /// - REPLY (for `attendee`): each component that lists them, holding only what a
    ///   reply carries (RFC 5546 §3.2.3): UID, RECURRENCE-ID, DTSTAMP, DTSTART, SEQUENCE,
    ///   ORGANIZER and that attendee with their PARTSTAT.
    /// - REFRESH and DECLINECOUNTER (for `attendee`, who asks, or whose proposal is
    ///   declined): the same without DTSTART (§3.2.6, §3.2.8), REFRESH without SEQUENCE.
    /// - COUNTER: see ``counter(_:instance:start:end:comment:attendee:stamp:)``.
    public static func message(_ method: Method, _ calendar: Component, attendee: String? = nil, stamp: Int)
        -> Component
    {
        let dtstamp = Property(
            name: "DTSTAMP", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: stamp), form: .utc))
        var members: [Component] = []
        for component in calendar.components {
            guard scheduled.contains(component.name) else {
                if component.name == "VTIMEZONE" { members.append(component) }
                continue
            }
            switch method {
            case .request, .counter:
                // DTSTAMP is when the message was made (RFC 5545 §3.8.7.2 with METHOD), which
                // orders messages of one SEQUENCE (RFC 5546 §2.1.5).
                var copy = withoutServerParameters(component)
                copy.components.removeAll { $0.name == "VALARM" }
                copy.setProperty(dtstamp)
                members.append(copy)
            case .cancel:
                var copy = withoutServerParameters(component)
                copy.components.removeAll { $0.name == "VALARM" }
                copy.setProperty(Property(name: "STATUS", value: "CANCELLED"))
                copy.setProperty(Property(name: "SEQUENCE", value: String(sequence(of: component) + 1)))
                copy.setProperty(dtstamp)
                members.append(copy)
            case .reply, .refresh, .declineCounter:
                guard let attendee,
                    let answer = component.properties(named: "ATTENDEE").first(where: { address($0.value) == attendee })
                else { continue }
                var reply = Component(name: component.name)
                let carried =
                    switch method {
                    case .refresh: ["UID", "RECURRENCE-ID", "ORGANIZER"]
                    case .declineCounter: ["UID", "RECURRENCE-ID", "SEQUENCE", "ORGANIZER"]
                    default: ["UID", "RECURRENCE-ID", "DTSTART", "SEQUENCE", "ORGANIZER"]
                    }
                for name in carried {
                    if let property = component.property(name) { reply.properties.append(property) }
                }
                reply.properties.insert(dtstamp, at: min(1, reply.properties.count))
                var answered = answer
                answered[parameter: "RSVP"] = nil
                reply.properties.append(answered)
                reply = withoutServerParameters(reply)
                members.append(reply)
            }
        }
        return Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
                Property(name: "METHOD", value: method.rawValue),
            ], components: members)
    }

    /// An attendee's COUNTER (RFC 5546 §3.2.7) from their copy: the series (or, with
    /// `instance`, the RECURRENCE-ID value of one occurrence) as it is, proposed at
    /// `start`–`end`, with `comment`; nil when the copy has no such component or
    /// instance, or the attendee is not in it. The COUNTER carries the VTIMEZONEs of the copy.
    public static func counter(
        _ copy: Component, instance: String?, start: Property, end: Property, comment: String?, attendee: String,
        stamp: Int
    ) -> Component? {
        guard var component = component(of: copy, at: instance),
            component.properties(named: "ATTENDEE").contains(where: { address($0.value) == attendee })
        else { return nil }
        component.removeProperties(named: "RRULE")
        component.removeProperties(named: "RDATE")
        component.removeProperties(named: "EXDATE")
        component.removeProperties(named: "DURATION")
        component.setProperty(Property(name: "DTSTART", parameters: start.parameters, value: start.value))
        component.setProperty(Property(name: "DTEND", parameters: end.parameters, value: end.value))
        component.removeProperties(named: "COMMENT")
        if let comment, !comment.isEmpty { component.properties.append(Property(name: "COMMENT", text: comment)) }
        var proposal = copy
        proposal.components = copy.components.filter { $0.name == "VTIMEZONE" } + [component]
        return message(.counter, proposal, stamp: stamp)
    }

    /// What a COUNTER proposes: for which occurrence (nil: the series), the new times,
    /// and the attendee's comment.
    public struct Proposal: Sendable, Hashable {
        public var uid: String
        public var instance: String?
        public var start: Property
        /// DTEND, or DURATION as the COUNTER gave it.
        public var end: Property?
        public var location: String?
        public var comment: String?
    }

    /// The proposal a COUNTER holds (its first scheduled component), or nil when it has
    /// no UID, or no readable DTSTART (or DTEND) in the years the server keeps.
    public static func proposal(in counter: Component) -> Proposal? {
        func kept(_ property: Property?) -> Bool {
            (try? property?.dateTimeValue())?.civil.date.isSupported ?? false
        }
        guard let component = counter.components.first(where: { scheduled.contains($0.name) }),
            let uid = component.property("UID")?.value, let start = component.property("DTSTART"), kept(start),
            component.property("DTEND").map(kept) ?? true
        else { return nil }
        return Proposal(
            uid: uid, instance: component.property("RECURRENCE-ID")?.value, start: start,
            end: component.property("DTEND") ?? component.property("DURATION"),
            location: component.property("LOCATION").map { $0.textValue() },
            comment: component.property("COMMENT").map { $0.textValue() })
    }

    /// The organizer's copy with `proposal` (from `attendee`) accepted: the series, or
    /// the occurrence (overridden if it was not), moved to the proposed times (and
    /// place), its SEQUENCE one higher, and every other attendee asked again
    /// (NEEDS-ACTION, RSVP) since the time changed; the proposer's answer is `partstat`
    /// when given. The VTIMEZONE the times name is taken from `counter` when the copy
    /// lacks it. Nil when the copy has no such component or occurrence.
    public static func accepting(
        _ proposal: Proposal, of counter: Component, from attendee: String, partstat: String?, into organizer: Component
    ) -> Component? {
        var result = organizer
        let index: Int
        if let found = position(of: proposal.instance, in: organizer) {
            index = found
        } else {
            guard let made = component(of: organizer, at: proposal.instance) else { return nil }
            result.components.append(made)
            index = result.components.count - 1
        }
        var component = result.components[index]
        // The series moved: its overrides name the instances where they now are.
        if proposal.instance == nil, let old = try? component.property("DTSTART")?.dateTimeValue(),
            let new = try? proposal.start.dateTimeValue(), old.form == new.form, old.isDate == new.isDate
        {
            let delta = new.civil.secondsSinceEpoch - old.civil.secondsSinceEpoch
            for position in result.components.indices where position != index && delta != 0 {
                shiftOverride(&result.components[position], by: delta)
            }
        }
        component.removeProperties(named: "DTEND")
        component.removeProperties(named: "DURATION")
        component.setProperty(proposal.start)
        if let end = proposal.end { component.setProperty(end) }
        if let location = proposal.location { component.setProperty(Property(name: "LOCATION", text: location)) }
        component.setProperty(Property(name: "SEQUENCE", value: String(sequence(of: component) + 1)))
        let organizerAddress = Self.organizer(of: organizer)
        for position in component.properties.indices where component.properties[position].name == "ATTENDEE" {
            let who = address(component.properties[position].value)
            guard who != organizerAddress else { continue }
            if who == attendee, let partstat {
                component.properties[position][parameter: "PARTSTAT"] = partstat
                component.properties[position][parameter: "RSVP"] = nil
            } else {
                component.properties[position][parameter: "PARTSTAT"] = "NEEDS-ACTION"
                component.properties[position][parameter: "RSVP"] = "TRUE"
            }
        }
        result.components[index] = component
        // The zones the new times name, from the COUNTER when the copy has none of that name.
        let have = Set(result.components.filter { $0.name == "VTIMEZONE" }.compactMap { $0.property("TZID")?.value })
        for tzid in Set([proposal.start[parameter: "TZID"], proposal.end?[parameter: "TZID"]].compactMap { $0 })
        where !have.contains(tzid) {
            if let zone = counter.components.first(where: {
                $0.name == "VTIMEZONE" && $0.property("TZID")?.value == tzid
            }) {
                result.components.insert(zone, at: 0)
            }
        }
        return result
    }

    /// The organizer's DECLINECOUNTER (RFC 5546 §3.2.8) of `proposal` to `attendee`, from
    /// their copy, with `comment`; nil when the copy no longer lists the attendee there.
    public static func declineCounter(
        _ proposal: Proposal, in organizer: Component, to attendee: String, comment: String?, stamp: Int
    ) -> Component? {
        guard let component = component(of: organizer, at: proposal.instance) else { return nil }
        var only = organizer
        only.components = [component]
        var declined = message(.declineCounter, only, attendee: attendee, stamp: stamp)
        guard !declined.components.isEmpty else { return nil }
        if let comment, !comment.isEmpty {
            declined.components[0].properties.append(Property(name: "COMMENT", text: comment))
        }
        return declined
    }

    /// An override of a series whose DTSTART moved by `delta` seconds (in its own form):
    /// its RECURRENCE-ID moves as much, and so do its times when it had not been moved
    /// (DTSTART at the RECURRENCE-ID). Components that are no override stay.
    static func shiftOverride(_ component: inout Component, by delta: Int) {
        guard scheduled.contains(component.name), let rid = component.property("RECURRENCE-ID"),
            let value = try? rid.dateTimeValue()
        else { return }
        func shifted(_ property: Property) -> Property? {
            guard let value = try? property.dateTimeValue() else { return nil }
            let moved = value.civil.adding(seconds: delta)
            let result = value.isDate ? DateTimeValue(date: moved.date) : DateTimeValue(moved, form: value.form)
            return Property(name: property.name, dateTime: result, parameters: property.parameters)
        }
        let unmoved = (try? component.property("DTSTART")?.dateTimeValue()) == value
        if let moved = shifted(rid) { component.setProperty(moved) }
        guard unmoved else { return }
        for name in ["DTSTART", "DTEND"] {
            if let property = component.property(name), let moved = shifted(property) { component.setProperty(moved) }
        }
    }

    /// The component of an object for an occurrence's RECURRENCE-ID value (nil: the
    /// master, or the only component): the override, or one made from the master.
    static func component(of calendar: Component, at instance: String?) -> Component? {
        if let found = position(of: instance, in: calendar) { return calendar.components[found] }
        guard let instance, let master = recurringMaster(of: calendar) else { return nil }
        return override(of: master, at: instance)
    }

    /// Where the component for a RECURRENCE-ID value (nil: the master) is among an object's components.
    static func position(of instance: String?, in calendar: Component) -> Int? {
        calendar.components.firstIndex {
            scheduled.contains($0.name) && $0.property("RECURRENCE-ID")?.value == instance
        }
    }

    /// The master of a recurring object (with an RRULE), whose instances overrides are made from.
    static func recurringMaster(of calendar: Component) -> Component? {
        calendar.components.first {
            scheduled.contains($0.name) && $0.property("RECURRENCE-ID") == nil && $0.property("RRULE") != nil
        }
    }

    /// The attendee's copy of the organizer's object: the organizer's components as a
    /// REQUEST carries them, with the attendee's own alarms kept from their copy (per
    /// component, by RECURRENCE-ID).
    public static func attendeeCopy(of organizer: Component, keeping existing: Component?) -> Component {
        var copy = organizer
        copy.properties.removeAll { $0.name == "METHOD" }
        var alarms: [String?: [Component]] = [:]
        for component in existing?.components ?? [] where scheduled.contains(component.name) {
            alarms[component.property("RECURRENCE-ID")?.value] = component.components(named: "VALARM")
        }
        for index in copy.components.indices where scheduled.contains(copy.components[index].name) {
            var component = withoutServerParameters(copy.components[index])
            component.components.removeAll { $0.name == "VALARM" }
            component.components += alarms[component.property("RECURRENCE-ID")?.value] ?? []
            copy.components[index] = component
        }
        return copy
    }

    /// An attendee's copy after the organizer cancelled: every component STATUS:CANCELLED
    /// (kept, not deleted, so the attendee sees what was cancelled).
    public static func cancelled(_ copy: Component) -> Component {
        var cancelled = copy
        for index in cancelled.components.indices where scheduled.contains(cancelled.components[index].name) {
            cancelled.components[index].setProperty(Property(name: "STATUS", value: "CANCELLED"))
        }
        return cancelled
    }

    /// The organizer's copy with `attendee`'s answers applied (by RECURRENCE-ID value, nil
    /// for the master; see ``participation(of:in:)``). An answer for an instance the
    /// organizer has not overridden adds an override made from the master: the same
    /// properties at that instance (its DTSTART the RECURRENCE-ID, its length the
    /// master's), every other attendee's answer as in the master. Answers for
    /// components that do not list the attendee are ignored.
    public static func applying(_ answers: [String?: String], from attendee: String, to organizer: Component)
        -> Component
    {
        var result = organizer
        var applied = Set<String?>()
        for index in result.components.indices where scheduled.contains(result.components[index].name) {
            let key = result.components[index].property("RECURRENCE-ID")?.value
            guard let partstat = answers[key] else { continue }
            if setPartstat(partstat, of: attendee, in: &result.components[index]) { applied.insert(key) }
        }
        guard let master = recurringMaster(of: result) else { return result }
        for (key, partstat) in answers where !applied.contains(key) {
            guard let key, var instance = override(of: master, at: key) else { continue }
            if setPartstat(partstat, of: attendee, in: &instance) { result.components.append(instance) }
        }
        return result
    }

    /// Sets the organizer's ATTENDEE SCHEDULE-STATUS (RFC 6638 §3.2.9) for each address
    /// given (e.g. `1.2` delivered, `3.7` not a user the server can reach), in every
    /// component; SCHEDULE-FORCE-SEND is done once the request went.
    public static func settingScheduleStatus(_ statuses: [String: String], in calendar: Component) -> Component {
        var result = calendar
        for index in result.components.indices where scheduled.contains(result.components[index].name) {
            for position in result.components[index].properties.indices
            where result.components[index].properties[position].name == "ATTENDEE" {
                let who = address(result.components[index].properties[position].value)
                guard let status = statuses[who] else { continue }
                result.components[index].properties[position][parameter: "SCHEDULE-STATUS"] = status
                result.components[index].properties[position][parameter: "SCHEDULE-FORCE-SEND"] = nil
            }
        }
        return result
    }

    /// An attendee's copy with `status` as the SCHEDULE-STATUS of its ORGANIZER: how the
    /// attendee's last REPLY was delivered (RFC 6638 §7.3).
    public static func settingOrganizerStatus(_ status: String, in calendar: Component) -> Component {
        var result = calendar
        for index in result.components.indices where scheduled.contains(result.components[index].name) {
            for position in result.components[index].properties.indices
            where result.components[index].properties[position].name == "ORGANIZER" {
                result.components[index].properties[position][parameter: "SCHEDULE-STATUS"] = status
            }
        }
        return result
    }

    /// An attendee's copy without SCHEDULE-FORCE-SEND=REPLY on its ORGANIZER properties,
    /// and whether any had it (the attendee's client asks for a REPLY although nothing changed).
    public static func takingForcedReply(_ calendar: Component) -> (Component, forced: Bool) {
        var result = calendar
        var forced = false
        for index in result.components.indices where scheduled.contains(result.components[index].name) {
            for position in result.components[index].properties.indices
            where result.components[index].properties[position].name == "ORGANIZER"
                && result.components[index].properties[position][parameter: "SCHEDULE-FORCE-SEND"]?.uppercased()
                    == "REPLY"
            {
                result.components[index].properties[position][parameter: "SCHEDULE-FORCE-SEND"] = nil
                forced = true
            }
        }
        return (result, forced)
    }

    // MARK: What each attendee is invited to

    /// What `attendee` is invited to (RFC 6638 §3.2.6). Listed in the master: the series,
    /// less the instances whose overrides leave them out (those become EXDATEs of their
    /// copy). Listed only in overrides: those instances alone, without the master and
    /// its rule. Otherwise (one component, or nothing for them) the object as it is.
    public static func view(of calendar: Component, for attendee: String) -> Component {
        func lists(_ component: Component) -> Bool {
            component.properties(named: "ATTENDEE").contains { address($0.value) == attendee }
        }
        guard
            let masterIndex = calendar.components.firstIndex(where: {
                scheduled.contains($0.name) && $0.property("RECURRENCE-ID") == nil
            })
        else { return calendar }
        let invited = lists(calendar.components[masterIndex])
        var result = calendar
        var excluded: [Property] = []
        result.components = []
        for (index, component) in calendar.components.enumerated() {
            guard scheduled.contains(component.name), index != masterIndex else {
                if index != masterIndex || invited { result.components.append(component) }
                continue
            }
            guard let id = component.property("RECURRENCE-ID") else { continue }
            if lists(component) {
                result.components.append(component)
            } else if invited {
                excluded.append(
                    Property(name: "EXDATE", parameters: id.parameters.filter { $0.name != "RANGE" }, value: id.value))
            }
        }
        if invited, !excluded.isEmpty,
            let master = result.components.firstIndex(where: {
                scheduled.contains($0.name) && $0.property("RECURRENCE-ID") == nil
            })
        {
            result.components[master].properties += excluded
        }
        return result
    }

    /// The instances `attendee` was invited to in `old` and is taken off in `new` while
    /// still invited to others, as an object to cancel (nil when there are none):
    /// removing them from one instance cancels that instance only (§3.2.6). Taken off
    /// everything, they get the whole object's CANCEL instead.
    public static func instancesTakenOff(_ attendee: String, from old: Component, to new: Component) -> Component? {
        let before = view(of: old, for: attendee)
        let after = view(of: new, for: attendee)
        func members(_ calendar: Component) -> [Component] {
            calendar.components.filter { scheduled.contains($0.name) }
        }
        guard !members(after).isEmpty, let masterAfter = recurringMaster(of: new) ?? members(after).first else {
            return nil
        }
        func excluded(_ calendar: Component) -> Set<String> {
            Set(
                members(calendar).filter { $0.property("RECURRENCE-ID") == nil }.flatMap {
                    $0.properties(named: "EXDATE")
                }.map(\.value))
        }
        func instances(_ calendar: Component) -> Set<String> {
            Set(members(calendar).compactMap { $0.property("RECURRENCE-ID")?.value })
        }
        let seriesBefore = members(before).contains { $0.property("RECURRENCE-ID") == nil }
        let seriesAfter = members(after).contains { $0.property("RECURRENCE-ID") == nil }
        var gone: [String] = []
        if seriesBefore, seriesAfter {
            gone = excluded(after).subtracting(excluded(before)).sorted()
        } else if !seriesBefore, !seriesAfter {
            gone = instances(before).subtracting(instances(after)).sorted()
        }
        let components: [Component] = gone.compactMap { id in
            members(old).first { $0.property("RECURRENCE-ID")?.value == id }
                ?? members(new).first { $0.property("RECURRENCE-ID")?.value == id }
                ?? override(of: masterAfter, at: id)
        }
        guard !components.isEmpty else { return nil }
        var result = old
        result.components = old.components.filter { !scheduled.contains($0.name) } + components
        return result
    }

    // MARK: The organizer's changes

    /// The properties whose change moves an instance or changes which instances there
    /// are (RFC 5546 §2.1.4's significant changes, with STATUS and removed attendees).
    static let timing = ["DTSTART", "DTEND", "DURATION", "DUE", "RRULE", "RDATE", "EXDATE", "EXRULE"]

    /// The organizer's new version of a scheduling object as RFC 6638 keeps it: each
    /// component whose time or recurrence changed since `old`, whose STATUS changed, or
    /// that lost an attendee gets a SEQUENCE above its old one unless the client raised it
    /// already (§3.2.5, RFC 5546 §2.1.4); where the time or recurrence changed (beyond
    /// instances taken out), every attendee the server schedules but the organizer is
    /// asked again, PARTSTAT=NEEDS-ACTION with RSVP=TRUE (§3.2.8); otherwise their stored
    /// answers stand, whatever the organizer's client sent (§3.2.1: PARTSTAT is the
    /// attendee's). A new override is compared with the instance it replaces.
    public static func revising(_ new: Component, from old: Component, organizer: String) -> Component {
        var olds: [String?: Component] = [:]
        for component in old.components where scheduled.contains(component.name) {
            olds[component.property("RECURRENCE-ID")?.value] =
                olds[component.property("RECURRENCE-ID")?.value] ?? component
        }
        let oldMaster = olds[nil]
        var result = new
        for index in result.components.indices where scheduled.contains(result.components[index].name) {
            let component = result.components[index]
            let key = component.property("RECURRENCE-ID")?.value
            let before: Component
            var sequenceBefore: Int
            if let counterpart = olds[key] {
                before = counterpart
                sequenceBefore = sequence(of: counterpart)
            } else if let key, let master = oldMaster, let instance = override(of: master, at: key) {
                before = instance
                sequenceBefore = sequence(of: master)
            } else {
                continue
            }
            sequenceBefore = max(sequenceBefore, 0)
            let timingNow = timingOf(component, dropping: key != nil)
            let timingBefore = timingOf(before, dropping: key != nil)
            let moved = timingNow != timingBefore
            // Instances only taken out (EXDATEs added) move none that stay: SEQUENCE rises,
            // the answers to the rest stand.
            let onlyExcluded =
                moved
                && timingNow.filter { !$0.hasPrefix("EXDATE;") } == timingBefore.filter { !$0.hasPrefix("EXDATE;") }
                && exclusions(of: before).isSubset(of: exclusions(of: component))
            let statusChanged =
                (component.property("STATUS")?.value.uppercased() ?? "")
                != (before.property("STATUS")?.value.uppercased() ?? "")
            let now = Set(component.properties(named: "ATTENDEE").map { address($0.value) })
            let removed = before.properties(named: "ATTENDEE").contains { !now.contains(address($0.value)) }
            if moved || statusChanged || removed, sequence(of: component) <= sequenceBefore {
                result.components[index].setProperty(Property(name: "SEQUENCE", value: String(sequenceBefore + 1)))
            }
            for position in result.components[index].properties.indices
            where result.components[index].properties[position].name == "ATTENDEE" {
                let attendee = result.components[index].properties[position]
                let who = address(attendee.value)
                guard who != organizer, (attendee[parameter: "SCHEDULE-AGENT"]?.uppercased() ?? "SERVER") == "SERVER"
                else { continue }
                if moved && !onlyExcluded {
                    result.components[index].properties[position][parameter: "PARTSTAT"] = "NEEDS-ACTION"
                    result.components[index].properties[position][parameter: "RSVP"] = "TRUE"
                } else if let answered = before.properties(named: "ATTENDEE").first(where: { address($0.value) == who })
                {
                    // An attendee's answer is theirs (§3.2.1): an organizer's write from a copy
                    // older than it, or one that sets it, keeps the answer stored.
                    result.components[index].properties[position][parameter: "PARTSTAT"] =
                        answered[parameter: "PARTSTAT"]
                    result.components[index].properties[position][parameter: "RSVP"] = answered[parameter: "RSVP"]
                }
            }
        }
        return result
    }

    /// The RECURRENCE-IDs (as answers key them) of the instances `new`'s master takes out
    /// with EXDATEs that `old`'s did not: those written in the master's own form (the
    /// TZID and VALUE of its DTSTART), as clients write them.
    public static func instancesExcluded(from old: Component, to new: Component) -> [String] {
        guard let master = recurringMaster(of: new), let start = master.property("DTSTART") else { return [] }
        let before = recurringMaster(of: old).map(exclusions(of:)) ?? []
        return master.properties(named: "EXDATE").filter {
            $0[parameter: "TZID"] == start[parameter: "TZID"]
                && ($0[parameter: "VALUE"] ?? "DATE-TIME") == (start[parameter: "VALUE"] ?? "DATE-TIME")
        }.flatMap { property in
            property.value.split(separator: ",").map(String.init).filter {
                !before.contains("\(property[parameter: "TZID"] ?? "");\(property[parameter: "VALUE"] ?? ""):\($0)")
            }
        }
    }

    /// What of an organizer's object its attendees are told: its scheduled components
    /// without what only the organizer's own calendar keeps (their alarms and TRANSP,
    /// Thunderbird's alarm state and generation counter), the stamps every save renews
    /// (DTSTAMP, LAST-MODIFIED) and the server's delivery notes (SCHEDULE-STATUS,
    /// SCHEDULE-FORCE-SEND). Two versions that agree here need not be sent again.
    public static func toldAttendees(_ calendar: Component) -> [Component] {
        let ownOnly: Set<String> = ["DTSTAMP", "LAST-MODIFIED", "TRANSP", "X-MOZ-LASTACK", "X-MOZ-GENERATION"]
        return calendar.components.filter { scheduled.contains($0.name) }.map { component in
            var told = component
            told.components.removeAll { $0.name == "VALARM" }
            told.properties.removeAll { ownOnly.contains($0.name) || $0.name.hasPrefix("X-MOZ-SNOOZE-TIME") }
            for index in told.properties.indices
            where told.properties[index].name == "ATTENDEE" || told.properties[index].name == "ORGANIZER" {
                told.properties[index][parameter: "SCHEDULE-STATUS"] = nil
                told.properties[index][parameter: "SCHEDULE-FORCE-SEND"] = nil
            }
            return told
        }.sorted { ($0.property("RECURRENCE-ID")?.value ?? "") < ($1.property("RECURRENCE-ID")?.value ?? "") }
    }

    /// Whether an organizer's client asks for the REQUEST to be sent again
    /// (`SCHEDULE-FORCE-SEND=REQUEST` on an attendee, RFC 6638 §7.2).
    public static func forcesRequest(_ calendar: Component) -> Bool {
        calendar.components.contains { component in
            scheduled.contains(component.name)
                && component.properties(named: "ATTENDEE").contains {
                    $0[parameter: "SCHEDULE-FORCE-SEND"]?.uppercased() == "REQUEST"
                }
        }
    }

    /// The instances a component's EXDATEs take out, as `TZID;VALUE:value` texts.
    static func exclusions(of component: Component) -> Set<String> {
        Set(
            component.properties(named: "EXDATE").flatMap { property in
                property.value.split(separator: ",").map {
                    "\(property[parameter: "TZID"] ?? "");\(property[parameter: "VALUE"] ?? ""):\($0)"
                }
            })
    }

    /// A component's timing as text to compare (an override's without the rule parts it
    /// never has, so it compares with the instance ``override(of:at:)`` makes).
    static func timingOf(_ component: Component, dropping rules: Bool) -> [String] {
        let names = rules ? ["DTSTART", "DTEND", "DURATION", "DUE"] : timing
        return component.properties.filter { names.contains($0.name) }.map { property in
            "\(property.name);\(property[parameter: "TZID"] ?? "");\(property[parameter: "VALUE"] ?? ""):\(property.value)"
        }.sorted()
    }

    // MARK: -

    static func sequence(of component: Component) -> Int {
        component.property("SEQUENCE").flatMap { Int($0.value) }.map { max(0, min($0, Int(Int32.max) - 1)) } ?? 0
    }

    static func withoutServerParameters(_ component: Component) -> Component {
        var copy = component
        for index in copy.properties.indices where ["ATTENDEE", "ORGANIZER"].contains(copy.properties[index].name) {
            for name in serverParameters.sorted() { copy.properties[index][parameter: name] = nil }
        }
        return copy
    }

    /// Sets one attendee's PARTSTAT in a component; false when the component does not list them.
    static func setPartstat(_ partstat: String, of attendee: String, in component: inout Component) -> Bool {
        var found = false
        for index in component.properties.indices
        where component.properties[index].name == "ATTENDEE" && address(component.properties[index].value) == attendee {
            component.properties[index][parameter: "PARTSTAT"] = partstat
            component.properties[index][parameter: "RSVP"] = nil
            found = true
        }
        return found
    }

    /// An override of a recurring master at the instance whose RECURRENCE-ID value is
    /// `recurrenceID` (written in the master's DTSTART form): the master's properties
    /// but the rule parts, starting there, lasting as long; nil when the master's times
    /// cannot be read or the value is not of its form.
    static func override(of master: Component, at recurrenceID: String) -> Component? {
        guard let start = master.property("DTSTART"), let first = try? start.dateTimeValue() else { return nil }
        let probe = Property(name: "DTSTART", parameters: start.parameters, value: recurrenceID)
        guard let at = try? probe.dateTimeValue(), at.isDate == first.isDate else { return nil }
        var length: String?
        if let duration = master.property("DURATION") {
            length = duration.value
        } else if let end = master.property("DTEND"), let last = try? end.dateTimeValue() {
            let seconds = last.civil.secondsSinceEpoch - first.civil.secondsSinceEpoch
            if seconds >= 0 { length = first.isDate ? "P\(seconds / 86_400)D" : "PT\(seconds)S" }
        }
        var instance = Component(name: master.name)
        for property in master.properties
        where !["RRULE", "RDATE", "EXDATE", "EXRULE", "DTSTART", "DTEND", "DURATION", "RECURRENCE-ID"].contains(
            property.name)
        {
            instance.properties.append(property)
        }
        instance.properties.append(Property(name: "RECURRENCE-ID", parameters: start.parameters, value: recurrenceID))
        instance.properties.append(Property(name: "DTSTART", parameters: start.parameters, value: recurrenceID))
        if let length { instance.properties.append(Property(name: "DURATION", value: length)) }
        instance.components = master.components
        return instance
    }
}

extension String {
    var trimmingSpaces: String {
        String(self.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
