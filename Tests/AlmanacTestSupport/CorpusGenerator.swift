import CivilTime
import ICalendar
import Recurrence

/// The project's own generator of realistic calendars, deterministic per seed: what
/// real exports hold, in the proportions they hold it.
///
/// - about 70% timed one-off events, in one of four IANA zones (with their VTIMEZONEs,
///   written from the zone data) or in UTC;
/// - about 15% recurring events (daily, weekly, monthly and yearly rules with COUNT,
///   UNTIL or neither), some with an EXDATE and an overridden instance;
/// - about 15% all-day events of one to three days;
/// - titles and notes with commas, semicolons and non-ASCII text, long notes that
///   fold, locations, categories, organizers and attendees, alarms;
/// - starts spread over 2024–2028.
///
/// Every event is its own UID, so a corpus of N events splits into N objects.
enum CorpusGenerator {
    static let zones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"]
    static let words = [
        "Stand-up", "Review", "Leg day", "Yoga", "Lunch", "Planning", "Dentist", "Café", "Kundentermin", "Retro", "1:1",
        "Training",
        "Board", "Sprint", "Demo", "Workshop", "会議", "Zumba", "Spin class", "Budget",
    ]
    static let people = ["Ada Lovelace", "Grace Lee", "Jürgen Müller", "Aiko Tanaka", "Sam O'Neil", "Priya Patel"]
    static let rules = [
        "FREQ=DAILY;COUNT=10", "FREQ=WEEKLY;COUNT=12", "FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=30", "FREQ=WEEKLY;INTERVAL=2",
        "FREQ=MONTHLY;BYDAY=2TU",
        "FREQ=MONTHLY;BYMONTHDAY=15;COUNT=24", "FREQ=YEARLY", "FREQ=DAILY;INTERVAL=3;UNTIL=",
        "FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=",
    ]

