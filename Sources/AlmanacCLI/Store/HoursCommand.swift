import Availability
import CalendarStore
import CivilTime

/// `almanac hours set|except|show`: the user's default availability schedule (the
/// VAVAILABILITY that `/api/v1/availability-schedules/default` serves).
enum HoursCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard let subcommand = arguments.first, ["set", "except", "show"].contains(subcommand) else {
            throw .usage("'hours' needs set HOURS, except DATE off|HOURS|weekly, or show")
        }
        let options = try Options(Array(arguments.dropFirst()), for: try CommandTable.hours.spec(subcommand))
        let context = try StoreContext(options, io: io)
        let appState = context.backend.appState
        let existing = try StoreContext.run { () throws(StoreError) in try appState.defaultSchedule(user: context.user)
        }
        var stored =
            existing
            ?? StoredSchedule(
                user: context.user, title: options["--title"] ?? StoredSchedule.defaultTitle, data: [], isDefault: true)
        var schedule: AvailabilitySchedule
        if let existing {
            do {
                schedule = try AvailabilitySchedule(calendarData: existing.data)
            } catch {
                throw CommandFailure(status: 1, "the stored schedule cannot be read: \(error.description)")
            }
        } else {
            let zone = options["--tz"] ?? TimeInput.localZoneName(environment: io.environment)
            schedule = AvailabilitySchedule(timeZone: zone, weekly: [:])
        }
        switch subcommand {
        case "set":
            guard options.operands.count == 1 else {
                throw .usage("'hours set' takes the hours in one argument: \"Mon-Fri 09:00-17:00, Sat 10:00-14:00\"")
            }
            let zone = options["--tz"] ?? schedule.timeZone
            _ = try TimeInput.zone(named: zone, option: "--tz")
            guard let parsed = AvailabilitySchedule(hours: options.operands[0], timeZone: zone) else {
                throw .usage("hours read like \"Mon-Fri 09:00-17:00, Sat 10:00-14:00\", not \(options.operands[0])")
            }
            schedule = AvailabilitySchedule(timeZone: zone, weekly: parsed.weekly, exceptions: schedule.exceptions)
            if let title = options["--title"] { stored.title = title }
        case "except":
            guard options.operands.count >= 2, let date = CivilDate(isoText: options.operands[0]) else {
                throw .usage(
                    "'hours except' takes a date and off, hours (09:00-12:00) or weekly: hours except 2026-12-24 off")
            }
            let rest = Array(options.operands.dropFirst())
            switch rest {
            case ["off"]: schedule.setException(date, hours: [])
            case ["weekly"]: schedule.removeException(date)
            default:
                var spans: [ClockRange] = []
                for word in rest.flatMap({ $0.split(separator: " ") }) {
                    guard let span = ClockRange(word) else {
                        throw .usage("\(word) is not hours: give 09:00-12:00 (several with spaces), off or weekly")
                    }
                    spans.append(span)
                }
                schedule.setException(date, hours: spans)
            }
        default:
            guard options.operands.isEmpty else { throw .usage("'hours show' takes no operands") }
            guard existing != nil else {
                io.write("No hours set: every time is bookable (set them with 'almanac hours set')\n")
                return 0
            }
            io.write("\(stored.title) (\(schedule.timeZone)): \(schedule.hoursText)\n")
            for date in schedule.exceptions.keys.sorted() {
                let spans = schedule.exceptions[date] ?? []
                let hours = spans.isEmpty ? "off" : spans.map(\.text).joined(separator: " ")
                io.write("  \(date) (\(date.weekday.englishName)): \(hours)\n")
            }
            return 0
        }
        stored.data = schedule.calendarData(uid: stored.id, stamp: CivilDateTime(secondsSinceEpoch: io.now))
        let saved = try StoreContext.run { () throws(StoreError) in try appState.saveSchedule(stored, ifMatch: nil) }
        io.write("\(saved.title) (\(schedule.timeZone)): \(schedule.hoursText)")
        let count = schedule.exceptions.count
        io.write(count == 0 ? "\n" : count == 1 ? "; 1 date differs\n" : "; \(count) dates differ\n")
        return 0
    }
}
