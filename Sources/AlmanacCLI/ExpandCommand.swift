import CivilTime
import ICalendar
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

        let lenient = options.has("--lenient")
        let document = try ICSCommand.load(operands[0], lenient: lenient, io: io)
        var output: [UInt8] = []
        var truncated: [TruncatedSeries] = []
        for calendar in document.components {
            let resolver = ZoneResolver(
                calendar: calendar, mode: lenient ? .lenient : .strict, readsFloatingInCalendarZone: lenient)
            let expansion = CalendarObjectExpansion(resolver: resolver, viewerZone: viewerZone, limits: limits)
            let result: CalendarExpansion
            do {
                result = try expansion.expand(calendar, from: from, to: to)
            } catch {
                throw CommandFailure(status: 1, "\(operands[0]): \(error)")
            }
            for warning in resolver.warnings { io.writeError("\(operands[0]): \(warning)") }
            for occurrence in result.occurrences {
                output += Array((format == "jsonl" ? json(occurrence) : text(occurrence)).utf8)
                output.append(0x0A)
            }
            truncated += result.truncatedSeries
        }
        io.write(output)
        // Every other series is listed whole; each cut one is named, and the exit status says so.
        for series in truncated { io.writeError("\(operands[0]): \(notice(series, limits: limits))") }
        return truncated.isEmpty ? 0 : 1
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

    static func json(_ occurrence: Occurrence) -> String {
        var members: [(key: String, value: JSONValue)] = [
            ("uid", .string(occurrence.uid)),
            ("recurrenceId", occurrence.recurrenceID.map { .string($0.text) } ?? .null),
            ("start", .string(occurrence.start.text)),
            ("end", .string(occurrence.end.text)),
            ("allDay", .bool(occurrence.isAllDay)),
            ("tzid", occurrence.tzid.map(JSONValue.string) ?? .null),
        ]
        members.append(("override", .bool(occurrence.isOverride)))
        members.append(("status", occurrence.component.property("STATUS").map { .string($0.textValue()) } ?? .null))
        if let summary = occurrence.component.property("SUMMARY") {
            members.append(("summary", .string(summary.textValue())))
        }
        return JSONValue.object(members).jsonText
    }

    static func text(_ occurrence: Occurrence) -> String {
        var line = occurrence.start.text + "  " + occurrence.end.text
        if let summary = occurrence.component.property("SUMMARY") { line += "  " + summary.textValue() }
        line += "  (" + occurrence.uid
        if let id = occurrence.recurrenceID { line += " " + id.text }
        return line + ")"
    }
}
