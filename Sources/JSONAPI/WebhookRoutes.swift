import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import JSON

/// What the API needs of the server's webhook delivery, which lives beside it: the
/// outbound address rules and a test delivery. The server passes its own
/// (``APIConfiguration/webhooks``).
public protocol WebhookEndpoints: Sendable {
    /// Why the server may not deliver to `url` (its form, or an address it resolves to),
    /// or nil.
    func refusal(for url: String) -> String?
    /// Sends a signed `ping` to the subscription now, within a small budget of its own,
    /// and tells how it went; or why it was not sent now.
    func ping(_ webhook: Webhook, secret: String) -> PingOutcome
}

/// What a test ping came to.
public enum PingOutcome: Sendable, Hashable {
    /// Sent: the status answered (nil when none), why it failed, and how long it took.
    case sent(status: Int?, error: String?, durationMilliseconds: Int)
    /// Not sent now (one of the user's pings is still under way, or the server's pings
    /// are all busy): try again after `retryAfter` seconds.
    case busy(String, retryAfter: Int)
}

extension APIContext {
    static let webhookFields: Set<String> = ["url", "events", "calendars", "description"]

    var webhookEndpoints: any WebhookEndpoints {
        get throws(APIProblem) {
            guard let endpoints = configuration.webhooks else {
                throw APIProblem(.unavailable, "this server delivers no webhooks")
            }
            return endpoints
        }
    }

    /// Applies the members of a webhook body (create or PATCH) to `webhook`.
    func apply(_ body: [String: JSONValue], to webhook: inout Webhook) throws(APIProblem) {
        for (key, value) in body {
            switch key {
            case "url":
                guard case .string(let url) = value else { throw APIModel.wrongType(key, "a URL") }
                if let refusal = try webhookEndpoints.refusal(for: url) {
                    throw APIProblem(.invalidField, "the server cannot deliver to this URL: \(refusal)", fields: [key])
                }
                webhook.url = url
            case "events":
                guard case .array(let items) = value else { throw APIModel.wrongType(key, "a list of event types") }
                var types = Set<WebhookEventType>()
                for item in items {
                    guard case .string(let name) = item, let type = WebhookEventType(rawValue: name) else {
                        let known = WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")
                        throw APIProblem(.invalidField, "events are among \(known)", fields: [key])
                    }
                    types.insert(type)
                }
                guard !types.isEmpty else {
                    throw APIProblem(
                        .invalidField, "events names at least one type (or leave it out for all)", fields: [key])
                }
                webhook.events = types
            case "calendars":
                if case .null = value {
                    webhook.calendars = nil
                    continue
                }
                guard case .array(let items) = value else {
                    throw APIModel.wrongType(key, "a list of calendar ids, or null for all")
                }
                var calendars: [String] = []
                for item in items {
                    guard case .string(let id) = item else { throw APIModel.wrongType(key, "a list of calendar ids") }
                    calendars.append(id)
                }
                webhook.calendars = calendars
            case "description":
                webhook.description = try APIModel.optionalString(value, key)
            case "state":
                guard case .string(let name) = value, let state = Webhook.State(rawValue: name), state != .disabled
                else { throw APIProblem(.invalidField, "state is active or paused", fields: [key]) }
                webhook.state = state
            default:
                break
            }
        }
    }

