import CalendarStore
import CivilTime
import ICalendar
import JSON
import Recurrence

/// `almanac ics expand`: every instance in a window, from a file.
enum ExpandCommand {
    /// The most instances `--max-instances` may allow per series: more would not fit in memory.
    static let maxInstancesBound = 10_000_000

    static func run(_ options: Options, io: CommandIO, today: CivilDate) throws(CommandFailure) -> Int32 {
        let operands = options.operands
        guard operands.count == 1 else { throw .usage("'ics expand' takes one FILE (or - for standard input)") }
        let format = options["--format"] ?? "text"
        guard format == "text" || format == "jsonl" else { throw .usage("--format must be text or jsonl") }
        let zoneName = options["--tz"] ?? "UTC"
        guard let viewerZone = zoneName == "UTC" ? ZoneRules.utc : TimeZoneDatabase.zone(named: zoneName) else {
            throw .usage("unknown time zone '\(zoneName)' for --tz (an IANA name such as Europe/Berlin)")
        }
        let from =
            try options["--from"].map { (text) throws(CommandFailure) in
                try instant(text, zone: viewerZone, today: today, option: "--from")
            }
            ?? viewerZone.instant(for: CivilDateTime(date: today, time: .midnight))
        let to =
            try options["--to"].map { (text) throws(CommandFailure) in
                try instant(text, zone: viewerZone, today: today, option: "--to")
            }
            ?? viewerZone.instant(for: CivilDateTime(date: today.adding(days: 365), time: .midnight))
        guard from < to else { throw .usage("--from must be before --to") }
        // The bounds apply to each series; --max-instances raises the instance bound, and the
        // step bound with it (twenty candidates examined per instance, as by default).
        var limits = ExpansionLimits.default
        if let text = options["--max-instances"] {
            guard let count = Int(text), (1...maxInstancesBound).contains(count) else {
                throw .usage(
                    "--max-instances is a whole number from 1 to \(maxInstancesBound) (the default is \(ExpansionLimits.default.maxInstances))"
                )
            }
            limits = ExpansionLimits(
                maxInstances: count, maxSteps: max(ExpansionLimits.default.maxSteps, count.multipliedSaturated(by: 20)),
                maxIdlePeriods: ExpansionLimits.default.maxIdlePeriods)
        }

        // Instants are written in the viewer's zone with its offset (`…+01:00`), in UTC as `…Z`.
        let shown = zoneName == "UTC" ? nil : viewerZone
        let lenient = options.has("--lenient")
        let document = try ICSCommand.load(operands[0], policy: try ICSCommand.ReadingPolicy(options), io: io)
        var output: [UInt8] = []
        var truncated: [TruncatedSeries] = []
        for read in document.components {
            // Two versions of one component pass only --lenient: the later one is expanded.
            let calendar = lenient ? ObjectChecks.keepingLatestVersions(read) : read
            let series: [CalendarObjectExpansion.SeriesExpansion]
            do {
                series = try expandSeries(
                    calendar, lenient: lenient, viewerZone: viewerZone, limits: limits, from: from, to: to
                ) { warning in io.writeError("\(operands[0]): \(warning)") }
            } catch {
                throw CommandFailure(status: 1, "\(operands[0]): \(error)")
            }
            // What a series' own (not overridden) instances share is written once for them;
            // the lines are then written in start order, in chunks on every core.
            let shared: [[UInt8]?] = series.map { one in
                guard format == "jsonl" else { return nil }
                return one.occurrences.first { !$0.isOverride }.map { jsonTail($0.component) }
            }
            truncated += series.compactMap(\.truncated)
            let located = series.enumerated().flatMap { position, one in
                one.occurrences.indices.map { (series: position, index: $0) }
            }
            let order = CalendarObjectExpansion.inStartOrder(series, viewerZone: viewerZone)
            let chunk = 4_096
            let chunks = Parallel.map(Array(stride(from: 0, to: order.count, by: chunk))) { start in
                var lines: [UInt8] = []
                lines.reserveCapacity(chunk * 200)
                for place in order[start..<min(start + chunk, order.count)] {
                    let (position, index) = located[place]
                    let occurrence = series[position].occurrences[index]
                    if format == "jsonl" {
                        json(
                            occurrence, into: &lines, tail: occurrence.isOverride ? nil : shared[position], zone: shown)
                    } else {
                        lines += Array(text(occurrence, zone: shown).utf8)
                    }
                    lines.append(0x0A)
                }
                return lines
            }
            output.reserveCapacity(output.count + chunks.reduce(0) { $0 + $1.count })
            for lines in chunks { output += lines }
        }
        io.write(output)
        // Every other series is listed whole; each cut one is named, and the exit status says so.
        for series in truncated { io.writeError("\(operands[0]): \(notice(series, limits: limits))") }
        return truncated.isEmpty ? 0 : 1
    }

