import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// The CalendarServer sharing protocol, as iOS, macOS and DAVx5 send it: the owner
/// POSTs CS:share to a calendar, the sharee finds the invitation in their notification
/// collection and POSTs CS:invite-reply to their home; the calendar then lives in the
/// sharee's home with the privileges of its access, syncs like their own, and goes
/// when the owner stops sharing.
@Suite struct CalDAVSharingTests {
    static let namespaces = "xmlns:D=\"DAV:\" xmlns:CS=\"http://calendarserver.org/ns/\""

    static func share(_ sets: [(href: String, readWrite: Bool)], remove: [String] = []) -> String {
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><CS:share \(namespaces)>"
            + sets.map {
                "<CS:set><D:href>\($0.href)</D:href><CS:summary>Team calendar</CS:summary>"
                    + ($0.readWrite ? "<CS:read-write/>" : "<CS:read/>") + "</CS:set>"
            }.joined() + remove.map { "<CS:remove><D:href>\($0)</D:href></CS:remove>" }.joined() + "</CS:share>"
    }

    static func reply(accept: Bool, host: String, inReplyTo: String) -> String {
        "<?xml version=\"1.0\" encoding=\"utf-8\"?><CS:invite-reply \(namespaces)><D:href>mailto:bob@example.com</D:href>"
            + (accept ? "<CS:invite-accepted/>" : "<CS:invite-declined/>")
            + "<CS:hosturl><D:href>\(host)</D:href></CS:hosturl><CS:in-reply-to>\(inReplyTo)</CS:in-reply-to>"
            + "</CS:invite-reply>"
    }

    static let xml: HTTPHeaders = ["Content-Type": "application/xml; charset=utf-8"]

    static func event(_ uid: String, _ lines: [String]) -> String {
        ([
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Tests//EN", "BEGIN:VEVENT", "UID:\(uid)",
            "DTSTAMP:20261101T000000Z",
        ]
            + lines + ["END:VEVENT", "END:VCALENDAR", ""]).joined(separator: "\r\n")
    }

    /// The notifications of a user: each member's href and parsed body.
    static func notifications(_ dav: DAVClient, _ user: String) throws -> [(href: String, body: DAVElement)] {
        let listing = try dav.propfind("/dav/notifications/\(user)/", depth: "1").multistatus()
        return try listing.responses.dropFirst().map { response in
            let got = try dav.get(response.href)
            #expect(got.status == 200 && got.headers["Content-Type"]?.hasPrefix("application/xml") == true)
            return (response.href, try DAVElement.parse(got.body))
        }
    }

    /// Anna makes her Team calendar and shares it with each of `sharees` (read-write when
    /// the flag says so); each accepts the invitation from their notification collection.
    static func shareTeam(_ anna: DAVClient, with sharees: [(client: DAVClient, user: String, readWrite: Bool)])
        throws
    {
        #expect(try anna.mkcalendar("/dav/calendars/anna/team/").status == 201)
        let invite = share(sharees.map { ("/dav/principals/\($0.user)/", $0.readWrite) })
        #expect(try anna.send("POST", "/dav/calendars/anna/team/", invite, headers: xml).status == 200)
        for (client, user, _) in sharees { try accept(client, user) }
    }

