import Accounts
import CalendarStore
import HTTPTypes
import Scheduling

/// CalDAV (RFC 4791) and the WebDAV it builds on (RFC 4918, 5689, 6578), as a
/// pure function from a signed-in user's request to a response, over the store.
/// No sockets: the server hands it `HTTPRequest` values.
public struct CalDAVHandler: Sendable {
    public let backend: any StoreBackend
    /// The largest calendar object accepted (advertised as `max-resource-size`).
    public let maxResourceSize: Int
    /// Whose principals a signed-in user may see besides their own (an operator's choice).
    public let visiblePrincipals: PrincipalVisibility
    /// The clock (Unix seconds): when an answer was made, for its DTSTAMP.
    public let now: @Sendable () -> Int
    /// Implicit scheduling between the server's users (RFC 6638).
    let scheduling: SchedulingAgent
    /// WebDAV-Push (draft-bitfire-webdav-push): advertised on calendars and registered
    /// with POST when set; nil: the server pushes nothing.
    public var push: WebDAVPushSupport?

    public init(
        backend: any StoreBackend, maxResourceSize: Int = 16 << 20, visiblePrincipals: PrincipalVisibility = .onlySelf,
        mail: (any IMIPSender)? = nil, now: @escaping @Sendable () -> Int
    ) {
        self.backend = backend
        self.maxResourceSize = maxResourceSize
        self.visiblePrincipals = visiblePrincipals
        self.now = now
        scheduling = SchedulingAgent(backend: backend, mail: mail, now: now)
        davHeader = Self.compliance + (mail == nil ? "" : ", calendar-auto-schedule")
    }

    /// Every method the server answers somewhere (``allowed(on:)`` says where).
    static let methods = [
        "OPTIONS", "GET", "HEAD", "PUT", "DELETE", "PROPFIND", "PROPPATCH", "MKCALENDAR", "MKCOL", "REPORT", "COPY",
        "MOVE", "POST",
    ]

    /// The methods a resource of this kind answers: its `Allow` header, on OPTIONS and
    /// on every 405 (RFC 9110 §10.2.1). A method outside it is 405; one inside it that a
    /// precondition refuses is 403. PROPPATCH changes calendars (and the availability on a home and an
    /// inbox); PUT writes only
    /// objects; COPY and MOVE take objects between calendars. MKCALENDAR is answered
    /// everywhere: it makes a calendar at an unmapped calendar path, and elsewhere answers
    /// its preconditions (403 `resource-must-be-null` or `calendar-collection-location-ok`,
    /// RFC 4791 §5.3.1.1). MKCOL makes a calendar only at an unmapped calendar path
    /// (`mapped` false): on a mapped URL it is 405 (RFC 4918 §9.3.1).
    static func allowed(on path: DAVPath, mapped: Bool = true) -> [String] {
        switch path {
        case .root, .principals, .principal: ["OPTIONS", "GET", "HEAD", "PROPFIND", "MKCALENDAR", "REPORT"]
        case .home: ["OPTIONS", "GET", "HEAD", "POST", "PROPFIND", "PROPPATCH", "MKCALENDAR", "REPORT"]
        case .calendar where !mapped: ["OPTIONS", "MKCALENDAR", "MKCOL"]
        case .calendar: ["OPTIONS", "GET", "HEAD", "POST", "DELETE", "PROPFIND", "PROPPATCH", "MKCALENDAR", "REPORT"]
        case .object: ["OPTIONS", "GET", "HEAD", "PUT", "DELETE", "PROPFIND", "MKCALENDAR", "REPORT", "COPY", "MOVE"]
        case .notifications: ["OPTIONS", "GET", "HEAD", "PROPFIND"]
        case .inbox: ["OPTIONS", "GET", "HEAD", "PROPFIND", "PROPPATCH", "REPORT"]
        case .notification, .inboxItem: ["OPTIONS", "GET", "HEAD", "DELETE", "PROPFIND"]
        case .outbox: ["OPTIONS", "POST", "PROPFIND"]
        case .pushRegistration: ["OPTIONS", "DELETE"]
        }
    }

