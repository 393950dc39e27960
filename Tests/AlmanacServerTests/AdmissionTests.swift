import AlmanacTestSupport
import AlmanacTesting
import Testing

/// Before a byte of a body is read, the server's route table says who may call the route,
/// and that decides: a request no route takes is answered 404 or 405 unread; a route open
/// to anyone or a booker takes at most 16 KiB, announced; the pages without a session
/// show their sign-in page; CalDAV and the API without credentials answer 401 each in
/// their form. Each request announces a megabyte and sends none of it: only an answer
/// given from the head comes back before the read times out.
@Suite struct AdmissionTests {
    static func head(_ method: String, _ path: String, _ headers: [String]) -> String {
        ([("\(method) \(path) HTTP/1.1"), "Host: 127.0.0.1"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
    }

    static func status(of answer: String) -> String { String(answer.split(separator: " ").dropFirst().first ?? "") }

    @Test func theRoutesAccessDecidesBeforeTheBodyIsRead() throws {
        let server = try TestServer(.loopback, users: ["anna"])
        let megabyte = "Content-Length: 1048576"
        func send(_ method: String, _ path: String, _ headers: [String]) throws -> String {
            try RawHTTP.exchange(port: server.port, Self.head(method, path, headers))
        }
        // No route: 404; a route for other methods: 405 with them.
        #expect(Self.status(of: try send("POST", "/nothing", [megabyte])) == "404")
        let wrongMethod = try send("POST", "/static/app.css", [megabyte])
        #expect(Self.status(of: wrongMethod) == "405" && wrongMethod.contains("Allow: GET, HEAD"), "\(wrongMethod)")
        // Open to anyone or a booker: at most 16 KiB, and announced.
        #expect(Self.status(of: try send("POST", "/login", ["Content-Length: 20000"])) == "413")
        #expect(Self.status(of: try send("POST", "/book/pt", ["Transfer-Encoding: chunked"])) == "411")
        #expect(Self.status(of: try send("POST", "/api/v1/bookings/b1/cancel", [megabyte])) == "413")
        // A booking link's route with credentials is an account's: a bad password is the API's 401.
        let account = try send("POST", "/api/v1/bookings/b1/cancel", [megabyte, "Authorization: Basic YW5uYTp4"])
        #expect(Self.status(of: account) == "401" && account.contains("application/problem+json"), "\(account)")
        // The pages without a session: their sign-in page, not a Basic challenge.
        let page = try send("POST", "/calendar/save", [megabyte])
        #expect(page.contains("text/html") && !page.contains("WWW-Authenticate"), "\(page)")
        // CalDAV and the API without credentials: 401 with the challenge, each in its form.
        let dav = try send("PUT", "/dav/calendars/anna/calendar/a.ics", [megabyte])
        #expect(Self.status(of: dav) == "401" && dav.contains("WWW-Authenticate: Basic"), "\(dav)")
        let api = try send("POST", "/api/v1/calendars", [megabyte])
        #expect(Self.status(of: api) == "401" && api.contains("application/problem+json"), "\(api)")
    }
}