    /// `user` accepts their newest invitation to Anna's Team calendar.
    static func accept(_ client: DAVClient, _ user: String) throws {
        let uid = try #require(
            try notifications(client, user).last?.body.child(.calendarServer("invite-notification"))?.child(
                .calendarServer("uid"))?.text)
        #expect(
            try client.send(
                "POST", "/dav/calendars/\(user)/",
                reply(accept: true, host: "/dav/calendars/anna/team/", inReplyTo: uid), headers: xml
            ).status == 200)
    }

    @Test(arguments: ServerSetup.all) func aSharedCalendarIsInvitedAcceptedSyncedAndRemoved(_ setup: ServerSetup)
        throws
    {
        let server = try TestServer(setup)
        try server.backend.setAddresses(["bob@example.com"], forUser: "bob")
        let anna = server.dav("anna")
        let bob = server.dav("bob")
        #expect(try anna.mkcalendar("/dav/calendars/anna/team/", displayName: "Team").status == 201)
        // A weekly series with one moved instance, as users have them.
        _ = try anna.put(
            "/dav/calendars/anna/team/weekly.ics",
            Self.event(
                "weekly",
                ["DTSTART:20261201T090000Z", "DTEND:20261201T100000Z", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Stand-up"]
            )
            .replacingOccurrences(
                of: "END:VCALENDAR",
                with:
                    "BEGIN:VEVENT\r\nUID:weekly\r\nDTSTAMP:20261101T000000Z\r\nRECURRENCE-ID:20261208T090000Z\r\nDTSTART:20261208T140000Z\r\nDTEND:20261208T150000Z\r\nSUMMARY:Stand-up (moved)\r\nEND:VEVENT\r\nEND:VCALENDAR"
            ))

        // The server says it shares; Bob's principal names his notification collection and address.
        let options = try anna.send("OPTIONS", "/dav/calendars/anna/team/")
        #expect(options.headers["DAV"]?.contains("calendarserver-sharing") == true)
        #expect(options.headers["Allow"]?.contains("POST") == true)
        let principal = try bob.propfind(
            "/dav/principals/bob/", props: [.calendarServer("notification-URL"), .caldav("calendar-user-address-set")]
        ).multistatus().responses[0]
        #expect(principal.property(.calendarServer("notification-URL"))?.hrefs == ["/dav/notifications/bob/"])
        #expect(principal.property(.caldav("calendar-user-address-set"))?.hrefs.first == "mailto:bob@example.com")

        // Anna invites Bob by his address, read-write.
        let shared = try anna.send(
            "POST", "/dav/calendars/anna/team/", Self.share([("mailto:bob@example.com", true)]), headers: Self.xml)
        #expect(shared.status == 200, "\(shared.text)")
        let owner = try anna.propfind(
            "/dav/calendars/anna/team/", props: [.calendarServer("invite"), .dav("resourcetype")]
        ).multistatus().responses[0]
        #expect(owner.property(.dav("resourcetype"))?.childNames.contains(.calendarServer("shared-owner")) == true)
        let invitee = try #require(owner.property(.calendarServer("invite"))?.child(.calendarServer("user")))
        #expect(invitee.hrefs == ["/dav/principals/bob/"])
        #expect(invitee.child(.calendarServer("invite-noresponse")) != nil)
        #expect(invitee.child(.calendarServer("access"))?.child(.calendarServer("read-write")) != nil)

        // Not in Bob's home until he answers; the invitation waits in his notifications.
        #expect(try bob.propfind("/dav/calendars/bob/", depth: "1").multistatus().hrefs == ["/dav/calendars/bob/"])
        let notes = try Self.notifications(bob, "bob")
        #expect(notes.count == 1)
        let invitation = try #require(notes.first?.body.child(.calendarServer("invite-notification")))
        let uid = try #require(invitation.child(.calendarServer("uid"))?.text)
        #expect(invitation.child(.calendarServer("hosturl"))?.hrefs == ["/dav/calendars/anna/team/"])
        #expect(invitation.child(.calendarServer("invite-noresponse")) != nil)
        #expect(invitation.child(.calendarServer("summary"))?.text == "Team calendar")
        #expect(invitation.child(.calendarServer("organizer"))?.hrefs == ["/dav/principals/anna/"])
        let collection = try bob.propfind(
            "/dav/notifications/bob/", props: [.calendarServer("getctag"), .dav("resourcetype")]
        ).multistatus().responses[0]
        let tagBefore = try #require(collection.property(.calendarServer("getctag"))?.text)
        #expect(collection.property(.dav("resourcetype"))?.childNames.contains(.calendarServer("notification")) == true)

        // Bob accepts: the answer says where the calendar now is in his home.
        let accepted = try bob.send(
            "POST", "/dav/calendars/bob/",
            Self.reply(accept: true, host: "/dav/calendars/anna/team/", inReplyTo: uid), headers: Self.xml)
        #expect(accepted.status == 200, "\(accepted.text)")
        let sharedAs = try DAVElement.parse(accepted.body)
        #expect(sharedAs.name == .calendarServer("shared-as") && sharedAs.hrefs == ["/dav/calendars/bob/anna-team/"])
        let tagAfter = try bob.propfind("/dav/notifications/bob/", props: [.calendarServer("getctag")]).multistatus()
            .responses[0].property(.calendarServer("getctag"))?.text
        #expect(tagAfter != tagBefore, "answering changes the notification collection")

        // In Bob's home, marked shared, with Anna as owner and the privileges of read-write.
        let home = try bob.propfind("/dav/calendars/bob/", depth: "1").multistatus()
        let mine = try #require(home.response("/dav/calendars/bob/anna-team/"))
        #expect(mine.property(.dav("resourcetype"))?.childNames.contains(.calendarServer("shared")) == true)
        #expect(mine.property(.calendarServer("shared-url"))?.hrefs == ["/dav/calendars/anna/team/"])
        #expect(mine.property(.dav("owner"))?.hrefs == ["/dav/principals/anna/"])
        #expect(mine.property(.dav("displayname"))?.text == "Team")
        let privileges = try #require(mine.property(.dav("current-user-privilege-set")))
        let granted = Set(privileges.children.flatMap(\.childNames))
        // Everything clients look for before they offer editing (RFC 3744 §3.1; write-properties
        // covers the sharee's own name, colour, order and transparency).
        let writing: Set<DAVName> = [
            .dav("write"), .dav("write-content"), .dav("write-properties"), .dav("bind"), .dav("unbind"),
        ]
        #expect(writing.isSubset(of: granted), "\(granted)")

        // Every instance, the moved one included, under Bob's own path.
        let query = try bob.calendarQuery(
            "/dav/calendars/bob/anna-team/",
            prop:
                "<D:getetag/><C:calendar-data><C:expand start=\"20261201T000000Z\" end=\"20270101T000000Z\"/></C:calendar-data>",
            start: "20261201T000000Z", end: "20270101T000000Z")
        #expect(query.status == 207, "\(query.text)")
        #expect(try query.multistatus().hrefs == ["/dav/calendars/bob/anna-team/weekly.ics"])
        #expect(query.text.components(separatedBy: "BEGIN:VEVENT").count - 1 == 4)
        #expect(query.text.contains("Stand-up (moved)"))

        // Bob writes into it; Anna sees it; sync tokens tell each of the other's change.
        let start = try bob.syncCollection("/dav/calendars/bob/anna-team/").multistatus()
        let token = try #require(start.syncToken)
        #expect(
            try bob.put("/dav/calendars/bob/anna-team/bob.ics", Self.event("bob", ["DTSTART:20261203T120000Z"]))
                .status == 201)
        #expect(try anna.get("/dav/calendars/anna/team/bob.ics").status == 200)
        _ = try anna.put(
            "/dav/calendars/anna/team/anna.ics", Self.event("anna", ["DTSTART:20261204T120000Z", "SUMMARY:Anna's"]))
        let changes = try bob.syncCollection("/dav/calendars/bob/anna-team/", token: token).multistatus()
        #expect(
            Set(changes.hrefs) == ["/dav/calendars/bob/anna-team/bob.ics", "/dav/calendars/bob/anna-team/anna.ics"])
        // Bob's name for the calendar is his own; Anna's stays hers.
        let rename = try bob.proppatch("/dav/calendars/bob/anna-team/", set: [(.dav("displayname"), "Mine")])
        #expect(rename.status == 207 && rename.text.contains("200 OK"), "\(rename.text)")
        let annasName = try anna.propfind("/dav/calendars/anna/team/", props: [.dav("displayname")]).multistatus()
        #expect(annasName.responses[0].property(.dav("displayname"))?.text != "Mine")

        // Anna sees Bob's answer in her notifications and in the invite.
        let replies = try Self.notifications(anna, "anna")
        let answer = try #require(replies.first?.body.child(.calendarServer("invite-reply")))
        #expect(answer.child(.calendarServer("invite-accepted")) != nil)
        #expect(answer.child(.calendarServer("in-reply-to"))?.text == uid)
        #expect(answer.child(.calendarServer("hosturl"))?.hrefs == ["/dav/calendars/anna/team/"])

        // Read-only from now: Bob's writes are refused, and his privileges say so.
        #expect(
            try anna.send(
                "POST", "/dav/calendars/anna/team/", Self.share([("/dav/principals/bob/", false)]), headers: Self.xml
            ).status == 200)
        let refused = try bob.put(
            "/dav/calendars/bob/anna-team/late.ics", Self.event("late", ["DTSTART:20261205T120000Z"]))
        #expect(refused.status == 403 && refused.precondition == .dav("need-privileges"), "\(refused.text)")
        #expect(try bob.delete("/dav/calendars/bob/anna-team/anna.ics").status == 403)
        let readOnly = try bob.propfind("/dav/calendars/bob/anna-team/", depth: "1").multistatus()
        for response in readOnly.responses {
            let names = Set(
                response.property(.dav("current-user-privilege-set"))?.children.flatMap(\.childNames) ?? [])
            // Reading its busy time too (RFC 4791 §6.1.1: read-free-busy is within read).
            #expect(
                names == [.dav("read"), .caldav("read-free-busy"), .dav("read-current-user-privilege-set")],
                "\(response.href)")
        }
        #expect(try anna.get("/dav/calendars/anna/team/anna.ics").status == 200)

        // Anna stops sharing: the calendar leaves Bob's home, and he is told.
        #expect(
            try anna.send(
                "POST", "/dav/calendars/anna/team/", Self.share([], remove: ["mailto:bob@example.com"]),
                headers: Self.xml
            ).status == 200)
        #expect(try bob.propfind("/dav/calendars/bob/", depth: "1").multistatus().hrefs == ["/dav/calendars/bob/"])
        #expect(try bob.propfind("/dav/calendars/bob/anna-team/").status == 404)
        #expect(try bob.syncCollection("/dav/calendars/bob/anna-team/", token: token).status == 404)
        let removal = try Self.notifications(bob, "bob").last?.body.child(.calendarServer("invite-notification"))
        #expect(removal?.child(.calendarServer("invite-deleted")) != nil)
        // Bob clears his notifications.
        for note in try Self.notifications(bob, "bob") { #expect(try bob.delete(note.href).status == 204) }
        #expect(try Self.notifications(bob, "bob").isEmpty)
        // Anna's calendar kept everything.
        #expect(
            try anna.propfind("/dav/calendars/anna/team/", depth: "1").multistatus().hrefs.count == 4,
            "the collection and its three objects")
    }

    /// A sharee's DELETE of the shared calendar leaves the share (the owner's calendar
    /// stays); declining an invitation answers 204 and adds nothing to the home.
    @Test func declineAndLeave() throws {
        let server = try TestServer(users: ["anna", "bob", "carol"])
        let anna = server.dav("anna")
        let bob = server.dav("bob")
        let carol = server.dav("carol")
        #expect(try anna.mkcalendar("/dav/calendars/anna/team/").status == 201)
        let invite = Self.share([("/dav/principals/bob/", false), ("/dav/principals/carol/", false)])
        #expect(try anna.send("POST", "/dav/calendars/anna/team/", invite, headers: Self.xml).status == 200)
        func uid(_ dav: DAVClient, _ user: String) throws -> String {
            try #require(
                try Self.notifications(dav, user).first?.body.child(.calendarServer("invite-notification"))?.child(
                    .calendarServer("uid"))?.text)
        }
        let declined = try carol.send(
            "POST", "/dav/calendars/carol/",
            Self.reply(accept: false, host: "/dav/calendars/anna/team/", inReplyTo: try uid(carol, "carol")),
            headers: Self.xml)
        #expect(declined.status == 204)
        #expect(try carol.propfind("/dav/calendars/carol/", depth: "1").multistatus().hrefs.count == 1)
        #expect(
            try bob.send(
                "POST", "/dav/calendars/bob/",
                Self.reply(accept: true, host: "/dav/calendars/anna/team/", inReplyTo: try uid(bob, "bob")),
                headers: Self.xml
            ).status == 200)
        #expect(try bob.delete("/dav/calendars/bob/anna-team/").status == 204)
        #expect(try bob.propfind("/dav/calendars/bob/", depth: "1").multistatus().hrefs.count == 1)
        #expect(try anna.propfind("/dav/calendars/anna/team/").status == 207)
        let invite2 = try anna.propfind("/dav/calendars/anna/team/", props: [.calendarServer("invite")]).multistatus()
            .responses[0].property(.calendarServer("invite"))
        let statuses = invite2?.children(.calendarServer("user")).map { ($0.hrefs.first ?? "", $0.childNames) } ?? []
        #expect(statuses.count == 2)
        #expect(statuses.allSatisfy { $0.1.contains(.calendarServer("invite-declined")) }, "\(statuses)")
    }

    /// What a share or a reply cannot do: name nobody, share someone else's calendar,
    /// answer an invitation never sent, or come without XML. Nothing changes.
    @Test func badSharesAndRepliesChangeNothing() throws {
        let server = try TestServer()
        let anna = server.dav("anna")
        let bob = server.dav("bob")
        #expect(try anna.mkcalendar("/dav/calendars/anna/team/").status == 201)
        let nobody = try anna.send(
            "POST", "/dav/calendars/anna/team/", Self.share([("mailto:nobody@example.com", true)]), headers: Self.xml)
        #expect(nobody.status == 403 && nobody.precondition == .calendarServer("valid-sharee"), "\(nobody.text)")
        let mixed = try anna.send(
            "POST", "/dav/calendars/anna/team/",
            Self.share([("/dav/principals/bob/", true), ("/dav/principals/ghost/", true)]), headers: Self.xml)
        #expect(mixed.status == 403)
        let me = try anna.send(
            "POST", "/dav/calendars/anna/team/", Self.share([("/dav/principals/anna/", true)]), headers: Self.xml)
        #expect(me.status == 403)
        #expect(try Self.notifications(bob, "bob").isEmpty, "no share was made by a refused request")
        #expect(
            try bob.send(
                "POST", "/dav/calendars/anna/team/", Self.share([("/dav/principals/bob/", true)]), headers: Self.xml
            ).status == 404)
        #expect(
            try bob.send(
                "POST", "/dav/calendars/bob/",
                Self.reply(accept: true, host: "/dav/calendars/anna/team/", inReplyTo: "made-up"), headers: Self.xml
            ).status == 403)
        #expect(try anna.send("POST", "/dav/calendars/anna/team/", "not xml", headers: Self.xml).status == 400)
        #expect(
            try anna.send("POST", "/dav/calendars/anna/team/", "x", headers: ["Content-Type": "text/plain"]).status
                == 415)
        #expect(
            try anna.send(
                "POST", "/dav/calendars/anna/team/", "<D:propfind xmlns:D=\"DAV:\"/>", headers: Self.xml
            ).status == 400)
        let onObject = try anna.send("POST", "/dav/calendars/anna/team/x.ics", "<x/>", headers: Self.xml)
        #expect(onObject.status == 405 && onObject.headers["Allow"]?.contains("POST") == false)
        #expect(try anna.get("/dav/notifications/anna/nothing.xml").status == 404)
        #expect(try bob.propfind("/dav/notifications/anna/").status == 404, "another user's notifications are hidden")
    }
}

