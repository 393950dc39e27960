import AlmanacTesting
import CalDAV
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// RFC 6638 and RFC 5546 rule by rule, through CalDAV with the organizer Anna and her
/// attendees Bob and Carol: each test quotes the section it follows.
@Suite struct SchedulingRFCTests {
    typealias Helpers = CalDAVSchedulingTests

    static let meeting = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Client//EN\r
        BEGIN:VEVENT\r
        UID:planning\r
        DTSTAMP:20261101T000000Z\r
        DTSTART:20270111T100000Z\r
        DTEND:20270111T110000Z\r
        SUMMARY:Planning\r
        ORGANIZER;CN=Anna:mailto:anna@example.com\r
        ATTENDEE;PARTSTAT=ACCEPTED:mailto:anna@example.com\r
        ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.com\r
        ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE;SCHEDULE-AGENT=SERVER:mailto:carol@example.com\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    static let path = "/dav/calendars/anna/work/planning.ics"

    /// Anna has invited Bob and Carol; Bob has accepted.
    static func invitedAndAccepted(_ setup: ServerSetup) throws -> (
        server: TestServer, anna: DAVClient, bob: DAVClient, carol: DAVClient
    ) {
        let server = try TestServer(setup, users: ["anna", "bob", "carol"])
        for user in ["anna", "bob", "carol"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let (anna, bob, carol) = (server.dav("anna"), server.dav("bob"), server.dav("carol"))
        #expect(try anna.mkcalendar("/dav/calendars/anna/work/").status == 201)
        #expect(try bob.mkcalendar("/dav/calendars/bob/personal/").status == 201)
        #expect(try anna.put(path, meeting).status == 201)
        let bobs = try Helpers.only(bob, "/dav/calendars/bob/personal/")
        let accepted = bobs.text.replacingOccurrences(
            of: "PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.com",
            with: "PARTSTAT=ACCEPTED:mailto:bob@example.com")
        #expect(try bob.put(bobs.href, accepted, ifMatch: bobs.etag).status == 204)
        return (server, anna, bob, carol)
    }

    /// Anna has invited Bob and Carol (each with a calendar of their own) to a daily series
    /// of five, the meeting with `extra` lines after its SUMMARY; nobody has answered.
    static func seriesInvited(_ setup: ServerSetup, extra: String = "") throws -> (
        server: TestServer, anna: DAVClient, bob: DAVClient, carol: DAVClient
    ) {
        let server = try TestServer(setup, users: ["anna", "bob", "carol"])
        for user in ["anna", "bob", "carol"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let (anna, bob, carol) = (server.dav("anna"), server.dav("bob"), server.dav("carol"))
        #expect(try anna.mkcalendar("/dav/calendars/anna/work/").status == 201)
        for (client, user) in [(bob, "bob"), (carol, "carol")] {
            #expect(try client.mkcalendar("/dav/calendars/\(user)/personal/").status == 201)
        }
        let series = meeting.replacingOccurrences(
            of: "SUMMARY:Planning", with: "SUMMARY:Planning\r\nRRULE:FREQ=DAILY;COUNT=5" + extra)
        #expect(try anna.put(path, series).status == 201)
        return (server, anna, bob, carol)
    }

    static func annas(_ anna: DAVClient) throws -> String { Helpers.unfolded(try anna.get(path).text) }

    static func sequence(_ text: String) -> Int? {
        text.components(separatedBy: "\r\n").first { $0.hasPrefix("SEQUENCE:") }.flatMap { Int($0.dropFirst(9)) }
    }

    /// RFC 5546 §2.1.4, RFC 6638 §3.2.5 and §3.2.8: a move is a significant change: the
    /// organizer's object, each attendee's copy and the REQUEST carry a raised SEQUENCE,
    /// and every attendee is asked again (PARTSTAT=NEEDS-ACTION, RSVP=TRUE); the
    /// organizer's own answer stays. A change of title is not significant.
    @Test(arguments: ServerSetup.everyStore) func aMoveRaisesTheSequenceAndAsksAgain(_ setup: ServerSetup) throws {
        let (_, anna, bob, _) = try Self.invitedAndAccepted(setup)
        let retitled = try Self.annas(anna).replacingOccurrences(of: "SUMMARY:Planning", with: "SUMMARY:Planning 2027")
        #expect(try anna.put(Self.path, retitled).status == 204)
        var text = try Self.annas(anna)
        #expect(Self.sequence(text) == nil, "a new title is no significant change: \(text)")
        #expect(Helpers.partstat(of: "bob@example.com", in: text) == "ACCEPTED")

        let moved = text.replacingOccurrences(of: "T100000Z", with: "T120000Z").replacingOccurrences(
            of: "DTEND:20270111T110000Z", with: "DTEND:20270111T130000Z")
        #expect(try anna.put(Self.path, moved).status == 204)
        text = try Self.annas(anna)
        #expect(Self.sequence(text) == 1, "\(text)")
        #expect(text.contains("PARTSTAT=NEEDS-ACTION;RSVP=TRUE") && text.contains(":mailto:bob@example.com"))
        #expect(Helpers.partstat(of: "bob@example.com", in: text) == "NEEDS-ACTION")
        #expect(text.contains("ATTENDEE;PARTSTAT=ACCEPTED:mailto:anna@example.com"))
        let bobs = try Helpers.only(bob, "/dav/calendars/bob/personal/")
        #expect(
            Self.sequence(bobs.text) == 1 && Helpers.partstat(of: "bob@example.com", in: bobs.text) == "NEEDS-ACTION")
        let request = try #require(try Helpers.inbox(bob, "bob").last)
        #expect(request.contains("METHOD:REQUEST") && Self.sequence(request) == 1)

        // A client that raised SEQUENCE itself keeps its number (no second raise).
        let again = text.replacingOccurrences(of: "SEQUENCE:1", with: "SEQUENCE:5").replacingOccurrences(
            of: "T120000Z", with: "T140000Z")
        #expect(try anna.put(Self.path, again).status == 204)
        #expect(Self.sequence(try Self.annas(anna)) == 5)
    }

    /// RFC 5546 §2.1.4: cancelling (STATUS:CANCELLED) and removing an attendee are
    /// significant too; the CANCEL a removed attendee gets carries the raised SEQUENCE.
    @Test func cancellingAndRemovingRaiseTheSequence() throws {
        let (_, anna, bob, carol) = try Self.invitedAndAccepted(.inProcess)
        let withoutCarol = try Self.annas(anna).components(separatedBy: "\r\n").filter {
            !$0.hasSuffix(":mailto:carol@example.com")
        }.joined(separator: "\r\n")
        #expect(try anna.put(Self.path, withoutCarol).status == 204)
        #expect(Self.sequence(try Self.annas(anna)) == 1)
        let cancel = try #require(try Helpers.inbox(carol, "carol").last)
        #expect(cancel.contains("METHOD:CANCEL") && (Self.sequence(cancel) ?? 0) >= 1, "\(cancel)")
        // No answer was changed by that: Bob still accepted.
        #expect(Helpers.partstat(of: "bob@example.com", in: try Self.annas(anna)) == "ACCEPTED")

        let cancelled = try Self.annas(anna).replacingOccurrences(
            of: "SUMMARY:Planning", with: "SUMMARY:Planning\r\nSTATUS:CANCELLED")
        #expect(try anna.put(Self.path, cancelled).status == 204)
        #expect(Self.sequence(try Self.annas(anna)) == 2)
        let bobs = try Helpers.only(bob, "/dav/calendars/bob/personal/")
        #expect(bobs.text.contains("STATUS:CANCELLED") && Self.sequence(bobs.text) == 2)
    }

    /// RFC 6638 §7.1–§7.2: SCHEDULE-AGENT, SCHEDULE-STATUS and SCHEDULE-FORCE-SEND of the
    /// attendees are the organizer's server's: no attendee's copy or inbox message carries them.
    @Test func serverParametersStayWithTheOrganizer() throws {
        let (server, anna, bob, carol) = try Self.invitedAndAccepted(.inProcess)
        #expect(try Self.annas(anna).contains("SCHEDULE-STATUS=1.2"))
        let carolsCalendar = try server.eventStore(for: "carol").calendars()[0].name
        let copies = [
            try Helpers.only(bob, "/dav/calendars/bob/personal/").text,
            try Helpers.only(carol, "/dav/calendars/carol/\(carolsCalendar)/").text,
        ]
        for text in copies + (try Helpers.inbox(bob, "bob")) + (try Helpers.inbox(carol, "carol")) {
            let attendees = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("ATTENDEE") }
            #expect(!attendees.isEmpty)
            for line in attendees {
                #expect(!line.contains("SCHEDULE-"), "\(line)")
            }
        }
    }

