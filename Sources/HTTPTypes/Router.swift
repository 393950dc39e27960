/// Sends each request to the first route whose path matches: an exact path, or a
/// prefix (`/dav/` and everything under it). A path that matches with the wrong
/// method gets 405 with `Allow`; no match gets 404.
public struct Router: Sendable {
    struct Route: Sendable {
        var methods: Set<String>?
        var path: String
        var isPrefix: Bool
        var responder: HTTPResponder

        func matches(_ path: String) -> Bool { isPrefix ? path.hasPrefix(self.path) : path == self.path }
    }

    private var routes: [Route] = []

    public init() {}

    /// Routes `path` exactly, for `methods` (any method when nil).
    public mutating func add(_ path: String, methods: Set<String>? = nil, _ responder: @escaping HTTPResponder) {
        routes.append(Route(methods: methods, path: path, isPrefix: false, responder: responder))
    }

    /// Routes every path that starts with `prefix`, for `methods` (any method when nil).
    public mutating func addPrefix(_ prefix: String, methods: Set<String>? = nil, _ responder: @escaping HTTPResponder)
    {
        routes.append(Route(methods: methods, path: prefix, isPrefix: true, responder: responder))
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var allowed: Set<String> = []
        for route in routes where route.matches(request.path) {
            guard let methods = route.methods else { return route.responder(request) }
            if methods.contains(request.method) { return route.responder(request) }
            allowed.formUnion(methods)
        }
        if !allowed.isEmpty {
            return .text(405, "405 Method Not Allowed\n", headers: ["Allow": allowed.sorted().joined(separator: ", ")])
        }
        return .text(404, "404 Not Found\n")
    }

    /// The router as a responder.
    public var responder: HTTPResponder {
        let router = self
        return { router.respond(to: $0) }
    }
}
