import ICalendar

/// One feed URL that subscribed calendars are filled from, fetched once for every
/// subscriber: its validators, the last good copy, when it is next due, how it failed.
public struct FeedSource: Sendable, Hashable {
    /// The feed's URL as fetched (http or https; see ``FeedRules/normalized(_:)``).
    public var url: String
    /// The validators of the last good copy, sent back in a conditional GET.
    public var etag: String?
    /// The last good copy's `Last-Modified`, sent back as `If-Modified-Since`; nil without one.
    public var lastModified: String?
    /// When it last answered (200 or 304), Unix seconds; nil before the first answer.
    public var fetched: Int?
    /// When it is next due, Unix seconds.
    public var nextFetch: Int
    /// Failed fetches since the last good one.
    public var failures: Int
    /// What went wrong with the last fetch (after a good one: objects left out); nil when nothing did.
    public var lastError: String?
    /// The HTTP status of the last fetch (200, 304 or the failure's); nil before any, or without an answer.
    public var lastStatus: Int?
    /// What the feed asks for (REFRESH-INTERVAL, X-PUBLISHED-TTL), seconds.
    public var feedInterval: Int?
    /// The objects of the last good copy.
    public var objects: Int
    /// The users who subscribe to it (filled in when feeds are claimed to be fetched:
    /// whose turn a fetch takes).
    public var subscribers: [String] = []

    /// A feed never fetched (what a first fetch starts from).
    public init(url: String) {
        self.url = url
        nextFetch = 0
        failures = 0
        objects = 0
    }

    init(
        url: String, etag: String?, lastModified: String?, fetched: Int?, nextFetch: Int, failures: Int,
        lastError: String?, lastStatus: Int?, feedInterval: Int?, objects: Int
    ) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.fetched = fetched
        self.nextFetch = nextFetch
        self.failures = failures
        self.lastError = lastError
        self.lastStatus = lastStatus
        self.feedInterval = feedInterval
        self.objects = objects
    }
}

/// What one fetch of a feed came to.
public enum FeedFetch: Sendable {
    /// 304: the last good copy stands.
    case notModified
    /// A new copy, read (``CalendarFileSplitter/read(_:)``), with its validators.
    case content(data: [UInt8], split: CalendarFileSplitter.Split, etag: String?, lastModified: String?)
    /// No usable answer: the last good copy stands, and the next try backs off.
    case failed(String, status: Int?)
}

/// Subscribed calendars (a user's read-only copy of an `.ics`/`webcal` feed) and the
/// feeds behind them. A server fetches each due feed once, however many users
/// subscribe to it, and records the outcome, which refills every subscribed calendar in
/// one transaction. Users cannot write to a subscribed calendar; its owner may rename,
/// recolour, share or delete (unsubscribe) it.
public protocol SubscriptionStore: Sendable {
    /// A new subscribed calendar of `user`'s for `url` (http or https; `webcal` and
    /// `webcals` read as https). When another subscriber's fetch already has the feed,
    /// the calendar is filled from it at once; otherwise the feed is due now.
    /// `refreshInterval` asks for a poll at least that often (the feed's own
    /// `REFRESH-INTERVAL` is the floor).
    func subscribe(user: String, url: String, title: String, refreshInterval: Int?, now: Int) throws(StoreError)
        -> EventCalendar
    /// The feed behind a URL, or nil.
    func source(url: String) throws(StoreError) -> FeedSource?
    /// Claims up to `limit` due feeds that have subscribers for `owner` (a process) for
    /// `leaseSeconds`: another process does not fetch them meanwhile. Feeds no calendar
    /// subscribes to any more are dropped. Each comes with its ``FeedSource/subscribers``.
    func claimDueFeeds(now: Int, owner: String, leaseSeconds: Int, limit: Int) throws(StoreError) -> [FeedSource]
    /// Makes a feed due now (a user asked for a refresh), though not sooner than
    /// ``FeedRules/refreshSpacing`` after its last fetch.
    func requestRefresh(url: String, now: Int) throws(StoreError)
    /// Records a fetch: new content replaces the objects of every calendar subscribed to
    /// `url` (unchanged objects are left alone, so sync tokens move only for changes); a
    /// failure keeps them and backs off. Returns the feed as it now is.
    @discardableResult
    func record(_ fetch: FeedFetch, url: String, now: Int) throws(StoreError) -> FeedSource
}

/// The rules subscriptions follow, shared by the store and the fetcher.
public enum FeedRules {
    /// The most bytes a feed may have.
    public static let maxBytes = 10 << 20
    /// The most objects (UIDs) a feed may hold.
    public static let maxObjects = 20_000
    /// Polling bounds: never more often than every 15 minutes, at least weekly.
    public static let minimumInterval = 900
    /// The longest wait between polls: a week, in seconds.
    public static let maximumInterval = 7 * 86_400
    /// How often a feed is polled when neither it nor its subscribers say.
    public static let defaultInterval = 86_400
    /// The longest feed URL, in UTF-8 bytes.
    public static let maxURLBytes = 2_048
    /// The most subscribed calendars one user has: their share of the server's fetches.
    public static let maxPerUser = 50
    /// The soonest a refresh asked for fetches again after the last fetch, seconds.
    public static let refreshSpacing = 15

    /// `url` as fetched: `webcal://` and `webcals://` become `https://`; nil for a URL
    /// that is not http(s), has no host, is too long or holds white space or controls.
    public static func normalized(_ url: String) -> String? {
        var text = url
        for scheme in ["webcal://", "webcals://"] where text.lowercased().hasPrefix(scheme) {
            text = "https://" + text.dropFirst(scheme.count)
        }
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"), text.utf8.count <= maxURLBytes,
            text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { return nil }
        let afterScheme = text.drop { $0 != "/" }.dropFirst(2)
        guard let host = afterScheme.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first,
            !host.isEmpty, !host.contains("@")
        else { return nil }
        return text
    }

    /// The interval a feed is polled at: what its subscribers ask (the shortest), else
    /// the feed's own, else a day; never more often than the feed asks, within the bounds.
    public static func interval(requested: Int?, feed: Int?) -> Int {
        let wanted = max(feed ?? 0, requested ?? feed ?? defaultInterval)
        return min(max(wanted, minimumInterval), maximumInterval)
    }

    /// The wait after `failures` failed fetches in a row: 5 minutes, doubling, at most a day.
    public static func backoff(failures: Int) -> Int {
        min(86_400, 300 << min(max(failures - 1, 0), 9))
    }
}
