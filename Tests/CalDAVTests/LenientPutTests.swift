import AlmanacTestSupport
import CalDAV
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// PUT reads what clients actually send, leniently, and tells the client in `Warning`
/// headers what it read past; what would make the resource ambiguous is still refused.
@Suite struct LenientPutTests {
    let directory: TemporaryDirectory
    let handler: CalDAVHandler

    init() throws {
        directory = try TemporaryDirectory()
        let backend = try DatabaseBackend(directory: directory.path)
        try backend.createUser(named: "anna")
        handler = CalDAVHandler(backend: backend)
        #expect(send("MKCALENDAR", "/dav/calendars/anna/work/").status == 201)
    }

    func send(_ method: String, _ path: String, _ body: String = "", headers: HTTPHeaders = [:]) -> (
        status: Int, headers: HTTPHeaders, text: String
    ) {
        let response = handler.respond(
            to: HTTPRequest(method: method, path: path, headers: headers, body: Array(body.utf8)), user: "anna")
        return (response.status, response.headers, String(decoding: response.body, as: UTF8.self))
    }

    static func object(_ lines: [String]) -> String {
        (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN"] + lines + ["END:VCALENDAR", ""]).joined(
            separator: "\r\n")
    }

    @Test func aNearMissIsStoredAsSentWithAWarningTheClientSees() throws {
        let body = Self.object([
            "BEGIN:VEVENT", "UID:near@test", "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Europe/Berlin:20261201T1200",
            "RRULE:",
            "ORGANIZER;CN=Acme SE", "SUMMARY:Lunch", "X-KEEP-ME;X-P=1:yes", "END:VEVENT",
        ])
        let put = send("PUT", "/dav/calendars/anna/work/near.ics", body, headers: ["Content-Type": "text/calendar"])
        #expect(put.status == 201, "\(put.text)")
        let warnings = put.headers.values("Warning")
        #expect(warnings.count == 3)
        #expect(warnings.allSatisfy { $0.hasPrefix("199 almanac \"") && $0.hasSuffix("\"") })
        #expect(warnings.contains { $0.contains("[repairedValue]") && $0.contains("read as 20261201T120000") })
        #expect(warnings.contains { $0.contains("[droppedProperty]") })
        #expect(warnings.contains { $0.contains("[missingColon]") })
        // The resource is what the client sent, byte for byte.
        #expect(send("GET", "/dav/calendars/anna/work/near.ics").text == body)

        // A clean object gets no Warning header.
        let clean = send(
            "PUT", "/dav/calendars/anna/work/clean.ics",
            Self.object([
                "BEGIN:VEVENT", "UID:clean@test", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T120000Z",
                "SUMMARY:Lunch", "END:VEVENT",
            ]))
        #expect(clean.status == 201)
        #expect(clean.headers.values("Warning").isEmpty)

        // RFC 4791 §4.1: a calendar object resource is a VCALENDAR whose components share one UID,
        // so an object without UID, or a bare VEVENT, is still refused. Deriving a UID is for
        // importing whole files, where nothing else names the event.
        let withoutUID = send(
            "PUT", "/dav/calendars/anna/work/a.ics",
            Self.object([
                "BEGIN:VEVENT", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T1200", "END:VEVENT",
            ]))
        #expect(withoutUID.status == 403 && withoutUID.text.contains("<C:valid-calendar-data/>"))
        let bare = send(
            "PUT", "/dav/calendars/anna/work/b.ics",
            [
                "BEGIN:VEVENT", "UID:bare@test", "DTSTAMP:20261101T000000Z", "DTSTART:20261201T1200", "END:VEVENT", "",
            ].joined(separator: "\r\n"))
        #expect(bare.status == 403 && bare.text.contains("<C:valid-calendar-data/>"))
        #expect(send("GET", "/dav/calendars/anna/work/a.ics").status == 404)
        #expect(send("GET", "/dav/calendars/anna/work/b.ics").status == 404)
    }
}