    static func json(_ webhook: Webhook, attempts: [WebhookAttempt]? = nil, secret: String? = nil) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(webhook.id)), ("url", .string(webhook.url)),
            ("events", .array(webhook.events.sorted().map { .string($0.rawValue) })),
            ("calendars", webhook.calendars.map { .array($0.map(JSONValue.string)) } ?? .null),
            ("description", webhook.description.map(JSONValue.string) ?? .null),
            ("state", .string(webhook.state.rawValue)),
            ("stateReason", webhook.stateReason.map(JSONValue.string) ?? .null),
            ("failures", .integer(webhook.failures)), ("pending", .integer(webhook.pending)),
            ("createdAt", .string(utc(webhook.created))),
        ]
        if let secret { members.append(("secret", .string(secret))) }
        if let attempts { members.append(("recentAttempts", .array(attempts.map(json)))) }
        return .object(members)
    }

    static func json(_ attempt: WebhookAttempt) -> JSONValue {
        .object([
            ("delivery", .string(attempt.delivery)), ("type", .string(attempt.type.rawValue)),
            ("at", .string(CivilDateTime.utcText(milliseconds: attempt.at))),
            ("status", attempt.status.map(JSONValue.integer) ?? .null),
            ("error", attempt.error.map(JSONValue.string) ?? .null),
            ("durationMs", .integer(attempt.durationMilliseconds)),
        ])
    }

    static func json(_ delivery: WebhookDelivery) -> JSONValue {
        .object([
            ("id", .string(delivery.id)), ("type", .string(delivery.type.rawValue)),
            ("occurredAt", .string(CivilDateTime.utcText(milliseconds: delivery.occurred))),
            ("calendarId", .string(delivery.calendar)),
            ("eventId", delivery.eventIdentifier.map(JSONValue.string) ?? .null),
            ("state", .string(delivery.state.rawValue)), ("attempts", .integer(delivery.attempts)),
            ("lastStatus", delivery.lastStatus.map(JSONValue.integer) ?? .null),
            ("lastError", delivery.lastError.map(JSONValue.string) ?? .null),
            (
                "deliveredAt",
                delivery.state == .delivered
                    ? delivery.finished.map { .string(CivilDateTime.utcText(milliseconds: $0)) } ?? .null : .null
            ),
        ])
    }

    var webhooks: any WebhookStore { backend.webhooks }

    /// POST /webhooks: a new subscription; the answer alone shows its secret.
    func createWebhook() throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: Self.webhookFields)
        guard body["url"] != nil else { throw APIProblem(.invalidField, "a webhook needs a url", fields: ["url"]) }
        var webhook = Webhook(id: Webhook.newIdentifier(), user: principal.user, url: "")
        try apply(body, to: &webhook)
        let secret = Webhook.newSecret()
        let created = try attempt { () throws(StoreError) in try webhooks.createWebhook(webhook, secret: secret) }
        var response = json(Self.json(created, secret: secret), status: 201)
        response.headers.set("Location", JSONAPIHandler.prefix + "/webhooks/" + created.id)
        return response
    }

    /// GET /webhooks?limit&cursor.
    func listWebhooks() throws(APIProblem) -> HTTPResponse {
        let page = try page(try query(allowing: ["limit", "cursor"]), listing: "webhooks")
        let found = try attempt { () throws(StoreError) in
            try webhooks.webhooks(user: principal.user, after: page.after, limit: page.limit + 1)
        }
        return try pageAnswer("webhooks", found, page: page, listing: "webhooks", key: \.id) { Self.json($0) }
    }

    /// GET /webhooks/{id}: the subscription with its last attempts.
    func readWebhook(_ id: String) throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        let webhook = try attempt { () throws(StoreError) in try webhooks.webhook(id: id, user: principal.user) }
        let attempts = try attempt { () throws(StoreError) in
            try webhooks.recentAttempts(webhook: id, user: principal.user, limit: 20)
        }
        return json(Self.json(webhook, attempts: attempts))
    }

    /// PATCH /webhooks/{id}.
    func updateWebhook(_ id: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: Self.webhookFields.union(["state"]))
        var webhook = try attempt { () throws(StoreError) in try webhooks.webhook(id: id, user: principal.user) }
        try apply(body, to: &webhook)
        let updated = try attempt { () throws(StoreError) in try webhooks.updateWebhook(webhook) }
        return json(Self.json(updated))
    }

    /// DELETE /webhooks/{id}: the subscription and what waits in its outbox.
    func deleteWebhook(_ id: String) throws(APIProblem) -> HTTPResponse {
        try attempt { () throws(StoreError) in try webhooks.deleteWebhook(id: id, user: principal.user) }
        return HTTPResponse(status: 204)
    }

    /// POST /webhooks/{id}/test: a signed `ping` now, outside the queue.
    func testWebhook(_ id: String) throws(APIProblem) -> HTTPResponse {
        let webhook = try attempt { () throws(StoreError) in try webhooks.webhook(id: id, user: principal.user) }
        let secret = try attempt { () throws(StoreError) in try webhooks.webhookSecret(id: id, user: principal.user) }
        switch try webhookEndpoints.ping(webhook, secret: secret) {
        case .sent(let status, let error, let milliseconds):
            return json(
                .object([
                    ("status", status.map(JSONValue.integer) ?? .null), ("error", error.map(JSONValue.string) ?? .null),
                    ("durationMs", .integer(milliseconds)),
                ]))
        case .busy(let reason, let wait):
            var problem = APIProblem(.tooManyRequests, reason)
            problem.headers.set("Retry-After", String(wait))
            throw problem
        }
    }

    /// POST /webhooks/{id}/replay `{"from": TIME}`: sends again, in order, what was
    /// delivered or given up since then.
    func replayWebhook(_ id: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: ["from"])
        guard case .string(let text)? = body["from"] else {
            throw APIProblem(.invalidField, "from is the time to replay from (2026-12-01T00:00:00Z)", fields: ["from"])
        }
        let from = try APIModel.time(text, timeZone: nil, field: "from")
        guard from.form == .utc, !from.isDate else {
            throw APIProblem(.invalidField, "from is a UTC time (2026-12-01T00:00:00Z)", fields: ["from"])
        }
        let seconds = from.civil.secondsSinceEpoch
        let count = try attempt { () throws(StoreError) in
            try webhooks.replayDeliveries(
                webhook: id, user: principal.user, from: seconds.multipliedSaturated(by: 1_000))
        }
        return json(.object([("requeued", .integer(count))]))
    }

    /// GET /webhooks/{id}/deliveries?limit&cursor: newest first.
    func listDeliveries(_ id: String) throws(APIProblem) -> HTTPResponse {
        let page = try page(try query(allowing: ["limit", "cursor"]), listing: "deliveries")
        var before: Int64?
        if let key = page.after {
            guard let position = Int64(key) else {
                throw APIProblem(.invalidQuery, "cursor is not one this listing gave", fields: ["cursor"])
            }
            before = position
        }
        let found = try attempt { () throws(StoreError) in
            try webhooks.deliveries(webhook: id, user: principal.user, before: before, limit: page.limit + 1)
        }
        return try pageAnswer(
            "deliveries", found, page: page, listing: "deliveries", key: { String($0.position) }, { Self.json($0) })
    }
}
