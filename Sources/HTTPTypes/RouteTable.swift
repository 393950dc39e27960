/// A path template: literal segments, `{name}` for any one segment, `{name}.ics` for one
/// that ends in `.ics` (the parameter is the segment without it), and last `{name...}`
/// for whatever follows (none or more segments, as sent: a mount such as `/dav/{path...}`).
public struct RouteTemplate: Sendable, Hashable, CustomStringConvertible {
    enum Part: Sendable, Hashable {
        case literal(String)
        case parameter(name: String, suffix: String)
        case rest(name: String)
    }

    /// The template as written (`/api/v1/calendars/{id}`).
    public let description: String
    let parts: [Part]

    public init(_ text: String) {
        description = text
        parts = text.split(separator: "/").map { part in
            guard part.hasPrefix("{"), let close = part.firstIndex(of: "}") else { return .literal(String(part)) }
            let name = part[part.index(after: part.startIndex)..<close]
            if name.hasSuffix("...") { return .rest(name: String(name.dropLast(3))) }
            return .parameter(name: String(name), suffix: String(part[part.index(after: close)...]))
        }
    }

    /// Whether the template ends in `{name...}`.
    var isMount: Bool {
        if case .rest = parts.last { return true }
        return false
    }

    /// The parameters when `segments` (a %-decoded path split at `/`) fit the template.
    public func match(_ segments: [String]) -> RouteParameters? {
        guard isMount ? segments.count >= parts.count - 1 : parts.count == segments.count else { return nil }
        var parameters = RouteParameters()
        for (index, part) in parts.enumerated() {
            switch part {
            case .literal(let text):
                guard text == segments[index] else { return nil }
            case .parameter(let name, let suffix):
                let segment = segments[index]
                guard segment.hasSuffix(suffix), segment.count > suffix.count else { return nil }
                parameters.values[name] = String(segment.dropLast(suffix.count))
            case .rest(let name):
                parameters.values[name] = segments[index...].joined(separator: "/")
            }
        }
        return parameters
    }

    /// The parameters when `path` (as sent, %-encoded) fits: a mount's fixed parts are
    /// compared decoded and its rest is kept as sent (empty segments and all).
    public func match(path: String) -> RouteParameters? {
        guard isMount else { return Self.segments(of: path).flatMap(match) }
        let raw = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        let fixed = parts.count - 1
        guard raw.count >= fixed else { return nil }
        var decoded: [String] = []
        for segment in raw.prefix(fixed) {
            guard let text = PercentEncoding.decode(segment) else { return nil }
            decoded.append(text)
        }
        guard var parameters = match(decoded) else { return nil }
        if case .rest(let name) = parts[fixed] { parameters.values[name] = raw[fixed...].joined(separator: "/") }
        return parameters
    }

    /// `path` (as sent, %-encoded) split at `/` and decoded (`/` is no segment at all); nil
    /// when a segment is empty or does not decode.
    public static func segments(of path: String) -> [String]? {
        if path == "/" { return [] }
        var result: [String] = []
        for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let segment = PercentEncoding.decode(raw), !segment.isEmpty else { return nil }
            result.append(segment)
        }
        return result
    }
}

/// The values a matched template gave its `{name}` parts.
public struct RouteParameters: Sendable {
    public var values: [String: String] = [:]

    public init() {}

    /// The segment `{name}` matched (its suffix removed); empty for a name the template
    /// does not have, which a route table never asks for.
    public subscript(_ name: String) -> String { values[name] ?? "" }
}

/// Routes by method and path template, in order: the first template that fits a path
/// decides, then its method. What a table cannot answer it says precisely: no template
/// fits (404), or the path's template has no route for the method (405, with the methods
/// it has for `Allow`). HEAD is answered as GET; a route for `*` takes every method.
/// `Payload` is what a protocol keeps per route (its handler, who may call it).
public struct RouteTable<Payload: Sendable>: Sendable {
    public struct Route: Sendable {
        public var method: String
        public var template: RouteTemplate
        public var payload: Payload

        public init(_ method: String, _ template: String, _ payload: Payload) {
            self.method = method
            self.template = RouteTemplate(template)
            self.payload = payload
        }
    }

    /// What the table makes of a request.
    public enum Match: Sendable {
        case found(Route, RouteParameters)
        /// The path's template has routes, but not for this method: these are its methods.
        case methodNotAllowed(allow: [String])
        case notFound
    }

    public let routes: [Route]

    public init(_ routes: [Route]) { self.routes = routes }

    /// The route for `method` at `segments` (a %-decoded path split at `/`).
    public func match(method: String, segments: [String]) -> Match {
        match(method: method) { $0.match(segments) }
    }

    /// The route for `method` at `path` (as sent, %-encoded): a mount's rest is kept as
    /// sent; any other template fits only a path whose segments all decode.
    public func match(method: String, path: String) -> Match {
        let segments = RouteTemplate.segments(of: path)
        return match(method: method) { template in
            template.isMount ? template.match(path: path) : segments.flatMap(template.match)
        }
    }

    private func match(method: String, _ fits: (RouteTemplate) -> RouteParameters?) -> Match {
        var first: (RouteTemplate, RouteParameters)?
        for route in routes {
            if let parameters = fits(route.template) {
                first = (route.template, parameters)
                break
            }
        }
        guard let (template, parameters) = first else { return .notFound }
        let candidates = routes.filter { $0.template == template }
        let wanted = method == "HEAD" ? "GET" : method
        guard let route = candidates.first(where: { $0.method == wanted || $0.method == "*" }) else {
            return .methodNotAllowed(allow: candidates.map(\.method))
        }
        return .found(route, parameters)
    }
}
