import ICalendar

/// Splits an iCalendar file (an export, a feed) into calendar object resources:
/// one VCALENDAR per UID holding that UID's components and the VTIMEZONEs they
/// use, as RFC 4791 §4.1 shapes what a calendar stores.
public enum CalendarFileSplitter {
    /// One object found in the file.
    public struct Object: Sendable {
        public var uid: String
        /// The 1-based line of its first component in the file.
        public var line: Int
        /// The object as a VCALENDAR, ready to store.
        public var data: [UInt8]
        /// The VCALENDAR that `data` serializes, so a store need not parse it again.
        let calendar: Component
    }

    /// A part of the file that cannot be stored, with why.
    public struct Rejection: Sendable, CustomStringConvertible {
        public var line: Int
        public var uid: String?
        public var reason: String

        public var description: String { "line \(line)\(uid.map { " (UID \($0))" } ?? ""): \(reason)" }
    }

    /// The objects and rejections of a file, in file order. Throws only when the file
    /// as a whole is unreadable (not iCalendar, or broken beyond recovery).
    public static func split(_ data: [UInt8]) throws(ICalendarError) -> (objects: [Object], rejections: [Rejection]) {
        let document = try ICalendarParser.parse(data, options: .lenient)
        let lines = childLines(data)
        var objects: [Object] = []
        var rejections: [Rejection] = []
        var childIndex = 0
        for calendar in document.components where calendar.name == "VCALENDAR" {
            let timeZones = calendar.components.filter { $0.name == "VTIMEZONE" }
            var groups: [String: (line: Int, members: [Component])] = [:]
            var order: [String] = []
            var damaged = Set<String>()
            for component in calendar.components {
                let line = childIndex < lines.count ? lines[childIndex].start : 1
                let end = childIndex < lines.count ? lines[childIndex].end : Int.max
                childIndex += 1
                if component.name == "VTIMEZONE" { continue }
                guard ["VEVENT", "VTODO", "VJOURNAL"].contains(component.name) else {
                    rejections.append(Rejection(line: line, uid: nil, reason: "\(component.name) cannot be stored in a calendar"))
                    continue
                }
                guard let uid = component.property("UID")?.value, !uid.isEmpty else {
                    rejections.append(Rejection(line: line, uid: nil, reason: "\(component.name) has no UID"))
                    continue
                }
                if let problem = document.warnings.first(where: { CalendarObject.isFatal($0) && ($0.line ?? 0) >= line && ($0.line ?? 0) <= end }) {
                    rejections.append(Rejection(line: problem.line ?? line, uid: uid, reason: problem.message))
                    damaged.insert(uid)
                    continue
                }
                if groups[uid] == nil {
                    order.append(uid)
                    groups[uid] = (line, [])
                }
                groups[uid]!.members.append(component)
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
                objects.append(Object(uid: uid, line: group.line, data: object.serialized(), calendar: object))
            }
        }
        return (objects, rejections)
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
        while index < data.count {
            if startsWith(begin, at: index) {
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