    /// Methods of the WebDAV family (and plain HTTP) the server knows and deliberately
    /// does not support, with what a client should know: answered 405 with `Allow`.
    /// Any other method is not implemented (501).
    static let unsupported: [String: String] = [
        "LOCK": "locking (WebDAV class 2) is not supported; update with If-Match and the ETag instead",
        "UNLOCK": "locking (WebDAV class 2) is not supported; update with If-Match and the ETag instead",
        "POST":
            "POST is answered on a calendar (CS:share, push-register), the calendar home (CS:invite-reply) and the schedule outbox (free-busy requests)",
        "ACL": "the ACL method (RFC 3744) is not supported: each user reads and writes their own calendars",
        "SEARCH": "DASL SEARCH (RFC 5323) is not supported; use a calendar-query REPORT",
        "MKWORKSPACE": "versioning (RFC 3253) is not supported",
        "VERSION-CONTROL": "versioning (RFC 3253) is not supported",
        "CHECKIN": "versioning (RFC 3253) is not supported",
        "CHECKOUT": "versioning (RFC 3253) is not supported",
        "UNCHECKOUT": "versioning (RFC 3253) is not supported",
        "MKACTIVITY": "versioning (RFC 3253) is not supported",
        "BASELINE-CONTROL": "versioning (RFC 3253) is not supported",
        "LABEL": "versioning (RFC 3253) is not supported",
        "MERGE": "versioning (RFC 3253) is not supported",
        "UPDATE": "versioning (RFC 3253) is not supported",
        "ORDERPATCH": "ordered collections (RFC 3648) are not supported",
        "BIND": "bindings (RFC 5842) are not supported",
        "UNBIND": "bindings (RFC 5842) are not supported",
        "REBIND": "bindings (RFC 5842) are not supported",
        "MKREDIRECTREF": "redirect references (RFC 4437) are not supported",
        "UPDATEREDIRECTREF": "redirect references (RFC 4437) are not supported",
        "PATCH": "PATCH is not supported; PUT the whole object",
        "TRACE": "TRACE is not supported",
        "CONNECT": "CONNECT is not supported",
    ]

    /// What the server supports, sent on every DAV response (clients read it from
    /// PROPFIND answers too, not only from OPTIONS). Class 2 (locking), `access-control`
    /// (the ACL method) and `calendar-auto-schedule` (RFC 6638) are deliberately absent.
    static let compliance = "1, 3, calendar-access, extended-mkcol, calendarserver-sharing"

    /// What the `DAV` header says: implicit scheduling (`calendar-auto-schedule`) only when
    /// every attendee can be reached — those outside the server by iMIP mail. Advertised
    /// without, clients would stop sending the invitations nobody else delivers.
    let davHeader: String

    /// The answer to a request that could not be signed in.
    public static func response(for failure: AuthenticationFailure) -> HTTPResponse {
        DAVError(failure).response
    }

    /// Answers `request` for `user` (already authenticated).
    public func respond(to request: HTTPRequest, user: String) -> HTTPResponse {
        respond(to: request, user: user, account: nil)
    }

    /// Answers `request` for a user the server has just read from the store (signing
    /// them in): the store acting for them needs no second lookup. Signed in with an app
    /// password, the request gets what it allows: a read-only one only the methods that
    /// change nothing, one limited to some calendars only those (403 and 404 otherwise).
    public func respond(to request: HTTPRequest, as account: User, appPassword: AccessToken? = nil) -> HTTPResponse {
        respond(to: request, user: account.name, account: account, appPassword: appPassword)
    }

