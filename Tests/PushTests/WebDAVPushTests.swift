import AlmanacTesting
import CalendarStore
import CivilTime
import Foundation
import HTTPTypes
import Push
import Testing

/// WebDAV-Push through the server as DAVx⁵ uses it: service detection by PROPFIND,
/// registration by POST of `push-register`, removal by DELETE of the registration URL,
/// the messages every kind of change leaves for a subscription (coalesced, filtered by
/// its triggers, only while its user may read the calendar), and what a push service's
/// answers do to a subscription. The messages' encryption and VAPID signatures are
/// checked by independent implementations in Tests/Interop/push.py (http-ece, pyjwt).
@Suite struct WebDAVPushTests {
    static let push = "https://bitfire.at/webdav-push"
    /// RFC 8291 §5's user agent public key and authentication secret (a valid P-256 point).
    static let key = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let calendar = "/dav/calendars/anna/work/"

    static func register(
        _ resource: String, key: String? = key, auth: String? = auth, encoding: String? = "aes128gcm",
        trigger: String? = nil, expires: String? = nil
    ) -> String {
        var body = #"<?xml version="1.0"?><P:push-register xmlns:P="\#(push)" xmlns:D="DAV:"><P:subscription>"#
        body += "<P:web-push-subscription><P:push-resource>\(resource)</P:push-resource>"
        if let encoding { body += "<P:content-encoding>\(encoding)</P:content-encoding>" }
        if let key { body += #"<P:subscription-public-key type="p256dh">\#(key)</P:subscription-public-key>"# }
        if let auth { body += "<P:auth-secret>\(auth)</P:auth-secret>" }
        body += "</P:web-push-subscription></P:subscription>"
        if let trigger { body += "<P:trigger>\(trigger)</P:trigger>" }
        if let expires { body += "<P:expires>\(expires)</P:expires>" }
        return body + "</P:push-register>"
    }

    static let xml: HTTPHeaders = ["Content-Type": "application/xml; charset=utf-8"]

    /// A server offering push (to loopback receivers too) whose sender is stopped: the
    /// tests look at what is queued and send it themselves.
    static func server(_ setup: ServerSetup, allowingPrivate: Bool = true) throws -> TestServer {
        var configuration = PushDispatcher.Configuration()
        configuration.http.policy.allowsPrivateAddresses = allowingPrivate
        configuration.maxAttempts = 2
        configuration.retryMilliseconds = 1
        let server = try TestServer(setup, push: configuration)
        server.server.pushDispatcher?.stop()
        #expect(try server.dav("anna").mkcalendar(calendar, displayName: "Work").status == 201)
        return server
    }

    static func property(_ answer: DAVAnswer, _ name: String) throws -> DAVElement? {
        try DAVElement.parse(answer.body).descendants.first { $0.name == DAVName(push, name) }
    }

    /// Every message queued now, by subscription id, taken from the queue.
    static func queued(_ server: TestServer) throws -> [String: PushJob] {
        let jobs = try server.backend.push.claim(now: later, lease: 60_000, limit: 1_000, perUser: 1_000)
        for job in jobs { try server.backend.push.finish(job, outcome: .sent, now: 0) }
        return Dictionary(uniqueKeysWithValues: jobs.map { ($0.subscription.identifier, $0) })
    }

    /// A minute from now (Unix milliseconds): past any coalescing delay or first retry.
    static var later: Int { Int(Date().timeIntervalSince1970 * 1_000) + 60_000 }

    static func id(fromLocation location: String?) -> String { String(location?.split(separator: "/").last ?? "") }

    @Test(arguments: ServerSetup.everyStore) func calendarsAdvertisePushAndRegistrationsAreTheirUsers(
        _ setup: ServerSetup
    ) throws {
        let server = try Self.server(setup)
        let anna = server.dav("anna")
        #expect(try anna.mkcalendar("/dav/calendars/anna/home/").status == 201)
        let found = try anna.propfind(
            Self.calendar, props: [DAVName(Self.push, "transports"), DAVName(Self.push, "topic")])
        let key = try #require(try Self.property(found, "vapid-public-key"))
        #expect(key.attributes["type"] == "p256ecdsa")
        #expect(key.text == server.server.pushDispatcher?.keys.vapid.publicKey)
        let topic = try #require(try Self.property(found, "topic")?.text)
        #expect(topic.count == 22 && topic.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let other = try Self.property(
            try anna.propfind("/dav/calendars/anna/home/", props: [DAVName(Self.push, "topic")]), "topic")?.text
        #expect(other != nil && other != topic, "each calendar has its own topic")
        #expect(
            try Self.property(try anna.propfind(Self.calendar, props: [DAVName(Self.push, "topic")]), "topic")?.text
                == topic, "a calendar's topic stays the same")

