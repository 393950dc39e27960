import HTTPTypes
import Testing

/// HTTPTypes' route table, which the JSON API and the web pages route by: templates with
/// `{name}` and `{name}.ics`, the first fitting template decides, 404 and 405 with the
/// template's methods, HEAD as GET.
@Suite struct RouteTableTests {
    static let table = RouteTable<String>([
        .init("GET", "/calendars/by-title/{title}", "by title"),
        .init("GET", "/calendars/{id}", "read"),
        .init("PATCH", "/calendars/{id}", "update"),
        .init("GET", "/events/{id}.ics", "ics"),
        .init("GET", "/", "home"),
    ])

    static func answer(_ method: String, _ path: String) -> String {
        guard let segments = RouteTemplate.segments(of: path) else { return "bad path" }
        switch table.match(method: method, segments: segments) {
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
        ("GET", "/calendars/abc/", "bad path"),
        ("GET", "/calendars//x", "bad path"),
        ("GET", "/calendars/%zz", "bad path"),
        ("GET", "/nothing", "404"),
    ])
    func routes(_ method: String, _ path: String, _ expected: String) {
        #expect(Self.answer(method, path) == expected, "\(method) \(path)")
    }
}
