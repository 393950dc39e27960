import CalendarStore
import Foundation
import HTTPTypes
import ICalendar

/// Cursor pagination of the API's listings: `limit` (1 to ``maxPageSize``, default
/// ``defaultPageSize``) and `cursor`, and an answer whose `next` is the path of the page
/// after it (null on the last). A cursor names the last item of a page by its sort key,
/// not by its place, so items written or removed meanwhile never make a page skip or
/// repeat one that was there throughout.
struct Page {
    static let defaultPageSize = 100
    static let maxPageSize = 1_000

    var limit: Int
    /// The key the page starts after, as the listing's cursor held it.
    var after: String?

    /// An opaque cursor: the listing's name and the key, base64url, so clients cannot
    /// mistake it for something to build themselves.
    static func cursor(_ listing: String, key: String) -> String {
        Data((listing + "\n" + key).utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func key(ofCursor cursor: String, listing: String) -> String? {
        var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard cursor.utf8.count <= 1_024, let data = Data(base64Encoded: text),
            let decoded = String(data: data, encoding: .utf8), decoded.hasPrefix(listing + "\n")
        else { return nil }
        return String(decoded.dropFirst(listing.count + 1))
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
            guard let key = Page.key(ofCursor: cursor, listing: listing) else {
                throw APIProblem(
                    .invalidQuery, "cursor is not one this listing gave (follow the next link as it is)",
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
    ) -> HTTPResponse {
        let shown = items.prefix(page.limit)
        var next: JSONValue = .null
        if items.count > page.limit, let last = shown.last {
            next = nextLink(listing: listing, key: key(last), limit: page.limit)
        }
        return json(.object([(member, .array(shown.map(render))), ("next", next)]))
    }

    /// The path of the page after the item with `key`, keeping the request's other parameters.
    func nextLink(listing: String, key: String, limit: Int) -> JSONValue {
        var query = request.queryItems.filter { $0.name != "cursor" && $0.name != "limit" }
        query.append(("limit", String(limit)))
        query.append(("cursor", Page.cursor(listing, key: key)))
        return .string(
            request.path + "?"
                + query.map { PercentEncoding.encode($0.name) + "=" + PercentEncoding.encode($0.value) }.joined(
                    separator: "&"))
    }
}
