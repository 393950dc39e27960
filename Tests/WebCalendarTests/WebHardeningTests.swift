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
