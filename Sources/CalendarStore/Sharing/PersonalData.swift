import ICalendar

/// What of a shared object is one user's own (the per-user data of the CalendarServer
/// sharing protocol): each component's VALARMs and its TRANSP. The stored object keeps
/// its owner's; each sharee's are kept beside it (`personal_data`), so every user sees
/// and sets only their own alarms and transparency and the others' survive their writes.
/// Thunderbird's alarm state (`X-MOZ-LASTACK`, `X-MOZ-SNOOZE-TIME…`) goes with the alarms.
///
/// A user's parts are kept as a VCALENDAR of stubs: per VEVENT or VTODO that has any, one
/// of the same name with its UID, its RECURRENCE-ID, its TRANSP and its VALARMs.
enum PersonalData {
    /// The most bytes one user's parts of one object may take, as kept: room for alarms
    /// on a few hundred instances of a series.
    static let maxBytes = 64 << 10

    /// Splits `root` (a VCALENDAR) into what every user shares and the VCALENDAR of stubs
    /// holding the personal parts (nil when it has none).
    static func split(_ root: Component) -> (shared: Component, personal: Component?) {
        var shared = root
        var stubs: [Component] = []
        for index in shared.components.indices where isScheduled(shared.components[index].name) {
            var member = shared.components[index]
            let own = member.properties.filter(isPersonal)
            let alarms = member.components.filter { $0.name == "VALARM" }
            guard !own.isEmpty || !alarms.isEmpty else { continue }
            member.properties.removeAll(where: isPersonal)
            member.components.removeAll { $0.name == "VALARM" }
            shared.components[index] = member
            stubs.append(
                Component(
                    name: member.name,
                    properties: member.properties.filter { $0.name == "UID" || $0.name == "RECURRENCE-ID" } + own,
                    components: alarms))
        }
        return (shared, stubs.isEmpty ? nil : Component(name: "VCALENDAR", components: stubs))
    }

    /// `shared` with the parts of `personal` added to the components they belong to (a
    /// stub whose instance is gone is dropped).
    static func merge(_ shared: Component, _ personal: Component?) -> Component {
        guard let personal else { return shared }
        var stubs: [String: Component] = [:]
        for stub in personal.components { stubs[key(stub)] = stub }
        var merged = shared
        for index in merged.components.indices where isScheduled(merged.components[index].name) {
            guard let stub = stubs[key(merged.components[index])] else { continue }
            merged.components[index].properties.removeAll(where: isPersonal)
            merged.components[index].properties += stub.properties.filter(isPersonal)
            merged.components[index].components.removeAll { $0.name == "VALARM" }
            merged.components[index].components += stub.components.filter { $0.name == "VALARM" }
        }
        return merged
    }

    /// What a user sees of stored `data`: its owner's parts taken out, `personal` (the
    /// user's, as kept) put in. Bytes that hold no parts and get none are returned as they are.
    static func view(of data: [UInt8], personal: [UInt8]?) -> [UInt8] {
        if personal == nil, !mayHoldParts(data) { return data }
        guard let root = try? ICalendarParser.parse(data, options: .lenient).components.first else { return data }
        let mine = personal.flatMap { try? ICalendarParser.parse($0, options: .lenient).components.first }
        return merge(split(root).shared, mine).serialized()
    }

    /// Whether `data` may hold personal parts (a quick test on the bytes).
    static func mayHoldParts(_ data: [UInt8]) -> Bool {
        data.firstRange(of: Array("VALARM".utf8)) != nil || data.firstRange(of: Array("TRANSP".utf8)) != nil
            || data.firstRange(of: Array("X-MOZ-".utf8)) != nil
    }

    /// TRANSP and Thunderbird's alarm state: a user's own properties of a component.
    private static func isPersonal(_ property: Property) -> Bool {
        property.name == "TRANSP" || property.name == "X-MOZ-LASTACK" || property.name.hasPrefix("X-MOZ-SNOOZE-TIME")
    }

    private static func isScheduled(_ name: String) -> Bool { name == "VEVENT" || name == "VTODO" }

    private static func key(_ component: Component) -> String {
        component.name + "|" + (component.property("RECURRENCE-ID")?.value ?? "")
    }
}
