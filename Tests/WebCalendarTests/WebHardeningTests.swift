import Accounts
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import ICalendar
import JSONAPI
import Synchronization
import Testing

extension WebTests {
    @Test func signingInFromAnotherSitesPageIsRefused() throws {
        let form = [("user", "anna"), ("password", "correct horse")]
        let foreign = try send(
            "POST", "/login", form: form, headers: ["Origin": "https://evil.example", "Host": "calendar.example"])
        #expect(foreign.status == 403 && foreign.headers["Set-Cookie"] == nil)
        let own = try send(
            "POST", "/login", form: form, headers: ["Origin": "http://calendar.example", "Host": "calendar.example"])
        #expect(own.status == 303)
        let page = try send("GET", "/")
        #expect(
            page.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true
                && page.headers["X-Frame-Options"] == "DENY")
    }
}

extension WebTests {
    /// The pages route by one table: a path the pages have, asked with a method they do not
    /// take, is 405 with the methods it takes (RFC 9110 §15.5.6); an unknown path is 404.
    @Test(
        arguments: [
            ("GET", "/login", 405, "POST"), ("POST", "/calendar/event", 405, "GET"), ("PUT", "/calendar", 405, "GET"),
            ("DELETE", "/book/some-type", 405, "GET, POST"), ("GET", "/calendar/nothing", 404, nil),
            ("HEAD", "/calendar/event", 401, nil),
        ] as [(String, String, Int, String?)])
    func methodsAPageDoesNotTakeAre405(_ method: String, _ path: String, _ status: Int, _ allow: String?) throws {
        let (cookie, _) = try signIn()
        let page = try send(method, path, cookie: method == "HEAD" ? nil : cookie)
        #expect(page.status == status, "\(method) \(path): \(page.status)")
        #expect(page.headers["Allow"] == allow, "\(method) \(path)")
    }
}
