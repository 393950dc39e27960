import CalendarStore
import Outbound
import Subscriptions
import Webhooks

/// `almanac subscribe URL --title T`: a subscribed calendar, fetched once at once so a
/// feed that does not work is told now (the calendar stays, and the server keeps trying).
enum SubscribeCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.subscribe)
        guard options.operands.count == 1 else { throw .usage("'subscribe' takes one URL") }
        guard let url = FeedRules.normalized(options.operands[0]) else {
            throw .usage("the feed is an http://, https:// or webcal:// URL")
        }
        let policy = OutboundPolicy(
            allowsPrivateAddresses: options.has("--allow-private"), permission: "--allow-private")
        if let refusal = policy.refusal(for: url) {
            throw CommandFailure(status: 1, "the server would not fetch \(url): \(refusal.description)")
        }
        var refresh: Int?
        if let text = options["--refresh"] {
            let seconds = try TimeInput.duration(text, option: "--refresh").secondsAssumingUniformDays
            guard (FeedRules.minimumInterval...FeedRules.maximumInterval).contains(seconds) else {
                throw .usage("--refresh is between 15m and 7d")
            }
            refresh = seconds
        }
        let context = try StoreContext(options, io: io)
        let subscriptions = context.backend.subscriptions
        let calendar = try StoreContext.run { () throws(StoreError) in
            try subscriptions.subscribe(
                user: context.user, url: url, title: options["--title"] ?? "", refreshInterval: refresh, now: io.now)
        }
        io.write("Subscribed \(calendar.title) (\(calendar.id)) to \(url)\n")
        // The first fetch, now, unless another subscriber's copy already filled it.
        guard let source = try StoreContext.run({ () throws(StoreError) in try subscriptions.source(url: url) }),
            source.fetched == nil
        else { return 0 }
        let fetcher: FeedFetcher
        do {
            fetcher = try FeedFetcher(policy: policy)
        } catch {
            throw CommandFailure(status: 1, error.description)
        }
        let fetched = fetcher.fetch(source)
        let after = try StoreContext.run { () throws(StoreError) in
            try subscriptions.record(fetched, url: url, now: io.now)
        }
        if let error = after.lastError, after.failures > 0 {
            io.writeError("almanac: the first fetch failed: \(error); the server will try again")
            return 1
        }
        io.write(
            "Fetched \(after.objects) object\(after.objects == 1 ? "" : "s")\(after.lastError.map { " (\($0))" } ?? "")\n"
        )
        return 0
    }
}
