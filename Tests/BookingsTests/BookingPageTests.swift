import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// The public booking pages without a browser: what they refuse (a form without its
/// token or from another site, a flood from one address, unknown pages and links,
/// other methods) and that what a stranger types comes back escaped. The browser
/// walk-through is Tests/Browser/booking_page_browser.py.
@Suite struct BookingPageTests {
    let test: BookingTests

    init(_ setup: ServerSetup = .inProcess) throws {
        test = try BookingTests(setup)
        _ = try test.studio()
    }

    /// The pages of a test whose studio is set up already.
    init(test: BookingTests) { self.test = test }

    func page(
        _ method: String, _ target: String, form: String? = nil, cookie: String? = nil, address: String = "198.51.100.7"
    )
        throws -> TestResponse
    {
        var headers: HTTPHeaders = ["Host": "studio.example"]
        if form != nil { headers.set("Content-Type", "application/x-www-form-urlencoded") }
        if let cookie { headers.set("Cookie", "almanac_book=" + cookie) }
        let parts = target.split(separator: "?", maxSplits: 1).map(String.init)
        let request = HTTPRequest(
            method: method, path: parts[0], query: parts.count > 1 ? parts[1] : nil, headers: headers,
            body: Array((form ?? "").utf8), remoteAddress: address)
        let response = test.server.server.respond(to: request)
        return TestResponse(status: response.status, headers: response.headers, body: response.body)
    }

    /// The form's token from the page's cookie and hidden field.
    func formToken(_ response: TestResponse) throws -> String {
        let cookie = try #require(response.headers.values("Set-Cookie").first { $0.hasPrefix("almanac_book=") })
        let value = String(cookie.dropFirst("almanac_book=".count).prefix { $0 != ";" })
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        #expect(response.text.contains("name=\"csrf\" value=\"\(value)\""))
        return value
    }

