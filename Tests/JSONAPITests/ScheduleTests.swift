import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// Stored availability schedules (RFC 7953) through the API, and free slots that follow
/// one: the same slots as the rules given by hand.
@Suite struct ScheduleTests {
    let server: TestServer
    let api: APIClient

    init(_ setup: ServerSetup = .inProcess) throws {
        server = try TestServer(setup, users: ["anna", "bob"], now: { 1_795_000_000 })  // 2026-11-18
        api = server.api("anna")
    }

    func create(_ body: String) throws -> APIAnswer {
        try api.call("POST", "/api/v1/availability-schedules", body)
    }

    @Test(arguments: ServerSetup.all) func schedulesAreKeptAsVAVAILABILITY(_ setup: ServerSetup) throws {
        let test = try ScheduleTests(setup)
        let made = try test.create(
            #"{"title": "Studio", "timeZone": "Europe/Berlin", "hours": "mon-fri 09:00-12:00 13:00-17:00, Sat 10:00-14:00", "exceptions": {"2026-12-24": "off", "2026-12-31": "10:00-12:00"}}"#
        )
        #expect(made.status == 201, "\(made.text)")
        let id = try #require(made["id"]?.stringValue)
        #expect(made["hours"]?.stringValue == "Mon-Fri 09:00-12:00 13:00-17:00, Sat 10:00-14:00")
        #expect(made["exceptions"]?["2026-12-24"]?.stringValue == "off")
        #expect(made["exceptions"]?["2026-12-31"]?.stringValue == "10:00-12:00")
        #expect(made["default"]?.boolValue == true, "the first schedule is the default")
        let text = try #require(made["vavailability"]?.stringValue)
        for line in [
            "BEGIN:VTIMEZONE", "TZID:Europe/Berlin", "BEGIN:VAVAILABILITY", "BUSYTYPE:BUSY-UNAVAILABLE",
            "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR", "RRULE:FREQ=WEEKLY;BYDAY=SA",
            "DTSTART;TZID=Europe/Berlin:20261231T100000",
        ] {
            #expect(text.contains(line), "\(line)")
        }
        // Read back, by id and as the default; PATCH changes dates and checks If-Match.
        let read = try test.api.get("/api/v1/availability-schedules/\(id)")
        #expect(read["hours"] == made["hours"] && read.headers["ETag"] == made.headers["ETag"])
        #expect(try test.api.get("/api/v1/availability-schedules/default")["id"]?.stringValue == id)
        let stale = try test.api.call(
            "PATCH", "/api/v1/availability-schedules/\(id)", #"{"exceptions": {"2026-12-31": null}}"#,
            headers: ["If-Match": "\"0-0000000000000000\""])
        #expect(stale.status == 412)
        let patched = try test.api.call(
            "PATCH", "/api/v1/availability-schedules/\(id)",
            #"{"exceptions": {"2026-12-31": null, "2027-01-01": "off"}}"#,
            headers: ["If-Match": made.headers["ETag"] ?? ""])
        #expect(patched.status == 200, "\(patched.text)")
        #expect(patched["exceptions"]?.objectValue?.keys.sorted() == ["2026-12-24", "2027-01-01"])
        #expect(patched.headers["ETag"] != made.headers["ETag"])
        // A second schedule made the default takes it over; deleting it hands it back.
        let other = try test.create(
            #"{"title": "Evenings", "timeZone": "UTC", "hours": "Mon 18:00-21:00", "default": true}"#)
        let otherID = try #require(other["id"]?.stringValue)
        let listed = try test.api.get("/api/v1/availability-schedules")["schedules"]?.arrayValue ?? []
        #expect(listed.map { $0["id"]?.stringValue } == [otherID, id])
        #expect(listed.map { $0["default"]?.boolValue } == [true, false])
        #expect(try test.api.call("DELETE", "/api/v1/availability-schedules/\(otherID)").status == 204)
        #expect(try test.api.get("/api/v1/availability-schedules/default")["id"]?.stringValue == id)
        // Another user sees none of it.
        #expect(try test.server.api("bob").get("/api/v1/availability-schedules/\(id)").status == 404)
        #expect(try test.server.api("bob").get("/api/v1/availability-schedules/default").status == 404)
    }

    @Test func badSchedulesAreRefusedAndChangeNothing() throws {
        let test = try ScheduleTests()
        for body in [
            #"{"timeZone": "Europe/Berlin"}"#, #"{"hours": "Mon 09:00-10:00"}"#,
            #"{"hours": "Mon 17:00-09:00", "timeZone": "UTC"}"#,
            #"{"hours": "Mon 09:00-10:00", "timeZone": "Mars/Base"}"#,
            #"{"hours": "Mon 09:00-10:00", "timeZone": "UTC", "exceptions": {"2026-02-30": "off"}}"#,
            #"{"hours": "Mon 09:00-10:00", "timeZone": "UTC", "exceptions": {"2026-12-24": "9-5"}}"#,
            #"{"hours": "Mon 09:00-10:00", "timeZone": "UTC", "exceptions": {"2026-12-24": 5}}"#,
            #"{"hours": "Mon 09:00-10:00", "timeZone": "UTC", "colour": "red"}"#,
        ] {
            let answer = try test.create(body)
            #expect(answer.status == 400, "\(body): \(answer.text)")
        }
        #expect(try test.api.get("/api/v1/availability-schedules")["schedules"]?.arrayValue?.isEmpty == true)
    }

    /// Free slots following the stored schedule equal those of the same hours given as
    /// rules (workingHours, dateHours, daysOff), an independent path through the API.
    @Test func freeSlotsFollowTheScheduleExactly() throws {
        let test = try ScheduleTests()
        let store = try test.server.eventStore(for: "anna")
        let calendar = try store.createCalendar(EventCalendar(title: "Work")).id
        for (title, start, rule) in [
            ("Standup", "2026-12-01T08:30:00Z", "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR"),
            ("Lunch", "2026-12-02T11:00:00Z", nil),
        ] {
            let rrule = rule.map { #", "rrule": "\#($0)""# } ?? ""
            #expect(
                try test.api.call(
                    "POST", "/api/v1/events",
                    #"{"calendarId": "\#(calendar)", "title": "\#(title)", "start": "\#(start)", "duration": "PT45M"\#(rrule)}"#
                ).status == 201)
        }
        #expect(
            try test.create(
                #"{"timeZone": "Europe/Berlin", "hours": "Mon-Fri 09:00-12:00 13:00-17:00, Sat 10:00-14:00", "exceptions": {"2026-12-24": "off", "2026-12-31": "10:00-12:00"}}"#
            ).status == 201)
        let range = "from=2026-12-01&to=2027-01-05&duration=30&step=15"
        let stored = try test.api.get("/api/v1/availability?\(range)&schedule=default")
        let byHand = try test.api.get(
            "/api/v1/availability?\(range)&tz=Europe/Berlin&workingHours="
                + "Mon-Fri%2009:00-12:00%2013:00-17:00,%20Sat%2010:00-14:00&dateHours=2026-12-31%2010:00-12:00"
                + "&daysOff=2026-12-24")
        #expect(stored.status == 200 && byHand.status == 200, "\(stored.text) \(byHand.text)")
        let slots = stored["slots"]?.arrayValue ?? []
        #expect(slots.count > 100)
        #expect(slots == byHand["slots"]?.arrayValue ?? [])
        #expect(stored["timeZone"]?.stringValue == "Europe/Berlin")
        #expect(!slots.contains { $0["start"]?.stringValue?.hasPrefix("2026-12-24") == true })
        // A schedule and hand-given hours together are refused.
        let both = try test.api.get("/api/v1/availability?\(range)&schedule=default&workingHours=Mon%2009:00-10:00")
        #expect(both.status == 400)
        #expect(try test.api.get("/api/v1/availability?\(range)&schedule=av_nope").status == 404)
    }