extension CalDAVSharingTests {
    /// An outstanding invitation can be answered after its notification was deleted (the
    /// share its hosturl names), until the owner withdraws it; then the reply is 403
    /// `valid-sharee`.
    @Test func anInvitationIsAnsweredAfterItsNotificationIsGone() throws {
        let server = try TestServer(users: ["anna", "bob", "carol"])
        let (anna, bob, carol) = (server.dav("anna"), server.dav("bob"), server.dav("carol"))
        #expect(try anna.mkcalendar("/dav/calendars/anna/team/").status == 201)
        let invite = Self.share([("/dav/principals/bob/", false), ("/dav/principals/carol/", false)])
        #expect(try anna.send("POST", "/dav/calendars/anna/team/", invite, headers: Self.xml).status == 200)
        for (client, user) in [(bob, "bob"), (carol, "carol")] {
            for note in try Self.notifications(client, user) { #expect(try client.delete(note.href).status == 204) }
        }
        let accepted = try bob.send(
            "POST", "/dav/calendars/bob/",
            Self.reply(accept: true, host: "/dav/calendars/anna/team/", inReplyTo: "gone"),
            headers: Self.xml)
        #expect(accepted.status == 200 && accepted.text.contains("shared-as"), "\(accepted.text)")
        // Anna withdraws Carol's invitation: now there is nothing to answer.
        let withdraw = Self.share([], remove: ["/dav/principals/carol/"])
        #expect(try anna.send("POST", "/dav/calendars/anna/team/", withdraw, headers: Self.xml).status == 200)
        let late = try carol.send(
            "POST", "/dav/calendars/carol/",
            Self.reply(accept: true, host: "/dav/calendars/anna/team/", inReplyTo: "gone"),
            headers: Self.xml)
        #expect(late.status == 403 && late.precondition == .calendarServer("valid-sharee"), "\(late.text)")
    }
}

extension CalDAVSharingTests {
    /// A default alarm as Apple's clients set it on a calendar (draft-daboo-valarm-extensions §9).
    static let defaultAlarm = "BEGIN:VALARM&#13;\nACTION:DISPLAY&#13;\nTRIGGER:-PT15M&#13;\nEND:VALARM&#13;\n"