    /// RFC 6638 §7.3: the attendee's copy says on its ORGANIZER how their REPLY went
    /// (1.2, delivered to a user of the server); the REPLY itself does not carry it.
    @Test func theAttendeesCopySaysHowTheirReplyWent() throws {
        let (_, anna, bob, _) = try Self.invitedAndAccepted(.inProcess)
        let bobs = try Helpers.only(bob, "/dav/calendars/bob/personal/")
        #expect(bobs.text.contains("ORGANIZER;CN=Anna;SCHEDULE-STATUS=1.2:mailto:anna@example.com"), "\(bobs.text)")
        let reply = try #require(try Helpers.inbox(anna, "anna").last)
        #expect(reply.contains("METHOD:REPLY") && !reply.contains("SCHEDULE-STATUS"))
    }

    /// RFC 6638 §9.3: CALDAV:schedule-tag is a property of every scheduling object
    /// resource, answered by PROPFIND on the object as by a report.
    @Test func theScheduleTagIsAPropertyOfTheObject() throws {
        let (_, anna, _, _) = try Self.invitedAndAccepted(.inProcess)
        let tag = try anna.get(Self.path).headers["Schedule-Tag"]
        let found = try anna.propfind(Self.path, props: [.caldav("schedule-tag")]).multistatus().responses[0]
        #expect(tag != nil && found.property(.caldav("schedule-tag"))?.text == tag, "\(found)")
    }
}

