import AlmanacTesting
import CalendarStore
import CivilTime
import Foundation
import ICalendar
import Reminders
import Testing

/// RFC 9074 through the API: `GET /api/v1/alarms` says what the scheduler did with each
/// firing, `POST /api/v1/alarms/acknowledge` and `/snooze` write the properties a phone
/// writes, and the scheduler (on the server's clock) honours them.
@Suite struct AlarmRoutesTests {
    let clock = TestClock(AlarmRoutesTests.utc("20261001T070000Z"))
    let server: TestServer
    let scheduler: AlarmScheduler
    let calendar: String

    init() throws {
        server = try TestServer(users: ["anna", "bob"], now: clock.reading)
        scheduler = AlarmScheduler(store: server.backend.reminders, now: clock.reading)
        calendar = try server.eventStore(for: "anna").createCalendar(EventCalendar(title: "Stand-ups")).id
    }

    static func utc(_ text: String) -> Int {
        try! Property(name: "DTSTART", value: text).dateTimeValue().civil.secondsSinceEpoch
    }

    /// Sets the clock and runs the scheduler; returns the alarm UIDs and repetitions fired.
    @discardableResult
    func tick(at text: String) throws -> [String] {
        clock.now = Self.utc(text)
        return try scheduler.tick().map { "\($0.alarmUID)#\($0.repetition)" }
    }

    func call(_ method: String, _ target: String, _ body: String? = nil, as user: String = "anna") throws
        -> APIAnswer
    {
        try server.api(user).call(method, target, body)
    }