    /// The sharing protocol's per-user properties: a sharee (read-only or read-write) sets
    /// their own name, colour, order, schedule-calendar-transp and default alarms for a
    /// shared calendar; the owner and the other sharees keep theirs. Anything else is the owner's (403,
    /// the rest 424, nothing saved), and a withdrawn share forgets them.
    @Test func shareesKeepTheirOwnCalendarProperties() throws {
        let server = try TestServer(users: ["anna", "bob", "carol"])
        let (anna, bob, carol) = (server.dav("anna"), server.dav("bob"), server.dav("carol"))
        try Self.shareTeam(anna, with: [(bob, "bob", false), (carol, "carol", true)])
        let names: [DAVName] = [
            .dav("displayname"), .apple("calendar-color"), .caldav("default-alarm-vevent-datetime"),
        ]
        func seen(_ client: DAVClient, _ path: String) throws -> [String?] {
            let response = try client.propfind(path, props: names).multistatus().responses[0]
            return names.map { response.property($0)?.text }
        }
        let update =
            "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:A=\"http://apple.com/ns/ical/\"><D:set><D:prop>"
            + "<D:displayname>Anna's team</D:displayname><A:calendar-color>#FF0000</A:calendar-color>"
            + "<C:default-alarm-vevent-datetime xmlns:C=\"urn:ietf:params:xml:ns:caldav\">\(Self.defaultAlarm)"
            + "</C:default-alarm-vevent-datetime></D:prop></D:set></D:propertyupdate>"
        #expect(try bob.send("PROPPATCH", "/dav/calendars/bob/anna-team/", update).status == 207)
        let bobs = try seen(bob, "/dav/calendars/bob/anna-team/")
        #expect(bobs[0...1] == ["Anna's team", "#FF0000"])
        #expect(bobs[2]?.contains("TRIGGER:-PT15M") == true, "\(bobs)")
        for (client, path) in [(anna, "/dav/calendars/anna/team/"), (carol, "/dav/calendars/carol/anna-team/")] {
            let theirs = try seen(client, path)
            #expect(theirs[0] == "team" && theirs[2] == nil, "\(theirs)")
        }

        let description =
            "<D:propertyupdate xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><D:set><D:prop>"
            + "<D:displayname>Mine</D:displayname><C:calendar-description>Carol's</C:calendar-description>"
            + "</D:prop></D:set></D:propertyupdate>"
        let refused = try carol.send("PROPPATCH", "/dav/calendars/carol/anna-team/", description)
        let statuses = try refused.multistatus().responses[0].propstats.map(\.status)
        #expect(Set(statuses) == [403, 424], "\(refused.text)")
        #expect(try seen(carol, "/dav/calendars/carol/anna-team/")[0] == "team")

        // Anna withdraws Bob's share: what he set goes with it.
        let team = try #require(try server.eventStore(for: "anna").calendars().first { $0.name == "team" })
        #expect(try !server.eventStore(for: "bob").personalProperties(ofCalendar: team.id).isEmpty)
        let withdraw = Self.share([], remove: ["/dav/principals/bob/"])
        #expect(try anna.send("POST", "/dav/calendars/anna/team/", withdraw, headers: Self.xml).status == 200)
        #expect(try server.eventStore(for: "bob").personalProperties(ofCalendar: team.id).isEmpty)
    }
}

extension CalDAVSharingTests {
    /// Lines of `text` (unfolded enough for these short objects) that hold `needle`.
    static func lines(_ text: String, containing needle: String) -> [String] {
        text.split(whereSeparator: \.isNewline).map(String.init).filter { $0.contains(needle) }
    }

