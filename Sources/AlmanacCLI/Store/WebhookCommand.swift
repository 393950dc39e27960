import CalendarStore
import CivilTime
import Outbound
import Webhooks

/// `almanac webhook add|list|remove|test`: a user's webhook subscriptions, as the JSON
/// API's `/api/v1/webhooks` manages them.
enum WebhookCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard let subcommand = arguments.first, ["add", "list", "remove", "test"].contains(subcommand) else {
            throw .usage("'webhook' needs add URL, list, remove ID or test ID")
        }
        let options = try Options(Array(arguments.dropFirst()), for: try CommandTable.webhook.spec(subcommand))
        let context = try StoreContext(options, io: io)
        let store = context.backend.webhooks
        let policy = OutboundPolicy(
            allowsPrivateAddresses: options.has("--allow-private"), permission: "--allow-private")
        switch subcommand {
        case "add":
            guard options.operands.count == 1 else { throw .usage("'webhook add' takes one URL") }
            let url = options.operands[0]
            if let refusal = policy.refusal(for: url) {
                throw CommandFailure(status: 1, "cannot deliver to \(url): \(refusal)")
            }
            var webhook = Webhook(id: Webhook.newIdentifier(), user: context.user, url: url)
            let names = options.all("--events").flatMap { $0.split(separator: ",").map(String.init) }
            if !names.isEmpty {
                var types = Set<WebhookEventType>()
                for name in names {
                    guard let type = WebhookEventType(rawValue: name) else {
                        throw .usage(
                            "--events takes \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")), not \(name)"
                        )
                    }
                    types.insert(type)
                }
                webhook.events = types
            }
            let titles = options.all("--calendar").flatMap { $0.split(separator: ",").map(String.init) }
            if !titles.isEmpty {
                var identifiers: [String] = []
                for title in titles { identifiers.append(try context.calendar(titled: title).id) }
                webhook.calendars = identifiers
            }
            webhook.description = options["--description"]
            let secret = Webhook.newSecret()
            let created = try StoreContext.run { () throws(StoreError) in
                try store.createWebhook(webhook, secret: secret)
            }
            io.write(
                "Created webhook \(created.id) for \(context.user) to \(created.url)\n  secret: \(secret)\n(shown once; verify each delivery's Almanac-Signature with it)\n"
            )
        case "list":
            guard options.operands.isEmpty else { throw .usage("'webhook list' takes no operands") }
            var cursor: String?
            repeat {
                let page = try StoreContext.run { () throws(StoreError) in
                    try store.webhooks(user: context.user, after: cursor, limit: 100)
                }
                for webhook in page {
                    var line = "\(webhook.id)  \(webhook.state.rawValue)  \(webhook.pending) pending  \(webhook.url)"
                    line += "  " + (webhook.calendars.map { "\($0.count) calendar(s)" } ?? "all calendars")
                    if let reason = webhook.stateReason { line += "  (\(reason))" }
                    io.write(line + "\n")
                }
                cursor = page.count == 100 ? page.last?.id : nil
            } while cursor != nil
        case "remove":
            guard options.operands.count == 1 else { throw .usage("'webhook remove' takes one webhook ID") }
            try StoreContext.run { () throws(StoreError) in
                try store.deleteWebhook(id: options.operands[0], user: context.user)
            }
            io.write("Removed webhook \(options.operands[0])\n")
        default:
            guard options.operands.count == 1 else { throw .usage("'webhook test' takes one webhook ID") }
            let id = options.operands[0]
            let webhook = try StoreContext.run { () throws(StoreError) in try store.webhook(id: id, user: context.user)
            }
            let secret = try StoreContext.run { () throws(StoreError) in
                try store.webhookSecret(id: id, user: context.user)
            }
            let sender: WebhookSender
            do {
                sender = try WebhookSender(options: OutboundHTTPClient.Options(policy: policy))
            } catch {
                throw CommandFailure(status: 1, error.description)
            }
            let attempt = sender.ping(webhook, secret: secret)
            if let error = attempt.error {
                throw CommandFailure(
                    status: 1, "ping to \(webhook.url) failed after \(attempt.durationMilliseconds) ms: \(error)")
            }
            io.write("ping to \(webhook.url): \(attempt.status ?? 0) in \(attempt.durationMilliseconds) ms\n")
        }
        return 0
    }
}
