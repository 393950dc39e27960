/// A path template: literal segments, `{name}` for any one segment, `{name}.ics` for one
/// that ends in `.ics` (the parameter is the segment without it).
public struct RouteTemplate: Sendable, Hashable, CustomStringConvertible {
    enum Part: Sendable, Hashable {
        case literal(String)
        case parameter(name: String, suffix: String)
    }

    /// The template as written (`/api/v1/calendars/{id}`).
    public let description: String
    let parts: [Part]

    public init(_ text: String) {
        description = text
        parts = text.split(separator: "/").map { part in
            guard part.hasPrefix("{"), let close = part.firstIndex(of: "}") else { return .literal(String(part)) }
            return .parameter(
                name: String(part[part.index(after: part.startIndex)..<close]),
                suffix: String(part[part.index(after: close)...]))
        }
    }

    /// The parameters when `segments` (a %-decoded path split at `/`) fit the template.
    public func match(_ segments: [String]) -> RouteParameters? {
        guard parts.count == segments.count else { return nil }
        var parameters = RouteParameters()
        for (part, segment) in zip(parts, segments) {
            switch part {
            case .literal(let text):
                guard text == segment else { return nil }
            case .parameter(let name, let suffix):
                guard segment.hasSuffix(suffix), segment.count > suffix.count else { return nil }
                parameters.values[name] = String(segment.dropLast(suffix.count))
            }
        }
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
/// it has for `Allow`). HEAD is answered as GET. `Payload` is what a protocol keeps per
/// route (its handler, who may call it).
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
        guard
            let (template, parameters) = routes.lazy.compactMap({ route in
                route.template.match(segments).map { (route.template, $0) }
            }).first
        else { return .notFound }
        let candidates = routes.filter { $0.template == template }
        let wanted = method == "HEAD" ? "GET" : method
        guard let route = candidates.first(where: { $0.method == wanted }) else {
            return .methodNotAllowed(allow: candidates.map(\.method))
        }
        return .found(route, parameters)
    }
}