    @Test func aBookerBooksThroughTheFormAndForgedFormsBookNothing() throws {
        let slots = try page("GET", "/book/personal?tz=Europe/Berlin&day=2026-11-23")
        #expect(slots.status == 200)
        #expect(slots.text.contains("Monday, 23 November 2026"))
        #expect(
            slots.text.contains(">09:00</a>") && slots.text.contains(">11:00</a>") && !slots.text.contains(">10:00</a>")
        )
        let form = try page("GET", "/book/personal/slot?start=2026-11-23T08:00:00Z&duration=60&tz=Europe/Berlin")
        #expect(form.status == 200, "\(form.text)")
        let token = try formToken(form)
        let fields =
            "start=2026-11-23T08%3A00%3A00Z&duration=60&tz=Europe%2FBerlin&name=%3Cb%3ELena%3C%2Fb%3E&email=lena%40example.com"
        // Without the token, with another, from another site: refused, nothing booked.
        #expect(try page("POST", "/book/personal", form: fields).status == 403)
        #expect(try page("POST", "/book/personal", form: fields + "&csrf=" + token).status == 403)
        #expect(try page("POST", "/book/personal", form: fields + "&csrf=wrong", cookie: token).status == 403)
        #expect(
            try test.slots(test.api.get("/api/v1/booking-types")["bookingTypes"]?[0]?["id"]?.stringValue ?? "").count
                == 2)
        let booked = try page("POST", "/book/personal", form: fields + "&csrf=" + token, cookie: token)
        #expect(booked.status == 200 && booked.text.contains("You are booked"), "\(booked.text)")
        #expect(booked.text.contains("&lt;b&gt;Lena&lt;/b&gt;") && !booked.text.contains("<b>Lena"))
        #expect(booked.text.contains("Monday, 23 November 2026, 09:00–10:00 (Europe/Berlin)"))
        // The bridge payload's notes link back to this site.
        #expect(booked.text.contains("http://studio.example/book/manage/bkc_"))
        // The same form again: already booked, no second booking; another booker: taken.
        #expect(
            try page("POST", "/book/personal", form: fields + "&csrf=" + token, cookie: token).text.contains(
                "already booked"))
        let other = fields.replacingOccurrences(of: "lena%40", with: "max%40")
        let taken = try page("POST", "/book/personal", form: other + "&csrf=" + token, cookie: token)
        #expect(taken.status == 409 && taken.text.contains("just taken"), "\(taken.text)")
        // A bad e-mail comes back to the form with what was typed.
        let bad = try page(
            "POST", "/book/personal",
            form: fields.replacingOccurrences(of: "08%3A00", with: "10%3A00").replacingOccurrences(
                of: "lena%40example.com", with: "nope")
                + "&csrf=" + token, cookie: token)
        #expect(bad.status == 400 && bad.text.contains("e-mail") && bad.text.contains("value=\"nope\""), "\(bad.text)")
    }

    /// A booker in New York keeps her zone and both of her links: the manage page (found
    /// by its token alone) shows the booking in the zone she booked in, moving it there
    /// keeps the zone, both links and the .ics; cancelling asks first, and a cancelled
    /// booking offers no links to change it.
    @Test func aBookersZoneAndLinksOutliveARescheduleAndACancelAsksFirst() throws {
        let form = try page("GET", "/book/personal/slot?start=2026-11-23T08:00:00Z&duration=60&tz=America/New_York")
        let token = try formToken(form)
        let fields =
            "start=2026-11-23T08%3A00%3A00Z&duration=60&tz=America%2FNew_York&name=Lena&email=lena%40example.com&csrf="
            + token
        let booked = try page("POST", "/book/personal", form: fields, cookie: token)
        // 08:00Z is 03:00 in New York (UTC-5 in November).
        #expect(booked.text.contains("Monday, 23 November 2026, 03:00–04:00 (America/New_York)"), "\(booked.text)")
        let manageToken = try #require(
            booked.text.firstRange(of: "/book/manage/bkc_").map {
                "bkc_" + booked.text[$0.upperBound...].prefix { $0.isHexDigit }
            })
        let manage = try page("GET", "/book/manage/\(manageToken)")
        #expect(manage.text.contains("03:00–04:00 (America/New_York)"), "the manage link alone knows her zone")
        for link in ["/book/manage/\(manageToken)/cancel", "/book/manage/\(manageToken)/reschedule", ".ics"] {
            #expect(manage.text.contains(link), "\(link)")
        }
        #expect(try page("GET", "/book/manage/\(manageToken)/reschedule").text.contains("(America/New_York)"))
        // Moved to 10:00Z (05:00 in New York) through the manage link.
        let moved = try page(
            "POST", "/book/manage/\(manageToken)/reschedule",
            form: "start=2026-11-23T10%3A00%3A00Z&duration=60&csrf=" + token, cookie: token)
        #expect(moved.status == 200 && moved.text.contains("Your booking moved"), "\(moved.text)")
        #expect(moved.text.contains("05:00–06:00 (America/New_York)"), "\(moved.text)")
        for link in ["/book/manage/\(manageToken)/cancel", "/book/manage/\(manageToken)/reschedule", ".ics"] {
            #expect(moved.text.contains(link), "after moving: \(link)")
        }
        // Cancelling asks first; then nothing offers to change it.
        let confirm = try page("GET", "/book/manage/\(manageToken)/cancel")
        #expect(
            confirm.text.contains("<h1>Cancel this booking?</h1>") && confirm.text.contains("class=\"cancel-form\""))
        #expect(try page("GET", "/book/manage/\(manageToken)").text.contains("Keep these links"))
        let cancelled = try page("POST", "/book/manage/\(manageToken)", form: "csrf=" + token, cookie: token)
        #expect(cancelled.status == 303)
        let after = try page("GET", "/book/manage/\(manageToken)")
        #expect(after.text.contains("<h1 role=\"status\">Cancelled</h1>") && !after.text.contains("Keep these links"))
        #expect(!after.text.contains("/reschedule"), "\(after.text)")
    }

    @Test func unknownPagesLinksAndMethodsAreRefused() throws {
        #expect(try page("GET", "/book/nobody").status == 404)
        #expect(try page("GET", "/book/manage").status == 404)
        #expect(try page("GET", "/book/manage/bkc_00000000000000000000000000000000").status == 404)
        #expect(try page("GET", "/book/reschedule/bkc_00000000000000000000000000000000").status == 404)
        #expect(try page("GET", "/book/manage/bkc_00000000000000000000000000000000.ics").status == 404)
        #expect(try page("PUT", "/book/personal").status == 405)
        #expect(try page("GET", "/book/personal?tz=Mars/Olympus").status == 400)
        #expect(try page("GET", "/book/personal?month=99999-01").status == 400)
        #expect(try page("GET", "/book/personal?duration=45").status == 400)
        #expect(try page("GET", "/book/personal?duration=9223372036854775807").status == 400)
        #expect(
            try page("GET", "/book/personal/slot?start=2026-11-23T08:00:00Z&duration=9223372036854775807").status
                == 400)
        #expect(try page("GET", "/book/personal/slot?start=9999-12-31T23:00:00Z&duration=60").status == 409)
        #expect(try page("GET", "/book/personal/slot?start=2026-11-23T09:00:00Z&duration=60").status == 409)
        #expect(try page("GET", "/book/personal/slot?start=garbage").status == 400)
    }

    @Test func oneAddressIsLimited() throws {
        var statuses: [Int] = []
        for _ in 0..<12 {
            statuses.append(try page("POST", "/book/personal", form: "x=1", address: "203.0.113.9").status)
        }
        #expect(
            statuses.prefix(10).allSatisfy { $0 == 403 } && statuses.suffix(2).allSatisfy { $0 == 429 }, "\(statuses)")
        let limited = try page("POST", "/book/personal", form: "x=1", address: "203.0.113.9")
        #expect(limited.headers["Retry-After"] != nil)
        // Another address is not affected.
        #expect(try page("POST", "/book/personal", form: "x=1", address: "203.0.113.10").status == 403)
    }
}
