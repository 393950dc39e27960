import Accounts
import CalendarStore
import Foundation
import HTTPTypes
import ICalendar
import JSON
import Synchronization

/// Cursor pagination of the API's listings: `limit` (1 to ``maxPageSize``, default
/// ``defaultPageSize``) and `cursor`, and an answer whose `next` is the path of the page
/// after it (null on the last). A cursor names the last item of a page by its sort key,
/// not by its place, so items written or removed meanwhile never make a page skip or
/// repeat one that was there throughout.
///
/// A cursor is bound to its listing and to the user it was given to: it carries a MAC
/// under a secret of the server's (HMAC-SHA256, ``CursorSigner``), so a client can
/// neither build one nor use another user's; any other is refused (400).
struct Page {
    static let defaultPageSize = 100
    static let maxPageSize = 1_000

    var limit: Int
    /// The key the page starts after, as the listing's cursor held it.
    var after: String?

}

/// Signs and checks the API's cursors with the server's `cursors` secret (kept in the
/// store, the same for every process), read once and then held.
final class CursorSigner: Sendable {
    let appState: any AppStateStore
    private let secret = Mutex<[UInt8]?>(nil)

    init(appState: any AppStateStore) { self.appState = appState }

    func key() throws(APIProblem) -> [UInt8] {
        if let known = secret.withLock({ $0 }) { return known }
        let read: [UInt8]
        do {
            read = try appState.serverSecret(named: "cursors")
        } catch {
            throw APIProblem(error)
        }
        secret.withLock { $0 = read }
        return read
    }

    /// The first 16 bytes of the MAC of a cursor's listing and key, for `user`.
    func mac(user: String, listing: String, key: String) throws(APIProblem) -> [UInt8] {
        Array(Crypto.hmacSHA256(key: try self.key(), Array("cursor\n\(user)\n\(listing)\n\(key)".utf8)).prefix(16))
    }

    /// An opaque cursor: the listing's name and the key, and the MAC.
    func cursor(user: String, listing: String, key: String) throws(APIProblem) -> String {
        Base64URL.encode(Array((listing + "\n" + key).utf8)) + "."
            + Base64URL.encode(try mac(user: user, listing: listing, key: key))
    }

    /// The key a cursor holds, when it is one this server gave `user` for `listing`.
    func key(ofCursor cursor: String, user: String, listing: String) throws(APIProblem) -> String? {
        let parts = cursor.split(separator: ".", omittingEmptySubsequences: false)
        guard cursor.utf8.count <= 1_100, parts.count == 2, let payload = Base64URL.decode(parts[0]),
            let tag = Base64URL.decode(parts[1]), let decoded = String(validating: payload, as: UTF8.self),
            decoded.hasPrefix(listing + "\n")
        else { return nil }
        let key = String(decoded.dropFirst(listing.count + 1))
        guard Crypto.constantTimeEqual(tag, try mac(user: user, listing: listing, key: key)) else { return nil }
        return key
    }
}

extension APIContext {
    /// The page a listing named `listing` asks for (`limit`, `cursor` among `parameters`).
    func page(
        _ parameters: [String: String], listing: String, defaultLimit: Int = Page.defaultPageSize,
        maxLimit: Int = Page.maxPageSize
    ) throws(APIProblem) -> Page {
        var page = Page(limit: defaultLimit, after: nil)
        if let text = parameters["limit"] {
            guard let limit = Int(text), (1...maxLimit).contains(limit) else {
                throw APIProblem(.invalidQuery, "limit is a number from 1 to \(maxLimit)", fields: ["limit"])
            }
            page.limit = limit
        }
        if let cursor = parameters["cursor"] {
            guard let key = try cursors.key(ofCursor: cursor, user: principal.user, listing: listing) else {
                throw APIProblem(
                    .invalidQuery, "cursor is not one this listing gave you (follow the next link as it is)",
                    fields: ["cursor"])
            }
            page.after = key
        }
        return page
    }

    /// A page of a listing under `member`: the items (one more than the limit was asked
    /// of the store, to know whether more follow), and `next`, the path of the page after
    /// the last one shown, keeping the request's other parameters.
    func pageAnswer<Item>(
        _ member: String, _ items: [Item], page: Page, listing: String, key: (Item) -> String,
        _ render: (Item) -> JSONValue
    ) throws(APIProblem) -> HTTPResponse {
        let shown = items.prefix(page.limit)
        var next: JSONValue = .null
        if items.count > page.limit, let last = shown.last {
            next = try nextLink(listing: listing, key: key(last), limit: page.limit)
        }
        return json(.object([(member, .array(shown.map(render))), ("next", next)]))
    }

    /// The path of the page after the item with `key`, keeping the request's other parameters.
    func nextLink(listing: String, key: String, limit: Int) throws(APIProblem) -> JSONValue {
        var query = request.queryItems.filter { $0.name != "cursor" && $0.name != "limit" }
        query.append(("limit", String(limit)))
        query.append(("cursor", try cursors.cursor(user: principal.user, listing: listing, key: key)))
        return .string(
            request.path + "?"
                + query.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }.joined(
                    separator: "&"))
    }
}
