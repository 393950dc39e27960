import CalendarStore
import HTTPTypes

/// Subscription feeds: each calendar's read-only iCalendar file at a secret URL
/// (webcal), with its VTIMEZONEs and floating times anchored in the calendar's zone,
/// for apps that subscribe rather than sync. The secret is the only credential.
public enum FeedHandler {
    /// Where feeds are served: `/feeds/<token>.ics`.
    public static let prefix = "/feeds/"

    /// `GET /feeds/<token>.ics`: a calendar's read-only subscription, no sign-in, and
    /// `GET /feeds/<token>-busy.ics`: its free-busy feed, with a token of its own. A wrong
    /// or revoked token is a plain 404 that says nothing about what exists.
    public static func respond(to request: HTTPRequest, backend: any StoreBackend, now: () -> Int) -> HTTPResponse {
        let notFound = HTTPResponse.text(404, "404 Not Found\n")
        guard request.path.hasPrefix(prefix) else { return notFound }
        let file = request.path.dropFirst(prefix.count)
        guard file.hasSuffix(".ics"), let name = PercentEncoding.decode(file.dropLast(4)), !name.contains("/") else {
            return notFound
        }
        // `<token>-busy.ics` is a free-busy feed, with a token of its own.
        let busy = FeedKind.freeBusy.fileSuffix
        let (token, kind) =
            name.hasSuffix(busy) ? (String(name.dropLast(busy.count)), FeedKind.freeBusy) : (name, .events)
        guard let published = try? backend.feed(token: token, kind: kind),
            let store = try? backend.eventStore(for: published.owner),
            let calendar = try? store.calendar(withIdentifier: published.calendar)
        else { return notFound }
        // A busy feed changes with the calendar and as its window moves on (by the day).
        let day = now() / 86_400
        let tag = calendar.ctag.filter { $0 != "\"" }
        let etag = kind == .events ? "\"feed-\(tag)\"" : "\"busy-\(tag)-\(day)\""
        var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "private, max-age=300"]
        if request.matchesETag(etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        let body: [UInt8]
        do {
            switch kind {
            case .events: body = try CalendarExport.icalendar(of: calendar, in: store, anchorFloatingTimes: true).bytes
            // The window starts at the day's beginning, so one day's answers are the same bytes.
            case .freeBusy: body = try CalendarExport.busyICalendar(of: calendar, in: store, now: day * 86_400)
            }
        } catch {
            return .text(503, "503 Service Unavailable\n")
        }
        headers.set("Content-Type", "text/calendar; charset=utf-8")
        headers.set("Content-Disposition", "inline; filename=\"\(kind == .events ? "calendar" : "busy").ics\"")
        return HTTPResponse(status: 200, headers: headers, body: body)
    }
}
