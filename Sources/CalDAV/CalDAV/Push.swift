import Accounts
import CalendarStore
import CivilTime
import HTTPTypes

/// What CalDAV needs to offer WebDAV-Push (draft-bitfire-webdav-push, as DAVx⁵ speaks
/// it): the server's VAPID public key, the key topics are derived with, and the
/// outbound address rules a push resource must pass. The sending is the Push module's.
public struct WebDAVPushSupport: Sendable {
    /// The VAPID public key (P-256, uncompressed, base64url).
    public var vapidPublicKey: String
    /// The key of ``PushTopic``.
    public var topicKey: String
    /// Why the server may not send to a push resource URL (the outbound rules), nil
    /// when it may.
    public var refusal: @Sendable (String) -> String?
    /// The clock (Unix seconds).
    public var now: @Sendable () -> Int

    public init(
        vapidPublicKey: String, topicKey: String, refusal: @escaping @Sendable (String) -> String?,
        now: @escaping @Sendable () -> Int
    ) {
        self.vapidPublicKey = vapidPublicKey
        self.topicKey = topicKey
        self.refusal = refusal
        self.now = now
    }

    /// A calendar's push properties: Web Push with the VAPID key (`type="p256ecdsa"`, as
    /// DAVx⁵ reads it), its topic, and the triggers a registration may ask for (changes
    /// to its members; to its own properties).
    func properties(of calendar: EventCalendar) -> [PropertyName: String] {
        [
            .pushTransports:
                "<P:web-push><P:vapid-public-key type=\"p256ecdsa\">\(XMLText.escape(vapidPublicKey))</P:vapid-public-key></P:web-push>",
            .pushTopic: PushTopic.topic(ofCalendar: calendar.id, key: topicKey),
            .pushSupportedTriggers:
                "<P:content-update><D:depth>1</D:depth></P:content-update><P:property-update><D:depth>0</D:depth></P:property-update>",
        ]
    }
}

extension DAVContext {
    /// POST of `push-register` to a calendar the user may read: registers (or renews) a
    /// Web Push subscription and answers 201 with its registration URL in `Location` and
    /// the expiry the server granted in `Expires`.
    ///
    /// Message encryption (RFC 8291) is required: a registration without the user
    /// agent's `p256dh` key and auth secret is refused, so nothing about a calendar (not
    /// even its sync token) crosses a push service in clear. DAVx⁵ always sends them.
    func pushRegister(calendar handle: CalendarHandle, _ body: XMLElement) throws(StoreError) -> HTTPResponse {
        guard let push = handler.push else {
            return DAVError(403, "WebDAV-Push is not enabled on this server").response
        }
        let namespace = DAVNamespace.push
        guard let subscription = body.child(namespace, "subscription") else {
            return DAVError(400, "push-register holds a subscription").response
        }
        guard let webPush = subscription.child(namespace, "web-push-subscription") else {
            return DAVError(400, "the subscription is a web-push-subscription: Web Push is this server's transport")
                .response
        }
        let resource = webPush.child(namespace, "push-resource")?.text.trimmingCharacters(in: .whitespaces) ?? ""
        guard !resource.isEmpty else {
            return DAVError(400, "the web-push-subscription names its push-resource").response
        }
        if let refusal = push.refusal(resource) {
            return DAVError(403, "the push resource cannot be used: \(refusal)").response
        }
        if let encoding = webPush.child(namespace, "content-encoding")?.text.trimmingCharacters(in: .whitespaces),
            encoding != "aes128gcm"
        {
            return DAVError(400, "messages are encrypted with aes128gcm (RFC 8291), not \(encoding)").response
        }
        // `subscription-public-key` (DAVx⁵, the schema) or `client-public-key` (the draft's text).
        let keyElement =
            webPush.child(namespace, "subscription-public-key") ?? webPush.child(namespace, "client-public-key")
        let publicKey = keyElement?.text.trimmingCharacters(in: .whitespaces) ?? ""
        let authSecret = webPush.child(namespace, "auth-secret")?.text.trimmingCharacters(in: .whitespaces) ?? ""
        guard !publicKey.isEmpty, !authSecret.isEmpty else {
            return DAVError(
                400,
                "the web-push-subscription gives its subscription-public-key (p256dh) and auth-secret: messages are always encrypted"
            ).response
        }
        if let type = keyElement?.attributes["type"], type != "p256dh" {
            return DAVError(400, "the subscription-public-key is of type p256dh, not \(type)").response
        }
        guard let point = Base64URL.decode(Substring(publicKey)), point.count == 65, point.first == 4 else {
            return DAVError(400, "the subscription-public-key is an uncompressed P-256 point in base64url (65 bytes)")
                .response
        }
        guard let secret = Base64URL.decode(Substring(authSecret)), secret.count == 16 else {
            return DAVError(400, "the auth-secret is 16 bytes in base64url").response
        }
        // Which changes: both when no trigger (or an empty one) is given.
        var content = true
        var property = true
        if let trigger = body.child(namespace, "trigger"),
            trigger.child(namespace, "content-update") != nil || trigger.child(namespace, "property-update") != nil
        {
            content = trigger.child(namespace, "content-update") != nil
            property = trigger.child(namespace, "property-update") != nil
        }
        let now = push.now()
        var expires = now + PushLimits.defaultLifetime
        if let text = body.child(namespace, "expires")?.text.trimmingCharacters(in: .whitespaces) {
            guard let requested = CivilDateTime(httpDate: text)?.secondsSinceEpoch else {
                return DAVError(400, "expires is an HTTP date such as Wed, 02 Oct 2024 07:28:00 GMT, not \(text)")
                    .response
            }
            guard requested > now else { return DAVError(400, "expires (\(text)) has passed").response }
            expires = min(requested, now + PushLimits.maxLifetime)
        }
        let stored = try handler.backend.push.register(
            PushSubscription(
                pushResource: resource, publicKey: publicKey, authSecret: authSecret, contentUpdates: content,
                propertyUpdates: property, expires: expires),
            user: user, calendar: handle.calendar.id)
        return HTTPResponse(
            status: 201,
            headers: [
                "Location": DAVPath.pushRegistration(user: user, id: stored.identifier).href,
                "Expires": CivilDateTime(secondsSinceEpoch: stored.expires).httpDate, "Content-Length": "0",
            ])
    }

    /// DELETE of a registration URL: the user's own registration ends (404 for any other).
    func pushUnregister(_ id: String) throws(StoreError) -> HTTPResponse {
        guard try handler.backend.push.unregister(id, user: user) else {
            throw StoreError(.notFound, "no push registration \(id)", resource: id)
        }
        return HTTPResponse(status: 204)
    }
}
