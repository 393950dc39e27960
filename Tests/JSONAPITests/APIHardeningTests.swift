import Accounts
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import ICalendar
import JSONAPI
import Synchronization
import Testing

/// Inputs that once trapped or hung the server, through the API's routes: numbers past
/// every bound are refused, and answers that would be huge are cut and say so.
extension APITests {
    static func object(_ alarmLines: [String], uid: String = "alarm-bomb") -> [UInt8] {
        let lines =
            [
                "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Almanac//Tests//EN", "BEGIN:VEVENT", "UID:\(uid)",
                "DTSTAMP:20261101T000000Z",
                "DTSTART:20261201T090000Z", "DTEND:20261201T100000Z", "SUMMARY:Alarm bomb", "BEGIN:VALARM",
                "ACTION:DISPLAY",
                "DESCRIPTION:Ring", "TRIGGER:PT0S",
            ] + alarmLines + ["END:VALARM", "END:VEVENT", "END:VCALENDAR"]
        return Array((lines.joined(separator: "\r\n") + "\r\n").utf8)
    }

    @Test func aDurationPastTenThousandYearsIsInvalidCalendarData() throws {
        let id = try makeCalendar()
        let store = try backend.eventStore(for: "anna")
        let before = try snapshot()
        #expect(throws: StoreError.self) {
            _ = try store.putResource(
                Self.object(["DURATION:P999999999W", "REPEAT:2147483647"]), name: "bomb.ics", calendar: id,
                ifMatch: nil, ifNoneMatch: true)
        }
        #expect(try snapshot() == before)
    }

    @Test func repeatTimesDurationPastIntIsIndexedWithoutOverflow() throws {
        // 9,999 weeks × 2^31 − 1 repeats is past Int's range: the reach saturates.
        let id = try makeCalendar()
        let store = try backend.eventStore(for: "anna")
        _ = try store.putResource(
            Self.object(["DURATION:P9999W", "REPEAT:2147483647"]), name: "far.ics", calendar: id, ifMatch: nil,
            ifNoneMatch: true)
        let answer = try call("GET", "/api/v1/alarms?from=2026-12-01&to=2026-12-31")
        #expect(answer.status == 200 && answer["alarms"]?.arrayValue?.count == 1 && answer["truncated"] == .bool(false))
    }

    @Test func alarmRepeatsAreComputedAndTheAnswerIsCutVisibly() throws {
        // A repeat every second, 2^31 − 2 times: a month holds 2.6 million firings. The answer
        // lists 10,000 and says where the rest continue.
        let id = try makeCalendar()
        let store = try backend.eventStore(for: "anna")
        _ = try store.putResource(
            Self.object(["DURATION:PT1S", "REPEAT:2147483646"]), name: "forever.ics", calendar: id, ifMatch: nil,
            ifNoneMatch: true)
        let answer = try call("GET", "/api/v1/alarms?from=2026-12-01&to=2026-12-31")
        #expect(
            answer.status == 200 && answer["alarms"]?.arrayValue?.count == 10_000 && answer["truncated"] == .bool(true))
        #expect(answer["continueFrom"]?.stringValue == "2026-12-01T11:46:40Z")  // 09:00:00 + 10,000 s
        // Asking from there goes on with repetition 10,000; a range after the last repeat is empty.
        let next = try call("GET", "/api/v1/alarms?from=2026-12-01T11:46:40Z&to=2026-12-01T11:46:42Z")
        #expect(next["alarms"]?.arrayValue?.compactMap { $0["repetition"] } == [.integer(10_000), .integer(10_001)])
        let afterLast = try call("GET", "/api/v1/alarms?from=2094-12-20&to=2095-01-01")
        #expect(afterLast.status == 200 && afterLast["alarms"]?.arrayValue?.isEmpty == true)
    }

    @Test(arguments: [
        "duration=999999999999999999", "duration=-9223372036854775808", "duration=9223372036854775807", "duration=PT1S",
        "duration=0",
        "duration=60&step=0", "duration=60&step=PT30S", "duration=60&bufferBefore=999999999999999999",
        "duration=60&notice=9223372036854775807",
        "duration=60&bookingWindowDays=2147483648", "duration=60&dailyLimit=-1", "duration=P999999999W",
    ])
    func availabilityNumbersPastTheirBoundsAre400(_ parameters: String) throws {
        _ = try makeCalendar()
        let answer = try call("GET", "/api/v1/availability?from=2026-12-01&to=2026-12-08&" + parameters)
        #expect(answer.status == 400, "\(parameters): \(answer.text)")
    }

    @Test func minuteSlotsForAMonthAreCutVisibly() throws {
        _ = try makeCalendar()
        // 30 days of one-minute slots around the clock: 43,200, more than one answer lists
        // (far enough ahead that no slot is in the past).
        let answer = try call("GET", "/api/v1/availability?from=2099-03-01&to=2099-03-31&duration=1&step=1")
        #expect(
            answer.status == 200 && answer["slots"]?.arrayValue?.count == 10_000 && answer["truncated"] == .bool(true))
        // 10,000 minutes after 2099-03-01T00:00Z
        #expect(answer["continueFrom"]?.stringValue == "2099-03-07T22:40:00Z")
        let small = try call("GET", "/api/v1/availability?from=2099-03-01&to=2099-03-02&duration=60")
        #expect(small["slots"]?.arrayValue?.count == 24 && small["truncated"] == .bool(false))
    }

    @Test func aSecondlySeriesListsBoundedOccurrences() throws {
        let id = try makeCalendar()
        let created = try call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(id)", "title": "Tick", "start": "2026-12-01T00:00:00Z", "duration": "PT1S", "rrule": "FREQ=SECONDLY"}"#
        )
        try #require(created.status == 201, "\(created.text)")
        let answer = try call("GET", "/api/v1/calendars/\(id)/occurrences?from=2026-12-01&to=2026-12-02")
        #expect(
            answer.status == 200 && answer["occurrences"]?.arrayValue?.count == 10_000
                && answer["truncated"] == .bool(true))
        #expect(answer["continueFrom"]?.stringValue == "2026-12-01T02:46:40Z")
    }
}

