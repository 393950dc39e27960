import AlmanacCLI
import CalDAV
import CalendarStore
import Foundation
import HTTPTypes
import JSONAPI

/// The byte parsers of the server's outer layers, one fuzz target each (chosen with
/// `ALMANAC_FUZZ_TARGET`, as FuzzTesting/run-fuzzer does):
/// - `xml`: WebDAV and CalDAV request bodies (XMLBody, on libxml2);
/// - `path`: DAV request paths and hrefs;
/// - `form`: percent-encoding and form/query decoding;
/// - `api`: the JSON API's reading of bodies and query strings, through the real handler
///   over a temporary SQLite store;
/// - `time`: the command line's times, durations, months and weeks, through real commands;
/// - `dav`: CalDAV requests through the real handler over a temporary SQLite store, the
///   input as REPORT, PROPPATCH and MKCALENDAR bodies (calendar-data selections,
///   expand-property, filters, dead properties) and its first line as an `If` header.
/// A trap or an answer outside what the interface promises (a 5xx from the API, an exit
/// status other than 0, 1 or 2) is reported like a crash.
enum FuzzTarget: String, CaseIterable {
    case xml, path, form, api, time, dav

    static let selected: [FuzzTarget] = {
        guard let name = ProcessInfo.processInfo.environment["ALMANAC_FUZZ_TARGET"] else { return allCases }
        guard let target = FuzzTarget(rawValue: name) else {
            preconditionFailure("ALMANAC_FUZZ_TARGET is one of \(allCases.map(\.rawValue))")
        }
        return [target]
    }()
}

func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    for target in FuzzTarget.selected {
        switch target {
        case .xml: fuzzXML(Array(bytes))
        case .path: fuzzPath(String(decoding: bytes, as: UTF8.self))
        case .form: fuzzForm(String(decoding: bytes, as: UTF8.self))
        case .api: APIFuzzing.shared.run(Array(bytes))
        case .time: TimeFuzzing.shared.run(String(decoding: bytes, as: UTF8.self))
        case .dav: DAVFuzzing.shared.run(Array(bytes))
        }
    }
}

func fuzzXML(_ bytes: [UInt8]) {
    guard let root = try? XMLBody.parse(bytes) else { return }
    // What parses can be walked and escaped back without trapping.
    func walk(_ element: XMLElement, depth: Int) {
        precondition(depth <= 64, "an XML body deeper than the limit parsed")
        _ = XMLText.escape(element.text)
        for child in element.children { walk(child, depth: depth + 1) }
    }
    walk(root, depth: 1)
}

func fuzzPath(_ text: String) {
    for candidate in [text, "/dav/" + text, "/dav/calendars/anna/" + text, "/dav/calendars/anna/work/" + text] {
        guard let path = DAVPath(requestPath: candidate) else { continue }
        // A path that reads must name the same resource from its own href, which is its
        // one spelling: reading the href back and writing it again changes nothing.
        let href = path.href
        precondition(DAVPath(requestPath: href) == path, "\(candidate) → \(href) does not read back")
        precondition(
            DAVPath(requestPath: "http://host" + href) == path, "\(href) as an absolute URL names another resource")
    }
}

func fuzzForm(_ text: String) {
    if let decoded = PercentEncoding.decode(text) {
        precondition(
            PercentEncoding.decode(PercentEncoding.encode(decoded)) == decoded, "encode → decode changed \(decoded)")
    }
    let request = HTTPRequest(method: "POST", path: "/", query: text, body: Array(text.utf8))
    _ = request.queryItems
    _ = request.formItems
}

/// The JSON API over a store of its own; inputs are bodies and query strings.
final class APIFuzzing: @unchecked Sendable {
    static let shared = APIFuzzing()
    let handler: JSONAPIHandler
    let calendar: String
    var count = 0

    init() {
        let directory = NSTemporaryDirectory() + "almanac-fuzz-api-\(getpid())"
        do {
            let backend = try DatabaseBackend(directory: directory)
            try backend.createUser(named: "fuzz")
            calendar = try backend.eventStore(for: "fuzz").createCalendar(
                EventCalendar(title: "Fuzz", timeZone: "Europe/Berlin")
            ).id
            handler = JSONAPIHandler(backend: backend, configuration: APIConfiguration(now: { 1_796_000_000 }))
        } catch {
            preconditionFailure("cannot set up the API fuzzer's store: \(error)")
        }
    }

    func answer(_ method: String, _ path: String, query: String? = nil, body: [UInt8] = []) -> HTTPResponse {
        let request = HTTPRequest(
            method: method, path: path, query: query, headers: ["Content-Type": "application/json"], body: body)
        let response = handler.respond(to: request, as: APIPrincipal(user: "fuzz"))
        precondition(
            response.status < 500,
            "\(method) \(path) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        return response
    }

    func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = answer("POST", "/api/v1/conflicts", body: bytes)
        _ = answer("GET", "/api/v1/availability", query: text)
        _ = answer("GET", "/api/v1/calendars/\(calendar)/occurrences", query: text)
        _ = answer("GET", "/api/v1/summary", query: text)
        // Now and then a real write, removed again, so the store stays small.
        count += 1
        guard count % 16 == 0 else { return }
        var body = bytes
        if let brace = body.firstIndex(of: UInt8(ascii: "{")) {
            body.insert(contentsOf: Array("\"calendarId\":\"\(calendar)\",".utf8), at: brace + 1)
        }
        let created = answer("POST", "/api/v1/events", body: body)
        if created.status == 201, let location = created.headers["Location"] { _ = answer("DELETE", location) }
    }
}

