import HTTPTypes

/// Where things live under the DAV root:
///
///     /dav/                                  root
///     /dav/principals/                       the principal collection (RFC 3744 §5.8)
///     /dav/principals/USER/                  a user's principal
///     /dav/calendars/USER/                   a user's calendar home
///     /dav/calendars/USER/CALENDAR/          a calendar collection
///     /dav/calendars/USER/CALENDAR/RESOURCE  a calendar object resource
///     /dav/notifications/USER/               a user's sharing notifications (CalendarServer)
///     /dav/notifications/USER/NAME           one notification (`<uid>.xml`)
///     /dav/inbox/USER/                       a user's scheduling inbox (RFC 6638 §2.2)
///     /dav/inbox/USER/NAME                   one iTIP message delivered to them
///     /dav/outbox/USER/                      a user's scheduling outbox (§2.1): free-busy POST
///     /dav/push/USER/ID                      a WebDAV-Push registration (DELETE unregisters)
public enum DAVPath: Equatable, Sendable {
    case root
    case principals
    case principal(user: String)
    case home(user: String)
    case calendar(user: String, name: String)
    case object(user: String, calendar: String, name: String)
    case notifications(user: String)
    case notification(user: String, name: String)
    case inbox(user: String)
    case inboxItem(user: String, name: String)
    case outbox(user: String)
    case pushRegistration(user: String, id: String)

    public static let rootPath = "/dav/"

    /// Reads a request path (still %-encoded); nil for a path outside the tree or with
    /// `.`/`..` segments or a malformed escape. Every spelling of a path names the same
    /// resource: escapes in either case or of characters that need none (`%40`, `%7E`,
    /// `%7e`), doubled slashes and a missing trailing slash; ``href`` is its one spelling.
    /// An absolute URL (`http://host/dav/…`, as a multiget may name its members) reads as
    /// its path.
    public init?(requestPath: String) {
        // Byte-wise: the path is ASCII but for its escapes, and Character work costs more than the rest.
        // A path starts with "/"; only something else can be a URL, its scheme before any "/".
        if requestPath.utf8.first != UInt8(ascii: "/"), let scheme = requestPath.utf8.firstRange(of: "://".utf8),
            !requestPath.utf8[..<scheme.lowerBound].contains(UInt8(ascii: "/"))
        {
            let authorityAndPath = requestPath[scheme.upperBound...]
            guard let slash = authorityAndPath.firstIndex(of: "/") else { return nil }
            self.init(requestPath: String(authorityAndPath[slash...]))
            return
        }
        // The server's own root answers as the DAV root too (clients start discovery there).
        if requestPath == "/" {
            self = .root
            return
        }
        guard requestPath.hasPrefix(Self.rootPath) || requestPath == "/dav" else { return nil }
        let rest = Substring(requestPath.utf8.dropFirst(Self.rootPath.utf8.count))
        var segments: [String] = []
        for raw in rest.split(separator: "/", omittingEmptySubsequences: true) {
            guard let segment = PercentEncoding.decode(raw), segment != ".", segment != "..", !segment.isEmpty,
                !segment.contains("/")
            else {
                return nil
            }
            segments.append(segment)
        }
        switch segments.count {
        case 0: self = .root
        case 1 where segments[0] == "principals": self = .principals
        case 2 where segments[0] == "principals": self = .principal(user: segments[1])
        case 2 where segments[0] == "calendars": self = .home(user: segments[1])
        case 3 where segments[0] == "calendars": self = .calendar(user: segments[1], name: segments[2])
        case 4 where segments[0] == "calendars":
            self = .object(user: segments[1], calendar: segments[2], name: segments[3])
        case 2 where segments[0] == "notifications": self = .notifications(user: segments[1])
        case 3 where segments[0] == "notifications": self = .notification(user: segments[1], name: segments[2])
        case 2 where segments[0] == "inbox": self = .inbox(user: segments[1])
        case 3 where segments[0] == "inbox": self = .inboxItem(user: segments[1], name: segments[2])
        case 2 where segments[0] == "outbox": self = .outbox(user: segments[1])
        case 3 where segments[0] == "push": self = .pushRegistration(user: segments[1], id: segments[2])
        default: return nil
        }
    }

    /// The href clients see, %-encoded, with a trailing slash on collections.
    /// Sub-delimiters and `@`/`:` stay as they are in path segments (RFC 3986 §3.3).
    static let segmentCharacters = Set("@:+,;=!$&'()*".utf8)

    public var href: String {
        func encode(_ segment: String) -> String { PercentEncoding.encode(segment, allowing: Self.segmentCharacters) }
        switch self {
        case .root: return Self.rootPath
        case .principals: return Self.rootPath + "principals/"
        case .principal(let user): return Self.rootPath + "principals/" + encode(user) + "/"
        case .home(let user): return Self.rootPath + "calendars/" + encode(user) + "/"
        case .calendar(let user, let name):
            return Self.rootPath + "calendars/" + encode(user) + "/" + encode(name) + "/"
        case .object(let user, let calendar, let name):
            return Self.rootPath + "calendars/" + encode(user) + "/" + encode(calendar) + "/" + encode(name)
        case .notifications(let user): return Self.rootPath + "notifications/" + encode(user) + "/"
        case .notification(let user, let name):
            return Self.rootPath + "notifications/" + encode(user) + "/" + encode(name)
        case .inbox(let user): return Self.rootPath + "inbox/" + encode(user) + "/"
        case .inboxItem(let user, let name): return Self.rootPath + "inbox/" + encode(user) + "/" + encode(name)
        case .outbox(let user): return Self.rootPath + "outbox/" + encode(user) + "/"
        case .pushRegistration(let user, let id): return Self.rootPath + "push/" + encode(user) + "/" + encode(id)
        }
    }

    /// The user whose tree this is (nil for the root).
    var owner: String? {
        switch self {
        case .root, .principals: nil
        case .principal(let user), .home(let user), .calendar(let user, _), .object(let user, _, _),
            .notifications(let user), .notification(let user, _), .inbox(let user), .inboxItem(let user, _),
            .outbox(let user), .pushRegistration(let user, _):
            user
        }
    }
}