extension SchedulingRFCTests {
    /// RFC 6638 §9.1: every calendar has CALDAV:schedule-calendar-transp, OPAQUE until set;
    /// a calendar set TRANSPARENT makes its owner busy in no free-busy answer (§5.1).
    @Test func scheduleCalendarTranspIsOpaqueUntilSetAndFreeBusyFollowsIt() throws {
        let server = try TestServer(users: ["anna", "bob"], visiblePrincipals: .all)
        for user in ["anna", "bob"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let bob = server.dav("bob")
        #expect(try bob.mkcalendar("/dav/calendars/bob/personal/").status == 201)
        let property = DAVName.caldav("schedule-calendar-transp")
        let read = { try bob.propfind("/dav/calendars/bob/personal/", props: [property]).multistatus().responses[0] }
        #expect(try read().property(property)?.childNames == [.caldav("opaque")])
        let busy = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//x//EN", "BEGIN:VEVENT", "UID:x", "DTSTAMP:20261101T000000Z",
            "DTSTART:20261207T130000Z", "DTEND:20261207T140000Z", "SUMMARY:Busy", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        #expect(try bob.put("/dav/calendars/bob/personal/x.ics", busy).status == 201)
        let request = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Client//EN", "METHOD:REQUEST", "BEGIN:VFREEBUSY", "UID:fb",
            "DTSTAMP:20261101T000000Z", "DTSTART:20261207T000000Z", "DTEND:20261208T000000Z",
            "ORGANIZER:mailto:anna@example.com", "ATTENDEE:mailto:bob@example.com", "END:VFREEBUSY", "END:VCALENDAR",
            "",
        ].joined(separator: "\r\n")
        func answer() throws -> String {
            try server.dav("anna").send(
                "POST", "/dav/outbox/anna/", request, headers: ["Content-Type": "text/calendar"]
            ).text
        }
        #expect(try answer().contains("20261207T130000Z/20261207T140000Z"))
        let transparent =
            "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:set><D:prop>"
            + "<C:schedule-calendar-transp><C:transparent/></C:schedule-calendar-transp></D:prop></D:set>"
            + "</D:propertyupdate>"
        #expect(try bob.send("PROPPATCH", "/dav/calendars/bob/personal/", transparent).status == 207)
        #expect(try read().property(property)?.childNames == [.caldav("transparent")])
        #expect(try !answer().contains("20261207T130000Z/20261207T140000Z"))
    }
}