    /// The series of one VCALENDAR expanded in the window. In strict mode the series are
    /// expanded on every core, in parts that each have their own zone resolver (strict
    /// resolution notes nothing, so nothing of it depends on the order); a part that fails
    /// has the whole calendar expanded again in order, so the error is the first one, as
    /// one pass would report. Lenient resolution notes what it guessed, once, in order: it
    /// expands in one pass.
    static func expandSeries(
        _ calendar: Component, lenient: Bool, viewerZone: ZoneRules, limits: ExpansionLimits, from: Int, to: Int,
        warn: (ICalendarError) -> Void
    ) throws(ICalendarError) -> [CalendarObjectExpansion.SeriesExpansion] {
        func inOnePass() throws(ICalendarError) -> [CalendarObjectExpansion.SeriesExpansion] {
            let resolver = ZoneResolver(
                calendar: calendar, mode: lenient ? .lenient : .strict, readsFloatingInCalendarZone: lenient)
            defer { for warning in resolver.warnings { warn(warning) } }
            return try CalendarObjectExpansion(resolver: resolver, viewerZone: viewerZone, limits: limits)
                .expandSeries(calendar, from: from, to: to)
        }
        let parts = 32
        guard !lenient, calendar.components.count > 1_000 else { return try inOnePass() }
        // A series' components stay together (and in order) in one part; every part has
        // the calendar's other components (its VTIMEZONEs).
        var position: [String: Int] = [:]
        var members = [[Component]](repeating: [], count: parts)
        var others: [Component] = []
        for component in calendar.components {
            guard ObjectChecks.seriesKinds.contains(component.name) else {
                others.append(component)
                continue
            }
            let uid = component.property("UID")?.textValue() ?? component.derivedUID
            let first = position[uid] ?? position.count
            position[uid] = first
            members[first % parts].append(component)
        }
        let calendars = members.map {
            Component(name: calendar.name, properties: calendar.properties, components: others + $0)
        }
        let expanded = Parallel.map(calendars) { part in
            Result { () throws(ICalendarError) -> [CalendarObjectExpansion.SeriesExpansion] in
                try CalendarObjectExpansion(
                    resolver: ZoneResolver(calendar: part, mode: .strict, readsFloatingInCalendarZone: false),
                    viewerZone: viewerZone, limits: limits
                ).expandSeries(part, from: from, to: to)
            }
        }
        var series: [CalendarObjectExpansion.SeriesExpansion] = []
        var order: [(position: Int, index: Int)] = []
        for result in expanded {
            guard case .success(let found) = result else { return try inOnePass() }
            for one in found { order.append((position[one.uid] ?? 0, order.count)) }
            series += found
        }
        // The calendar's order again, for the notices of cut series: small keys sorted.
        order.sort { ($0.position, $0.index) < ($1.position, $1.index) }
        return order.map { series[$0.index] }
    }

