import AlmanacTesting
import CalendarStore
import HTTPTypes
import Testing

/// Sharing through the JSON API: the owner shares at once or invites, the sharee sees
/// the calendar with its access (and is refused what it does not allow), answers an
/// invitation, leaves; the owner removes. Refusals change nothing.
@Suite struct SharingAPITests {
    @Test(arguments: ServerSetup.everyStore) func ownersShareAndShareesSeeWhatTheyMay(_ setup: ServerSetup) throws {
        let server = try TestServer(setup, users: ["anna", "bob", "carol"])
        let anna = server.api("anna")
        let bob = server.api("bob")
        let carol = server.api("carol")
        let created = try anna.call("POST", "/api/v1/calendars", #"{"title": "Trainings"}"#)
        let id = try #require(created["id"]?.stringValue)
        #expect(created["access"]?.stringValue == "owner" && created["owner"]?.stringValue == "anna")

        // Read-only: an invitation (an account cannot push calendars on another); once Bob
        // accepts he sees it with its access, and cannot write to it.
        let share = try anna.call("PUT", "/api/v1/calendars/\(id)/shares/bob", #"{"access": "read"}"#)
        #expect(share.status == 200, "\(share.text)")
        #expect(share["status"]?.stringValue == "invited" && share["access"]?.stringValue == "read")
        #expect(try bob.get("/api/v1/calendars")["calendars"]?.arrayValue?.isEmpty == true)
        #expect(
            try anna.call("PUT", "/api/v1/calendars/\(id)/shares/bob", #"{"access": "read", "invite": false}"#).status
                == 400, "the API cannot skip the sharee's answer")
        #expect(try bob.call("POST", "/api/v1/calendars/\(id)/answer", #"{"accept": true}"#).status == 200)
        let listed = try bob.get("/api/v1/calendars")["calendars"]?.arrayValue ?? []
        #expect(listed.count == 1)
        #expect(listed.first?["access"]?.stringValue == "read" && listed.first?["owner"]?.stringValue == "anna")
        let write = try bob.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(id)", "title": "Mine", "start": "2026-12-01T10:00:00Z", "end": "2026-12-01T11:00:00Z"}"#
        )
        #expect(write.status == 403, "\(write.text)")
        #expect(try bob.get("/api/v1/calendars/\(id)/shares").status == 403, "only the owner sees the shares")
        // Read-write now: Bob writes, Anna sees it.
        #expect(
            try anna.call("PUT", "/api/v1/calendars/\(id)/shares/bob", #"{"access": "read-write"}"#)["access"]?
                .stringValue == "read-write")
        let written = try bob.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(id)", "title": "Spin", "start": "2026-12-01T10:00:00Z", "end": "2026-12-01T11:00:00Z"}"#
        )
        #expect(written.status == 201, "\(written.text)")
        let events = try anna.get("/api/v1/calendars/\(id)/events")["events"]?.arrayValue ?? []
        #expect(events.compactMap { $0["title"]?.stringValue } == ["Spin"])

        // An invitation: Carol sees it in her notifications, not among her calendars, until she accepts.
        let invited = try anna.call(
            "PUT", "/api/v1/calendars/\(id)/shares/carol",
            #"{"access": "read", "invite": true, "summary": "Our schedule"}"#)
        #expect(invited["status"]?.stringValue == "invited")
        #expect(try carol.get("/api/v1/calendars")["calendars"]?.arrayValue?.isEmpty == true)
        let notes = try carol.get("/api/v1/sharing/notifications")["notifications"]?.arrayValue ?? []
        #expect(notes.count == 1)
        #expect(notes.first?["kind"]?.stringValue == "invite" && notes.first?["calendar"]?.stringValue == id)
        #expect(notes.first?["summary"]?.stringValue == "Our schedule" && notes.first?["from"]?.stringValue == "anna")
        let accepted = try carol.call("POST", "/api/v1/calendars/\(id)/answer", #"{"accept": true}"#)
        #expect(accepted.status == 200 && accepted["access"]?.stringValue == "read", "\(accepted.text)")
        #expect(try carol.get("/api/v1/calendars")["calendars"]?.arrayValue?.count == 1)
        let shares = try anna.get("/api/v1/calendars/\(id)/shares")["shares"]?.arrayValue ?? []
        #expect(shares.compactMap { $0["user"]?.stringValue } == ["bob", "carol"])
        #expect(shares.compactMap { $0["status"]?.stringValue } == ["accepted", "accepted"])
        let replies = try anna.get("/api/v1/sharing/notifications")["notifications"]?.arrayValue ?? []
        #expect(replies.compactMap { $0["kind"]?.stringValue } == ["reply", "reply"], "Bob's answer and Carol's")

        // Carol leaves by deleting; Anna removes Bob. Both lose it; Anna keeps her calendar.
        #expect(try carol.call("DELETE", "/api/v1/calendars/\(id)").status == 204)
        #expect(try carol.get("/api/v1/calendars")["calendars"]?.arrayValue?.isEmpty == true)
        #expect(try anna.call("DELETE", "/api/v1/calendars/\(id)/shares/bob").status == 204)
        #expect(try bob.get("/api/v1/calendars")["calendars"]?.arrayValue?.isEmpty == true)
        #expect(try bob.get("/api/v1/calendars/\(id)").status == 404)
        #expect(try anna.get("/api/v1/calendars/\(id)").status == 200)
        let told = try bob.get("/api/v1/sharing/notifications")["notifications"]?.arrayValue ?? []
        #expect(told.last?["kind"]?.stringValue == "removed")
        for note in told {
            let uid = try #require(note["uid"]?.stringValue)
            #expect(try bob.call("DELETE", "/api/v1/sharing/notifications/\(uid)").status == 204)
        }
        #expect(try bob.get("/api/v1/sharing/notifications")["notifications"]?.arrayValue?.isEmpty == true)
    }

    @Test func refusedSharesChangeNothing() throws {
        let server = try TestServer(users: ["anna", "bob"])
        let anna = server.api("anna")
        let bob = server.api("bob")
        let id = try #require(try anna.call("POST", "/api/v1/calendars", #"{"title": "Work"}"#)["id"]?.stringValue)
        let cases: [(String, String, String, Int)] = [
            ("PUT", "/api/v1/calendars/\(id)/shares/bob", #"{"access": "write"}"#, 400),
            ("PUT", "/api/v1/calendars/\(id)/shares/bob", #"{}"#, 400),
            ("PUT", "/api/v1/calendars/\(id)/shares/bob", #"{"access": "read", "invite": "yes"}"#, 400),
            ("PUT", "/api/v1/calendars/\(id)/shares/bob", #"{"access": "read", "colour": "red"}"#, 400),
            (
                "PUT", "/api/v1/calendars/\(id)/shares/bob",
                #"{"access": "read", "summary": "\#(String(repeating: "x", count: 1025))"}"#, 400
            ),
            ("PUT", "/api/v1/calendars/\(id)/shares/nobody", #"{"access": "read"}"#, 404),
            ("PUT", "/api/v1/calendars/\(id)/shares/anna", #"{"access": "read"}"#, 400),
            ("PUT", "/api/v1/calendars/unknown/shares/bob", #"{"access": "read"}"#, 404),
            ("DELETE", "/api/v1/calendars/\(id)/shares/bob", "", 404),
            ("POST", "/api/v1/calendars/\(id)/answer", #"{"accept": true}"#, 404),
        ]
        for (method, path, body, status) in cases {
            let answer = try anna.call(method, path, body.isEmpty ? nil : body)
            #expect(answer.status == status, "\(method) \(path) \(body.prefix(60)): \(answer.text)")
        }
        #expect(try bob.call("POST", "/api/v1/calendars/\(id)/answer", #"{"accept": true}"#).status == 404)
        #expect(try bob.call("PUT", "/api/v1/calendars/\(id)/shares/bob", #"{"access": "read"}"#).status == 404)
        #expect(try anna.get("/api/v1/calendars/\(id)/shares")["shares"]?.arrayValue?.isEmpty == true)
        #expect(try bob.get("/api/v1/sharing/notifications")["notifications"]?.arrayValue?.isEmpty == true)
    }
}
