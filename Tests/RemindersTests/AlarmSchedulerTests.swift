import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import CivilTime
import Foundation
import ICalendar
import JSON
import Reminders
import Scheduling
import Synchronization
import Testing
import Webhooks

/// Unix seconds of a UTC wall clock, from `YYYYMMDDTHHMMSSZ`: the expected instants below
/// are worked out by hand (Europe/Berlin is UTC+1 until 2026-03-29 01:00Z, UTC+2 after).
func utc(_ text: String) -> Int {
    DateTimeValue.parse(text).map { $0.civil.secondsSinceEpoch }!
}

extension DateTimeValue {
    static func parse(_ text: String) -> DateTimeValue? {
        try? Property(name: "DTSTART", value: text).dateTimeValue()
    }
}

/// A server's alarm side without the server: one backend, alice with a Berlin calendar and
/// a webhook subscription (so every firing leaves an `alarm.due` delivery in the outbox),
/// and a scheduler on a test clock.
struct ReminderFixture {
    let directory: TemporaryDirectory
    let backend: DatabaseBackend
    let store: any EventStore
    let calendar: EventCalendar
    let clock: TestClock
    let scheduler: AlarmScheduler
    let webhook: Webhook
    let step: Int

    /// - Parameter step: the longest the clock moves between ticks; the scheduler plans
    ///   twice that far ahead, so nothing comes due unplanned between two ticks.
    init(_ kind: StoreKind, start: Int, step: Int = 3 * 3_600) throws {
        directory = try TemporaryDirectory()
        backend = try kind.openBackend(in: directory)
        try backend.createUser(named: "alice", displayName: nil, passwordHash: nil)
        store = try backend.eventStore(for: "alice")
        var berlin = EventCalendar(title: "Training")
        berlin.timeZone = "Europe/Berlin"
        calendar = try store.createCalendar(berlin)
        clock = TestClock(start)
        let clock = clock
        var configuration = AlarmScheduler.Configuration()
        (configuration.lookahead, configuration.window) = (2 * step, step)
        configuration.baseURL = "https://calendar.example/"
        self.step = step
        scheduler = AlarmScheduler(store: backend.reminders, configuration: configuration, now: { clock.now })
        webhook = try backend.webhooks.createWebhook(
            Webhook(id: Webhook.newIdentifier(), user: "alice", url: "https://hooks.example/alarms"),
            secret: Webhook.newSecret())
    }

