import Foundation

/// One page of a listing: its items and the link to the next page, if any.
public struct Page<Item: Decodable & Sendable>: Sendable {
    /// The items, in the listing's order.
    public var items: [Item]
    /// The next page's link (`/api/v1/…?cursor=…`), or nil on the last page.
    public var next: String?

    /// A page of `items` followed by `next`.
    public init(items: [Item], next: String?) {
        self.items = items
        self.next = next
    }
}

/// A listing that comes in pages (`{"<items>": […], "next": "/api/v1/…?cursor=…"}`), as
/// an `AsyncSequence` of its items: each page is fetched when the one before has been
/// read, following `next` until a page has none.
///
/// ```swift
/// for try await calendar in client.calendars() { print(calendar.title) }
/// let first = try await client.calendars(pageSize: 50).firstPage()   // one page at a time
/// ```
///
/// Iterating throws ``AlmanacError`` when a page cannot be fetched; the items already
/// returned stay valid.
public struct Pages<Item: Decodable & Sendable>: AsyncSequence, Sendable {
    /// The element type.
    public typealias Element = Item

    /// The client the pages are fetched with.
    public let client: AlmanacClient
    /// The first page's URL.
    public let url: URL
    /// The member of each page holding the items (`calendars`).
    public let itemsKey: String

    /// The pages of `itemsKey` starting at `url`.
    public init(client: AlmanacClient, url: URL, itemsKey: String) {
        self.client = client
        self.url = url
        self.itemsKey = itemsKey
    }

    /// The first page.
    public func firstPage() async throws(AlmanacError) -> Page<Item> {
        try await page(at: url)
    }

    /// The page after `page`, or nil when it was the last.
    public func page(after page: Page<Item>) async throws(AlmanacError) -> Page<Item>? {
        guard let next = page.next else { return nil }
        guard let url = client.url(following: next) else {
            throw AlmanacError(
                .unexpectedAnswer(status: 200, body: Data(next.utf8), reason: "the next link is not a URL"),
                method: "GET", url: self.url)
        }
        return try await self.page(at: url)
    }

    func page(at url: URL) async throws(AlmanacError) -> Page<Item> {
        let answer = try await client.send("GET", url)
        let body = try client.decode(PageBody<Item>.self, from: answer, userInfo: [PageBody<Item>.itemsKey: itemsKey])
        return Page(items: body.items, next: body.next)
    }

    /// An iterator over every item of every page.
    public func makeAsyncIterator() -> Iterator { Iterator(pages: self) }

    /// Fetches the pages one by one, as their items are asked for.
    public struct Iterator: AsyncIteratorProtocol {
        let pages: Pages
        var buffered: [Item] = []
        var index = 0
        /// The page last fetched, nil before the first.
        var current: Page<Item>?
        var finished = false

        init(pages: Pages) { self.pages = pages }

        /// The next item, fetching the next page when this one is used up; nil after the last.
        public mutating func next() async throws -> Item? {
            while index == buffered.count {
                guard !finished else { return nil }
                let page: Page<Item>?
                if let current {
                    page = try await pages.page(after: current)
                } else {
                    page = try await pages.firstPage()
                }
                guard let page else {
                    finished = true
                    return nil
                }
                current = page
                buffered = page.items
                index = 0
                if page.next == nil { finished = true }
            }
            defer { index += 1 }
            return buffered[index]
        }
    }
}

/// A page's body: the items under a member named at decoding time, and `next`.
struct PageBody<Item: Decodable>: Decodable {
    static var itemsKey: CodingUserInfoKey { CodingUserInfoKey(rawValue: "almanac.itemsKey")! }

    var items: [Item]
    var next: String?

    init(from decoder: any Decoder) throws {
        guard let name = decoder.userInfo[Self.itemsKey] as? String else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no items member named"))
        }
        let container = try decoder.container(keyedBy: AnyKey.self)
        items = try container.decode([Item].self, forKey: AnyKey(name))
        next = try container.decodeIfPresent(String.self, forKey: AnyKey("next"))
    }
}