    /// The sharing protocol's per-user data on shared objects: each user (owner, read-write
    /// sharee, read-only sharee) sees only their own VALARMs and TRANSP; a sharee's change of
    /// only those keeps the owner's (and the owner's ETag) and reaches the sharee's sync; a
    /// sharee's change of the event keeps every user's alarms; ETags and If-Match are each
    /// user's own; a withdrawn share forgets the sharee's alarms.
    @Test(arguments: ServerSetup.all) func eachUserSeesOnlyTheirOwnAlarmsAndTransparency(_ setup: ServerSetup)
        throws
    {
        let server = try TestServer(setup, users: ["anna", "bob", "carol"])
        let (anna, bob, carol) = (server.dav("anna"), server.dav("bob"), server.dav("carol"))
        try Self.shareTeam(anna, with: [(bob, "bob", true), (carol, "carol", false)])
        func alarm(_ minutes: Int, _ text: String) -> [String] {
            ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:\(text)", "TRIGGER:-PT\(minutes)M", "END:VALARM"]
        }
        let timing = ["DTSTART:20270105T090000Z", "DTEND:20270105T100000Z", "SUMMARY:Planning"]
        let annas = Self.event("plan", timing + ["TRANSP:OPAQUE"] + alarm(15, "Anna's"))
        let annaPath = "/dav/calendars/anna/team/plan.ics"
        let bobPath = "/dav/calendars/bob/anna-team/plan.ics"
        let carolPath = "/dav/calendars/carol/anna-team/plan.ics"
        #expect(try anna.put(annaPath, annas).status == 201)
        let annaETag = try #require(try anna.get(annaPath).headers["ETag"])

        // The sharees see the event without Anna's alarm or transparency.
        for (client, path) in [(bob, bobPath), (carol, carolPath)] {
            let seen = try client.get(path).text
            #expect(
                seen.contains("SUMMARY:Planning") && !seen.contains("VALARM") && !seen.contains("TRANSP"), "\(seen)")
        }
        let sync = try bob.syncCollection("/dav/calendars/bob/anna-team/").multistatus()
        let token = try #require(sync.syncToken)
        let bobETag = try #require(try bob.get(bobPath).headers["ETag"])

