import AlmanacTesting
import CalDAV
import Foundation
import Testing

/// Reports that would answer millions of instances are bounded and say so.
extension CalDAVTests {
    static func secondly(_ uid: String, every: String = "FREQ=SECONDLY") -> String {
        [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//EN", "BEGIN:VEVENT", "UID:\(uid)",
            "DTSTAMP:20261101T000000Z",
            "DTSTART:20261201T000000Z", "DURATION:PT1S", "RRULE:\(every)", "SUMMARY:Tick", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
    }

    /// Every calendar-data of a multistatus, joined.
    static func calendarData(_ answer: Multistatus) -> String {
        answer.responses.compactMap { $0.property(.calendarData)?.text }.joined()
    }

    @Test func anExpandOfMillionsOfInstancesIsCutAndSaysSo() throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put("/dav/calendars/anna/work/tick.ics", Self.secondly("tick@test")).status == 201)
        let answer = try dav.calendarQuery(
            "/dav/calendars/anna/work/",
            prop: "<C:calendar-data><C:expand start=\"20261201T000000Z\" end=\"20261202T000000Z\"/></C:calendar-data>",
            start: "20261201T000000Z", end: "20261202T000000Z"
        ).multistatus()
        #expect(Self.calendarData(answer).components(separatedBy: "BEGIN:VEVENT").count - 1 == 10_000)
        #expect(Self.isTruncation(answer.response("/dav/calendars/anna/work/")))
    }

    @Test func busyTimePastABoundOfExpansionIsNeverLeftOut() throws {
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // Every second without end: a bound of expansion stops it after 100,000 instances
        // (under 28 hours), so its instances later in the week are not known one by one.
        #expect(
            try dav.put("/dav/calendars/anna/work/tick.ics", Self.secondly("tick@test", every: "FREQ=SECONDLY"))
                .status == 201)
        let week = try dav.freeBusy("/dav/calendars/anna/work/", start: "20261201T000000Z", end: "20261208T000000Z")
        // From the cut on the series counts as busy: the week is one busy stretch, never
        // free after the bound (RFC 4791 §7.10 answers busy time; less of it would be wrong).
        let periods = week.text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("FREEBUSY") }
        #expect(week.status == 200 && periods == ["FREEBUSY;FBTYPE=BUSY:20261201T000000Z/20261208T000000Z"])
    }

    @Test(arguments: ServerSetup.everyStore) func freeBusyCoalescesAndNeverShowsLessBusyTime(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        // Back to back: one period. Every other second for a day: 43,200 periods, coarsened.
        #expect(
            try dav.put(
                "/dav/calendars/anna/work/tick.ics", Self.secondly("tick@test", every: "FREQ=SECONDLY;COUNT=3600")
            ).status == 201)
        let hour = try dav.freeBusy(
            "/dav/calendars/anna/work/", start: "20261201T000000Z", end: "20261202T000000Z", depth: "1")
        #expect(hour.status == 200 && hour.text.contains("FREEBUSY;FBTYPE=BUSY:20261201T000000Z/20261201T010000Z"))
        #expect(hour.text.components(separatedBy: "FREEBUSY;").count - 1 == 1)
        #expect(try dav.delete("/dav/calendars/anna/work/tick.ics").status == 204)
        #expect(
            try dav.put(
                "/dav/calendars/anna/work/tock.ics", Self.secondly("tock@test", every: "FREQ=SECONDLY;INTERVAL=2")
            ).status == 201)
        let day = try dav.freeBusy(
            "/dav/calendars/anna/work/", start: "20261201T000000Z", end: "20261202T000000Z", depth: "1")
        let periods = day.text.components(separatedBy: "FREEBUSY;").count - 1
        #expect(day.status == 200 && periods >= 1 && periods <= 10_001)
        // The first and last instants of busy time are still covered.
        #expect(day.text.contains(":20261201T000000Z/"))
    }
}

