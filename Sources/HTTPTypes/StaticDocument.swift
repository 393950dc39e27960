/// A document the server carries in its binary (a stylesheet, a script, the OpenAPI
/// description): its bytes, type and cache policy, and a strong ETag worked out once
/// from the bytes, so a client that has it gets 304.
public struct StaticDocument: Sendable {
    public let bytes: [UInt8]
    public let contentType: String
    public let cacheControl: String
    /// `"` + 64-bit FNV-1a of the bytes in hex + `"`: it changes whenever the bytes do.
    public let etag: String

    public init(bytes: [UInt8], contentType: String, cacheControl: String) {
        self.bytes = bytes
        self.contentType = contentType
        self.cacheControl = cacheControl
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        etag = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// 200 with the document, or 304 when the request's `If-None-Match` names it.
    public func response(to request: HTTPRequest) -> HTTPResponse {
        let headers: HTTPHeaders = ["ETag": etag, "Cache-Control": cacheControl]
        if request.matchesETag(etag) { return HTTPResponse(status: 304, headers: headers) }
        var response = HTTPResponse(status: 200, headers: headers, body: bytes)
        response.headers.set("Content-Type", contentType)
        return response
    }
}

extension HTTPRequest {
    /// Whether `If-None-Match` names `etag` (or is `*`): the client's copy is current.
    public func matchesETag(_ etag: String) -> Bool {
        guard let wanted = headers["If-None-Match"] else { return false }
        return wanted.split(separator: ",").contains { tag in
            let trimmed = tag.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
            return String(trimmed) == etag || String(trimmed) == "*" || String(trimmed) == "W/" + etag
        }
    }
}