    func put(_ name: String, _ lines: [String]) throws {
        let data = Array(
            (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN"] + lines + ["END:VCALENDAR", ""])
                .joined(separator: "\r\n").utf8)
        _ = try store.putResource(data, name: name, calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
    }

    /// Runs the scheduler as `serve` does, waking at each due firing (and at least every
    /// `step`), until `end`; returns what fired, in order.
    @discardableResult
    func run(until end: Int) throws -> [AlarmFiringRecord] {
        var fired: [AlarmFiringRecord] = []
        for _ in 0..<100_000 {
            fired += try scheduler.tick()
            guard clock.now < end else { break }
            let due = try backend.reminders.nextDue() ?? .max
            clock.now = max(clock.now + 1, min(clock.now + step, due, end))
        }
        return fired
    }

    /// The `alarm.due` bodies in the outbox, oldest first.
    func alarmDeliveries() throws -> [JSONValue] {
        try backend.webhooks.deliveries(webhook: webhook.id, user: "alice", before: nil, limit: 10_000)
            .filter { $0.type == .alarmDue }.reversed()
            .map { try JSONValue(parsing: WebhookPayload.body($0)) }
    }
}

/// What a firing is, for comparing lists: its time, event, occurrence, alarm and repetition.
struct Firing: Hashable, CustomStringConvertible {
    var at: Int
    var uid: String
    var recurrenceID: String?
    var alarm: String
    var repetition: Int

    init(_ at: Int, _ uid: String, _ recurrenceID: String?, _ alarm: String, _ repetition: Int = 0) {
        (self.at, self.uid, self.recurrenceID, self.alarm, self.repetition) = (at, uid, recurrenceID, alarm, repetition)
    }

    init(_ record: AlarmFiringRecord) {
        self.init(record.fireAt, record.uid, record.recurrenceID, record.alarmUID, record.repetition)
    }

    var description: String {
        "\(CivilDateTime(secondsSinceEpoch: at))Z \(uid) \(recurrenceID ?? "-") \(alarm)#\(repetition)"
    }
}

@Suite("Alarm scheduler")
struct AlarmSchedulerTests {
    /// Every kind of trigger, a series across the spring DST change with an EXDATE and a
    /// moved instance, on the scheduler's clock: exactly the firings worked out by hand,
    /// in order, each once, each with its webhook, none late.
    @Test(arguments: StoreKind.allCases)
    func firesEveryKindOfTrigger(kind: StoreKind) throws {
        let fixture = try ReminderFixture(kind, start: utc("20260314T000000Z"))
        // Sundays 09:00 in Berlin: 15 March (UTC+1), 22 March removed, 29 March (UTC+2),
        // 5 April moved to 11:00; 15 minutes before each.
        try fixture.put(
            "weekly.ics",
            [
                "BEGIN:VEVENT", "UID:weekly", "DTSTAMP:20260301T000000Z", "SUMMARY:Long run",
                "DTSTART;TZID=Europe/Berlin:20260315T090000", "DURATION:PT1H", "RRULE:FREQ=WEEKLY;COUNT=4",
                "EXDATE;TZID=Europe/Berlin:20260322T090000",
                "BEGIN:VALARM", "UID:weekly-alarm", "ACTION:DISPLAY", "DESCRIPTION:Run soon", "TRIGGER:-PT15M",
                "END:VALARM", "END:VEVENT",
                "BEGIN:VEVENT", "UID:weekly", "DTSTAMP:20260301T000000Z", "SUMMARY:Long run (late start)",
                "RECURRENCE-ID;TZID=Europe/Berlin:20260405T090000", "DTSTART;TZID=Europe/Berlin:20260405T110000",
                "DURATION:PT1H",
                "BEGIN:VALARM", "UID:weekly-alarm", "ACTION:DISPLAY", "DESCRIPTION:Run soon", "TRIGGER:-PT15M",
                "END:VALARM", "END:VEVENT",
            ])
        // Five minutes after the end, 11:00 Berlin (UTC+1).
        try fixture.put(
            "end.ics",
            vevent(
                "end",
                [
                    "DTSTART;TZID=Europe/Berlin:20260320T100000", "DTEND;TZID=Europe/Berlin:20260320T110000",
                    "BEGIN:VALARM", "UID:end-alarm", "ACTION:DISPLAY", "DESCRIPTION:Stretch",
                    "TRIGGER;RELATED=END:PT5M", "END:VALARM",
                ]))
        // Ten minutes before 12:00Z, then twice more five minutes apart.
        try fixture.put(
            "repeat.ics",
            vevent(
                "repeat",
                [
                    "DTSTART:20260321T120000Z", "DURATION:PT30M", "BEGIN:VALARM", "UID:repeat-alarm", "ACTION:AUDIO",
                    "TRIGGER:-PT10M", "REPEAT:2", "DURATION:PT5M", "END:VALARM",
                ]))
        // At a fixed instant, a day before the event.
        try fixture.put(
            "absolute.ics",
            vevent(
                "absolute",
                [
                    "DTSTART:20260326T060000Z", "DURATION:PT1H", "BEGIN:VALARM", "UID:absolute-alarm",
                    "ACTION:DISPLAY", "DESCRIPTION:Pack", "TRIGGER;VALUE=DATE-TIME:20260325T060000Z", "END:VALARM",
                ]))
        // Floating 08:00, read in the calendar's zone (UTC+2 by then); no UID of its own.
        try fixture.put(
            "floating.ics",
            vevent(
                "floating",
                [
                    "DTSTART:20260330T080000", "DURATION:PT1H", "BEGIN:VALARM", "ACTION:DISPLAY",
                    "DESCRIPTION:Floating", "TRIGGER:-PT30M", "END:VALARM",
                ]))
        let derived = AlarmIdentity.derivedUID(eventUID: "floating", recurrenceID: "", position: 0)

        let fired = try fixture.run(until: utc("20260410T000000Z"))
        let expected = [
            Firing(utc("20260315T074500Z"), "weekly", "2026-03-15T08:00:00Z", "weekly-alarm"),
            Firing(utc("20260320T100500Z"), "end", nil, "end-alarm"),
            Firing(utc("20260321T115000Z"), "repeat", nil, "repeat-alarm", 0),
            Firing(utc("20260321T115500Z"), "repeat", nil, "repeat-alarm", 1),
            Firing(utc("20260321T120000Z"), "repeat", nil, "repeat-alarm", 2),
            Firing(utc("20260325T060000Z"), "absolute", nil, "absolute-alarm"),
            Firing(utc("20260329T064500Z"), "weekly", "2026-03-29T07:00:00Z", "weekly-alarm"),
            Firing(utc("20260330T053000Z"), "floating", nil, derived),
            Firing(utc("20260405T084500Z"), "weekly", "2026-04-05T07:00:00Z", "weekly-alarm"),
        ]
        #expect(fired.map(Firing.init) == expected)
        #expect(fired.allSatisfy { $0.state == .fired && !$0.late && $0.firedAt == $0.fireAt })

        // The same list the store computes without the queue, over the whole span.
        let computed = try fixture.store.alarms(
            firingIn: TimeRange(start: utc("20260314T000000Z"), end: utc("20260410T000000Z")))
        #expect(computed.map(\.fireTime) == expected.map(\.at))

        // Each firing left one signed-to-be delivery telling its alarm.
        let deliveries = try fixture.alarmDeliveries()
        #expect(deliveries.count == expected.count)
        let first = try #require(deliveries.first)
        #expect(first["type"] == .string("alarm.due"))
        #expect(first["uid"] == .string("weekly"))
        #expect(first["calendarId"] == .string(fixture.calendar.id))
        #expect(first["occurrence"]?["recurrenceId"] == .string("2026-03-15T08:00:00Z"))
        #expect(first["alarm"]?["uid"] == .string("weekly-alarm"))
        #expect(first["alarm"]?["action"] == .string("DISPLAY"))
        #expect(first["alarm"]?["description"] == .string("Run soon"))
        #expect(first["alarm"]?["trigger"] == .string("2026-03-15T07:45:00Z"))
        #expect(first["alarm"]?["late"] == .bool(false))
        #expect(first["occurredAt"] == .string("2026-03-15T07:45:00.000Z"))
        #expect(
            deliveries.map { $0["alarm"]?["trigger"] }
                == fired.map { .string(CivilDateTime(secondsSinceEpoch: $0.fireAt).description + "Z") })

        // Nothing fires twice, however often the scheduler looks again.
        fixture.clock.now += 3_600
        #expect(try fixture.scheduler.tick().isEmpty)
    }

    /// An alarm added, then moved earlier, then moved later after it fired: each change
    /// takes effect at the next tick, and the moved alarm fires at its new time only.
    @Test(arguments: StoreKind.allCases)
    func alarmsAddedAndMovedTakeEffectAtOnce(kind: StoreKind) throws {
        let start = utc("20260601T080000Z")
        let fixture = try ReminderFixture(kind, start: start)
        #expect(try fixture.run(until: start + 60).isEmpty)
        func event(trigger: String) -> [String] {
            vevent(
                "moved",
                [
                    "DTSTART:20260601T100000Z", "DURATION:PT1H", "BEGIN:VALARM", "UID:moved-alarm", "ACTION:DISPLAY",
                    "DESCRIPTION:Go", "TRIGGER:\(trigger)", "END:VALARM",
                ])
        }
        try fixture.put("moved.ics", event(trigger: "-PT60M"))  // 09:00Z
        #expect(try fixture.run(until: utc("20260601T082000Z")).isEmpty)
        try fixture.put("moved.ics", event(trigger: "-PT90M"))  // 08:30Z
        let fired = try fixture.run(until: utc("20260601T094000Z"))
        #expect(fired.map(Firing.init) == [Firing(utc("20260601T083000Z"), "moved", nil, "moved-alarm")])
        // Moved past the present again: it fires at its new time, once more.
        try fixture.put("moved.ics", event(trigger: "-PT10M"))  // 09:50Z
        let again = try fixture.run(until: utc("20260601T120000Z"))
        #expect(again.map(Firing.init) == [Firing(utc("20260601T095000Z"), "moved", nil, "moved-alarm")])
        // Removed before it is due: nothing fires.
        try fixture.put(
            "late.ics",
            vevent(
                "late",
                [
                    "DTSTART:20260601T130000Z", "BEGIN:VALARM", "UID:late-alarm",
                    "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:-PT5M", "END:VALARM",
                ]))
        try fixture.put("late.ics", vevent("late", ["DTSTART:20260601T130000Z"]))
        try fixture.store.deleteResource(named: "moved.ics", calendar: fixture.calendar.id, ifMatch: nil)
        #expect(try fixture.run(until: utc("20260601T140000Z")).isEmpty)
    }

    /// RFC 9074 written by a client: ACKNOWLEDGED after the first firing stops that
    /// instance's repetitions but not the next day's; a snooze alarm (RELATED-TO;
    /// RELTYPE=SNOOZE, absolute trigger) fires at its time; Thunderbird's X-MOZ-LASTACK
    /// acknowledges likewise.
    @Test(arguments: StoreKind.allCases)
    func acknowledgedAndSnoozedAsClientsWriteThem(kind: StoreKind) throws {
        let start = utc("20260701T060000Z")
        let fixture = try ReminderFixture(kind, start: start)
        func daily(_ extra: [String] = [], snooze: [String] = []) -> [String] {
            vevent(
                "daily",
                [
                    "DTSTART:20260701T080000Z", "DURATION:PT30M", "RRULE:FREQ=DAILY;COUNT=3",
                    "BEGIN:VALARM", "UID:daily-alarm", "ACTION:DISPLAY", "DESCRIPTION:Stand-up", "TRIGGER:-PT10M",
                    "REPEAT:2", "DURATION:PT5M",
                ] + extra + ["END:VALARM"] + snooze)
        }
        try fixture.put("daily.ics", daily())
        let first = try fixture.run(until: utc("20260701T075000Z"))
        #expect(
            first.map(Firing.init) == [Firing(utc("20260701T075000Z"), "daily", "2026-07-01T08:00:00Z", "daily-alarm")])
        // Dismissed on a phone at 07:51 and snoozed until 08:20.
        try fixture.put(
            "daily.ics",
            daily(
                ["ACKNOWLEDGED:20260701T075100Z"],
                snooze: [
                    "BEGIN:VALARM", "UID:snooze-1", "RELATED-TO;RELTYPE=SNOOZE:daily-alarm", "ACTION:DISPLAY",
                    "DESCRIPTION:Stand-up", "TRIGGER;VALUE=DATE-TIME:20260701T082000Z", "END:VALARM",
                ]))
        let rest = try fixture.run(until: utc("20260702T080000Z"))
        // The snooze belongs to the master it is written in: no occurrence of its own.
        #expect(
            rest.map(Firing.init) == [
                Firing(utc("20260701T082000Z"), "daily", nil, "snooze-1"),
                Firing(utc("20260702T075000Z"), "daily", "2026-07-02T08:00:00Z", "daily-alarm", 0),
                Firing(utc("20260702T075500Z"), "daily", "2026-07-02T08:00:00Z", "daily-alarm", 1),
                Firing(utc("20260702T080000Z"), "daily", "2026-07-02T08:00:00Z", "daily-alarm", 2),
            ])
        #expect(rest.first?.snoozeOf == "daily-alarm")
        // Thunderbird dismisses with X-MOZ-LASTACK on the event: the third day's first
        // firing (07:50Z on 3 July) is before it, so that instance is done.
        try fixture.put(
            "daily.ics",
            vevent(
                "daily",
                [
                    "DTSTART:20260701T080000Z", "DURATION:PT30M", "RRULE:FREQ=DAILY;COUNT=3",
                    "X-MOZ-LASTACK:20260703T075200Z", "BEGIN:VALARM", "UID:daily-alarm", "ACTION:DISPLAY",
                    "DESCRIPTION:Stand-up", "TRIGGER:-PT10M", "END:VALARM",
                ]))
        #expect(try fixture.run(until: utc("20260704T000000Z")).isEmpty)
    }

    /// After downtime: firings missed by less than the grace fire at once, marked late;
    /// older ones are recorded as missed and not sent.
    @Test(arguments: StoreKind.allCases)
    func afterDowntimeLateWithinGraceMissedBeyond(kind: StoreKind) throws {
        let start = utc("20260801T000000Z")
        let fixture = try ReminderFixture(kind, start: start, step: 900)
        for hour in 1...4 {
            try fixture.put(
                "h\(hour).ics",
                vevent(
                    "h\(hour)",
                    [
                        "DTSTART:20260801T0\(hour)1000Z", "BEGIN:VALARM", "UID:h\(hour)-alarm", "ACTION:DISPLAY",
                        "DESCRIPTION:x", "TRIGGER:-PT10M", "END:VALARM",
                    ]))
        }
        try fixture.scheduler.tick()
        // Down from 00:00 to 03:30: 01:00 and 02:00 are more than an hour (the grace) old,
        // 03:00 is 30 minutes late; 04:00 is still to come.
        fixture.clock.now = utc("20260801T033000Z")
        let records = try fixture.scheduler.tick()
        #expect(records.map(\.uid) == ["h1", "h2", "h3"])
        #expect(records.map(\.state) == [.missed, .missed, .fired])
        #expect(records.map(\.late) == [false, false, true])
        let deliveries = try fixture.alarmDeliveries()
        #expect(deliveries.map { $0["uid"] } == [.string("h3")])
        #expect(deliveries.first?["alarm"]?["late"] == .bool(true))
        #expect(try fixture.run(until: utc("20260801T050000Z")).map(\.uid) == ["h4"])
    }

    /// One owner's calendars cannot fill the queue: a REPEAT every second for ever fires
    /// at most ``AlarmLimits/perObjectPerHour`` times an hour (and one window's share more).
    @Test func repeatsEverySecondAreBounded() throws {
        let start = utc("20260901T000000Z")
        let fixture = try ReminderFixture(.sqlite, start: start, step: 900)
        try fixture.put(
            "flood.ics",
            vevent(
                "flood",
                [
                    "DTSTART:20260901T000500Z", "BEGIN:VALARM", "UID:flood", "ACTION:DISPLAY", "DESCRIPTION:x",
                    "TRIGGER:-PT1M", "REPEAT:2147483647", "DURATION:PT1S", "END:VALARM",
                ]))
        let fired = try fixture.run(until: start + 3_600)
        #expect(fired.count > 0)
        #expect(fired.count >= AlarmLimits.perObjectPerHour / 2)
        #expect(fired.count <= AlarmLimits.perObjectPerHour + AlarmLimits.perObjectPerHour / 4)
    }
}