/// Every XML body the fuzzer ever found crashing is kept and replayed: it must be
/// refused with an error (or parse), never trap.
@Suite struct XMLFuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/xml-fuzz-regressions")

    @Test func everyKeptCrashIsRefusedCleanly() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).sorted()
        #expect(!files.isEmpty)
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent(file)))
            #expect(throws: XMLBodyError.self, "\(file)") { try XMLBody.parse(bytes) }
        }
    }

    @Test(arguments: [
        [0xEF, 0xBB, 0xBF] + Array("<D:propfind xmlns:D=\"DAV:\"/>".utf8),
        Array("<D:propfind xmlns:D=\"DAV:\"><D:prop><D:displayname/></D:prop></D:propfind>".utf8),
        Array(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:propfind xmlns:D=\"DAV:\"><D:allprop/></D:propfind>".utf8),
        [0xEF, 0xBB, 0xBF]
            + Array("<?xml version=\"1.0\"?><D:propfind xmlns:D=\"DAV:\"><D:allprop/></D:propfind>".utf8),
    ])
    func utf8BodiesStillParse(_ bytes: [UInt8]) throws {
        _ = try XMLBody.parse(bytes)
    }

    @Test(arguments: [
        "<?x?><D:propfind xmlns:D=\"DAV:\"/>", "<D:propfind xmlns:D=\"DAV:\"><?pi data?></D:propfind>",
        " <?xml version=\"1.0\"?><a/>", "<?xml-stylesheet href=\"x\"?><a/>",
    ])
    func processingInstructionsAreRefused(_ text: String) {
        #expect(throws: XMLBodyError.self) { try XMLBody.parse(Array(text.utf8)) }
    }
}

/// The XML reader (XMLReader) on what DAV clients send, and on what no body may hold.
@Suite struct XMLReaderTests {
    @Test func namespacesTextEntitiesAndCDATAReadAsClientsMeanThem() throws {
        let text = """
            <?xml version="1.0" encoding="utf-8"?>
            <!-- a client's comment -->
            <propfind xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
              <prop><displayname>Work &amp; more &#x263A;&#65;</displayname><C:calendar-data><![CDATA[BEGIN:VCALENDAR<&>]]></C:calendar-data></prop>
              <x:other xmlns:x="http://example.com/ns" x:flag='a&#9;b' plain="1\n2"><inner xmlns=""/></x:other>
            </propfind>
            """
        let root = try XMLBody.parse(Array(text.utf8))
        #expect(root.namespace == "DAV:" && root.name == "propfind")
        let prop = try #require(root.child("DAV:", "prop"))
        #expect(prop.child("DAV:", "displayname")?.text == "Work & more ☺A")
        #expect(prop.child("urn:ietf:params:xml:ns:caldav", "calendar-data")?.text == "BEGIN:VCALENDAR<&>")
        let other = try #require(root.child("http://example.com/ns", "other"))
        // A literal line break in a value is a space; a character reference stays what it names (XML 1.0 §3.3.3).
        #expect(other.attributes == ["x:flag": "a\tb", "plain": "1 2"])
        #expect(other.children.first?.namespace == "" && other.children.first?.name == "inner")
    }

    @Test(arguments: [
        "<a><b></a></b>", "<a></a><b/>", "text<a/>", "<a/>text", "<a>", "<a x='1' x='2'/>", "<a x=1/>",
        "<a>&unknown;</a>", "<a>&#0;</a>",
        "<a>\u{1}</a>", "<!DOCTYPE a><a/>", "<a><?pi x?></a>", "<a><!-- open</a>", "<a><![CDATA[open</a>", "", "   ",
        "<a x='<'/>", "<a>]]></a>",
    ])
    func malformedBodiesAreRefused(_ text: String) {
        #expect(throws: XMLBodyError.self, "\(text)") { try XMLBody.parse(Array(text.utf8)) }
    }
}

extension CalDAVTests {
    @Test func anExpandOfASeriesCutByItsBoundSaysSo() throws {
        // One instance a day at midnight for 40 days, from a secondly rule: one series' 2,000,000
        // steps run out about 23 days in. Fewer than 10,000 instances, yet the answer is incomplete.
        let dav = try TestServer().dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let midnight = Self.secondly("midnight@test", every: "FREQ=SECONDLY;BYHOUR=0;BYMINUTE=0;BYSECOND=0;COUNT=40")
        #expect(try dav.put("/dav/calendars/anna/work/midnight.ics", midnight).status == 201)
        let answer = try dav.calendarQuery(
            "/dav/calendars/anna/work/",
            prop: "<C:calendar-data><C:expand start=\"20261201T000000Z\" end=\"20270201T000000Z\"/></C:calendar-data>",
            filter: "<C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"/></C:comp-filter>"
        ).multistatus()
        let instances = Self.calendarData(answer).components(separatedBy: "BEGIN:VEVENT").count - 1
        #expect(instances > 0 && instances < 40)
        #expect(Self.isTruncation(answer.response("/dav/calendars/anna/work/")))
    }
}