    /// The conflicts endpoint follows the schedule too: an occurrence outside its hours
    /// (in its zone) is `unavailable`, beside the busy-time conflicts.
    @Test func conflictsSayWhenAnOccurrenceIsOutsideTheSchedule() throws {
        let test = try ScheduleTests()
        let made = try test.create(
            #"{"title": "Studio", "timeZone": "Europe/Berlin", "hours": "Mon-Fri 09:00-17:00", "exceptions": {"2026-12-09": "off"}}"#
        )
        let id = try #require(made["id"]?.stringValue)
        // Wednesdays 16:00-17:00 Berlin: inside the hours but on the 9th, off; 16:30 would run past 17:00.
        let answer = try test.api.call(
            "POST", "/api/v1/conflicts",
            #"{"title": "Class", "start": "2026-12-02T16:00:00", "end": "2026-12-02T17:00:00", "timeZone": "Europe/Berlin", "rrule": "FREQ=WEEKLY;COUNT=3", "schedule": "default"}"#
        )
        #expect(answer.status == 200, "\(answer.text)")
        let conflicts = answer["conflicts"]?.arrayValue ?? []
        #expect(conflicts.map { $0["occurrence"]?["start"]?.stringValue } == ["2026-12-09T15:00:00Z"])
        #expect(conflicts.first?["reason"]?.stringValue == "unavailable")
        #expect(conflicts.first?["with"]?["scheduleId"]?.stringValue == id)
        let late = try test.api.call(
            "POST", "/api/v1/conflicts",
            #"{"title": "Late", "start": "2026-12-03T16:30:00", "end": "2026-12-03T17:30:00", "timeZone": "Europe/Berlin", "schedule": "\#(id)"}"#
        )
        #expect(late["conflicts"]?.arrayValue?.count == 1, "\(late.text)")
        #expect(
            try test.api.call(
                "POST", "/api/v1/conflicts",
                #"{"title": "X", "start": "2026-12-03T10:00:00Z", "schedule": "av_nope"}"#
            ).status == 404)
    }
}
