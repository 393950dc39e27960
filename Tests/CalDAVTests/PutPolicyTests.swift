import AlmanacTesting
import Foundation
import Testing

/// What a PUT stores: RFC 5545 with documented repairs (docs/icalendar-diagnostics.md),
/// the policy `almanac ics check` applies. A refusal is RFC 4791 §5.3.2.1's
/// CALDAV:valid-calendar-data and changes nothing; a repair is how the object is read,
/// and the bytes stay as sent.
@Suite struct PutPolicyTests {
    static let calendar = "/dav/calendars/anna/work/"

    static func object(_ lines: [String]) -> String {
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:policy@test",
            "DTSTAMP:20261101T000000Z",
        ]
            + lines + ["END:VEVENT", "END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    func server(_ setup: ServerSetup) throws -> DAVClient {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.mkcalendar(Self.calendar).status == 201)
        return dav
    }

    /// RFC 5545 §3.1 (no CONTROL but HTAB in a value) and §3.3.11 (only `\\ \; \, \N \n`
    /// in TEXT): a PUT of a body that breaks either, over an existing object, is 403
    /// valid-calendar-data naming the line, and the old object stays, bytes and ETag.
    @Test(arguments: ServerSetup.everyStore)
    func aRefusedBodyLeavesTheStoredObject(_ setup: ServerSetup) throws {
        let dav = try server(setup)
        let path = Self.calendar + "lunch.ics"
        let original = Self.object(["DTSTART:20261201T120000Z", "SUMMARY:Lunch"])
        let created = try dav.put(path, original, contentType: "text/calendar")
        #expect(created.status == 201)
        let etag = try #require(created.headers["ETag"])
        for (bad, code) in [
            ("SUMMARY:Lunch \u{07}", "controlCharacter"), ("DESCRIPTION:Say \\\"hi\\\"", "invalidEscape"),
        ] {
            let put = try dav.put(
                path, Self.object(["DTSTART:20261201T120000Z", bad]), ifMatch: etag, contentType: "text/calendar")
            #expect(put.status == 403)
            #expect(put.precondition == .caldav("valid-calendar-data"))
            let description = try DAVElement.parse(put.body).children.first {
                $0.name == DAVName("urn:almanac:dav", "message")
            }
            // Line 8 of the body holds the bad value; the code names the rule.
            #expect(description?.text.hasPrefix("8:") == true, "\(put.text)")
            #expect(description?.text.hasSuffix("[\(code)]") == true, "\(put.text)")
            let stored = try dav.get(path)
            #expect(stored.body == Array(original.utf8))
            #expect(stored.headers["ETag"] == etag)
        }
    }

    /// RFC 5545 §3.3.6: `dur-time = "T" (dur-hour / dur-minute / dur-second)`, so `P1DT`
    /// is a near-miss (a T with nothing after it) and `P1DT0H` is valid. Both are stored
    /// as sent and read as one day: an event at 2026-12-01T12:00Z lasting one day
    /// overlaps 2026-12-02T06:00Z–07:00Z (RFC 4791 §9.9: start < DTSTART+DURATION and
    /// end > DTSTART), and one read as lasting no time would not.
    @Test(arguments: ServerSetup.everyStore)
    func aDurationNearMissIsStoredAsSentAndReadAsOneDay(_ setup: ServerSetup) throws {
        let dav = try server(setup)
        for (name, duration, warned) in [("p1dt.ics", "P1DT", true), ("p1dt0h.ics", "P1DT0H", false)] {
            let body = Self.object(["DTSTART:20261201T120000Z", "DURATION:\(duration)", "SUMMARY:\(duration)"])
                .replacingOccurrences(of: "UID:policy@test", with: "UID:\(name)")
            let put = try dav.put(Self.calendar + name, body, contentType: "text/calendar")
            #expect(put.status == 201, "\(put.text)")
            let warnings = put.headers.values("Warning")
            #expect(warnings.count == (warned ? 1 : 0))
            if warned {
                #expect(warnings.first?.contains("read as P1D") == true && warnings[0].contains("[repairedValue]"))
            }
            #expect(try dav.get(Self.calendar + name).body == Array(body.utf8))
        }
        let answer = try dav.calendarQuery(Self.calendar, start: "20261202T060000Z", end: "20261202T070000Z")
        #expect(answer.status == 207)
        #expect(try answer.multistatus().hrefs.sorted() == [Self.calendar + "p1dt.ics", Self.calendar + "p1dt0h.ics"])
        // Past the day's end: nothing.
        let after = try dav.calendarQuery(Self.calendar, start: "20261202T120000Z", end: "20261202T130000Z")
        #expect(try after.multistatus().hrefs.isEmpty)
    }
}
