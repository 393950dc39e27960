import CalendarStore
import HTTPTypes
import ICalendar
import JSON

// Subscribed calendars through the API: subscribe to a feed URL, list the subscriptions
// with how their feeds fare, ask for a refresh. A subscribed calendar is otherwise a
// calendar (read, renamed, shared, deleted to unsubscribe) whose objects are read-only.
extension APIContext {
    /// POST /subscriptions: `{"url", "title", "refreshInterval"}` (seconds, optional).
    func subscribe() throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: ["url", "title", "refreshInterval"])
        guard let refusal = configuration.feedRefusal else {
            throw APIProblem(.unavailable, "this server fetches no feeds")
        }
        guard case .string(let url)? = body["url"], let feed = FeedRules.normalized(url) else {
            throw APIProblem(.invalidField, "url is an http://, https:// or webcal:// URL", fields: ["url"])
        }
        if let why = refusal(feed) {
            throw APIProblem(.invalidField, "the server cannot fetch this URL: \(why)", fields: ["url"])
        }
        guard case .string(let title)? = body["title"], !title.isEmpty else {
            throw APIProblem(.invalidField, "a subscription needs a title", fields: ["title"])
        }
        var interval: Int?
        if let value = body["refreshInterval"] {
            guard case .integer(let seconds) = value,
                (FeedRules.minimumInterval...FeedRules.maximumInterval).contains(seconds)
            else {
                throw APIProblem(
                    .invalidField, "refreshInterval is seconds between 900 and 604800", fields: ["refreshInterval"])
            }
            interval = seconds
        }
        let calendar = try attempt { () throws(StoreError) in
            try backend.subscriptions.subscribe(
                user: store.user, url: feed, title: title, refreshInterval: interval, now: configuration.now())
        }
        var response = json(try subscriptionJSON(calendar), status: 201, etag: APIModel.etag(calendar))
        response.headers.set("Location", JSONAPIHandler.prefix + "/calendars/" + calendar.id)
        return response
    }

    /// GET /subscriptions: the user's subscribed calendars with their feeds' state.
    func listSubscriptions() throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        let calendars = try attempt { () throws(StoreError) in
            try store.calendars().filter { $0.subscriptionURL != nil && $0.access == nil }
        }
        var items: [JSONValue] = []
        for calendar in calendars { items.append(try subscriptionJSON(calendar)) }
        return json(.object([("subscriptions", .array(items))]))
    }

    /// POST /calendars/{id}/refresh: fetch the feed soon (15 seconds after its last fetch at the soonest).
    func refreshSubscription(_ identifier: String) throws(APIProblem) -> HTTPResponse {
        let calendar = try attempt { () throws(StoreError) in try store.calendar(withIdentifier: identifier) }
        guard let url = calendar.subscriptionURL else {
            throw APIProblem(.invalidField, "\(calendar.title) is not a subscribed calendar", fields: ["id"])
        }
        try attempt { () throws(StoreError) in
            try backend.subscriptions.requestRefresh(url: url, now: configuration.now())
        }
        return json(try subscriptionJSON(calendar), status: 202)
    }

    /// A subscribed calendar with its feed's state.
    func subscriptionJSON(_ calendar: EventCalendar) throws(APIProblem) -> JSONValue {
        let url = calendar.subscriptionURL ?? ""
        let source = try attempt { () throws(StoreError) in try backend.subscriptions.source(url: url) }
        var requested: JSONValue = .null
        if case .subscription(_, let seconds) = calendar.kind, seconds > 0 { requested = .integer(seconds) }
        return .object([
            ("calendar", APIModel.json(calendar)), ("url", .string(url)), ("refreshInterval", requested),
            ("lastFetched", source?.fetched.map { .string(Self.utc($0)) } ?? .null),
            ("nextFetch", source.map { .string(Self.utc($0.nextFetch)) } ?? .null),
            ("failures", .integer(source?.failures ?? 0)),
            ("lastError", source?.lastError.map(JSONValue.string) ?? .null),
            ("lastStatus", source?.lastStatus.map(JSONValue.integer) ?? .null),
            ("objects", .integer(source?.objects ?? 0)),
        ])
    }
}