extension SchedulingRFCTests {
    /// A daily series of three (11–13 January) with Bob invited to the series and Carol
    /// only to the 12th, an override that lists them both.
    static let daily = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Client//EN\r
        BEGIN:VEVENT\r
        UID:daily\r
        DTSTAMP:20261101T000000Z\r
        DTSTART:20270111T090000Z\r
        DTEND:20270111T093000Z\r
        RRULE:FREQ=DAILY;COUNT=3\r
        SUMMARY:Stand-up\r
        ORGANIZER:mailto:anna@example.com\r
        ATTENDEE;PARTSTAT=ACCEPTED:mailto:anna@example.com\r
        ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:bob@example.com\r
        END:VEVENT\r
        BEGIN:VEVENT\r
        UID:daily\r
        DTSTAMP:20261101T000000Z\r
        RECURRENCE-ID:20270112T090000Z\r
        DTSTART:20270112T090000Z\r
        DTEND:20270112T093000Z\r
        SUMMARY:Stand-up with Carol\r
        ORGANIZER:mailto:anna@example.com\r
        ATTENDEE;PARTSTAT=ACCEPTED:mailto:anna@example.com\r
        ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:bob@example.com\r
        ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:carol@example.com\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// RFC 6638 §3.2.6: an attendee listed only in an override is invited to that instance
    /// alone (no RRULE in their REQUEST or copy); an attendee of the series left out of one
    /// override gets that instance excluded; taking someone off one instance sends a
    /// CANCEL for that instance only.
    @Test func attendeesOfSomeInstancesGetThoseInstances() throws {
        let server = try TestServer(users: ["anna", "bob", "carol"])
        for user in ["anna", "bob", "carol"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let (anna, bob, carol) = (server.dav("anna"), server.dav("bob"), server.dav("carol"))
        for (client, user) in [(anna, "anna"), (bob, "bob"), (carol, "carol")] {
            #expect(try client.mkcalendar("/dav/calendars/\(user)/work/").status == 201)
        }
        #expect(try anna.put("/dav/calendars/anna/work/daily.ics", Self.daily).status == 201)
        let carols = try Helpers.only(carol, "/dav/calendars/carol/work/")
        #expect(
            !carols.text.contains("RRULE") && carols.text.contains("RECURRENCE-ID:20270112T090000Z"), "\(carols.text)")
        let request = try #require(try Helpers.inbox(carol, "carol").last)
        #expect(!request.contains("RRULE") && request.contains("SUMMARY:Stand-up with Carol"))
        #expect(try Helpers.only(bob, "/dav/calendars/bob/work/").text.contains("RRULE:FREQ=DAILY;COUNT=3"))

        // Anna takes Bob off the 12th: his copy excludes it, he gets a CANCEL for it alone.
        let withoutBob = Self.daily.replacingOccurrences(
            of:
                "SUMMARY:Stand-up with Carol\r\nORGANIZER:mailto:anna@example.com\r\nATTENDEE;PARTSTAT=ACCEPTED:mailto:anna@example.com\r\nATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:bob@example.com\r\n",
            with:
                "SUMMARY:Stand-up with Carol\r\nORGANIZER:mailto:anna@example.com\r\nATTENDEE;PARTSTAT=ACCEPTED:mailto:anna@example.com\r\n"
        )
        #expect(withoutBob != Self.daily)
        #expect(try anna.put("/dav/calendars/anna/work/daily.ics", withoutBob).status == 204)
        let bobs = try Helpers.only(bob, "/dav/calendars/bob/work/").text
        #expect(bobs.contains("EXDATE:20270112T090000Z") && !bobs.contains("RECURRENCE-ID"), "\(bobs)")
        let cancel = try #require(try Helpers.inbox(bob, "bob").last)
        #expect(cancel.contains("METHOD:CANCEL") && cancel.contains("RECURRENCE-ID:20270112T090000Z"))
        #expect(!cancel.contains("RRULE"), "the instance alone: \(cancel)")
    }
}