        let registered = try anna.send(
            "POST", Self.calendar, Self.register("http://127.0.0.1:9/anna-phone"), headers: Self.xml)
        #expect(registered.status == 201, "\(registered.text)")
        let location = try #require(registered.headers["Location"])
        #expect(location.hasPrefix("/dav/push/anna/"))
        let expires = try #require(registered.headers["Expires"].flatMap { CivilDateTime(httpDate: $0) })
        let lifetime = expires.secondsSinceEpoch - Int(Date().timeIntervalSince1970)
        #expect((3 * 86_400 - 60...3 * 86_400).contains(lifetime), "without a requested expiry: three days")
        let again = try anna.send(
            "POST", Self.calendar, Self.register("http://127.0.0.1:9/anna-phone"), headers: Self.xml)
        #expect(again.headers["Location"] == location, "the same push resource is one registration, renewed")

        // Another user can neither register on anna's calendar nor remove her registration.
        let bob = server.dav("bob")
        let refused = try bob.send(
            "POST", Self.calendar, Self.register("http://127.0.0.1:9/bob"), headers: Self.xml)
        #expect(refused.status == 404)
        #expect(try bob.delete(location).status == 404)
        #expect(try bob.delete(location.replacingOccurrences(of: "/anna/", with: "/bob/")).status == 404)
        #expect(try server.backend.push.subscriptions(of: "anna").count == 1)
        #expect(try anna.delete(location).status == 204)
        #expect(try anna.delete(location).status == 404)
        #expect(try server.backend.push.subscriptions(of: "anna").isEmpty)
    }

    @Test func badRegistrationsAreRefusedWithAReason() throws {
        let server = try Self.server(.inProcess)
        let anna = server.dav("anna")
        let resource = "http://127.0.0.1:9/r"
        let cases: [(String, Int, String)] = [
            (Self.register(resource, key: nil, auth: nil), 400, "unencrypted"),
            (Self.register(resource, encoding: "aesgcm"), 400, "the old aesgcm coding"),
            (Self.register(resource, key: String(Self.key.dropLast(4))), 400, "a short key"),
            (Self.register(resource, auth: "AAAA"), 400, "a short auth secret"),
            (Self.register(resource, expires: "Sun, 06 Nov 1994 08:49:37 GMT"), 400, "an expiry in the past"),
            (Self.register(resource, expires: "tomorrow"), 400, "an expiry that is no HTTP date"),
            (Self.register("ftp://push.example/r"), 403, "a push resource that is not http(s)"),
            (Self.register(""), 400, "no push resource"),
            (#"<P:push-register xmlns:P="\#(Self.push)"/>"#, 400, "no subscription"),
        ]
        for (body, status, what) in cases {
            let answer = try anna.send("POST", Self.calendar, body, headers: Self.xml)
            #expect(answer.status == status, "\(what): \(answer.text)")
        }
        #expect(try server.backend.push.subscriptions(of: "anna").isEmpty, "nothing was registered")

        let strict = try Self.server(.inProcess, allowingPrivate: false)
        let loopback = try strict.dav("anna").send(
            "POST", Self.calendar, Self.register("http://127.0.0.1:9/push"), headers: Self.xml)
        #expect(loopback.status == 403 && loopback.text.contains("--allow-private-push"), "\(loopback.text)")

        for n in 0..<PushLimits.perUser {
            try #require(
                try anna.send("POST", Self.calendar, Self.register("\(resource)/\(n)"), headers: Self.xml).status == 201
            )
        }
        let over = try anna.send("POST", Self.calendar, Self.register("\(resource)/over"), headers: Self.xml)
        #expect(over.status == 507, "\(over.text)")
        let renewal = try anna.send("POST", Self.calendar, Self.register("\(resource)/0"), headers: Self.xml)
        #expect(renewal.status == 201, "renewing one held is no new subscription")
    }

    @Test(arguments: ServerSetup.everyStore) func changesFromEverySourceCoalesceIntoOneMessage(_ setup: ServerSetup)
        throws
    {
        let server = try Self.server(setup)
        let anna = server.dav("anna")
        let registered = try anna.send("POST", Self.calendar, Self.register("http://127.0.0.1:9/p"), headers: Self.xml)
        let id = Self.id(fromLocation: registered.headers["Location"])
        #expect(try Self.queued(server).isEmpty, "registering is no change")

        for n in 0..<3 {
            try anna.put(Self.calendar + "e\(n).ics", Event.ics(uid: "e\(n)", start: "20261210T10000\(n)Z"))
        }
        let calendarID = try #require(
            try server.api("anna").get("/api/v1/calendars")["calendars"]?.arrayValue?.first?["id"]?.stringValue)
        let created = try server.api("anna").call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(calendarID)", "title": "API", "start": "2026-12-11T09:00:00Z", "end": "2026-12-11T10:00:00Z"}"#
        )
        #expect(created.status == 201)
        var jobs = try Self.queued(server)
        let token = try #require(
            try DAVElement.parse(try anna.propfind(Self.calendar, props: [.syncToken]).body).descendants.first {
                $0.name == .syncToken
            }?.text)
        #expect(jobs.count == 1, "four writes, one message")
        let job = try #require(jobs[id])
        #expect(job.content && !job.property)
        #expect(SyncToken(calendar: calendarID, sequence: job.sequence).description == token)

        #expect(try anna.proppatch(Self.calendar, set: [(.displayName, "Work, renamed")]).status == 207)
        try anna.delete(Self.calendar + "e0.ics")
        jobs = try Self.queued(server)
        #expect(jobs[id]?.property == true && jobs[id]?.content == true, "a rename and a delete: both kinds")
    }

    @Test func anInvitationDeliveredToAnAttendeeIsPushedToThem() throws {
        let server = try Self.server(.inProcess)
        for user in ["anna", "bob"] { try server.backend.setAddresses(["\(user)@example.com"], forUser: user) }
        let bob = server.dav("bob")
        #expect(try bob.mkcalendar("/dav/calendars/bob/personal/").status == 201)
        let registered = try bob.send(
            "POST", "/dav/calendars/bob/personal/", Self.register("http://127.0.0.1:9/bob"), headers: Self.xml)
        let id = Self.id(fromLocation: registered.headers["Location"])
        let meeting = Event.ics(uid: "meeting", start: "20261210T100000Z").replacingOccurrences(
            of: "SUMMARY:Training\r\n",
            with: "SUMMARY:Planning\r\nORGANIZER:mailto:anna@example.com\r\nATTENDEE:mailto:bob@example.com\r\n")
        #expect(try server.dav("anna").put(Self.calendar + "meeting.ics", meeting).status == 201)
        let jobs = try Self.queued(server)
        #expect(jobs[id]?.content == true, "anna's invitation, put in bob's calendar, is pushed to bob")
    }

    @Test func triggersChooseWhatIsPushed() throws {
        let server = try Self.server(.inProcess)
        let anna = server.dav("anna")
        let propertiesOnly = "<P:property-update><D:depth>0</D:depth></P:property-update>"
        let registered = try anna.send(
            "POST", Self.calendar, Self.register("http://127.0.0.1:9/p", trigger: propertiesOnly), headers: Self.xml)
        let id = Self.id(fromLocation: registered.headers["Location"])
        try anna.put(Self.calendar + "a.ics", Event.ics(uid: "a", start: "20261210T100000Z"))
        #expect(try Self.queued(server).isEmpty, "a content change is not pushed to a property-only subscription")
        #expect(try anna.proppatch(Self.calendar, set: [(.displayName, "Renamed")]).status == 207)
        let jobs = try Self.queued(server)
        #expect(jobs[id]?.property == true && jobs[id]?.content == false)
    }

    @Test func aShareeIsPushedOnlyWhileTheyMayRead() throws {
        let server = try Self.server(.inProcess)
        let calendarID = try #require(
            try server.api("anna").get("/api/v1/calendars")["calendars"]?.arrayValue?.first?["id"]?.stringValue)
        // Registered in the store directly, as if bob once could read it.
        let bobs = try server.backend.push.register(
            PushSubscription(
                pushResource: "http://127.0.0.1:9/bob", publicKey: Self.key, authSecret: Self.auth,
                expires: Int(Date().timeIntervalSince1970) + 3_600), user: "bob", calendar: calendarID)
        try server.dav("anna").put(Self.calendar + "a.ics", Event.ics(uid: "a", start: "20261210T100000Z"))
        #expect(try Self.queued(server)[bobs.identifier] == nil, "not shared: nothing for bob")

        let store = try server.backend.eventStore(for: "anna")
        try store.share(calendar: calendarID, with: "bob", access: .read, invite: true, summary: nil)
        _ = try server.backend.eventStore(for: "bob").answerShare(ofCalendar: calendarID, accept: true)
        try server.dav("anna").put(Self.calendar + "b.ics", Event.ics(uid: "b", start: "20261211T100000Z"))
        #expect(try Self.queued(server)[bobs.identifier] != nil, "shared and accepted: bob is told")

        try store.share(calendar: calendarID, with: "bob", access: nil, invite: false, summary: nil)
        try server.dav("anna").put(Self.calendar + "c.ics", Event.ics(uid: "c", start: "20261212T100000Z"))
        #expect(try Self.queued(server)[bobs.identifier] == nil, "the share withdrawn: nothing for bob")
    }

    @Test func expiredSubscriptionsAreNeitherToldNorKept() throws {
        let server = try Self.server(.inProcess)
        let calendarID = try #require(
            try server.api("anna").get("/api/v1/calendars")["calendars"]?.arrayValue?.first?["id"]?.stringValue)
        let now = Int(Date().timeIntervalSince1970)
        let expired = try server.backend.push.register(
            PushSubscription(
                pushResource: "http://127.0.0.1:9/old", publicKey: Self.key, authSecret: Self.auth,
                expires: now - 1), user: "anna", calendar: calendarID)
        let live = try server.backend.push.register(
            PushSubscription(
                pushResource: "http://127.0.0.1:9/new", publicKey: Self.key, authSecret: Self.auth,
                expires: now + 3_600), user: "anna", calendar: calendarID)
        try server.dav("anna").put(Self.calendar + "a.ics", Event.ics(uid: "a", start: "20261210T100000Z"))
        let jobs = try Self.queued(server)
        #expect(jobs[expired.identifier] == nil && jobs[live.identifier] != nil)
        #expect(try server.backend.push.removeExpired(now: now) == 1)
        #expect(try server.backend.push.subscriptions(of: "anna").map(\.identifier) == [live.identifier])
    }

    @Test func thePushServicesAnswerDecidesTheSubscriptionsFate() throws {
        let server = try Self.server(.loopback)
        let receiver = try WebhookReceiver()
        let anna = server.dav("anna")
        let registered = try anna.send("POST", Self.calendar, Self.register(receiver.url), headers: Self.xml)
        let location = try #require(registered.headers["Location"])
        let dispatcher = try #require(server.server.pushDispatcher)

        // Taken: the message went with the headers RFC 8030 and 8292 ask for.
        receiver.answer { _ in 201 }
        try anna.put(Self.calendar + "a.ics", Event.ics(uid: "a", start: "20261210T100000Z"))
        #expect(try dispatcher.deliverDue(now: Self.later) == [.sent])
        let message = try #require(receiver.received.first)
        #expect(message.headers["TTL"] == "86400" && message.headers["Urgency"] == "normal")
        #expect(message.headers["Content-Encoding"] == "aes128gcm")
        let topic = try #require(
            try Self.property(try anna.propfind(Self.calendar, props: [DAVName(Self.push, "topic")]), "topic")?.text)
        #expect(message.headers["Topic"]?.hasPrefix(topic) == true)
        #expect(message.headers["Authorization"]?.hasPrefix("vapid t=") == true)
        #expect(message.headers["Authorization"]?.hasSuffix(", k=\(dispatcher.keys.vapid.publicKey)") == true)
        // salt, record size, key id length, key; the ciphertext and its tag.
        #expect(message.body.count > 86 + 16 && message.body[20] == 65)

        // Failing: tried again, then dropped with its subscription.
        receiver.answer { _ in 500 }
        try anna.put(Self.calendar + "b.ics", Event.ics(uid: "b", start: "20261211T100000Z"))
        // (A minute on, the retry is due at once: this one call makes both attempts.)
        let outcomes = try dispatcher.deliverDue(now: Self.later)
        guard outcomes.count == 2, case .retry = outcomes[0], case .dropped = outcomes[1] else {
            Issue.record("a 500 is tried again, and after maxAttempts dropped: \(outcomes)")
            return
        }
        #expect(try anna.delete(location).status == 404)

        // Gone (410): removed at once.
        let again = try anna.send("POST", Self.calendar, Self.register(receiver.url), headers: Self.xml)
        receiver.answer { _ in 410 }
        try anna.put(Self.calendar + "c.ics", Event.ics(uid: "c", start: "20261212T100000Z"))
        #expect(try dispatcher.deliverDue(now: Self.later) == [.gone])
        #expect(try anna.delete(try #require(again.headers["Location"])).status == 404)
    }
}

/// A one-event calendar object.
enum Event {
    static func ics(uid: String, start: String) -> String {
        """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Almanac//Push tests//EN\r
        BEGIN:VEVENT\r
        UID:\(uid)\r
        DTSTAMP:20261201T000000Z\r
        DTSTART:\(start)\r
        DURATION:PT1H\r
        SUMMARY:Training\r
        END:VEVENT\r
        END:VCALENDAR\r

        """
    }
}
