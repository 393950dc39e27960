import AlmanacTestSupport
import AlmanacTesting
import CalDAV
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// Implicit scheduling between the server's users (RFC 6638 §3.2) as a CalDAV client
/// drives it: the organizer's PUT invites (each attendee's copy and inbox), an
/// attendee's PUT answers (for the series or one instance), changes and removals reach
/// the attendees, a deletion cancels; the outbox answers free-busy requests.
@Suite struct CalDAVSchedulingTests {
    static let meeting = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Client//EN\r
        BEGIN:VEVENT\r
        UID:team-weekly\r
        DTSTAMP:20261101T000000Z\r
        DTSTART:20261207T090000Z\r
        DTEND:20261207T100000Z\r
        RRULE:FREQ=WEEKLY;COUNT=4\r
        SUMMARY:Team meeting\r
        ORGANIZER;CN=Anna:mailto:anna@example.com\r
        ATTENDEE;PARTSTAT=ACCEPTED:mailto:anna@example.com\r
        ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.com\r
        ATTENDEE;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:carol@example.com\r
        ATTENDEE;PARTSTAT=NEEDS-ACTION:mailto:dave@elsewhere.example\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT10M\r
        DESCRIPTION:Anna's reminder\r
        END:VALARM\r
        END:VEVENT\r
        END:VCALENDAR\r