/// Several processes on one PostgreSQL database: two backends (each with its own
/// connections, as two `almanac serve` processes have) ticking at once fire each alarm once.
@Suite("Alarm scheduler on PostgreSQL")
struct AlarmSchedulerPostgresTests {
    @Test(.enabled(if: StoreKind.available.contains(.postgres)))
    func twoProcessesFireEachAlarmOnce() throws {
        let start = utc("20261001T080000Z")
        let url = try TestPostgres.freshURL()
        let first = try DatabaseBackend(postgresURL: url)
        let second = try DatabaseBackend(postgresURL: url)
        try first.createUser(named: "alice", displayName: nil, passwordHash: nil)
        let store = try first.eventStore(for: "alice")
        let calendar = try store.createCalendar(EventCalendar(title: "Many"))
        let webhook = try first.webhooks.createWebhook(
            Webhook(id: Webhook.newIdentifier(), user: "alice", url: "https://hooks.example/a"),
            secret: Webhook.newSecret())
        let count = 300
        for index in 0..<count {
            let data = Array(
                ([
                    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN",
                ]
                    + vevent(
                        "e\(index)",
                        [
                            "DTSTART:20261001T0830\(String(format: "%02d", index % 60))Z", "BEGIN:VALARM",
                            "UID:a\(index)", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:-PT10M", "END:VALARM",
                        ]) + ["END:VCALENDAR", ""]).joined(separator: "\r\n").utf8)
            _ = try store.putResource(
                data, name: "e\(index).ics", calendar: calendar.id, ifMatch: nil, ifNoneMatch: false)
        }
        let clock = TestClock(start)
        var configuration = AlarmScheduler.Configuration()
        configuration.batch = 7
        let schedulers = [first, second].map {
            AlarmScheduler(store: $0.reminders, configuration: configuration, now: { clock.now })
        }
        for scheduler in schedulers { try scheduler.tick() }
        clock.now = utc("20261001T082100Z")
        let results = Mutex<[[String]]>([[], []])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let uids = (try? schedulers[index].tick().map(\.alarmUID)) ?? ["failed"]
            results.withLock { $0[index] = uids }
        }
        let (one, two) = results.withLock { ($0[0], $0[1]) }
        #expect(!one.contains("failed") && !two.contains("failed"))
        #expect(Set(one).isDisjoint(with: two))
        #expect(Set(one + two) == Set((0..<count).map { "a\($0)" }))
        #expect(one.count + two.count == count)
        let deliveries = try first.webhooks.deliveries(webhook: webhook.id, user: "alice", before: nil, limit: 10_000)
        #expect(deliveries.filter { $0.type == .alarmDue }.count == count)
    }
}