    static func generate(events: Int, seed: Int) -> [UInt8] {
        var random = SplitMix64(seed: UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9 &+ 1)
        var used = Set<String>()
        var members: [Component] = []
        func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        func text(_ count: ClosedRange<Int>) -> String {
            (0..<Int.random(in: count, using: &random)).map { _ in pick(words) }.joined(separator: " ")
        }
        let stamp = DateTimeValue(CivilDateTime(year: 2023, month: 12, day: 1, hour: 8)!, form: .utc)
        for index in 0..<events {
            let uid = "gen-\(seed)-\(index)@almanac.test"
            let day = CivilDate(year: 2024, month: 1, day: 1)!.adding(
                days: Int.random(in: 0..<(5 * 365 - 30), using: &random))
            let kind = Int.random(in: 0..<100, using: &random)
            var event = Component(
                name: "VEVENT",
                properties: [Property(name: "UID", value: uid), Property(name: "DTSTAMP", dateTime: stamp)])
            var start: DateTimeValue
            if kind >= 85 {
                start = DateTimeValue(date: day)
                event.properties.append(Property(name: "DTSTART", dateTime: start))
                event.properties.append(
                    Property(
                        name: "DTEND",
                        dateTime: DateTimeValue(date: day.adding(days: Int.random(in: 1...3, using: &random)))))
            } else {
                let local = CivilDateTime(
                    date: day,
                    time: TimeOfDay(
                        hour: Int.random(in: 7...19, using: &random), minute: pick([0, 15, 30, 45]), second: 0)!)
                let zone = chance(80) ? pick(zones) : nil
                if let zone { used.insert(zone) }
                start = DateTimeValue(local, form: zone.map { .zoned(tzid: $0) } ?? .utc)
                let end = DateTimeValue(
                    local.adding(seconds: 60 * pick([15, 30, 45, 60, 90, 120, 240])), form: start.form)
                event.properties.append(Property(name: "DTSTART", dateTime: start))
                event.properties.append(Property(name: "DTEND", dateTime: end))
            }
            event.properties.append(
                Property(
                    name: "SUMMARY", text: chance(10) ? text(1...3) + ", " + text(1...2) + "; part 2" : text(1...4)))
            if chance(40) {
                let note = chance(30) ? (0..<6).map { _ in text(8...14) }.joined(separator: "\n") : text(3...12)
                event.properties.append(Property(name: "DESCRIPTION", text: note))
            }
            if chance(30) {
                event.properties.append(
                    Property(name: "LOCATION", text: pick(["Room 1.23", "Gym, Hall B", "Zoom", "Café Müller"])))
            }
            if chance(20) {
                event.properties.append(
                    Property(
                        name: "CATEGORIES", texts: [pick(["Work", "Sport", "Private"]), pick(["Team", "Health"])]))
            }
            if chance(25) {
                let organizer = pick(people)
                event.properties.append(
                    Property(
                        name: "ORGANIZER", parameters: [Parameter(name: "CN", value: organizer)],
                        value: "mailto:" + mail(organizer)))
                for person in Set((0..<Int.random(in: 1...3, using: &random)).map { _ in pick(people) }) {
                    event.properties.append(
                        Property(
                            name: "ATTENDEE",
                            parameters: [
                                Parameter(name: "CN", value: person),
                                Parameter(name: "PARTSTAT", value: pick(["ACCEPTED", "TENTATIVE", "NEEDS-ACTION"])),
                            ],
                            value: "mailto:" + mail(person)))
                }
            }
            if chance(30) {
                event.components.append(
                    Component(
                        name: "VALARM",
                        properties: [
                            Property(name: "ACTION", value: "DISPLAY"), Property(name: "DESCRIPTION", text: "Reminder"),
                            Property(
                                name: "TRIGGER",
                                duration: CalendarDuration(isNegative: true, minutes: pick([5, 15, 30, 60]))),
                        ]))
            }
            var override: Component?
            if kind >= 70 && kind < 85 {
                var rule = pick(rules)
                if rule.hasSuffix("UNTIL=") {
                    let until = start.civil.adding(days: Int.random(in: 30...200, using: &random))
                    rule +=
                        start.isDate
                        ? DateTimeValue(date: until.date).icalendarText : DateTimeValue(until, form: .utc).icalendarText
                }
                event.properties.append(Property(name: "RRULE", value: rule))
                // A plain weekly rule repeats a week later: exclude one instance, move another.
                if rule == "FREQ=WEEKLY;COUNT=12" {
                    event.properties.append(
                        Property(
                            name: "EXDATE", dateTime: DateTimeValue(start.civil.adding(days: 14), form: start.form)))
                    let moved = start.civil.adding(days: 7)
                    var instance = event
                    instance.properties.removeAll { ["RRULE", "EXDATE", "DTSTART", "DTEND"].contains($0.name) }
                    instance.properties.append(
                        Property(name: "RECURRENCE-ID", dateTime: DateTimeValue(moved, form: start.form)))
                    instance.properties.append(
                        Property(
                            name: "DTSTART", dateTime: DateTimeValue(moved.adding(seconds: 3600), form: start.form)))
                    instance.properties.append(
                        Property(name: "DTEND", dateTime: DateTimeValue(moved.adding(seconds: 7200), form: start.form)))
                    instance.properties.append(Property(name: "SUMMARY", text: "Moved"))
                    instance.properties.removeAll { $0.name == "SUMMARY" && $0.value != "Moved" }
                    override = instance
                }
            }
            members.append(event)
            if let override { members.append(override) }
        }
        let from = CivilDateTime(year: 2023, month: 1, day: 1)!.secondsSinceEpoch  // 2023-01-01T00:00:00Z
        let to = CivilDateTime(year: 2031, month: 1, day: 1)!.secondsSinceEpoch  // 2031-01-01T00:00:00Z
        let timeZones = used.sorted().compactMap { TimeZoneDatabase.zone(named: $0) }.map {
            VTimeZone.component(for: $0, from: from, to: to)
        }
        let calendar = Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"),
                Property(name: "PRODID", value: "-//Almanac//Corpus generator//EN"),
            ],
            components: timeZones + members)
        return calendar.serialized()
    }

    static func mail(_ person: String) -> String {
        String(person.lowercased().unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || $0 == " ") })
            .replacingAll(" ", with: ".")
            + "@example.com"
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
