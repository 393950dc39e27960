import Foundation

extension AlmanacClient {
    // MARK: Webhooks

    /// The user's webhooks, page by page (`GET /api/v1/webhooks`).
    public func webhooks(pageSize: Int? = nil) -> Pages<Webhook> {
        Pages(
            client: self, url: url(Self.path("webhooks"), query: [("limit", pageSize.map(String.init))]),
            itemsKey: "webhooks")
    }

    /// One webhook, with its recent attempts.
    public func webhook(id: String) async throws(AlmanacError) -> Webhook {
        try await get(Webhook.self, url(Self.path("webhooks", id)))
    }

    /// A new webhook, and its signing secret (shown only now).
    public func createWebhook(
        _ draft: WebhookDraft, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> NewWebhook {
        try await write(
            NewWebhook.self, "POST", url(Self.path("webhooks")), body: draft, idempotencyKey: idempotencyKey)
    }

    /// Changes a webhook: its URL, types, calendars, description, or state (`paused`,
    /// or `active` to resume it, a disabled one too).
    public func updateWebhook(
        id: String, _ changes: WebhookChanges, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> Webhook {
        try await write(
            Webhook.self, "PATCH", url(Self.path("webhooks", id)), body: changes, idempotencyKey: idempotencyKey)
    }

    /// Deletes a webhook; its pending deliveries are dropped.
    public func deleteWebhook(id: String, idempotencyKey: String? = nil) async throws(AlmanacError) {
        try await write("DELETE", url(Self.path("webhooks", id)), idempotencyKey: idempotencyKey)
    }

    /// Sends a test delivery now and says what the receiver answered.
    public func testWebhook(id: String, idempotencyKey: String? = nil) async throws(AlmanacError) -> WebhookTestResult {
        try await write(
            WebhookTestResult.self, "POST", url(Self.path("webhooks", id, "test")), body: JSONValue?.none,
            idempotencyKey: idempotencyKey)
    }

    /// Queues again every delivery since `from` (after an outage of the receiver);
    /// returns how many.
    @discardableResult
    public func replayWebhook(
        id: String, from: Date, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> Int {
        try await write(
            Requeued.self, "POST", url(Self.path("webhooks", id, "replay")),
            body: JSONValue.object([JSONValue.Member("from", .string(Timestamp.format(from)))]),
            idempotencyKey: idempotencyKey
        ).requeued
    }

    private struct Requeued: Decodable { var requeued: Int }

    /// A webhook's deliveries, newest first, page by page.
    public func deliveries(ofWebhook webhookID: String, pageSize: Int? = nil) -> Pages<WebhookDelivery> {
        Pages(
            client: self,
            url: url(Self.path("webhooks", webhookID, "deliveries"), query: [("limit", pageSize.map(String.init))]),
            itemsKey: "deliveries")
    }
}
