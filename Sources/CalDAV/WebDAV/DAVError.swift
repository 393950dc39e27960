import Accounts
import CalendarStore
import HTTPTypes

/// A CalDAV or WebDAV error as a value: its status, the precondition or postcondition
/// it breaks (RFC 4918 §16, RFC 4791 §1.3) and a message for people. It renders its own
/// response: a `DAV:error` body naming the condition (with `detail` inside it, such as
/// the href of a conflicting resource) and the message in Almanac's own `message`
/// element (``DAVNamespace/almanac``), or plain text when there is no condition.
struct DAVError: HTTPResponseError {
    var status: Int
    var message: String
    var precondition: PropertyName?
    /// XML inside the condition's element.
    var detail: String = ""
    var headers: HTTPHeaders = [:]

    init(_ status: Int, _ message: String, precondition: PropertyName? = nil, detail: String = "") {
        self.status = status
        self.message = message
        self.precondition = precondition
        self.detail = detail
    }

    /// A DAV-namespace condition (`DAV:resource-must-be-null`).
    init(_ status: Int, _ message: String, dav condition: String) {
        self.init(status, message, precondition: PropertyName(DAVNamespace.dav, condition))
    }

    /// A CalDAV-namespace condition (`CALDAV:valid-filter`).
    init(_ status: Int, _ message: String, caldav condition: String) {
        self.init(status, message, precondition: PropertyName(DAVNamespace.caldav, condition))
    }

    var response: HTTPResponse {
        var response: HTTPResponse
        if let precondition {
            let body =
                "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:error\(DAVNamespace.declarations)>\(precondition.element(detail))"
                + "<AL:message>\(XMLText.escape(message))</AL:message></D:error>\n"
            response = HTTPResponse(
                status: status, headers: ["Content-Type": "application/xml; charset=utf-8"], body: Array(body.utf8))
        } else {
            response = .text(status, "\(status) \(HTTPStatus.reason(status)): \(message)\n")
        }
        for (name, value) in headers { response.headers.set(name, value) }
        return response
    }

    /// The error a store error calls for; `collectionHref` is where a conflicting UID's
    /// resource lives.
    init(_ error: StoreError, collectionHref: String = "") {
        switch error.code {
        case .notFound: self.init(404, error.message)
        case .forbidden: self.init(403, error.message, dav: "need-privileges")
        case .preconditionFailed: self.init(412, error.message)
        case .uidConflict:
            let href =
                error.conflictingResource.map {
                    "<D:href>\(XMLText.escape(collectionHref + PercentEncoding.encode($0, allowing: DAVPath.segmentCharacters)))</D:href>"
                } ?? ""
            self.init(
                403, error.message, precondition: PropertyName(DAVNamespace.caldav, "no-uid-conflict"), detail: href)
        case .invalidCalendarData: self.init(403, error.message, caldav: "valid-calendar-data")
        case .invalidCalendarObject: self.init(403, error.message, caldav: "valid-calendar-object-resource")
        case .unsupportedComponent: self.init(403, error.message, caldav: "supported-calendar-component")
        case .invalidSyncToken: self.init(403, error.message, dav: "valid-sync-token")
        case .invalidArgument: self.init(400, error.message)
        // A postcondition the answer cannot meet (RFC 4791 §7.8, §1.3: 403 with its element).
        case .expansionLimit: self.init(403, error.message, dav: "number-of-matches-within-limits")
        case .alreadyExists: self.init(405, error.message, dav: "resource-must-be-null")
        case .slotTaken: self.init(409, error.message)
        case .database:
            error.logDetails()
            self.init(503, error.clientMessage)
            headers.set("Retry-After", "5")
        case .insufficientStorage:
            // RFC 4918 §9.7.1: 507 for a PUT the server has no room for.
            error.logDetails()
            self.init(507, error.message, dav: "quota-not-exceeded")
        }
    }

    /// A failed sign-in, as CalDAV clients expect it: plain text, with the Basic
    /// challenge whenever credentials would help, and when to try again.
    init(_ failure: AuthenticationFailure) {
        self.init(failure.status, failure.message)
        if failure.asksForCredentials { headers.set("WWW-Authenticate", AuthenticationFailure.basicChallenge) }
        if let wait = failure.retryAfter { headers.set("Retry-After", String(wait)) }
    }
}
