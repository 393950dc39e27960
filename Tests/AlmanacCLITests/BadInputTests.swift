import AlmanacCLI
import AlmanacTestSupport
import CalendarStore
import Foundation
import Testing

/// Bad input against a running `almanac serve`, end to end over loopback: each gets
/// its precise status and error body, and what is stored does not change.
@Suite struct BadInputTests {
    let directory: TemporaryDirectory
    let server: ServerProcess
    /// Bob's calendar collection, which Anna must not reach.
    let bobCalendar: String

    static let event = [
        "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:lunch@test",
        "DTSTAMP:20261101T000000Z",
        "DTSTART:20261201T110000Z", "DURATION:PT1H", "SUMMARY:Lunch", "END:VEVENT", "END:VCALENDAR",
        "",
    ].joined(separator: "\r\n")

    init() throws {
        directory = try TemporaryDirectory()
        server = try ServerProcess(data: directory.path, arguments: ["--max-body", "65536"])
        let io = CapturedIO(standardInput: Array("bobs secret\n".utf8))
        io.environment["ALMANAC_DATA"] = directory.path
        try #require(Almanac.run(["user", "add", "bob"], io: io) == 0)
        try #require(
            Almanac.run(
                [
                    "add", "--user", "bob", "--calendar", "Private", "--title", "Secret", "--start", "2026-12-01 09:00",
                    "--duration", "1h",
                ], io: io) == 0)
        bobCalendar = try DatabaseBackend(directory: directory.path).eventStore(for: "bob").calendars()[0].name
        try #require(try server.send("MKCALENDAR", "/dav/calendars/anna/work/", "").status == 201)
        try #require(
            try server.send(
                "PUT", "/dav/calendars/anna/work/lunch.ics", Self.event, headers: ["Content-Type": "text/calendar"]
            ).status == 201)
    }

    /// Every calendar of both users with its sync token, and every object with its ETag
    /// and bytes, read from the store the server writes.
    func snapshot() throws -> [String] {
        let backend = try DatabaseBackend(directory: directory.path)
        var lines: [String] = []
        for user in ["anna", "bob"] {
            let store = try backend.eventStore(for: user)
            for calendar in try store.calendars() {
                lines.append("\(user)/\(calendar.name) \(calendar.syncToken)")
                for info in try store.resources(calendar: calendar.id) {
                    let stored = try store.resource(named: info.name, calendar: calendar.id)
                    lines.append("  \(info.name) \(info.etag) \(stored.data.count)")
                }
            }
        }
        return lines
    }

    /// Sends a bad request; checks its status and that the body names the problem; checks nothing changed.
    func refuse(
        _ method: String, _ path: String, body: [UInt8], headers: [String: String] = [:], status: Int,
        mentioning marker: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try snapshot()
        let answer = try server.send(method, path, body: body, headers: headers)
        #expect(answer.status == status, "\(method) \(path)", sourceLocation: sourceLocation)
        #expect(answer.body.contains(marker), "\(method) \(path): \(answer.body)", sourceLocation: sourceLocation)
        #expect(try snapshot() == before, "\(method) \(path) changed the store", sourceLocation: sourceLocation)
    }

    func refuse(
        _ method: String, _ path: String, _ body: String = "", headers: [String: String] = [:], status: Int,
        mentioning marker: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try refuse(
            method, path, body: Array(body.utf8), headers: headers, status: status, mentioning: marker,
            sourceLocation: sourceLocation)
    }

    @Test func oversizedBodies() throws {
        let huge = Self.event.replacingOccurrences(
            of: "SUMMARY:Lunch", with: "SUMMARY:" + String(repeating: "x", count: 70_000))
        try refuse("PUT", "/dav/calendars/anna/work/lunch.ics", huge, status: 413, mentioning: "65536")
        try refuse(
            "PROPFIND", "/dav/calendars/anna/work/",
            "<D:propfind xmlns:D=\"DAV:\">" + String(repeating: " ", count: 70_000) + "</D:propfind>", status: 413,
            mentioning: "65536")
    }

    @Test func malformedAndHostileXML() throws {
        let laughs =
            "<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">"
            + "<!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">]><D:propfind xmlns:D=\"DAV:\">&lol3;</D:propfind>"
        try refuse(
            "PROPFIND", "/dav/calendars/anna/work/", laughs, headers: ["Depth": "1"], status: 400, mentioning: "DOCTYPE"
        )
        let external =
            "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>"
            + "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><D:displayname>&xxe;</D:displayname></D:prop></D:set></D:propertyupdate>"
        try refuse("PROPPATCH", "/dav/calendars/anna/work/", external, status: 400, mentioning: "DOCTYPE")
        try refuse(
            "REPORT", "/dav/calendars/anna/work/",
            "<C:calendar-query xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><C:filter>", status: 400, mentioning: "XML")
        try refuse("MKCALENDAR", "/dav/calendars/anna/other/", "not xml at all", status: 400, mentioning: "XML")
    }

    @Test func malformedICalendar() throws {
        try refuse(
            "PUT", "/dav/calendars/anna/work/lunch.ics", "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VTODO\r\n",
            headers: ["Content-Type": "text/calendar"],
            status: 403, mentioning: "<C:valid-calendar-data/>")
        try refuse(
            "PUT", "/dav/calendars/anna/work/new.ics", body: [0x42, 0x45, 0xFF, 0xFE, 0x0A],
            headers: ["Content-Type": "text/calendar"], status: 403,
            mentioning: "<C:valid-calendar-data/>")
        try refuse(
            "PUT", "/dav/calendars/anna/work/copy.ics", Self.event, headers: ["Content-Type": "text/calendar"],
            status: 403,
            mentioning: "<C:no-uid-conflict><D:href>/dav/calendars/anna/work/lunch.ics</D:href>")
    }

    @Test func unknownReportStaleETagAndUnknownSyncToken() throws {
        try refuse(
            "REPORT", "/dav/calendars/anna/work/", "<X:frobnicate xmlns:X=\"http://example.com/ns\"/>", status: 403,
            mentioning: "<D:supported-report/>")
        try refuse(
            "PUT", "/dav/calendars/anna/work/lunch.ics", Self.event.replacingOccurrences(of: "Lunch", with: "Brunch"),
            headers: ["If-Match": "\"stale\"", "Content-Type": "text/calendar"], status: 412, mentioning: "stale")
        try refuse(
            "DELETE", "/dav/calendars/anna/work/lunch.ics", headers: ["If-Match": "\"stale\""], status: 412,
            mentioning: "stale")
        try refuse(
            "REPORT", "/dav/calendars/anna/work/",
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token>almanac-sync:someone-else:7</D:sync-token><D:sync-level>1</D:sync-level><D:prop/></D:sync-collection>",
            status: 403, mentioning: "<D:valid-sync-token/>")
    }

    @Test func anotherUsersCalendarIsNotThere() throws {
        let bob = "/dav/calendars/bob/\(bobCalendar)/"
        try refuse("PROPFIND", bob, headers: ["Depth": "1"], status: 404, mentioning: "Not Found")
        try refuse(
            "PUT", bob + "planted.ics", Self.event, headers: ["Content-Type": "text/calendar"], status: 404,
            mentioning: "Not Found")
        try refuse("DELETE", bob, status: 404, mentioning: "Not Found")
        try refuse(
            "REPORT", bob,
            "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop/></D:sync-collection>",
            status: 404, mentioning: "Not Found")
    }

    @Test(arguments: [
        "/dav/calendars/anna/../bob/", "/dav/calendars/anna/%2e%2e/bob/", "/dav/calendars/anna/work/../../bob/",
    ])
    func dotSegmentsLeadNowhere(prefix: String) throws {
        try refuse(
            "PUT", prefix + "\(bobCalendar)/planted.ics", Self.event, headers: ["Content-Type": "text/calendar"],
            status: 404, mentioning: "Not Found")
        try refuse("GET", prefix + "\(bobCalendar)/", status: 404, mentioning: "Not Found")
    }
}