        // Bob sets his own alarm and marks it free: only his parts change.
        let bobs = Self.event("plan", timing + ["TRANSP:TRANSPARENT"] + alarm(5, "Bob's"))
        #expect(try bob.put(bobPath, bobs, ifMatch: "\"stale\"").status == 412)
        let put = try bob.put(bobPath, bobs, ifMatch: bobETag)
        #expect(put.status == 204, "\(put.text)")
        let newBobETag = try #require(put.headers["ETag"])
        #expect(newBobETag != bobETag)
        let bobSees = try bob.get(bobPath)
        #expect(bobSees.headers["ETag"] == newBobETag)
        #expect(Self.lines(bobSees.text, containing: "DESCRIPTION") == ["DESCRIPTION:Bob's"])
        #expect(Self.lines(bobSees.text, containing: "TRANSP") == ["TRANSP:TRANSPARENT"])
        let annaSees = try anna.get(annaPath)
        #expect(annaSees.headers["ETag"] == annaETag, "Anna's object is untouched")
        #expect(Self.lines(annaSees.text, containing: "DESCRIPTION") == ["DESCRIPTION:Anna's"])
        #expect(Self.lines(annaSees.text, containing: "TRANSP") == ["TRANSP:OPAQUE"])
        let carolSees = try carol.get(carolPath).text
        #expect(!carolSees.contains("VALARM") && !carolSees.contains("TRANSP"), "\(carolSees)")
        // Bob's sync sees his change under his new ETag; the multiget and the query agree.
        let changed = try bob.syncCollection("/dav/calendars/bob/anna-team/", token: token).multistatus()
        #expect(changed.responses.map { $0.property(.getETag)?.text } == [newBobETag])
        let multiget = try bob.multiget("/dav/calendars/bob/anna-team/", hrefs: [bobPath]).multistatus()
        #expect(multiget.responses.first?.property(.getETag)?.text == newBobETag)
        let data = multiget.responses.first?.property(.caldav("calendar-data"))?.text ?? ""
        #expect(Self.lines(data, containing: "DESCRIPTION") == ["DESCRIPTION:Bob's"])
        let listing = try bob.propfind("/dav/calendars/bob/anna-team/", depth: "1", props: [.getETag]).multistatus()
        #expect(listing.responses.first { $0.href == bobPath }?.property(.getETag)?.text == newBobETag)