extension SchedulingRFCTests {
    /// RFC 6638 §2.2: the schedule inbox answers calendar-query and calendar-multiget as a
    /// calendar collection does, and says so in its supported-report-set.
    @Test func theInboxAnswersCalendarReports() throws {
        let (server, anna, bob, _) = try Self.invitedAndAccepted(.inProcess)
        let inbox = "/dav/inbox/bob/"
        // Bob's inbox is his: another user and a stranger get nothing from it.
        let everything = """
            <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><C:calendar-data/></D:prop>\
            <C:filter><C:comp-filter name="VCALENDAR"/></C:filter></C:calendar-query>
            """
        let byAnna = try anna.report(inbox, depth: "1", everything)
        #expect([403, 404].contains(byAnna.status) && !byAnna.text.contains("BEGIN:VCALENDAR"), "\(byAnna.text)")
        #expect(try server.dav(nil).report(inbox, depth: "1", everything).status == 401)
        let reports = try bob.propfind(inbox, props: [.dav("supported-report-set")]).multistatus().responses[0]
        #expect(
            reports.property(.dav("supported-report-set"))?.descendants.contains {
                $0.name == .caldav("calendar-query")
            } == true)
        let query = try bob.calendarQuery(
            inbox, prop: "<D:getetag/><C:calendar-data/>", start: "20270111T000000Z", end: "20270112T000000Z")
        let found = try query.multistatus()
        #expect(found.responses.count == 1, "\(found)")
        let href = try #require(found.hrefs.first)
        #expect(href.hasPrefix(inbox))
        let missed = try bob.calendarQuery(inbox, start: "20270201T000000Z", end: "20270202T000000Z")
        #expect(try missed.multistatus().responses.isEmpty)
        let got = try bob.multiget(inbox, hrefs: [href, inbox + "nosuch.ics"]).multistatus()
        #expect(got.responses.map(\.href) == [href, inbox + "nosuch.ics"])
        #expect(got.responses.last?.status == 404)
    }
}

extension SchedulingRFCTests {
    /// RFC 6638 §3.2.10, rule by rule: who changes an object's Schedule-Tag, and a stale
    /// one refused with 412.
    @Test func scheduleTagsChangeForTheOrganizersSakeOnly() throws {
        let (_, anna, bob, _) = try Self.invitedAndAccepted(.inProcess)
        let bobsPath = try Helpers.only(bob, "/dav/calendars/bob/personal/").href
        func tag(_ client: DAVClient, _ path: String) throws -> String {
            try #require(try client.get(path).headers["Schedule-Tag"])
        }
        let annaFirst = try tag(anna, Self.path)
        let bobFirst = try tag(bob, bobsPath)

        // An attendee's own change (an alarm) keeps their copy's tag, and a PUT with the
        // current tag is taken; the REPLY it sends keeps the organizer's.
        var bobs = try Helpers.only(bob, "/dav/calendars/bob/personal/").text
        bobs = bobs.replacingOccurrences(
            of: "END:VEVENT",
            with: "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Bob\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT")
        var headers = HTTPHeaders()
        headers.set("If-Schedule-Tag-Match", bobFirst)
        let kept = try bob.send("PUT", bobsPath, bobs, headers: headers)
        #expect(kept.status == 204 && kept.headers["Schedule-Tag"] == bobFirst, "\(kept.text)")
        let tentative = bobs.replacingOccurrences(
            of: "PARTSTAT=ACCEPTED:mailto:bob@example.com", with: "PARTSTAT=TENTATIVE:mailto:bob@example.com")
        #expect(try bob.send("PUT", bobsPath, tentative, headers: headers).status == 204)
        #expect(try tag(bob, bobsPath) == bobFirst)
        #expect(try tag(anna, Self.path) == annaFirst, "a REPLY applied does not change the organizer's tag")

        // The organizer's change changes both her tag and the attendee's copy's.
        let retitled = try Self.annas(anna).replacingOccurrences(of: "SUMMARY:Planning", with: "SUMMARY:Planning!")
        #expect(try anna.put(Self.path, retitled).status == 204)
        #expect(try tag(anna, Self.path) != annaFirst)
        #expect(try tag(bob, bobsPath) != bobFirst)

        // The attendee's client, still holding the old tag, is refused and changes nothing.
        let stale = try bob.send("PUT", bobsPath, tentative, headers: headers)
        #expect(stale.status == 412)
        #expect(try Helpers.only(bob, "/dav/calendars/bob/personal/").text.contains("SUMMARY:Planning!"))
    }
}

