import CalendarStore
import HTTPTypes

/// Subscription feeds: each calendar's read-only iCalendar file at a secret URL
/// (webcal), with its VTIMEZONEs and floating times anchored in the calendar's zone,
/// for apps that subscribe rather than sync. The secret is the only credential.
public enum FeedHandler {
    /// Where feeds are served: `/feeds/<token>.ics`.
    public static let prefix = "/feeds/"

    /// `GET /feeds/<token>.ics`: a calendar's read-only subscription, no sign-in. A wrong
    /// or revoked token is a plain 404 that says nothing about what exists.
    public static func respond(to request: HTTPRequest, backend: any StoreBackend) -> HTTPResponse {
        let notFound = HTTPResponse.text(404, "404 Not Found\n")
        guard request.path.hasPrefix(prefix) else { return notFound }
        let file = request.path.dropFirst(prefix.count)
        guard file.hasSuffix(".ics"), let token = PercentEncoding.decode(file.dropLast(4)), !token.contains("/"),
            let published = try? backend.feed(token: token), let store = try? backend.eventStore(for: published.owner),
            let calendar = try? store.calendar(withIdentifier: published.calendar)
        else { return notFound }
        let etag = "\"feed-" + calendar.ctag.filter { $0 != "\"" } + "\""
        var headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "private, max-age=300"]
        if request.matchesETag(etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        guard let export = try? CalendarExport.icalendar(of: calendar, in: store, anchorFloatingTimes: true) else {
            return .text(503, "503 Service Unavailable\n")
        }
        headers.set("Content-Type", "text/calendar; charset=utf-8")
        headers.set("Content-Disposition", "inline; filename=\"calendar.ics\"")
        return HTTPResponse(status: 200, headers: headers, body: export.bytes)
    }
}