func vevent(_ uid: String, _ lines: [String]) -> [String] {
    ["BEGIN:VEVENT", "UID:\(uid)", "DTSTAMP:20260101T000000Z"] + lines + ["END:VEVENT"]
}

/// A mailer that keeps what it is given and answers as told.
final class RecordingMailer: AlarmMailer, Sendable {
    let state = Mutex<(messages: [IMIP.Outgoing], failing: Bool)>(([], false))

    var messages: [IMIP.Outgoing] { state.withLock { $0.messages } }
    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    func post(_ message: IMIP.Outgoing, for owner: String, done: @escaping @Sendable (String?) -> Void) -> Bool {
        let failing = state.withLock { state in
            if !state.failing { state.messages.append(message) }
            return state.failing
        }
        done(failing ? "the relay said no" : nil)
        return true
    }
}

/// `ACTION:EMAIL` alarms: mailed to the owner's own addresses only, whatever ATTENDEEs
/// the alarm names; tried again after a failure; bounded per user an hour.
@Suite("E-mail alarms")
struct EmailAlarmTests {
    func emailEvent(_ uid: String, at start: String, attendee: String = "mailto:stranger@elsewhere.example")
        -> [String]
    {
        vevent(
            uid,
            [
                "SUMMARY:Dentist", "DTSTART;TZID=Europe/Berlin:\(start)", "DURATION:PT30M", "BEGIN:VALARM",
                "UID:\(uid)-mail", "ACTION:EMAIL", "SUMMARY:Reminder", "DESCRIPTION:Bring the card",
                "ATTENDEE:\(attendee)", "TRIGGER:-PT1H", "END:VALARM",
            ])
    }

