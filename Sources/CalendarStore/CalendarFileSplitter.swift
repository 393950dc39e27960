import CivilTime
import ICalendar
import Recurrence

/// Splits an iCalendar file (an export, a feed) into calendar object resources:
/// one VCALENDAR per UID holding that UID's components and the VTIMEZONEs they
/// use, as RFC 4791 §4.1 shapes what a calendar stores.
public enum CalendarFileSplitter {
    /// One object found in the file.
    public struct Object: Sendable {
        /// The UID its components share (derived from the content when the file gave none).
        public var uid: String
        /// The 1-based line of its first component in the file.
        public var line: Int
        /// The object as a VCALENDAR, ready to store.
        public var data: [UInt8]
        /// The VCALENDAR that `data` serializes, so a store need not parse it again.
        let calendar: Component
        /// What reading this object's lines recovered from, and what the import itself
        /// supplied (a derived UID, a zone for floating times), as warnings.
        public var warnings: [ICalendarError] = []
    }

    /// A part of the file that cannot be stored, with why.
    public struct Rejection: Sendable, CustomStringConvertible {
        /// The 1-based line of the problem in the file (else of the rejected component).
        public var line: Int
        /// The UID of the object rejected; nil for a component other than VEVENT, VTODO or VJOURNAL.
        public var uid: String?
        /// Why it cannot be stored, for people.
        public var reason: String

        /// `line N (UID x): reason`.
        public var description: String { "line \(line)\(uid.map { " (UID \($0))" } ?? ""): \(reason)" }
    }

    /// The objects and rejections of a file, in file order. Throws only when the file
    /// as a whole is unreadable (not iCalendar, or broken beyond recovery).
    public static func split(_ data: [UInt8]) throws(ICalendarError) -> (objects: [Object], rejections: [Rejection]) {
        let read = try read(data)
        return (read.objects, read.rejections)
    }

    /// What ``read(_:)`` found in a file.
    public struct Split: Sendable {
        /// The objects found, in file order.
        public var objects: [Object]
        /// The parts that cannot be stored, in file order.
        public var rejections: [Rejection]
        /// What lenient reading recovered from outside every object (the VCALENDAR's own
        /// lines), in file order; each object carries its own.
        public var warnings: [ICalendarError]
        /// How often the publisher asks subscribers to poll, in seconds: the calendar's
        /// `REFRESH-INTERVAL` (RFC 7986 §5.7), else its `X-PUBLISHED-TTL`; nil for neither.
        public var refreshInterval: Int? = nil
        /// The calendar's name as the file gives it (`NAME`, RFC 7986, else
        /// `X-WR-CALNAME`); nil for none.
        public var calendarName: String? = nil
    }

    /// The polling interval a VCALENDAR asks for (see ``Split/refreshInterval``), up to a year.
    static func refreshInterval(of calendar: Component) -> Int? {
        for name in ["REFRESH-INTERVAL", "X-PUBLISHED-TTL"] {
            guard let duration = try? calendar.property(name)?.durationValue(), duration.nominalDays <= 366 else {
                continue
            }
            let seconds = duration.secondsAssumingUniformDays
            if seconds > 0 { return min(seconds, 366 * 86_400) }
        }
        return nil
    }