        // Bob moves the meeting: every user keeps their own alarm.
        let moved = Self.event(
            "plan",
            ["DTSTART:20270105T110000Z", "DTEND:20270105T120000Z", "SUMMARY:Planning", "TRANSP:TRANSPARENT"]
                + alarm(10, "Bob's later"))
        #expect(try bob.put(bobPath, moved, ifMatch: newBobETag).status == 204)
        let annaAfter = try anna.get(annaPath).text
        #expect(annaAfter.contains("DTSTART:20270105T110000Z"))
        #expect(Self.lines(annaAfter, containing: "DESCRIPTION") == ["DESCRIPTION:Anna's"])
        #expect(Self.lines(annaAfter, containing: "TRANSP") == ["TRANSP:OPAQUE"])
        let bobAfter = try bob.get(bobPath).text
        #expect(Self.lines(bobAfter, containing: "DESCRIPTION") == ["DESCRIPTION:Bob's later"])

        // Anna's own edits keep Bob's parts; her alarm removed is gone only for her.
        #expect(try anna.put(annaPath, Self.event("plan", timing)).status == 204)
        #expect(Self.lines(try bob.get(bobPath).text, containing: "DESCRIPTION") == ["DESCRIPTION:Bob's later"])
        #expect(!(try anna.get(annaPath).text.contains("VALARM")))

