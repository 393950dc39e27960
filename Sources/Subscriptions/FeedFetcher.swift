import CalendarStore
import ICalendar
import Outbound

/// Fetches one feed the way a well-behaved subscriber does: a conditional GET with the
/// last copy's validators, redirects followed (at most five, each hop under the
/// outbound rules), at most ``CalendarStore/FeedRules/maxBytes``, read leniently.
/// Confined to one thread (its libcurl handle keeps connections alive).
public final class FeedFetcher {
    let client: OutboundHTTPClient

    public init(policy: OutboundPolicy) throws(OutboundRefusal) {
        var options = OutboundHTTPClient.Options(policy: policy)
        // A feed may be large and its server slow to start: 10 s to the first byte,
        // 30 s in all (each hop of a redirect has its own).
        options.firstByteTimeoutMilliseconds = 10_000
        options.timeoutMilliseconds = 30_000
        options.userAgent = "Almanac-Subscriptions/1"
        client = try OutboundHTTPClient(options: options)
    }

    /// The outcome of one fetch of `source`.
    public func fetch(_ source: FeedSource) -> FeedFetch {
        var url = source.url
        var headers = [("Accept", "text/calendar, */*;q=0.5")]
        if let etag = source.etag { headers.append(("If-None-Match", etag)) }
        if let lastModified = source.lastModified { headers.append(("If-Modified-Since", lastModified)) }
        for _ in 0...5 {
            let response = client.get(url, headers: headers, maxBytes: FeedRules.maxBytes)
            if let error = response.error { return .failed(error, status: response.status) }
            switch response.status ?? 0 {
            case 304:
                return .notModified
            case 200:
                do throws(ICalendarError) {
                    let split = try CalendarFileSplitter.read(response.body)
                    return .content(
                        data: response.body, split: split, etag: response.headers["etag"],
                        lastModified: response.headers["last-modified"])
                } catch {
                    return .failed("the answer is not iCalendar: \(error.message)", status: 200)
                }
            case 301, 302, 303, 307, 308:
                guard let location = response.headers["location"],
                    let next = FeedRules.normalized(Self.resolve(location, against: url))
                else {
                    return .failed("a redirect without a usable Location", status: response.status)
                }
                url = next
            case let status:
                return .failed("the feed answered HTTP \(status)", status: status)
            }
        }
        return .failed("more than five redirects", status: nil)
    }

    /// `location` (absolute, or a path on the same origin) as an absolute URL.
    static func resolve(_ location: String, against base: String) -> String {
        guard location.hasPrefix("/") else { return location }
        let afterScheme = base.range(of: "://").map { base[$0.upperBound...] } ?? Substring(base)
        let origin = base[..<(afterScheme.firstIndex(of: "/") ?? base.endIndex)]
        return String(origin) + location
    }
}