    /// The objects, rejections and warnings of a file, read the way an import reads
    /// what exporters write: under ``ICalendar/AcceptancePolicy`` (a component holding
    /// what it refuses is rejected, with its line), and beyond what one stored object
    /// allows:
    /// - a bare VEVENT (VTODO, VJOURNAL) without VCALENDAR is imported;
    /// - a component without UID is its own object under its
    ///   ``ICalendar/Component/derivedUID``, so importing the file again updates it
    ///   rather than adding it twice (an identical copy is imported once);
    /// - in a calendar with `X-WR-TIMEZONE` (Google's exports), floating DATE-TIMEs are
    ///   stored with that zone's TZID, as the exporter meant them.
    /// Each recovery is a warning on the object it concerns.
    public static func read(_ data: [UInt8]) throws(ICalendarError) -> Split {
        let document = try ICalendarParser.parse(data, options: .lenient)
        let lines = childLines(data)
        var objects: [Object] = []
        var rejections: [Rejection] = []
        var placed = Set<Int>()
        var childIndex = 0
        // Warnings by line, walked once alongside the components (whose lines only grow).
        let byLine = document.warnings.indices.sorted {
            (document.warnings[$0].line ?? 0, $0) < (document.warnings[$1].line ?? 0, $1)
        }
        var cursor = 0
        for calendar in document.components where calendar.name == "VCALENDAR" {
            let timeZones = calendar.components.filter { $0.name == "VTIMEZONE" }
            let zoneName = ZoneResolver.calendarTimeZoneName(of: calendar)
            var groups: [String: (line: Int, members: [Component], warnings: [ICalendarError])] = [:]
            var order: [String] = []
            var damaged = Set<String>()
            var derivedLines: [String: Int] = [:]
            for var component in calendar.components {
                let line = childIndex < lines.count ? lines[childIndex].start : 1
                let end = childIndex < lines.count ? lines[childIndex].end : Int.max
                childIndex += 1
                while cursor < byLine.count, (document.warnings[byLine[cursor]].line ?? 0) < line { cursor += 1 }
                var inside: [Int] = []
                while cursor < byLine.count, (document.warnings[byLine[cursor]].line ?? 0) <= end {
                    inside.append(byLine[cursor])
                    cursor += 1
                }
                inside.sort()
                placed.formUnion(inside)
                if component.name == "VTIMEZONE" { continue }
                guard ["VEVENT", "VTODO", "VJOURNAL"].contains(component.name) else {
                    rejections.append(
                        Rejection(line: line, uid: nil, reason: "\(component.name) cannot be stored in a calendar"))
                    continue
                }
                var warnings = inside.map { document.warnings[$0] }
                var uid = component.property("UID")?.value ?? ""
                if uid.isEmpty {
                    uid = component.derivedUID
                    if let first = derivedLines[uid] {
                        groups[uid]?.warnings.append(
                            ICalendarError(
                                .missingProperty,
                                "\(component.name) without UID is identical to the one at line \(first) (imported once)",
                                severity: .warning, line: line, component: component.name, property: "UID"))
                        continue
                    }
                    derivedLines[uid] = line
                    // The parser's "is missing UID" is answered by the note below.
                    warnings.removeAll {
                        $0.code == .missingProperty && $0.line == line
                            && $0.message == "\(component.name) is missing UID"
                    }
                    component.removeProperties(named: "UID")
                    component.properties.insert(Property(name: "UID", value: uid), at: 0)
                    warnings.append(
                        ICalendarError(
                            .missingProperty,
                            "\(component.name) has no UID; imported as UID \(uid), derived from its content",
                            severity: .warning, line: line, component: component.name, property: "UID"))
                }
                if let problem = warnings.first(where: isRefused) {
                    let reason = problem.message + (problem.property.map { " (property \($0))" } ?? "")
                    rejections.append(Rejection(line: problem.line ?? line, uid: uid, reason: reason))
                    damaged.insert(uid)
                    continue
                }
                if let zoneName, anchorFloatingTimes(in: &component, zone: zoneName) {
                    warnings.append(
                        ICalendarError(
                            .calendarTimeZone,
                            "floating times read in \(zoneName), the calendar's X-WR-TIMEZONE, and stored with TZID=\(zoneName)",
                            severity: .warning, line: line, component: component.name, property: "X-WR-TIMEZONE"))
                }
                // A TZID no zone answers to (not IANA, not Windows, no VTIMEZONE here) is read
                // as UTC: say so, once per name.
                let carried = Set(timeZones.compactMap { $0.property("TZID")?.value })
                var unknown: [String] = []
                for property in component.properties {
                    guard let tzid = property[parameter: "TZID"], !unknown.contains(tzid), !carried.contains(tzid),
                        TimeZoneDatabase.zone(named: tzid) == nil, WindowsZones.all[tzid] == nil
                    else { continue }
                    unknown.append(tzid)
                    warnings.append(
                        ICalendarError(
                            .invalidValue,
                            "TZID \(tzid) is no time zone this server knows and the file has no VTIMEZONE for it; \(property.name) is read as UTC",
                            severity: .warning, line: line, component: component.name, property: property.name))
                }
                if groups[uid] == nil {
                    order.append(uid)
                    groups[uid] = (line, [], [])
                }
                groups[uid]!.members.append(component)
                groups[uid]!.warnings += warnings
            }
            for uid in order where !damaged.contains(uid) {
                let group = groups[uid]!
                let used = Set(group.members.flatMap(tzids))
                let object = Component(
                    name: "VCALENDAR",
                    properties: [
                        Property(name: "VERSION", value: "2.0"),
                        calendar.property("PRODID") ?? Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
                    ] + calendar.properties(named: "CALSCALE"),
                    components: timeZones.filter { used.contains($0.property("TZID")?.value ?? "") } + group.members)
                objects.append(
                    Object(
                        uid: uid, line: group.line, data: object.serialized(), calendar: object,
                        warnings: group.warnings))
            }
        }
        let outside = document.warnings.indices.filter { !placed.contains($0) }.map { document.warnings[$0] }
        let root = document.components.first { $0.name == "VCALENDAR" }
        let name = (root?.property("NAME") ?? root?.property("X-WR-CALNAME")).map { $0.textValue() }
        return Split(
            objects: objects, rejections: rejections, warnings: outside,
            refreshInterval: root.flatMap(refreshInterval(of:)),
            calendarName: name.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// What makes one component of a file unimportable: what ``ICalendar/AcceptancePolicy``
    /// refuses in a PUT, except a bare component outside a VCALENDAR, which a file may be.
    static func isRefused(_ warning: ICalendarError) -> Bool {
        warning.code != .notCalendar && AcceptancePolicy.refuses(warning)
    }

    /// The DATE-TIME properties that place an instance; floating ones get `TZID=zone`.
    static let anchoredProperties: Set<String> = ["DTSTART", "DTEND", "DUE", "RECURRENCE-ID", "EXDATE", "RDATE"]

    /// Gives every floating DATE-TIME of `component` the TZID `zone`; true when one changed.
    static func anchorFloatingTimes(in component: inout Component, zone: String) -> Bool {
        var changed = false
        for index in component.properties.indices {
            let property = component.properties[index]
            guard anchoredProperties.contains(property.name), property.tzid == nil,
                property.valueType == .dateTime || property.valueType == .period, !property.value.contains("Z"),
                property.value.contains("T")
            else { continue }
            component.properties[index].parameters.insert(Parameter(name: "TZID", value: zone), at: 0)
            changed = true
        }
        return changed
    }

    /// Every TZID a component's properties (and its subcomponents') use.
    static func tzids(_ component: Component) -> [String] {
        component.properties.compactMap(\.tzid) + component.components.flatMap(tzids)
    }

    /// The first and last line of each component directly inside a VCALENDAR, in order,
    /// found by BEGIN/END lines (continuation lines start with a space, so never match).
    static func childLines(_ data: [UInt8]) -> [(start: Int, end: Int)] {
        var result: [(start: Int, end: Int)] = []
        var depth = 0
        var line = 1
        var index = 0
        var currentStart = 0
        let begin = Array("BEGIN:".utf8)
        let end = Array("END:".utf8)
        func startsWith(_ prefix: [UInt8], at position: Int) -> Bool {
            guard position + prefix.count <= data.count else { return false }
            for offset in 0..<prefix.count {
                var byte = data[position + offset]
                if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
                if byte != prefix[offset] { return false }
            }
            return true
        }
        let beginCalendar = Array("BEGIN:VCALENDAR".utf8)
        // Lenient reading puts bare components at the top level inside an implicit VCALENDAR.
        var implicit = false
        while index < data.count {
            if startsWith(begin, at: index) {
                let isCalendar = startsWith(beginCalendar, at: index)
                if implicit, depth == 1, isCalendar {
                    implicit = false
                    depth = 0
                }
                if depth == 0, !isCalendar {
                    implicit = true
                    depth = 1
                }
                depth += 1
                if depth == 2 { currentStart = line }
            } else if startsWith(end, at: index) {
                if depth == 2 { result.append((currentStart, line)) }
                depth = max(0, depth - 1)
            }
            while index < data.count && data[index] != 0x0A { index += 1 }
            index += 1
            line += 1
        }
        return result
    }
}