/// CalDAV over a store of its own, with one calendar holding a recurring event with an
/// override; inputs are request bodies and an `If` header. An answer of 500 or more,
/// other than the store's 503 and 507, is reported like a crash.
final class DAVFuzzing: @unchecked Sendable {
    static let shared = DAVFuzzing()
    let handler: CalDAVHandler
    let calendar = "/dav/calendars/fuzz/work/"

    init() {
        let directory = NSTemporaryDirectory() + "almanac-fuzz-dav-\(getpid())"
        do {
            let backend = try DatabaseBackend(directory: directory)
            try backend.createUser(named: "fuzz")
            handler = CalDAVHandler(backend: backend, now: { 1_796_000_000 })
        } catch {
            preconditionFailure("cannot set up the CalDAV fuzzer's store: \(error)")
        }
        _ = answer("MKCALENDAR", calendar)
        let event = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Fuzz//EN", "BEGIN:VEVENT", "UID:yoga@fuzz",
            "DTSTAMP:20261101T000000Z", "DTSTART;TZID=Europe/Berlin:20261130T180000", "DURATION:PT1H",
            "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Yoga", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Yoga",
            "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT", "BEGIN:VEVENT", "UID:yoga@fuzz", "DTSTAMP:20261101T000000Z",
            "RECURRENCE-ID;TZID=Europe/Berlin:20261214T180000", "DTSTART;TZID=Europe/Berlin:20261214T190000",
            "DURATION:PT1H", "SUMMARY:Yoga moved", "END:VEVENT", "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        _ = answer("PUT", calendar + "yoga.ics", body: Array(event.utf8), headers: ["Content-Type": "text/calendar"])
    }

    @discardableResult
    func answer(_ method: String, _ path: String, body: [UInt8] = [], headers: HTTPHeaders = [:]) -> HTTPResponse {
        let request = HTTPRequest(method: method, path: path, headers: headers, body: body)
        let response = handler.respond(to: request, user: "fuzz")
        precondition(
            response.status < 500 || response.status == 503 || response.status == 507,
            "\(method) \(path) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        return response
    }

    func run(_ bytes: [UInt8]) {
        answer("REPORT", calendar, body: bytes, headers: ["Depth": "1"])
        answer("REPORT", calendar + "yoga.ics", body: bytes)
        answer("REPORT", "/dav/principals/fuzz/", body: bytes)
        answer("PROPFIND", calendar, body: bytes, headers: ["Depth": "1"])
        // A refused PROPPATCH or MKCALENDAR changes nothing; a taken one is undone.
        if answer("PROPPATCH", calendar, body: bytes).status == 207 {
            answer("PROPFIND", calendar, headers: ["Depth": "0"])
        }
        if answer("MKCALENDAR", "/dav/calendars/fuzz/made/", body: bytes).status == 201 {
            answer("DELETE", "/dav/calendars/fuzz/made/")
        }
        // The first line as an If header on a read and on a write that changes nothing.
        let line = String(decoding: bytes.prefix { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
        answer("GET", calendar + "yoga.ics", headers: ["If": line])
        answer("DELETE", calendar + "absent.ics", headers: ["If": line])
    }
}

/// Real commands on a store of their own, fed the input's lines as their times.
final class TimeFuzzing: CommandIO, @unchecked Sendable {
    static let shared = TimeFuzzing()
    let environment: [String: String]
    let now = 1_796_000_000
    let isTerminal = false
    let isInputTerminal = false

    init() {
        environment = [
            "ALMANAC_DATA": NSTemporaryDirectory() + "almanac-fuzz-cli-\(getpid())", "USER": "fuzz",
            "TZ": "Europe/Berlin",
        ]
    }

    func run(_ text: String) {
        let parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        func part(_ index: Int) -> String { index < parts.count ? parts[index] : "" }
        for arguments in [
            ["list", "--from", part(0), "--to", part(1)],
            ["free", "--from", part(0), "--to", part(1), "--duration", part(2), "--step", part(3)],
            ["cal", "--month", part(0)], ["cal", "--week", part(1)],
            ["alarms", "--from", part(0), "--to", part(1), "--tz", part(2)],
        ] {
            let status = Almanac.run(arguments, io: self)
            precondition([0, 1, 2].contains(status), "\(arguments) exited \(status)")
        }
    }

    func read(path: String) throws(CommandFailure) -> [UInt8] { throw CommandFailure(status: 1, "no files here") }
    func write(_ bytes: [UInt8]) {}
    func writeError(_ line: String) {}
    func writeFile(_ path: String, _ bytes: [UInt8]) throws(CommandFailure) {
        throw CommandFailure(status: 1, "no files here")
    }
    func writeProgress(_ text: String) {}
    func readSecret(prompt: String) -> String? { nil }
}

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        fuzzOne(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// SwiftPM links an executable target's entry point under this name; it hands
    /// control to libFuzzer's driver.
    @_cdecl("FuzzServer_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { data, size in fuzzerTestOneInput(data, size) }
    }
#else
    /// Without the fuzzer: replays the files named on the command line through the
    /// selected targets (all of them unless ALMANAC_FUZZ_TARGET says which).
    @main
    struct Replay {
        static func main() {
            for path in CommandLine.arguments.dropFirst() {
                guard let data = FileManager.default.contents(atPath: path) else {
                    print("cannot open \(path)")
                    exit(1)
                }
                Array(data).withUnsafeBufferPointer(fuzzOne)
                print("\(path): ok")
            }
        }
    }
#endif
