import CalendarStore
import JSONAPI
import Webhooks

/// The JSON API's view of webhook delivery: the outbound rules for URL checks, and test
/// pings sent on the request's thread (a ping is the one delivery a request waits for).
struct ServerWebhookEndpoints: WebhookEndpoints {
    let options: OutboundHTTPClient.Options

    func refusal(for url: String) -> String? { options.policy.refusal(for: url)?.description }

    func ping(_ webhook: Webhook, secret: String) -> (status: Int?, error: String?, durationMilliseconds: Int) {
        do {
            let response = try WebhookSender(options: options).ping(webhook, secret: secret)
            return (response.status, response.error, response.durationMilliseconds)
        } catch {
            return (nil, error.description, 0)
        }
    }
}