extension SchedulingRFCTests {
    /// RFC 6638 §2.2 with RFC 6578: the inbox answers sync-collection from its own change
    /// log: an initial sync lists every message, a later one the messages delivered and
    /// (404) removed since, `DAV:limit` gives a checkpoint, and a token of another
    /// collection or another user's inbox is refused.
    @Test(arguments: ServerSetup.all) func theInboxSyncs(_ setup: ServerSetup) throws {
        let server = try TestServer(setup, users: ["anna", "bob"])
        let (anna, bob) = (server.dav("anna"), server.dav("bob"))
        let inbox = "/dav/inbox/bob/"
        func deliver(_ uid: String) throws -> String {
            let message = try server.backend.scheduling.deliver(
                Array(CalDAVSharingTests.event(uid, ["DTSTART:20270105T090000Z"]).utf8), uid: uid, method: "REQUEST",
                sender: "mailto:anna@example.com", to: "bob", now: 1_800_000_000)
            return inbox + message.name
        }
        let first = try deliver("one")
        let second = try deliver("two")
        let reports = try bob.propfind(inbox, props: [.dav("supported-report-set"), .syncToken]).multistatus()
        #expect(
            reports.responses[0].property(.dav("supported-report-set"))?.descendants.contains {
                $0.name == .dav("sync-collection")
            } == true)
        let initial = try bob.syncCollection(inbox, props: [.getETag, .caldav("calendar-data")]).multistatus()
        #expect(Set(initial.hrefs) == [first, second])
        #expect(initial.responses.allSatisfy { $0.property(.caldav("calendar-data"))?.text.contains("UID:") == true })
        let token = try #require(initial.syncToken)
        #expect(reports.responses[0].property(.syncToken)?.text == token)
        #expect(try bob.syncCollection(inbox, token: token).multistatus().responses.isEmpty)

        #expect(try bob.delete(first).status == 204)
        let third = try deliver("three")
        let later = try bob.syncCollection(inbox, token: token).multistatus()
        let statuses = Dictionary(uniqueKeysWithValues: later.responses.map { ($0.href, $0.status ?? 200) })
        #expect(statuses == [first: 404, third: 200])
        let newToken = try #require(later.syncToken)
        #expect(newToken != token)

        // One at a time from the old token: the oldest change, then the rest.
        let page = try bob.syncCollection(inbox, token: token, limit: 1)
        let paged = try page.multistatus()
        #expect(paged.responses.map(\.href).filter { $0 != inbox } == [first])
        #expect(paged.responses.contains { $0.href == inbox && $0.status == 507 }, "\(page.text)")
        let rest = try bob.syncCollection(inbox, token: try #require(paged.syncToken)).multistatus()
        #expect(rest.responses.map(\.href) == [third])

        // A calendar's token is not the inbox's; Anna cannot sync Bob's inbox.
        let foreign = try bob.syncCollection(inbox, token: "almanac-sync:someid:1")
        #expect(foreign.status == 403 && foreign.precondition == .dav("valid-sync-token"), "\(foreign.text)")
        let byAnna = try anna.syncCollection(inbox, token: "")
        #expect([403, 404].contains(byAnna.status) && !byAnna.text.contains(third), "\(byAnna.text)")
    }
}

extension SchedulingRFCTests {
    /// RFC 6638 §3.2.1 (PARTSTAT is the attendee's) and §3.2.10 (why answers leave the
    /// organizer's tag alone): an organizer's write from a copy older than an answer, or one
    /// that sets another attendee's answer, keeps the answers stored. RFC 5546 §2.1.4: a
    /// change of STATUS raises SEQUENCE; instances only taken out (EXDATE) raise it but ask
    /// nobody again (§3.2.8 is for moved or new instances).
    @Test(arguments: ServerSetup.everyStore) func answersStandAgainstStaleAndExcludingWrites(_ setup: ServerSetup)
        throws
    {
        let (_, anna, bob, _) = try Self.seriesInvited(setup, extra: "\r\nSTATUS:TENTATIVE")
        let stale = try Self.annas(anna)
        let bobs = try Helpers.only(bob, "/dav/calendars/bob/personal/")
        #expect(
            try bob.put(
                bobs.href,
                bobs.text.replacingOccurrences(
                    of: "PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.com",
                    with: "PARTSTAT=ACCEPTED:mailto:bob@example.com"), ifMatch: bobs.etag
            ).status == 204)
        #expect(Helpers.partstat(of: "bob@example.com", in: try Self.annas(anna)) == "ACCEPTED")

        // Anna's client writes from the copy it read before Bob answered, and claims Carol accepted.
        let retitled = stale.replacingOccurrences(of: "SUMMARY:Planning", with: "SUMMARY:Planning (room 2)")
            .replacingOccurrences(
                of: "PARTSTAT=NEEDS-ACTION;RSVP=TRUE;SCHEDULE-AGENT=SERVER:mailto:carol",
                with: "PARTSTAT=ACCEPTED;SCHEDULE-AGENT=SERVER:mailto:carol")
        #expect(try anna.put(Self.path, retitled).status == 204)
        var text = try Self.annas(anna)
        #expect(text.contains("SUMMARY:Planning (room 2)"))
        #expect(Helpers.partstat(of: "bob@example.com", in: text) == "ACCEPTED", "\(text)")
        #expect(Helpers.partstat(of: "carol@example.com", in: text) == "NEEDS-ACTION", "\(text)")
        #expect(Self.sequence(text) == nil, "a title and answers are no significant change")