        """

    /// iCalendar text with its folded lines joined again.
    static func unfolded(_ text: String) -> String { text.replacingOccurrences(of: "\r\n ", with: "") }

    /// The one object of `user`'s calendar at `path` (its href and unfolded text).
    static func only(_ dav: DAVClient, _ path: String) throws -> (href: String, text: String, etag: String) {
        let listing = try dav.propfind(path, depth: "1", props: [.getETag]).multistatus().responses.dropFirst()
        try #require(listing.count == 1, "\(path) holds \(listing.count) objects")
        let href = listing.first!.href
        let got = try dav.get(href)
        return (href, unfolded(got.text), got.headers["ETag"] ?? "")
    }

    static func inbox(_ dav: DAVClient, _ user: String) throws -> [String] {
        try dav.propfind("/dav/inbox/\(user)/", depth: "1").multistatus().responses.dropFirst().map {
            unfolded(try dav.get($0.href).text)
        }
    }

    /// Anna and Bob with their addresses; Anna's Work calendar holds the meeting she invites Bob to.
    static func annaInvitesBob() throws -> (server: TestServer, anna: DAVClient, bob: DAVClient) {
        let server = try TestServer(users: ["anna", "bob"])
        for user in ["anna", "bob"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let anna = server.dav("anna")
        #expect(try anna.mkcalendar("/dav/calendars/anna/work/").status == 201)
        #expect(try anna.put("/dav/calendars/anna/work/team.ics", meeting).status == 201)
        return (server, anna, server.dav("bob"))
    }

    static func partstat(of attendee: String, in text: String, instance: String? = nil) -> String? {
        let events = text.components(separatedBy: "BEGIN:VEVENT").dropFirst()
        let event = events.first { event in
            instance.map { event.contains("RECURRENCE-ID:\($0)") } ?? !event.contains("RECURRENCE-ID")
        }
        guard let line = event?.components(separatedBy: "\r\n").first(where: { $0.hasSuffix(":mailto:\(attendee)") })
        else { return nil }
        return line.components(separatedBy: ";").first { $0.hasPrefix("PARTSTAT=") }?
            .dropFirst("PARTSTAT=".count).split(separator: ":").first.map(String.init)
    }

    @Test(arguments: ServerSetup.everyStore) func invitationsAnswersChangesAndCancellation(_ setup: ServerSetup) throws
    {
        let server = try TestServer(setup, users: ["anna", "bob", "carol"], visiblePrincipals: .all)
        for user in ["anna", "bob", "carol"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let anna = server.dav("anna")
        let bob = server.dav("bob")
        let carol = server.dav("carol")
        #expect(try anna.mkcalendar("/dav/calendars/anna/work/").status == 201)
        #expect(try bob.mkcalendar("/dav/calendars/bob/personal/").status == 201)

        // Without a mail relay, attendees outside the server cannot be reached: implicit
        // scheduling is not advertised (clients go on sending those invitations themselves).
        #expect(try bob.send("OPTIONS", "/dav/").headers["DAV"]?.contains("calendar-auto-schedule") == false)
        // The principal names the inbox and outbox.
        let principal = try bob.propfind(
            "/dav/principals/bob/", props: [.caldav("schedule-inbox-URL"), .caldav("schedule-outbox-URL")]
        ).multistatus().responses[0]
        #expect(principal.property(.caldav("schedule-inbox-URL"))?.hrefs == ["/dav/inbox/bob/"])
        #expect(principal.property(.caldav("schedule-outbox-URL"))?.hrefs == ["/dav/outbox/bob/"])
        let inbox = try bob.propfind(
            "/dav/inbox/bob/", props: [.dav("resourcetype"), .caldav("schedule-default-calendar-URL")]
        ).multistatus().responses[0]
        #expect(inbox.property(.dav("resourcetype"))?.childNames.contains(.caldav("schedule-inbox")) == true)
        #expect(inbox.property(.caldav("schedule-default-calendar-URL"))?.hrefs == ["/dav/calendars/bob/personal/"])

        // Anna invites: her stored copy says who was reached (no ETag: the server changed it).
        let put = try anna.put("/dav/calendars/anna/work/team.ics", Self.meeting)
        #expect(put.status == 201 && put.headers["ETag"] == nil, "\(put.text)")
        let annas = Self.unfolded(try anna.get("/dav/calendars/anna/work/team.ics").text)
        #expect(annas.contains("SCHEDULE-STATUS=1.2:mailto:bob@example.com"), "\(annas)")
        #expect(annas.contains("SCHEDULE-STATUS=5.1:mailto:dave@elsewhere.example"))
        #expect(annas.contains("Anna's reminder"))
        // Bob's copy is in his default calendar, without Anna's alarm; his inbox has the REQUEST.
        var bobs = try Self.only(bob, "/dav/calendars/bob/personal/")
        #expect(bobs.text.contains("SUMMARY:Team meeting") && !bobs.text.contains("Anna's reminder"))
        #expect(!bobs.text.contains("SCHEDULE-STATUS"))
        let request = try #require(try Self.inbox(bob, "bob").first)
        #expect(request.contains("METHOD:REQUEST") && request.contains("UID:team-weekly"))
        // Carol has no calendar: one is made for the invitation.
        #expect(try Self.only(carol, "/dav/calendars/carol/").href.hasPrefix("/dav/calendars/carol/"))

        // Bob accepts (and adds his own alarm): Anna's copy has his answer, her inbox the REPLY.
        let accepted = bobs.text
            .replacingOccurrences(
                of: "PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.com",
                with: "PARTSTAT=ACCEPTED:mailto:bob@example.com"
            )
            .replacingOccurrences(
                of: "END:VEVENT", with: "BEGIN:VALARM\r\nACTION:AUDIO\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\nEND:VEVENT")
        #expect(try bob.put(bobs.href, accepted, ifMatch: bobs.etag).status == 204)
        #expect(
            Self.partstat(
                of: "bob@example.com", in: Self.unfolded(try anna.get("/dav/calendars/anna/work/team.ics").text))
                == "ACCEPTED")
        let reply = try #require(try Self.inbox(anna, "anna").last)
        #expect(reply.contains("METHOD:REPLY") && reply.contains("PARTSTAT=ACCEPTED:mailto:bob@example.com"))

        // Carol declines the third week only: Anna's copy gets that week as an override.
        let carols = try Self.only(
            carol, "/dav/calendars/carol/\(try server.eventStore(for: "carol").calendars()[0].name)/")
        let instance = """
            BEGIN:VEVENT\r
            UID:team-weekly\r
            DTSTAMP:20261101T000000Z\r
            RECURRENCE-ID:20261221T090000Z\r
            DTSTART:20261221T090000Z\r
            DTEND:20261221T100000Z\r
            SUMMARY:Team meeting\r
            ORGANIZER;CN=Anna:mailto:anna@example.com\r
            ATTENDEE;PARTSTAT=DECLINED:mailto:carol@example.com\r
            END:VEVENT\r
            END:VCALENDAR
            """
        let declined = carols.text.replacingOccurrences(of: "END:VCALENDAR", with: instance)
        #expect(try carol.put(carols.href, declined, ifMatch: carols.etag).status == 204)
        let afterCarol = Self.unfolded(try anna.get("/dav/calendars/anna/work/team.ics").text)
        #expect(Self.partstat(of: "carol@example.com", in: afterCarol, instance: "20261221T090000Z") == "DECLINED")
        #expect(Self.partstat(of: "carol@example.com", in: afterCarol) == "NEEDS-ACTION", "the series is unanswered")
        #expect(Self.partstat(of: "bob@example.com", in: afterCarol, instance: "20261221T090000Z") == "ACCEPTED")

        // Anna moves the second week and drops Carol: Bob's copy follows (his alarm kept),
        // Carol's is cancelled and she gets the CANCEL.
        // (Carol is dropped from every component, the week she declined included.)
        let withoutCarol = afterCarol.components(separatedBy: "\r\n").filter {
            !($0.hasPrefix("ATTENDEE") && $0.hasSuffix(":mailto:carol@example.com"))
        }.joined(separator: "\r\n")
        let moved =
            withoutCarol
            .replacingOccurrences(
                of: "END:VCALENDAR",
                with: """
                    BEGIN:VEVENT\r
                    UID:team-weekly\r
                    DTSTAMP:20261102T000000Z\r
                    RECURRENCE-ID:20261214T090000Z\r
                    DTSTART:20261214T150000Z\r
                    DTEND:20261214T160000Z\r
                    SUMMARY:Team meeting (moved)\r
                    ORGANIZER;CN=Anna:mailto:anna@example.com\r
                    ATTENDEE;PARTSTAT=ACCEPTED:mailto:bob@example.com\r
                    END:VEVENT\r
                    END:VCALENDAR
                    """)
        #expect(!moved.contains("mailto:carol@example.com"))
        #expect(try anna.put("/dav/calendars/anna/work/team.ics", moved).status == 204)
        bobs = try Self.only(bob, "/dav/calendars/bob/personal/")
        #expect(
            bobs.text.contains("SUMMARY:Team meeting (moved)") && bobs.text.contains("ACTION:AUDIO"), "\(bobs.text)")
        #expect(try Self.inbox(carol, "carol").last?.contains("METHOD:CANCEL") == true)

        // Anna deletes it: Bob's copy stays, cancelled, and he is told.
        #expect(try anna.delete("/dav/calendars/anna/work/team.ics").status == 204)
        bobs = try Self.only(bob, "/dav/calendars/bob/personal/")
        #expect(
            bobs.text.components(separatedBy: "STATUS:CANCELLED").count - 1 == 3,
            "the master, the week Carol declined (an override since) and the moved week")
        let bobsInbox = try Self.inbox(bob, "bob")
        #expect(bobsInbox.map { $0.contains("METHOD:CANCEL") } == [false, false, true], "request, request, cancel")
        // He clears his inbox.
        for response in try bob.propfind("/dav/inbox/bob/", depth: "1").multistatus().responses.dropFirst() {
            #expect(try bob.delete(response.href).status == 204)
        }
        #expect(try Self.inbox(bob, "bob").isEmpty)
    }

    /// An organizer who removes every attendee (and so the ORGANIZER) cancels for them.
    /// Removing every attendee cancels: Bob, who never answered, loses the copy (an
    /// invitation never answered is not kept once cancelled) and gets the CANCEL.
    @Test func removingEveryAttendeeCancels() throws {
        let (server, anna, bob) = try Self.annaInvitesBob()
        let alone = Self.meeting.components(separatedBy: "\r\n").filter {
            !$0.hasPrefix("ATTENDEE") && !$0.hasPrefix("ORGANIZER")
        }.joined(separator: "\r\n")
        #expect(try anna.put("/dav/calendars/anna/work/team.ics", alone).status == 204)
        #expect(try server.eventStore(for: "bob").ownResource(withUID: "team-weekly") == nil)
        #expect(try Self.inbox(bob, "bob").last?.contains("METHOD:CANCEL") == true)
    }

    /// Schedule-Tag (RFC 6638 §3.2.10): the organizer's writes change it on every copy, an
    /// attendee's answer changes neither theirs nor the organizer's (their ETags do); a
    /// PUT with a stale If-Schedule-Tag-Match is refused and changes nothing.
    @Test func scheduleTagsFollowTheOrganizersChangesOnly() throws {
        let server = try TestServer(users: ["anna", "bob"])
        for user in ["anna", "bob"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let anna = server.dav("anna")
        let bob = server.dav("bob")
        #expect(try anna.mkcalendar("/dav/calendars/anna/work/").status == 201)
        #expect(try bob.mkcalendar("/dav/calendars/bob/personal/").status == 201)
        let put = try anna.put("/dav/calendars/anna/work/team.ics", Self.meeting)
        let organizerTag = try #require(put.headers["Schedule-Tag"])
        #expect(try anna.get("/dav/calendars/anna/work/team.ics").headers["Schedule-Tag"] == organizerTag)
        let copy = try Self.only(bob, "/dav/calendars/bob/personal/")
        let attendeeTag = try #require(try bob.get(copy.href).headers["Schedule-Tag"])
        // Bob accepts, on the condition that nothing changed for the organizer since he read it.
        let accepted = copy.text.replacingOccurrences(
            of: "PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:bob@example.com",
            with: "PARTSTAT=ACCEPTED:mailto:bob@example.com")
        let answer = try bob.send(
            "PUT", copy.href, accepted,
            headers: ["If-Schedule-Tag-Match": attendeeTag, "Content-Type": "text/calendar"])
        #expect(answer.status == 204, "\(answer.text)")
        #expect(answer.headers["Schedule-Tag"] == attendeeTag, "his answer keeps his tag")
        let annas = try anna.get("/dav/calendars/anna/work/team.ics")
        #expect(annas.headers["Schedule-Tag"] == organizerTag, "the reply keeps hers")
        #expect(annas.headers["ETag"] != put.headers["ETag"])
        // Anna changes the meeting: every copy's tag changes; Bob's old tag no longer matches.
        let renamed = Self.unfolded(annas.text).replacingOccurrences(
            of: "SUMMARY:Team meeting", with: "SUMMARY:Team sync")
        let again = try anna.put("/dav/calendars/anna/work/team.ics", renamed)
        #expect(again.headers["Schedule-Tag"] != organizerTag)
        let newAttendeeTag = try bob.get(copy.href).headers["Schedule-Tag"]
        #expect(newAttendeeTag != nil && newAttendeeTag != attendeeTag)
        let stale = try bob.send(
            "PUT", copy.href, accepted,
            headers: ["If-Schedule-Tag-Match": attendeeTag, "Content-Type": "text/calendar"])
        #expect(stale.status == 412, "\(stale.text)")
        #expect(try bob.get(copy.href).text.contains("Team sync"), "the refused PUT changed nothing")

        // The tag as a property (asked for by name): PROPFIND, multiget and sync-collection
        // give what GET's header does; an object nobody is invited to has none (404).
        let tagName = DAVName.caldav("schedule-tag")
        #expect(
            try bob.put(
                "/dav/calendars/bob/personal/alone.ics",
                Self.meeting
                    .replacingOccurrences(of: "UID:team-weekly", with: "UID:alone")
                    .components(separatedBy: "\r\n").filter { !$0.hasPrefix("ORGANIZER") && !$0.hasPrefix("ATTENDEE") }
                    .joined(separator: "\r\n")
            ).status == 201)
        let listing = try bob.propfind("/dav/calendars/bob/personal/", depth: "1", props: [tagName, .getETag])
            .multistatus()
        #expect(listing.response(copy.href)?.property(tagName)?.text == newAttendeeTag)
        #expect(listing.response("/dav/calendars/bob/personal/alone.ics")?.status(of: tagName) == 404)
        let multiget = try bob.multiget(
            "/dav/calendars/bob/personal/", prop: "<C:schedule-tag/>", hrefs: [copy.href]
        ).multistatus()
        #expect(multiget.response(copy.href)?.property(tagName)?.text == newAttendeeTag)
        let synced = try bob.report(
            "/dav/calendars/bob/personal/",
            "<D:sync-collection xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:sync-token/><D:sync-level>1</D:sync-level><D:prop><C:schedule-tag/></D:prop></D:sync-collection>"
        ).multistatus()
        #expect(synced.response(copy.href)?.property(tagName)?.text == newAttendeeTag)
        let ranged = try bob.report(
            "/dav/calendars/bob/personal/", depth: "1",
            "<C:calendar-query xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:prop><C:schedule-tag/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\"><C:comp-filter name=\"VEVENT\"><C:time-range start=\"20261214T000000Z\" end=\"20261215T000000Z\"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>"
        ).multistatus()
        #expect(ranged.response(copy.href)?.property(tagName)?.text == newAttendeeTag)

        // DELETE and MOVE take If-Schedule-Tag-Match too: a stale tag is 412 and keeps the copy.
        #expect(try bob.mkcalendar("/dav/calendars/bob/other/").status == 201)
        let staleDelete = try bob.send("DELETE", copy.href, headers: ["If-Schedule-Tag-Match": attendeeTag])
        #expect(staleDelete.status == 412, "\(staleDelete.text)")
        let staleMove = try bob.send(
            "MOVE", copy.href,
            headers: ["If-Schedule-Tag-Match": attendeeTag, "Destination": "/dav/calendars/bob/other/team.ics"])
        #expect(staleMove.status == 412, "\(staleMove.text)")
        #expect(try bob.get(copy.href).status == 200, "the refused DELETE and MOVE kept it")
        let moved = try bob.send(
            "MOVE", copy.href,
            headers: [
                "If-Schedule-Tag-Match": try #require(newAttendeeTag),
                "Destination": "/dav/calendars/bob/other/team.ics",
            ])
        #expect(moved.status == 201, "\(moved.text)")
        let movedTag = try #require(moved.headers["Schedule-Tag"], "the moved copy keeps a Schedule-Tag")
        #expect(try bob.get("/dav/calendars/bob/other/team.ics").headers["Schedule-Tag"] == movedTag)
        #expect(
            try bob.send("DELETE", "/dav/calendars/bob/other/team.ics", headers: ["If-Schedule-Tag-Match": movedTag])
                .status == 204)
        #expect(
            Self.partstat(
                of: "bob@example.com", in: Self.unfolded(try anna.get("/dav/calendars/anna/work/team.ics").text))
                == "DECLINED", "deleting the copy declined it, as without the header")
    }

    /// SCHEDULE-FORCE-SEND=REPLY on an attendee's ORGANIZER (RFC 6638 §7.3) sends their
    /// answer again although it did not change; the parameter is not stored.
    @Test func anAttendeeForcesAReply() throws {
        let (server, anna, bob) = try Self.annaInvitesBob()
        let copy = try Self.only(bob, "/dav/calendars/bob/\(try server.eventStore(for: "bob").calendars()[0].name)/")
        let replies = { try Self.inbox(anna, "anna").filter { $0.contains("METHOD:REPLY") }.count }
        #expect(try replies() == 0)
        let ctag = {
            try anna.propfind("/dav/inbox/anna/", props: [.getCTag]).multistatus().responses.first?.property(.getCTag)?
                .text
        }
        let quiet = try ctag()
        #expect(try bob.put(copy.href, copy.text).status == 204, "an unchanged copy")
        #expect(try replies() == 0, "sends nothing")
        let forced = copy.text.replacingOccurrences(
            of: "ORGANIZER;CN=Anna:", with: "ORGANIZER;CN=Anna;SCHEDULE-FORCE-SEND=REPLY:")
        #expect(forced != copy.text)
        let put = try bob.put(copy.href, forced)
        #expect(put.status == 204 && put.headers["ETag"] == nil, "stored otherwise than sent: no ETag")
        #expect(try replies() == 1, "the forced answer reached Anna")
        #expect(try ctag() != quiet, "her inbox's CTag changed with it")
        let item = try #require(
            try anna.propfind("/dav/inbox/anna/", depth: "1", props: [.dav("getcontentlength")]).multistatus()
                .responses.last)
        #expect(
            item.property(.dav("getcontentlength"))?.text == String(try anna.get(item.href).body.count),
            "each message's length is what GET sends")
        #expect(!(try bob.get(copy.href).text.contains("SCHEDULE-FORCE-SEND")))
    }

    /// An attendee's answers for times the series does not have (a RECURRENCE-ID that is
    /// no instance) reach nobody: the organizer's copy gains no override there.
    @Test func answersForTimesTheSeriesDoesNotHaveAreNotSent() throws {
        let (server, anna, bob) = try Self.annaInvitesBob()
        let copy = try Self.only(bob, "/dav/calendars/bob/\(try server.eventStore(for: "bob").calendars()[0].name)/")
        func declined(_ recurrenceID: String) -> String {
            [
                "BEGIN:VEVENT", "UID:team-weekly", "DTSTAMP:20261101T000000Z", "RECURRENCE-ID:\(recurrenceID)",
                "DTSTART:\(recurrenceID)", "DURATION:PT1H", "SUMMARY:Team meeting",
                "ORGANIZER;CN=Anna:mailto:anna@example.com",
                "ATTENDEE;PARTSTAT=DECLINED:mailto:bob@example.com", "END:VEVENT", "",
            ].joined(separator: "\r\n")
        }
        // A Monday series: the 14th is an instance, the 8th (a Tuesday) and 2027 are not.
        let answered = copy.text.replacingOccurrences(
            of: "END:VCALENDAR",
            with: declined("20261214T090000Z") + declined("20261208T090000Z") + declined("20270104T090000Z")
                + "END:VCALENDAR")
        #expect(try bob.put(copy.href, answered).status == 204)
        let annas = Self.unfolded(try anna.get("/dav/calendars/anna/work/team.ics").text)
        #expect(Self.partstat(of: "bob@example.com", in: annas, instance: "20261214T090000Z") == "DECLINED")
        #expect(!annas.contains("RECURRENCE-ID:20261208T090000Z") && !annas.contains("RECURRENCE-ID:20270104"))
        let replies = try Self.inbox(anna, "anna").filter { $0.contains("METHOD:REPLY") }
        #expect(replies.count == 1 && !replies[0].contains("20261208") && !replies[0].contains("20270104"))
    }

    /// An attendee deleting their copy declines it; the organizer hears.
    @Test func anAttendeesDeletionDeclines() throws {
        let (server, anna, bob) = try Self.annaInvitesBob()
        let bobs = try Self.only(bob, "/dav/calendars/bob/\(try server.eventStore(for: "bob").calendars()[0].name)/")
        #expect(try bob.delete(bobs.href).status == 204)
        let annas = Self.unfolded(try anna.get("/dav/calendars/anna/work/team.ics").text)
        #expect(Self.partstat(of: "bob@example.com", in: annas) == "DECLINED")
        #expect(try Self.inbox(anna, "anna").last?.contains("METHOD:REPLY") == true)
    }

    /// The outbox answers a VFREEBUSY request for those whose busy time the asker may see.
    @Test func freeBusyThroughTheOutbox() throws {
        func request(_ attendees: [String]) -> String {
            ([
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Client//EN", "METHOD:REQUEST", "BEGIN:VFREEBUSY",
                "UID:fb-1", "DTSTAMP:20261101T000000Z", "DTSTART:20261207T000000Z", "DTEND:20261208T000000Z",
                "ORGANIZER:mailto:anna@example.com",
            ] + attendees.map { "ATTENDEE:mailto:\($0)" }
                + ["END:VFREEBUSY", "END:VCALENDAR", ""]).joined(separator: "\r\n")
        }
        for visibility in [PrincipalVisibility.all, .onlySelf] {
            let server = try TestServer(users: ["anna", "bob"], visiblePrincipals: visibility)
            for user in ["anna", "bob"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
            let bob = server.dav("bob")
            #expect(try bob.mkcalendar("/dav/calendars/bob/personal/").status == 201)
            _ = try bob.put(
                "/dav/calendars/bob/personal/x.ics",
                "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:20261207T130000Z\r\nDTEND:20261207T140000Z\r\nSUMMARY:Private\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            )
            // Bob keeps weekday hours, 09:00-17:00 in Berlin (08:00-16:00 UTC in December).
            #expect(
                try bob.proppatch(
                    "/dav/calendars/bob/",
                    set: [(CalendarAvailabilityTests.property, CalendarAvailabilityTests.availability)]
                ).status == 207)
            let answer = try server.dav("anna").send(
                "POST", "/dav/outbox/anna/", request(["bob@example.com", "nobody@example.com"]),
                headers: ["Content-Type": "text/calendar"])
            #expect(answer.status == 200, "\(answer.text)")
            let parsed = try DAVElement.parse(answer.body)
            let responses = parsed.children(.caldav("response"))
            #expect(responses.count == 2)
            let status = responses.first?.child(.caldav("request-status"))?.text
            if visibility == .all {
                #expect(status?.hasPrefix("2.0") == true)
                let data = responses.first?.child(.caldav("calendar-data"))?.text ?? ""
                #expect(
                    data.contains("FREEBUSY;FBTYPE=BUSY:20261207T130000Z/20261207T140000Z") && !data.contains("Private")
                )
                #expect(
                    data.contains("FREEBUSY;FBTYPE=BUSY-UNAVAILABLE:20261207T000000Z/20261207T080000Z")
                        && data.contains("FREEBUSY;FBTYPE=BUSY-UNAVAILABLE:20261207T160000Z/20261208T000000Z"),
                    "outside his hours, as free-busy-query says: \(data)")
            } else {
                #expect(status?.hasPrefix("3.7") == true, "not shared with Anna: not hers to see")
            }
            #expect(responses.last?.child(.caldav("request-status"))?.text.hasPrefix("3.7") == true)
            // Only as oneself, and a bounded range.
            let forged = request(["bob@example.com"]).replacingOccurrences(
                of: "ORGANIZER:mailto:anna", with: "ORGANIZER:mailto:bob")
            #expect(try server.dav("anna").send("POST", "/dav/outbox/anna/", forged).status == 403)
            let long = request(["bob@example.com"]).replacingOccurrences(of: "DTEND:20261208", with: "DTEND:20291208")
            #expect(try server.dav("anna").send("POST", "/dav/outbox/anna/", long).status == 400)
            // RFC 6638 §5.2.1's preconditions: the media type, then valid data with one VFREEBUSY.
            let nonsense = try server.dav("anna").send("POST", "/dav/outbox/anna/", "nonsense")
            #expect(nonsense.status == 403 && nonsense.precondition == .caldav("valid-calendar-data"))
            let json = try server.dav("anna").send(
                "POST", "/dav/outbox/anna/", "{}", headers: ["Content-Type": "application/json"])
            #expect(json.status == 403 && json.precondition == .caldav("supported-calendar-data"))
            let two = request(["bob@example.com"]).replacingOccurrences(
                of: "END:VCALENDAR",
                with: "BEGIN:VFREEBUSY\r\nUID:fb-2\r\nDTSTAMP:20261101T000000Z\r\nEND:VFREEBUSY\r\nEND:VCALENDAR")
            let twice = try server.dav("anna").send("POST", "/dav/outbox/anna/", two)
            #expect(twice.status == 403 && twice.precondition == .caldav("valid-calendar-data"), "\(twice.text)")
            let crowd = request((0...100).map { "u\($0)@example.com" })
            #expect(try server.dav("anna").send("POST", "/dav/outbox/anna/", crowd).status == 400, "101 recipients")
        }
    }
}
