import Accounts
import AlmanacClient
import Foundation
import Testing

/// A receiver's check of `Almanac-Signature`: deliveries signed with OpenSSL's HMAC (as
/// the server signs them) are accepted and decoded, anything changed or stale is refused
/// with its reason.
@Suite struct WebhookSignatureTests {
    static let secret = "whsec_MfKQ9r8GKYqrTAjjnL3Yjj8Qw1Xt4N2s"
    /// 2026-12-02T05:00:00Z.
    static let signedAt = 1_796_187_600
    static let body = Data(
        #"{"id":"dl_01JEXAMPLE","type":"event.created","occurredAt":"2026-12-02T05:00:00.123Z","webhookId":"wh_01JEXAMPLE","calendarId":"5C1F0A2B","sequence":12,"eventId":"9E07B3C4","uid":"9E07B3C4@example.com","etag":"\"e1\"","resource":"9E07B3C4.ics","href":"/api/v1/events/9E07B3C4","occurrence":null}"#
            .utf8)

    /// The signature as the server makes it, with OpenSSL (not the client's own HMAC).
    static func openSSLSignature(_ body: Data, secret: String = secret, at seconds: Int = signedAt) -> String {
        Crypto.hex(Crypto.hmacSHA256(key: Array(secret.utf8), Array("\(seconds).".utf8) + Array(body)))
    }

    static var now: Date { Date(timeIntervalSince1970: TimeInterval(signedAt + 10)) }

    func verify(_ header: String, body: Data = body, now: Date = now) throws(WebhookSignatureError) -> WebhookEvent {
        try WebhookSignature.verify(body: body, signatureHeader: header, secret: Self.secret, now: now)
    }

    func failure(_ header: String, body: Data = body, now: Date = now) -> WebhookSignatureError.Kind? {
        do {
            _ = try verify(header, body: body, now: now)
            return nil
        } catch {
            return error.kind
        }
    }