        // Withdrawn and shared again, Bob starts with no alarm of his own.
        let withdraw = Self.share([], remove: ["/dav/principals/bob/"])
        #expect(try anna.send("POST", "/dav/calendars/anna/team/", withdraw, headers: Self.xml).status == 200)
        let again = Self.share([("/dav/principals/bob/", true)])
        #expect(try anna.send("POST", "/dav/calendars/anna/team/", again, headers: Self.xml).status == 200)
        try Self.accept(bob, "bob")
        #expect(!(try bob.get(bobPath).text.contains("VALARM")))
    }

    /// A sharee's own parts are bounded like anything else they keep: one object's at most
    /// 64 KiB, and all of them counted with their own calendars against their byte quota
    /// (not the owner's). A refused write keeps what was there.
    @Test(arguments: ServerSetup.all) func aShareesOwnAlarmsAreBoundedAndCountAgainstTheirQuota(
        _ setup: ServerSetup
    ) throws {
        let server = try TestServer(setup, users: ["anna", "bob"])
        let (anna, bob) = (server.dav("anna"), server.dav("bob"))
        try Self.shareTeam(anna, with: [(bob, "bob", true)])
        let timing = ["DTSTART:20270105T090000Z", "DTEND:20270105T100000Z", "SUMMARY:Planning"]
        func alarms(_ count: Int, _ text: String) -> [String] {
            (0..<count).flatMap { index in
                [
                    "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:\(text) \(index)", "TRIGGER:-PT\(index + 1)M",
                    "END:VALARM",
                ]
            }
        }
        #expect(try anna.put("/dav/calendars/anna/team/plan.ics", Self.event("plan", timing)).status == 201)
        let path = "/dav/calendars/bob/anna-team/plan.ics"
        #expect(try bob.put(path, Self.event("plan", timing + alarms(1, "mine"))).status == 204)

        // 1,000 alarms of about 90 bytes each: past the bound of one object's parts.
        let many = try bob.put(path, Self.event("plan", timing + alarms(1_000, "again")))
        #expect(many.status == 507, "\(many.text)")
        #expect(Self.lines(try bob.get(path).text, containing: "DESCRIPTION") == ["DESCRIPTION:mine 0"])

        // Under a quota that Bob's own calendars nearly fill, a few more alarms do not fit.
        let filler = Self.event("fill", timing + ["DESCRIPTION:" + String(repeating: "x", count: 3_000)])
        #expect(try bob.mkcalendar("/dav/calendars/bob/own/").status == 201)
        #expect(try bob.put("/dav/calendars/bob/own/fill.ics", filler).status == 201)
        server.backend.quota = StoreQuota(maxBytes: 4_000)
        let over = try bob.put(path, Self.event("plan", timing + alarms(12, "more")))
        #expect(over.status == 507, "\(over.text)")
        #expect(Self.lines(try bob.get(path).text, containing: "DESCRIPTION") == ["DESCRIPTION:mine 0"])
        // Anna's own writes are hers to count: Bob's parts are not on her bill.
        #expect(
            try anna.put("/dav/calendars/anna/team/plan.ics", Self.event("plan", timing + ["LOCATION:Room 2"])).status
                == 204)
        server.backend.quota = StoreQuota()
        #expect(try bob.put(path, Self.event("plan", timing + alarms(12, "more"))).status == 204)
    }
}