    /// A daily stand-up at 08:00Z written by a client with no alarm UID: ten minutes
    /// before, then twice more five minutes apart.
    func putStandUp() throws -> (event: String, alarm: String) {
        let data = Array(
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VEVENT", "UID:standup",
                "DTSTAMP:20260901T000000Z", "SUMMARY:Stand-up", "DTSTART:20261001T080000Z", "DURATION:PT15M",
                "RRULE:FREQ=DAILY;COUNT=3", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Stand-up",
                "TRIGGER:-PT10M", "REPEAT:2", "DURATION:PT5M", "END:VALARM", "END:VEVENT", "END:VCALENDAR", "",
            ].joined(separator: "\r\n").utf8)
        let store = try server.eventStore(for: "anna")
        _ = try store.putResource(data, name: "standup.ics", calendar: calendar, ifMatch: nil, ifNoneMatch: false)
        let event = try #require(try store.events(in: TimeRange(start: 0, end: .max / 2)).first?.eventIdentifier)
        return (event, AlarmIdentity.derivedUID(eventUID: "standup", recurrenceID: "", position: 0))
    }

    @Test func acknowledgeAndSnoozeAsAPhoneWould() throws {
        let (event, alarm) = try putStandUp()
        #expect(try tick(at: "20261001T070000Z").isEmpty)
        #expect(try tick(at: "20261001T075000Z") == ["\(alarm)#0"])
        // The listing names the alarm by its derived UID and says what became of each firing.
        let listed = try call("GET", "/api/v1/alarms?from=2026-10-01T07:00:00Z&to=2026-10-01T09:00:00Z")
        #expect(listed.status == 200)
        let firings = try #require(listed["alarms"]?.arrayValue)
        #expect(firings.map { $0["alarmUid"]?.stringValue } == [alarm, alarm, alarm])
        #expect(firings.map { $0["state"]?.stringValue } == ["fired", "pending", "pending"])
        #expect(firings[0]["firedAt"]?.stringValue == "2026-10-01T07:50:00Z")

        // Dismissed at 07:52: the repetitions of this morning's alarm do not fire.
        clock.now = Self.utc("20261001T075200Z")
        let acknowledged = try call(
            "POST", "/api/v1/alarms/acknowledge",
            #"{"eventId": "\#(event)", "occurrence": "2026-10-01T08:00:00Z", "alarmUid": "\#(alarm)"}"#)
        #expect(acknowledged.status == 200, "\(acknowledged.text)")
        #expect(acknowledged["alarms"]?[0]?["uid"]?.stringValue == alarm)
        #expect(acknowledged["alarms"]?[0]?["acknowledged"]?.stringValue == "2026-10-01T07:52:00Z")
        // Written as RFC 9074 says, for every client that syncs the event.
        let stored = try server.eventStore(for: "anna").resource(named: "standup.ics", calendar: calendar).data
        let text = String(decoding: stored, as: UTF8.self)
        #expect(text.contains("UID:\(alarm)\r\n") && text.contains("ACKNOWLEDGED:20261001T075200Z\r\n"))
        #expect(try tick(at: "20261001T075500Z").isEmpty)
        #expect(try tick(at: "20261001T080000Z").isEmpty)
        let after = try call("GET", "/api/v1/alarms?from=2026-10-01T07:00:00Z&to=2026-10-01T09:00:00Z")
        #expect(
            after["alarms"]?.arrayValue?.map { $0["state"]?.stringValue } == ["fired", "acknowledged", "acknowledged"])

        // The next morning fires again; snoozed at 07:51 until 08:05.
        #expect(try tick(at: "20261002T075000Z") == ["\(alarm)#0"])
        clock.now = Self.utc("20261002T075100Z")
        let snoozed = try call(
            "POST", "/api/v1/alarms/snooze",
            #"{"eventId": "\#(event)", "occurrence": "2026-10-02T08:00:00Z", "alarmUid": "\#(alarm)", "until": "2026-10-02T08:05:00Z"}"#
        )
        #expect(snoozed.status == 200, "\(snoozed.text)")
        let alarms = try #require(snoozed["alarms"]?.arrayValue)
        #expect(alarms.count == 2)
        let snooze = try #require(alarms.first { $0["snoozeOf"]?.stringValue == alarm })
        let snoozeUID = try #require(snooze["uid"]?.stringValue)
        #expect(snooze["trigger"]?.stringValue == "2026-10-02T08:05:00Z")
        #expect(try tick(at: "20261002T075500Z").isEmpty)
        #expect(try tick(at: "20261002T080500Z") == ["\(snoozeUID)#0"])

        // Snoozing the snooze replaces it with a new snooze of the original alarm.
        clock.now = Self.utc("20261002T080600Z")
        let again = try call(
            "POST", "/api/v1/alarms/snooze",
            #"{"eventId": "\#(event)", "alarmUid": "\#(snoozeUID)", "until": "2026-10-02T08:20:00Z"}"#)
        #expect(again.status == 200, "\(again.text)")
        let now = try #require(again["alarms"]?.arrayValue)
        #expect(now.count == 2 && !now.contains { $0["uid"]?.stringValue == snoozeUID })
        #expect(
            now.contains {
                $0["snoozeOf"]?.stringValue == alarm && $0["trigger"]?.stringValue == "2026-10-02T08:20:00Z"
            })
        let fired = try tick(at: "20261002T082000Z")
        #expect(fired.count == 1 && fired != ["\(snoozeUID)#0"])
    }

    /// Who may dismiss what, and what a bad request gets.
    @Test func onlyTheOwnerDismissesAndBadRequestsAreRefused() throws {
        let (event, alarm) = try putStandUp()
        let body = #"{"eventId": "\#(event)", "alarmUid": "\#(alarm)"}"#
        // Another user cannot see the event: 404, and nothing is written.
        let before = try server.eventStore(for: "anna").resource(named: "standup.ics", calendar: calendar)
        #expect(try call("POST", "/api/v1/alarms/acknowledge", body, as: "bob").status == 404)
        // A read-only token may not write.
        let token = try server.createAPIToken(for: "anna", scope: .read)
        #expect(try server.api(bearer: token).call("POST", "/api/v1/alarms/acknowledge", body).status == 403)
        #expect(
            try server.eventStore(for: "anna").resource(named: "standup.ics", calendar: calendar).etag == before.etag)
        // An alarm the event does not have, a missing UID, a snooze into the past or without until.
        #expect(
            try call("POST", "/api/v1/alarms/acknowledge", #"{"eventId": "\#(event)", "alarmUid": "nope"}"#).status
                == 404)
        #expect(try call("POST", "/api/v1/alarms/acknowledge", #"{"eventId": "\#(event)"}"#).status == 400)
        #expect(
            try call(
                "POST", "/api/v1/alarms/snooze",
                #"{"eventId": "\#(event)", "alarmUid": "\#(alarm)", "until": "2026-09-30T08:00:00Z"}"#
            ).status == 400)
        #expect(try call("POST", "/api/v1/alarms/snooze", body).status == 400)
        #expect(
            try call(
                "POST", "/api/v1/alarms/acknowledge", #"{"eventId": "\#(event)", "alarmUid": "\#(alarm)", "x": 1}"#
            )
            .status == 400)
    }

    /// An alarm made through the API has a UID that survives the event being sent back.
    @Test func apiAlarmsKeepTheirUIDThroughARoundTrip() throws {
        let created = try call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendar)", "title": "Run", "start": "2026-10-03T08:00:00Z", "duration": "PT1H", "alarms": [{"minutesBefore": 15}]}"#
        )
        #expect(created.status == 201)
        let uid = try #require(created["alarms"]?[0]?["uid"]?.stringValue)
        let id = try #require(created["id"]?.stringValue)
        let replaced = try call(
            "PUT", "/api/v1/events/\(id)",
            #"{"calendarId": "\#(calendar)", "title": "Run", "start": "2026-10-03T08:00:00Z", "duration": "PT1H", "alarms": [{"minutesBefore": 15, "uid": "\#(uid)", "acknowledged": null}]}"#
        )
        #expect(replaced.status == 200, "\(replaced.text)")
        #expect(replaced["alarms"]?[0]?["uid"]?.stringValue == uid)
    }
}