    func body(of message: IMIP.Outgoing) -> String {
        let text = String(decoding: message.data, as: UTF8.self)
        let encoded = text.components(separatedBy: "\r\n\r\n").dropFirst().joined().replacingOccurrences(
            of: "\r\n", with: "")
        return String(decoding: Data(base64Encoded: encoded) ?? Data(), as: UTF8.self)
    }

    @Test(arguments: StoreKind.allCases)
    func mailGoesToTheOwnerOnlyAndIsRetried(kind: StoreKind) throws {
        let fixture = try ReminderFixture(kind, start: utc("20261110T060000Z"))
        try fixture.backend.setAddresses(["anna@example.com", "anna@work.example"], forUser: "alice")
        let mailer = RecordingMailer()
        fixture.scheduler.mailer = mailer
        try fixture.put("dentist.ics", emailEvent("dentist", at: "20261110T090000"))
        // 09:00 in Berlin (UTC+1) is 08:00Z; an hour before is 07:00Z.
        #expect(try fixture.run(until: utc("20261110T065959Z")).isEmpty)
        #expect(mailer.messages.isEmpty)
        let fired = try fixture.run(until: utc("20261110T070000Z"))
        #expect(fired.map(\.action) == ["EMAIL"])
        let message = try #require(mailer.messages.first)
        #expect(mailer.messages.count == 1)
        #expect(message.recipients == ["anna@example.com", "anna@work.example"])
        #expect(!String(decoding: message.data, as: UTF8.self).contains("stranger"))
        let text = body(of: message)
        #expect(text.contains("Reminder: Dentist"))
        #expect(text.contains("09:00"), "the time in the calendar's zone: \(text)")
        #expect(text.contains("Bring the card"))
        let event = try #require(try fixture.store.events(in: TimeRange(start: 0, end: .max / 2)).first)
        #expect(text.contains("Open it: https://calendar.example/calendar/event?id=\(event.eventIdentifier)\r\n"))
        // The webhook went out too.
        #expect(try fixture.alarmDeliveries().count == 1)

        // The relay fails: the mail waits and goes a minute later.
        try fixture.put("second.ics", emailEvent("second", at: "20261110T100000"))
        mailer.failing = true
        #expect(try fixture.run(until: utc("20261110T080000Z")).count == 1)
        #expect(mailer.messages.count == 1)
        mailer.failing = false
        fixture.clock.now = utc("20261110T080200Z")
        try fixture.scheduler.tick()
        #expect(mailer.messages.count == 2)
    }

    @Test func noAddressNoMailAndAnHourlyBound() throws {
        let fixture = try ReminderFixture(.sqlite, start: utc("20261110T060000Z"))
        let mailer = RecordingMailer()
        fixture.scheduler.mailer = mailer
        try fixture.put("lonely.ics", emailEvent("lonely", at: "20261110T090000"))
        #expect(try fixture.run(until: utc("20261110T070000Z")).count == 1)
        #expect(mailer.messages.isEmpty, "alice has no address: nothing is sent, not even to the ATTENDEE")

        try fixture.backend.setAddresses(["anna@example.com"], forUser: "alice")
        let count = AlarmMail.perUserPerHour + 5
        for index in 0..<count {
            try fixture.put("many\(index).ics", emailEvent("many\(index)", at: "20261110T120000"))
        }
        #expect(try fixture.run(until: utc("20261110T100000Z")).count == count)
        #expect(mailer.messages.count == AlarmMail.perUserPerHour)
    }
}