    /// The worked example of docs/client.md, computed with Python's `hmac` module.
    @Test func theDocumentedVector() throws {
        let python = "ead6e3548260394cc57bc6bd6c13dc3b4d80ac9c57597d7a2b218b7b7081a2b4"
        #expect(Self.openSSLSignature(Self.body) == python)
        #expect(
            WebhookSignature.header(
                body: Self.body, secrets: [Self.secret],
                timestamp: Date(timeIntervalSince1970: TimeInterval(Self.signedAt)))
                == "t=\(Self.signedAt),v1=\(python)")
        let event = try verify("t=\(Self.signedAt),v1=\(python)")
        #expect(event.id == "dl_01JEXAMPLE" && event.type == .eventCreated && event.webhookID == "wh_01JEXAMPLE")
        #expect(event.calendarID == "5C1F0A2B" && event.sequence == 12 && event.eventID == "9E07B3C4")
        #expect(event.etag == "\"e1\"" && event.href == "/api/v1/events/9E07B3C4" && event.occurrence == nil)
        // 05:00:00.123Z, milliseconds kept.
        #expect(abs(event.occurredAt.timeIntervalSince1970 - 1_796_187_600.123) < 0.000_5)
    }

    @Test func rotationAcceptsAnyMatchingSignature() throws {
        let old = Self.openSSLSignature(Self.body, secret: "whsec_old")
        let current = Self.openSSLSignature(Self.body)
        #expect(try verify("t=\(Self.signedAt),v1=\(old),v1=\(current)").id == "dl_01JEXAMPLE")
        #expect(try verify("t=\(Self.signedAt), v1=\(current), v1=\(old)").id == "dl_01JEXAMPLE")
        // An entry of a scheme this client does not know is ignored, not fatal.
        #expect(try verify("t=\(Self.signedAt),v2=abc,v1=\(current)").id == "dl_01JEXAMPLE")
        // Uppercase hex is the same signature.
        #expect(try verify("t=\(Self.signedAt),v1=\(current.uppercased())").id == "dl_01JEXAMPLE")
    }

    @Test func anythingChangedIsRefused() {
        let good = Self.openSSLSignature(Self.body)
        var tampered = Self.body
        tampered[tampered.startIndex + 10] ^= 0x01
        #expect(failure("t=\(Self.signedAt),v1=\(good)", body: tampered) == .noMatchingSignature)
        // The timestamp is signed: moving it breaks the signature.
        #expect(failure("t=\(Self.signedAt + 1),v1=\(good)") == .noMatchingSignature)
        #expect(
            failure("t=\(Self.signedAt),v1=\(Self.openSSLSignature(Self.body, secret: "whsec_other"))")
                == .noMatchingSignature)
        // One byte of the signature off.
        let flipped = String(good.dropLast()) + (good.hasSuffix("0") ? "1" : "0")
        #expect(failure("t=\(Self.signedAt),v1=\(flipped)") == .noMatchingSignature)
    }

    @Test func staleOrFutureTimestampsAreRefused() throws {
        let header = "t=\(Self.signedAt),v1=\(Self.openSSLSignature(Self.body))"
        let signed = Date(timeIntervalSince1970: TimeInterval(Self.signedAt))
        #expect(try verify(header, now: signed.addingTimeInterval(300)).id == "dl_01JEXAMPLE")
        #expect(try verify(header, now: signed.addingTimeInterval(-300)).id == "dl_01JEXAMPLE")
        #expect(failure(header, now: signed.addingTimeInterval(301)) == .timestampOutsideTolerance)
        #expect(failure(header, now: signed.addingTimeInterval(-301)) == .timestampOutsideTolerance)
        let wide = try WebhookSignature.verify(
            body: Self.body, signatureHeader: header, secret: Self.secret, tolerance: 3_600,
            now: signed.addingTimeInterval(3_000))
        #expect(wide.id == "dl_01JEXAMPLE")
    }

    @Test(arguments: [
        "", "t=1796187600", "v1=" + String(repeating: "a", count: 64), "t=abc,v1=" + String(repeating: "a", count: 64),
        "t=1796187600,v1=abc", "t=1796187600,v1=" + String(repeating: "g", count: 64), "t=1,t=2,v1=00",
        "garbage", "t=-5,v1=" + String(repeating: "a", count: 64),
    ])
    func malformedHeadersAreRefused(_ header: String) {
        #expect(failure(header) == .malformedHeader)
    }

    @Test func aSignedBodyThatIsNotADeliveryIsRefusedAfterTheCheck() throws {
        let body = Data(#"{"hello": "world"}"#.utf8)
        let header = "t=\(Self.signedAt),v1=\(Self.openSSLSignature(body))"
        #expect(failure(header, body: body) == .undecodableBody)
        try WebhookSignature.verifySignature(
            body: body, signatureHeader: header, secret: Self.secret, now: Self.now)
    }

    /// The client's `header(body:secrets:timestamp:)` signs as OpenSSL does, so a backend can
    /// test its receiver with it.
    @Test func signingForTests() throws {
        let body = Data(
            #"{"id":"dl_1","type":"event.deleted","occurredAt":"2026-12-02T05:00:00Z","webhookId":"wh_1","calendarId":"c","sequence":3,"eventId":"e","uid":null,"etag":null,"resource":null,"href":null,"occurrence":{"recurrenceId":"2026-12-08T17:00:00Z","span":"future"}}"#
                .utf8)
        let header = WebhookSignature.header(body: body, secrets: ["whsec_a", "whsec_b"], timestamp: Self.now)
        #expect(header.contains("v1=\(Self.openSSLSignature(body, secret: "whsec_b", at: Self.signedAt + 10))"))
        let event = try WebhookSignature.verify(body: body, signatureHeader: header, secret: "whsec_a", now: Self.now)
        #expect(event.type == .eventDeleted && event.occurrence?.span == "future" && event.uid == nil)
        #expect(event.occurrence?.recurrenceID == "2026-12-08T17:00:00Z")
    }
}