    /// `series UID "Summary": listed only its first 100000 instances in the window (the
    /// last at …); a series may have at most 100000 instances (and 2000000 steps) …`.
    static func notice(_ series: TruncatedSeries, limits: ExpansionLimits) -> String {
        var text = "series \(series.uid)"
        if let summary = series.summary { text += " \"\(summary)\"" }
        text += ": listed only its first \(series.listed) instance\(series.listed == 1 ? "" : "s") in the window"
        if let last = series.lastListedStart { text += " (the last at \(last.text))" }
        text += "; one series may have at most \(limits.maxInstances) instances and \(limits.maxSteps) expansion steps"
        return text + (limits.maxInstances < maxInstancesBound ? "; pass --max-instances N to allow more" : "")
    }

    /// `YYYY-MM-DD` (midnight in `zone`), `YYYY-MM-DDTHH:MM[:SS]` (in `zone`) or with a trailing `Z` (UTC).
    static func instant(_ text: String, zone: ZoneRules, today: CivilDate, option: String) throws(CommandFailure) -> Int
    {
        // Dates only: the store commands' words (today, tomorrow) are not part of this tool's format.
        let now = CivilDateTime(date: today, time: .midnight).secondsSinceEpoch
        return TimeInput.instant(
            try TimeInput.parse(text, now: now, zone: zone, option: option, words: false), zone: zone)
    }

    /// One instance as a JSON object (`uid`, `recurrenceId`, `start`, `end`, `allDay`,
    /// `tzid`, `override`, `status`, and `summary` when there is one), written into
    /// `output`; `tail` is ``jsonTail(_:)`` of its component when already written.
    static func json(_ occurrence: Occurrence, into output: inout [UInt8], tail: [UInt8]? = nil, zone: ZoneRules? = nil)
    {
        func literal(_ text: StaticString) {
            output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }
        func time(_ value: OccurrenceTime) {
            output.append(0x22)
            if let zone, case .instant(let seconds) = value {
                output += Array(TimeInput.rfc3339(seconds, zone: zone).utf8)
            } else {
                value.appendText(to: &output)
            }
            output.append(0x22)
        }
        literal("{\"uid\":")
        JSONValue.writeString(occurrence.uid, to: &output)
        literal(",\"recurrenceId\":")
        if let id = occurrence.recurrenceID { time(id) } else { literal("null") }
        literal(",\"start\":")
        time(occurrence.start)
        literal(",\"end\":")
        time(occurrence.end)
        literal(occurrence.isAllDay ? ",\"allDay\":true,\"tzid\":" : ",\"allDay\":false,\"tzid\":")
        if let tzid = occurrence.tzid { JSONValue.writeString(tzid, to: &output) } else { literal("null") }
        literal(occurrence.isOverride ? ",\"override\":true" : ",\"override\":false")
        output += tail ?? jsonTail(occurrence.component)
    }

    /// The end of an instance's JSON object that its component decides: `status`, and
    /// `summary` when there is one.
    static func jsonTail(_ component: Component) -> [UInt8] {
        var tail = Array(",\"status\":".utf8)
        if let status = component.property("STATUS") {
            JSONValue.writeString(status.textValue(), to: &tail)
        } else {
            tail += Array("null".utf8)
        }
        if let summary = component.property("SUMMARY") {
            tail += Array(",\"summary\":".utf8)
            JSONValue.writeString(summary.textValue(), to: &tail)
        }
        tail.append(UInt8(ascii: "}"))
        return tail
    }

    /// `start  end  summary  (uid recurrence-id)`, instants in `zone` with its offset (nil: UTC, `…Z`).
    static func text(_ occurrence: Occurrence, zone: ZoneRules? = nil) -> String {
        func time(_ value: OccurrenceTime) -> String {
            guard let zone, case .instant(let seconds) = value else { return value.text }
            return TimeInput.rfc3339(seconds, zone: zone)
        }
        var line = time(occurrence.start) + "  " + time(occurrence.end)
        if let summary = occurrence.component.property("SUMMARY") { line += "  " + summary.textValue() }
        line += "  (" + occurrence.uid
        if let id = occurrence.recurrenceID { line += " " + time(id) }
        return line + ")"
    }
}