        // TENTATIVE → CONFIRMED is significant; answers stand.
        #expect(
            try anna.put(Self.path, text.replacingOccurrences(of: "STATUS:TENTATIVE", with: "STATUS:CONFIRMED"))
                .status == 204)
        text = try Self.annas(anna)
        #expect(Self.sequence(text) == 1 && Helpers.partstat(of: "bob@example.com", in: text) == "ACCEPTED")

        // One instance taken out: SEQUENCE rises, Bob is not asked again.
        let excluded = text.replacingOccurrences(
            of: "RRULE:FREQ=DAILY;COUNT=5", with: "RRULE:FREQ=DAILY;COUNT=5\r\nEXDATE:20270113T100000Z")
        #expect(try anna.put(Self.path, excluded).status == 204)
        text = try Self.annas(anna)
        #expect(Self.sequence(text) == 2 && Helpers.partstat(of: "bob@example.com", in: text) == "ACCEPTED", "\(text)")
        let copy = try Helpers.only(bob, "/dav/calendars/bob/personal/").text
        #expect(copy.contains("EXDATE:20270113T100000Z"))
        #expect(Helpers.partstat(of: "bob@example.com", in: copy) == "ACCEPTED")
    }

    /// RFC 6638 §3.2.2.1 and §3.2.6: an attendee who takes one instance out of their copy
    /// (an EXDATE, "delete this occurrence") declines it: the organizer's copy gets the
    /// instance with the attendee DECLINED, and a REPLY. §8.1: a DELETE with
    /// `Schedule-Reply: F` sends nothing; §7.1: nothing is sent for an attendee whose copy's
    /// ORGANIZER says SCHEDULE-AGENT=CLIENT; a copy the organizer cancelled is deleted
    /// without a reply.
    @Test func anAttendeesExclusionDeclinesAndTheirDeleteMayStaySilent() throws {
        let (_, anna, bob, carol) = try Self.seriesInvited(.inProcess)
        let replies = { try Helpers.inbox(anna, "anna").filter { $0.contains("METHOD:REPLY") }.count }

        let bobs = try Helpers.only(bob, "/dav/calendars/bob/personal/")
        let withoutOne = bobs.text.replacingOccurrences(
            of: "RRULE:FREQ=DAILY;COUNT=5", with: "RRULE:FREQ=DAILY;COUNT=5\r\nEXDATE:20270112T100000Z")
        #expect(try bob.put(bobs.href, withoutOne, ifMatch: bobs.etag).status == 204)
        let text = try Self.annas(anna)
        #expect(
            Helpers.partstat(of: "bob@example.com", in: text, instance: "20270112T100000Z") == "DECLINED", "\(text)")
        #expect(Helpers.partstat(of: "bob@example.com", in: text) == "NEEDS-ACTION")
        #expect(try replies() == 1)

        // Carol's client answers itself (SCHEDULE-AGENT=CLIENT on her copy's ORGANIZER): nothing is sent.
        let carols = try Helpers.only(carol, "/dav/calendars/carol/personal/")
        let own = carols.text.replacingOccurrences(
            of: "ORGANIZER;CN=Anna:", with: "ORGANIZER;CN=Anna;SCHEDULE-AGENT=CLIENT:"
        ).replacingOccurrences(
            of: "PARTSTAT=NEEDS-ACTION;RSVP=TRUE;SCHEDULE-AGENT=SERVER:mailto:carol",
            with: "PARTSTAT=TENTATIVE;SCHEDULE-AGENT=SERVER:mailto:carol")
        let answered = try carol.put(carols.href, own, ifMatch: carols.etag)
        #expect(answered.status == 204, "\(answered.text)")
        #expect(try replies() == 1)
        #expect(Helpers.partstat(of: "carol@example.com", in: try Self.annas(anna)) == "NEEDS-ACTION")

        // Bob deletes without a reply.
        let copy = try Helpers.only(bob, "/dav/calendars/bob/personal/")
        #expect(try bob.send("DELETE", copy.href, headers: ["Schedule-Reply": "F"]).status == 204)
        #expect(try replies() == 1)
        #expect(Helpers.partstat(of: "bob@example.com", in: try Self.annas(anna)) == "NEEDS-ACTION")

        // Anna cancels; Carol deletes the cancelled copy: Anna is not told Carol declined.
        let cancelled = try Self.annas(anna).replacingOccurrences(
            of: "SUMMARY:Planning", with: "SUMMARY:Planning\r\nSTATUS:CANCELLED")
        #expect(try anna.put(Self.path, cancelled).status == 204)
        let gone = try Helpers.only(carol, "/dav/calendars/carol/personal/")
        #expect(gone.text.contains("STATUS:CANCELLED"))
        #expect(try carol.delete(gone.href).status == 204)
        #expect(try replies() == 1)
    }
}