extension APITests {
    @Test func wrongTokensAreThrottledButNeverLockOutAValidOne() throws {
        // Six wrong tokens from one address once gave every client behind it 429 for minutes.
        func send(_ authorization: String) -> Int {
            server.server.respond(
                to: HTTPRequest(
                    method: "GET", path: "/api/v1/calendars", headers: ["Authorization": authorization],
                    remoteAddress: "192.0.2.7")
            ).status
        }
        let wrong = (0..<8).map { _ in send("Bearer alm_0000000000000000_wrongwrongwrongwrongwrongwrong") }
        #expect(wrong.prefix(5).allSatisfy { $0 == 401 } && wrong.suffix(3).allSatisfy { $0 == 429 })
        #expect(send("Bearer " + tokens[.read]!) == 200)
        // The success cleared the address's record: the next wrong token is a plain 401 again.
        #expect(send("Bearer alm_0000000000000000_wrongwrongwrongwrongwrongwrong") == 401)
    }
}

extension APITests {
    @Test func valuesCannotCarryALineOfTheirOwnIntoStoredICalendar() throws {
        let id = try makeCalendar()
        let before = try snapshot()
        // A URL, a UID, an RRULE or a category with a line break is refused, naming the member.
        for (field, value) in [
            ("url", #""https://x\r\nRRULE:FREQ=DAILY""#), ("uid", #""a\r\nRRULE:FREQ=DAILY""#),
            ("categories", #"["a\nb"]"#),
            ("rrule", #""FREQ=DAILY\r\nEXDATE:20261201""#), ("title", #""nul \u0000 here""#),
            ("notes", #""bell \u0007""#),
        ] {
            let answer = try call(
                "POST", "/api/v1/events",
                #"{"calendarId": "\#(id)", "start": "2026-12-01T09:00:00Z", "\#(field)": \#(value)}"#)
            #expect(
                answer.status == 400 && answer.text.contains(field) && answer.text.contains("control character"),
                "\(field): \(answer.text)")
        }
        // jCal values are checked as they are read.
        let jcal =
            #"["vevent", [["uid", {}, "text", "j@x"], ["dtstart", {}, "date-time", "2026-12-01T09:00:00Z"], ["url", {}, "uri", "https://x\r\nRRULE:FREQ=DAILY"]], []]"#
        #expect(try call("POST", "/api/v1/events", #"{"calendarId": "\#(id)", "jcal": \#(jcal)}"#).status == 400)
        #expect(try snapshot() == before)
        // TEXT members keep their line breaks, escaped: the notes come back as sent.
        let created = try call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(id)", "title": "Two\r\nlines", "notes": "a\nRRULE:FREQ=DAILY", "start": "2026-12-01T09:00:00Z", "duration": "PT1H"}"#
        )
        #expect(
            created.status == 201 && created["notes"]?.stringValue == "a\nRRULE:FREQ=DAILY" && created["rrule"] == .null
        )
    }
}

extension APITests {
    /// Twenty writers with one ETag at once, in process and through the real transport's
    /// worker threads: one wins, the others get 412.
    @Test(arguments: ServerSetup.all) func ofTwentyRacingPatchesWithOneETagExactlyOneWins(_ setup: ServerSetup)
        throws
    {
        let api = try APITests(setup)
        let id = try api.makeCalendar()
        let created = try api.call(
            "POST", "/api/v1/events",
            #"{"calendarId": "\#(id)", "title": "Start", "start": "2026-12-01T09:00:00Z", "duration": "PT1H"}"#)
        let event = try #require(created["id"]?.stringValue)
        let etag = try #require(created.headers["ETag"])
        let client = api.server.api(bearer: try #require(api.tokens[.readWrite]))
        let statuses = Mutex<[Int]>([])
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for writer in 0..<20 {
            done.enter()
            Thread {
                gate.wait()
                // A request that could not be made counts as status 0, which fails the check below.
                let status =
                    (try? client.call(
                        "PATCH", "/api/v1/events/" + event, #"{"title": "Writer \#(writer)"}"#,
                        headers: ["If-Match": etag]))?.status ?? 0
                statuses.withLock { $0.append(status) }
                done.leave()
            }.start()
        }
        for _ in 0..<20 { gate.signal() }
        done.wait()
        let all = statuses.withLock { $0 }.sorted()
        #expect(all == [200] + Array(repeating: 412, count: 19))
    }
}

extension APITests {
    @Test(arguments: [nil, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
    func aJSONBodyWithoutItsContentTypeIs415(_ type: String?) throws {
        let id = try makeCalendar()
        var headers: HTTPHeaders = ["Authorization": "Bearer " + tokens[.readWrite]!]
        if let type { headers.set("Content-Type", type) }
        let body = #"{"calendarId": "\#(id)", "title": "x", "start": "2026-12-01T09:00:00Z"}"#
        let response = server.server.respond(
            to: HTTPRequest(method: "POST", path: "/api/v1/events", headers: headers, body: Array(body.utf8)))
        #expect(response.status == 415)
        #expect(try snapshot().count == 1)  // the calendar alone
    }
}

extension APITests {
    @Test func aWritePastTheQuotaIs507AndChangesNothing() throws {
        let id = try makeCalendar()
        backend.quota = StoreQuota(maxObjects: 1)
        let body = #"{"calendarId": "\#(id)", "title": "x", "start": "2026-12-01T09:00:00Z"}"#
        #expect(try call("POST", "/api/v1/events", body).status == 201)
        let before = try snapshot()
        let refused = try call("POST", "/api/v1/events", body)
        #expect(refused.status == 507 && refused["type"]?.stringValue == "urn:almanac:problem:insufficient-storage")
        #expect(try snapshot() == before)
    }
}

extension APITests {
    @Test func parallelRequestsWithTheRightPasswordAreNeverThrottledButALockoutHoldsForIt() throws {
        try server.createUser("carol", password: "right one")
        @Sendable func send(_ password: String, from address: String = "192.0.2.9") -> Int {
            let headers: HTTPHeaders = [
                "Authorization": BasicCredentials(user: "carol", password: password).authorization
            ]
            return server.server.respond(
                to: HTTPRequest(method: "GET", path: "/api/v1/calendars", headers: headers, remoteAddress: address)
            ).status
        }
        #expect(send("right one") == 200)
        // Twenty at once (a syncing client's burst): a verified password counts no attempt.
        let statuses = Mutex<[Int]>([])
        let done = DispatchGroup()
        for _ in 0..<20 {
            done.enter()
            Thread {
                let status = send("right one")
                statuses.withLock { $0.append(status) }
                done.leave()
            }.start()
        }
        done.wait()
        #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 20))
        // A good sign-in that skips the hash still forgets earlier mistypes: four, a right one
        // (from the recently verified cache), four more, and carol still signs in.
        #expect((0..<4).map { _ in send("mistyped") } == Array(repeating: 401, count: 4))
        #expect(send("right one") == 200)
        #expect((0..<4).map { _ in send("mistyped") } == Array(repeating: 401, count: 4))
        #expect(send("right one") == 200)
        // Five wrong guesses lock carol out from this address: then even the right password
        // is not checked there (429), while another address still signs in.
        #expect((0..<5).map { _ in send("wrong") } == Array(repeating: 401, count: 5))
        #expect(send("right one") == 429)
        #expect(send("right one", from: "198.51.100.4") == 200)
    }
}
