import AlmanacTesting
import CalDAV
import Foundation
import HTTPTypes
import Testing

/// PUT reads what clients actually send, leniently, and tells the client in `Warning`
/// headers what it read past; what would make the resource ambiguous is still refused.
@Suite struct LenientPutTests {
    static func object(_ lines: [String]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"] + lines + ["END:VCALENDAR", ""]).joined(
            separator: "\r\n")
    }

    @Test(arguments: ServerSetup.all) func aNearMissIsStoredAsSentWithAWarningTheClientSees(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.mkcalendar("/dav/calendars/anna/work/").status == 201)
        let body = Self.object(
            TestZones.berlin + [
                "BEGIN:VEVENT", "UID:near@test", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Europe/Berlin:20261201T1200",
                "RRULE:",
                "ORGANIZER;CN=Acme SE", "SUMMARY:Lunch", "X-KEEP-ME;X-P=1:yes", "END:VEVENT",
            ])
        let put = try dav.put("/dav/calendars/anna/work/near.ics", body, contentType: "text/calendar")
        #expect(put.status == 201, "\(put.text)")
        let warnings = put.headers.values("Warning")
        #expect(warnings.count == 3)
        #expect(warnings.allSatisfy { $0.hasPrefix("199 almanac \"") && $0.hasSuffix("\"") })
        #expect(warnings.contains { $0.contains("[repairedValue]") && $0.contains("read as 20261201T120000") })
        #expect(warnings.contains { $0.contains("[droppedProperty]") })
        #expect(warnings.contains { $0.contains("[missingColon]") })
        // The resource is what the client sent, byte for byte.
        #expect(try dav.get("/dav/calendars/anna/work/near.ics").body == Array(body.utf8))

        // A clean object gets no Warning header.
        let clean = try dav.put(
            "/dav/calendars/anna/work/clean.ics",
            Self.object([
                "BEGIN:VEVENT", "UID:clean@test", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T120000Z",
                "SUMMARY:Lunch", "END:VEVENT",
            ]))
        #expect(clean.status == 201)
        #expect(clean.headers.values("Warning").isEmpty)

        // RFC 4791 §4.1: a calendar object resource is a VCALENDAR whose components share one UID,
        // so an object without UID, or a bare VEVENT, is still refused. Deriving a UID is for
        // importing whole files, where nothing else names the event.
        let withoutUID = try dav.put(
            "/dav/calendars/anna/work/a.ics",
            Self.object([
                "BEGIN:VEVENT", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T1200", "END:VEVENT",
            ]))
        #expect(withoutUID.status == 403 && withoutUID.precondition == .caldav("valid-calendar-data"))
        let bare = try dav.put(
            "/dav/calendars/anna/work/b.ics",
            [
                "BEGIN:VEVENT", "UID:bare@test", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T1200", "END:VEVENT", "",
            ].joined(separator: "\r\n"))
        #expect(bare.status == 403 && bare.precondition == .caldav("valid-calendar-data"))
        #expect(try dav.get("/dav/calendars/anna/work/a.ics").status == 404)
        #expect(try dav.get("/dav/calendars/anna/work/b.ics").status == 404)
    }
}
