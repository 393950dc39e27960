import CivilTime
import ICalendar
import Recurrence

/// `almanac ics expand`: every instance in a window, from a file.
enum ExpandCommand {
    static let usage = "ics expand FILE [--from DATE] [--to DATE] [--tz ZONE] [--format text|jsonl] [--lenient]"

    static func run(_ arguments: [String], io: CommandIO, today: CivilDate) throws(CommandFailure) -> Int32 {
        var options: [String: String] = [:]
        var flags = Set<String>()
        var operands: [String] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--from", "--to", "--tz", "--format":
                guard let value = rest.popFirst() else { throw .usage("'\(argument)' needs a value (see 'almanac ics --help')") }
                options[argument] = value
            case "--lenient":
                flags.insert(argument)
            default:
                if argument.hasPrefix("-") && argument != "-" {
                    throw .usage("unknown option '\(argument)' for 'ics expand' (see 'almanac ics --help')")
                }
                operands.append(argument)
            }
        }
        guard operands.count == 1 else { throw .usage("'ics expand' takes one FILE (or - for standard input)") }
        let format = options["--format"] ?? "text"
        guard format == "text" || format == "jsonl" else { throw .usage("--format must be text or jsonl") }
        let zoneName = options["--tz"] ?? "UTC"
        guard let viewerZone = zoneName == "UTC" ? ZoneRules.utc : TimeZoneDatabase.zone(named: zoneName) else {
            throw .usage("unknown time zone '\(zoneName)' for --tz (an IANA name such as Europe/Berlin)")
        }
        let from = try options["--from"].map { (text) throws(CommandFailure) in try instant(text, zone: viewerZone, today: today, option: "--from") }
            ?? viewerZone.instant(for: CivilDateTime(date: today, time: .midnight))
        let to = try options["--to"].map { (text) throws(CommandFailure) in try instant(text, zone: viewerZone, today: today, option: "--to") }
            ?? viewerZone.instant(for: CivilDateTime(date: today.adding(days: 365), time: .midnight))
        guard from < to else { throw .usage("--from must be before --to") }

        let lenient = flags.contains("--lenient")
        let document = try ICSCommand.load(operands[0], lenient: lenient, io: io)
        var output: [UInt8] = []
        for calendar in document.components {
            let resolver = ZoneResolver(calendar: calendar, mode: lenient ? .lenient : .strict, readsFloatingInCalendarZone: lenient)
            let expansion = CalendarObjectExpansion(resolver: resolver, viewerZone: viewerZone)
            let occurrences: [Occurrence]
            do {
                occurrences = try expansion.occurrences(in: calendar, from: from, to: to)
            } catch {
                throw CommandFailure(status: 1, "\(operands[0]): \(error)")
            }
            for warning in resolver.warnings { io.writeError("\(operands[0]): \(warning)") }
            for occurrence in occurrences {
                output += Array((format == "jsonl" ? json(occurrence) : text(occurrence)).utf8)
                output.append(0x0A)
            }
        }
        io.write(output)
        return 0
    }

    /// `YYYY-MM-DD` (midnight in `zone`), `YYYY-MM-DDTHH:MM[:SS]` (in `zone`) or with a trailing `Z` (UTC).
    static func instant(_ text: String, zone: ZoneRules, today: CivilDate, option: String) throws(CommandFailure) -> Int {
        // Dates only: the store commands' words (today, tomorrow) are not part of this tool's format.
        let now = CivilDateTime(date: today, time: .midnight).secondsSinceEpoch
        return TimeInput.instant(try TimeInput.parse(text, now: now, zone: zone, option: option, words: false), zone: zone)
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
        if let summary = occurrence.component.property("SUMMARY") { members.append(("summary", .string(summary.textValue()))) }
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
