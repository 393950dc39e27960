import HTTPTypes
import Testing

/// HTTPTypes' route table, which the server, the JSON API and the web pages route by:
/// templates with `{name}`, `{name}.ics` and a mount's `{name...}`; the first fitting
/// template decides, 404, and 405 with the template's methods; HEAD as GET, `*` for every
/// method.
@Suite struct RouteTableTests {
    static let table = RouteTable<String>([
        .init("GET", "/calendars/by-title/{title}", "by title"),
        .init("GET", "/calendars/{id}", "read"),
        .init("PATCH", "/calendars/{id}", "update"),
        .init("GET", "/events/{id}.ics", "ics"),
        .init("GET", "/", "home"),
        .init("POST", "/dav/bookings/{id}/cancel", "booker"),
        .init("*", "/dav/{path...}", "dav"),
        .init("GET", "/static/{file...}", "static"),
    ])

    static func answer(_ method: String, _ path: String) -> String {
        switch table.match(method: method, path: path) {
        case .found(let route, let parameters):
            return route.payload + " " + parameters.values.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }.joined()
        case .methodNotAllowed(let allow): return "405 " + allow.joined(separator: ",")
        case .notFound: return "404"
        }
    }

    @Test(arguments: [
        ("GET", "/calendars/by-title/Gym", "by title title=Gym"),
        ("GET", "/calendars/by-title", "read id=by-title"),
        ("HEAD", "/calendars/abc", "read id=abc"),
        ("PATCH", "/calendars/a%20b", "update id=a b"),
        ("DELETE", "/calendars/abc", "405 GET,PATCH"),
        ("PUT", "/calendars/by-title/Gym", "405 GET"),
        ("GET", "/events/e1.ics", "ics id=e1"),
        ("GET", "/events/.ics", "404"),
        ("GET", "/events/e1", "404"),
        ("GET", "/", "home "),
        ("GET", "/calendars/abc/", "404"),
        ("GET", "/calendars//x", "404"),
        ("GET", "/calendars/%zz", "404"),
        ("GET", "/nothing", "404"),
        // A mount keeps what follows as sent, empty segments and escapes included.
        ("PROPFIND", "/dav", "dav path="),
        ("PROPFIND", "/dav/", "dav path="),
        ("REPORT", "/dav/calendars/anna/team/", "dav path=calendars/anna/team/"),
        ("PUT", "/dav/calendars/anna/a%2Fb.ics", "dav path=calendars/anna/a%2Fb.ics"),
        ("GET", "/davx", "404"),
        ("GET", "/%64av/x", "dav path=x"),
        // The first template decides, though a later mount would take the method.
        ("POST", "/dav/bookings/b1/cancel", "booker id=b1"),
        ("GET", "/dav/bookings/b1/cancel", "405 POST"),
        ("HEAD", "/static/app.css", "static file=app.css"),
        ("POST", "/static/app.css", "405 GET"),
    ])
    func routes(_ method: String, _ path: String, _ expected: String) {
        #expect(Self.answer(method, path) == expected, "\(method) \(path)")
    }
}