extension SchedulingRFCTests {
    /// RFC 6638 §3.2.1.2 sends attendees what changed for them: an organizer's save that
    /// changes only her own alarm, Thunderbird's alarm state or her transparency reaches no
    /// attendee (no REQUEST, their copy and tag untouched); SCHEDULE-FORCE-SEND=REQUEST
    /// (§7.2) sends it anyway.
    @Test func theOrganizersOwnAlarmsTellNobody() throws {
        let (_, anna, bob, _) = try Self.invitedAndAccepted(.inProcess)
        let requests = { try Helpers.inbox(bob, "bob").filter { $0.contains("METHOD:REQUEST") }.count }
        let before = try requests()
        let bobsBefore = try Helpers.only(bob, "/dav/calendars/bob/personal/")
        let reminded = try Self.annas(anna).replacingOccurrences(
            of: "END:VEVENT",
            with: "X-MOZ-LASTACK:20270111T095000Z\r\nTRANSP:TRANSPARENT\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
                + "DESCRIPTION:Planning\r\nTRIGGER:-PT10M\r\nEND:VALARM\r\nEND:VEVENT")
        #expect(try anna.put(Self.path, reminded).status == 204)
        #expect(try Self.annas(anna).contains("TRIGGER:-PT10M"))
        #expect(try requests() == before)
        let bobsAfter = try Helpers.only(bob, "/dav/calendars/bob/personal/")
        #expect(bobsAfter.etag == bobsBefore.etag && !bobsAfter.text.contains("X-MOZ-LASTACK"))

        let forced = try Self.annas(anna).replacingOccurrences(
            of: ":mailto:bob@example.com", with: ";SCHEDULE-FORCE-SEND=REQUEST:mailto:bob@example.com")
        #expect(try anna.put(Self.path, forced).status == 204)
        #expect(try requests() == before + 1)
    }
}

extension SchedulingRFCTests {
    /// RFC 6638 §3.2.4.2: every component of a scheduling object names the same ORGANIZER
    /// (403 `same-organizer-in-all-components`, nothing stored or sent); RFC 5545
    /// §3.8.7.2: a REQUEST's DTSTAMP is when it was sent, not the stored one.
    @Test func organizersAgreeAndRequestsAreStampedWhenSent() throws {
        let (_, anna, bob, _) = try Self.invitedAndAccepted(.inProcess)
        let request = try #require(try Helpers.inbox(bob, "bob").last)
        #expect(request.contains("DTSTAMP:") && !request.contains("DTSTAMP:20261101T000000Z"), "\(request)")

        let override = """
            BEGIN:VEVENT\r
            UID:planning\r
            DTSTAMP:20261101T000000Z\r
            RECURRENCE-ID:20270112T100000Z\r
            DTSTART:20270112T120000Z\r
            DTEND:20270112T130000Z\r
            ORGANIZER:mailto:bob@example.com\r
            ATTENDEE:mailto:carol@example.com\r
            END:VEVENT\r
            END:VCALENDAR\r

            """
        let mixed = Self.meeting.replacingOccurrences(
            of: "SUMMARY:Planning", with: "SUMMARY:Planning\r\nRRULE:FREQ=DAILY;COUNT=3"
        ).replacingOccurrences(of: "END:VCALENDAR\r\n", with: override)
        let refused = try anna.put("/dav/calendars/anna/work/mixed.ics", mixed)
        #expect(refused.status == 403 && refused.precondition == .caldav("same-organizer-in-all-components"))
        #expect(try anna.get("/dav/calendars/anna/work/mixed.ics").status == 404)
    }
}