    /// The methods a read-only app password may use.
    static let readMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "PROPFIND", "REPORT"]

    func respond(to request: HTTPRequest, user: String, account: User?, appPassword: AccessToken? = nil)
        -> HTTPResponse
    {
        var response: HTTPResponse
        if let appPassword, appPassword.scope == .read, !Self.readMethods.contains(request.method) {
            response =
                DAVError(
                    403, "this app password (\(appPassword.name)) may only read", dav: "need-privileges"
                ).response
        } else {
            response = answer(
                request, user: user, account: account, calendars: appPassword?.calendars,
                readOnly: appPassword?.scope == .read)
        }
        if response.headers["DAV"] == nil { response.headers.set("DAV", davHeader) }
        // Every 405 says what the resource does answer (RFC 9110 §15.5.6).
        if response.status == 405, response.headers["Allow"] == nil, let path = DAVPath(requestPath: request.path) {
            response.headers.set("Allow", Self.allowed(on: path).joined(separator: ", "))
        }
        return response
    }

    func answer(_ request: HTTPRequest, user: String, account: User?, calendars: [String]?, readOnly: Bool = false)
        -> HTTPResponse
    {
        guard let path = DAVPath(requestPath: request.path) else {
            return .text(404, "404 Not Found: no such resource\n")
        }
        if request.method == "OPTIONS" {
            // Only the user's own calendar paths look in the store (MKCOL or not, below).
            guard case .calendar(let owner, _) = path, owner == user else { return options(path) }
        }
        // Another user's tree is not visible (a calendar shared with the user appears in
        // their own home), except their principal when the operator lets users see each other's.
        if let owner = path.owner, owner != user, !canSee(path, as: user) {
            return .text(404, "404 Not Found: no such resource\n")
        }
        guard Self.methods.contains(request.method) else { return Self.notAllowed(request.method, on: path) }
        // Methods this kind of resource does not answer (PUT on a collection, DELETE of a
        // home, PROPPATCH of an object, COPY of a calendar) are 405 with what it does answer.
        // MKCOL passes, answered by what is at the path: 405 where something is (RFC 4918
        // §9.3.1), a calendar made at an unmapped calendar path, 403 at any other unmapped path.
        if request.method != "MKCOL", !Self.allowed(on: path).contains(request.method),
            !Self.allowed(on: path, mapped: false).contains(request.method)
        {
            return Self.notAllowed(request.method, on: path)
        }
        if calendars != nil {
            // Limited to some calendars, a credential sees the home, those calendars and
            // the principal; the scheduling inbox and outbox and the sharing
            // notifications are the whole account's, so they are not there for it.
            switch path {
            case .notifications, .notification, .inbox, .inboxItem, .outbox:
                return .text(404, "404 Not Found: no such resource for this app password\n")
            case .root, .principals, .principal, .home, .calendar, .object, .pushRegistration: break
            }
        }
        let store: any EventStore
        do {
            if let calendars {
                store = try backend.eventStore(for: user, limitedTo: calendars)
            } else if let account {
                store = try backend.eventStore(for: account)
            } else {
                store = try backend.eventStore(for: user)
            }
        } catch {
            return DAVError(error).response
        }
        if request.method == "OPTIONS" {
            // A calendar path's Allow depends on whether a calendar is there (MKCOL or not).
            guard case .calendar(_, let name) = path else { return options(path) }
            do {
                _ = try store.calendarHandle(named: name)
                return options(path)
            } catch {
                return options(path, mapped: error.code != .notFound)
            }
        }
        let context = DAVContext(
            store: store, user: user, request: request, path: path, handler: self, readOnly: readOnly)
        if let refusal = context.ifHeaderRefusal() { return refusal }
        switch request.method {
        case "PROPFIND": return context.propfind()
        case "PROPPATCH": return context.proppatch()
        case "MKCALENDAR", "MKCOL": return context.makeCalendar()
        case "GET", "HEAD": return context.get()
        case "PUT": return context.put()
        case "DELETE": return context.delete()
        case "COPY", "MOVE": return context.transfer()
        case "REPORT": return context.report()
        case "POST": return context.post()
        default: return Self.notAllowed(request.method, on: path)
        }
    }

    func options(_ path: DAVPath, mapped: Bool = true) -> HTTPResponse {
        HTTPResponse(
            status: 200,
            headers: [
                "DAV": davHeader,
                "Allow": Self.allowed(on: path, mapped: mapped).joined(separator: ", "),
                "Content-Length": "0",
            ])
    }

    /// 405 with `Allow` for a method this resource does not answer (saying why when the
    /// method is a deliberately unsupported one), 501 for a method the server does not know.
    static func notAllowed(_ method: String, on path: DAVPath) -> HTTPResponse {
        let known = methods.contains(method) || unsupported[method] != nil
        let reason =
            unsupported[method]
            ?? (known ? "\(method) is not answered here" : "\(method) is not a method this server implements")
        var response = DAVError(known ? 405 : 501, reason).response
        response.headers.set("Allow", allowed(on: path).joined(separator: ", "))
        return response
    }
}

/// One request being answered: the store acting for the user, the request and its path.
struct DAVContext {
    let store: any EventStore
    let user: String
    let request: HTTPRequest
    let path: DAVPath
    let handler: CalDAVHandler
    /// Signed in with a read-only app password: every privilege it reports is read's.
    var readOnly = false

    var principalHref: String { DAVPath.principal(user: user).href }

    /// The request body as XML whose root is `{namespace}name` (any root when nil), or
    /// the 400 to answer: malformed or hostile XML, or the wrong root element.
    func body(_ namespace: String? = nil, _ name: String? = nil) -> Result<XMLElement, DAVError> {
        let element: XMLElement
        do {
            element = try XMLBody.parse(request.body)
        } catch {
            return .failure(DAVError(400, error.description))
        }
        if let namespace, let name, element.namespace != namespace || element.name != name {
            return .failure(
                DAVError(400, "the body of \(request.method) is a \(name) element"))
        }
        return .success(element)
    }

    /// The calendar a path names, by its collection name, resolved once for the
    /// request: the store calls that follow take the handle.
    func calendar(named name: String) throws(StoreError) -> CalendarHandle {
        try store.calendarHandle(named: name)
    }
}
